package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalLedgerTest {
  @Test
  void reservesSettlesAndRefusesPastTheBudget(@TempDir Path dir) {
    LocalLedger l = new LocalLedger(dir.resolve("ledger.json"), 1.0, 1e-4);
    assertNull(l.reserve("a", 0.1, 1e-5));
    assertNull(l.reserve("b", 0.2, 1e-5));
    l.settle("b", false, 0, 0); // aborted: refunded
    assertNull(l.reserve("c", 0.7, 1e-5));
    l.settle("c", true, 0.65, 1e-5); // released: the achieved eps is charged
    assertEquals(0, l.used()[0].compareTo(new BigDecimal("0.75")));
    String why = l.reserve("d", 0.3, 1e-5);
    assertTrue(why != null && why.contains("has (eps = 0.75"), why);
    // A participant that never heard the outcome keeps its reservation ("a" above).
    assertNull(l.reserve("e", 0.25, 1e-5)); // 0.1 + 0.65 + 0.25 = 1 exactly: decimal sums fit
    assertTrue(Files.exists(dir.resolve("ledger.json")));
  }

  @Test
  void aMalformedLedgerIsRefusedNamingTheFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("ledger.json");
    Files.writeString(f, "{\"not\": \"a list\"}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LocalLedger(f, 1, 1e-4).used());
    assertTrue(e.getMessage().contains("ledger.json"), e.getMessage());
  }

  /** Participants charge their own ledgers; a later session beyond a participant's budget is refused by it. */
  @Test
  void participantsChargeTheirOwnLedgers(@TempDir Path dir) throws Exception {
    Dataset digits = TestData.digits();
    var config = Loopback.config(digits, 3, 3, 1e6).build();
    List<LocalLedger> ledgers = List.of(new LocalLedger(dir.resolve("l0.json"), 1.5e6, 1e-4),
        new LocalLedger(dir.resolve("l1.json"), 1.5e6, 1e-4), new LocalLedger(dir.resolve("l2.json"), 1.5e6, 1e-4));
    List<Dataset> shards = Loopback.shards(digits, 3, 50, 1);
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 1e7))) {
      java.util.List<Participant.Result> results = new java.util.ArrayList<>();
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
      try {
        var fs = new java.util.ArrayList<java.util.concurrent.Future<Participant.Result>>();
        for (int i = 0; i < 3; i++) {
          int k = i;
          fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + c.port(), null,
              Participant.Policy.upTo(1e7), shards.get(k), null, 60, ledgers.get(k)))));
        }
        for (var f : fs) {
          results.add(f.get(120, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (LocalLedger l : ledgers) {
        assertEquals(0, l.used()[0].compareTo(BigDecimal.valueOf(r.epsilon())), "charged the achieved eps");
      }
    }
    // The next session of eps 1e6 would exceed each participant's 1.5e6: refused before anything is sent.
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir.resolve("second"), null, 1e7))) {
      Participant.ParticipantException e = assertThrows(Participant.ParticipantException.class,
          () -> Participant.run(new Participant.Settings("127.0.0.1:" + c.port(), null, Participant.Policy.upTo(1e7),
              shards.get(0), null, 30, ledgers.get(0))));
      assertTrue(e.getMessage().contains("the local budget"), e.getMessage());
    }
  }
}
