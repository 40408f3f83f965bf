package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-1 (built on its {@code WaitReReleasePocTest}): a coordinator that takes
 * the sum and then drops every participant's stream instead of sending the Outcome, and opens a new
 * session on the same port, collected one release per session from a single {@code Participant.run}
 * (four from one run that reported eps 1). Now a run sends input in no more sessions than its
 * ledger has room for, and without a ledger in one only; it reports the whole run's eps. Three
 * participants of the digits, eps 1 per session, the coordinator restarted up to three times.
 */
@org.junit.jupiter.api.Tag("integration")
class ReReleaseAcrossSessionsTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 3;

  /** Without a ledger: the first lost session that carried input ends the run. */
  @Test
  void withoutALedgerARunSendsInputInOneSessionOnly(@TempDir Path dir) throws Exception {
    Outcome o = run(dir, k -> null, 3);
    for (int i = 0; i < W; i++) {
      assertEquals(1, o.inputs.get(i), "participant " + i + " sent input in more than one session");
      ExecutionException e = assertInstanceOf(ExecutionException.class, o.results.get(i));
      assertTrue(e.getCause().getMessage().contains("runs without a ledger, so it joins no further session"),
          e.getCause().getMessage());
    }
  }

  /**
   * Without a ledger, when the coordinator answers with a refusal after taking the sum (in place of
   * the Outcome, once its next session is up): the run stops too (the turn-3 attacker's read of this
   * fix collected four releases this way).
   */
  @Test
  void withoutALedgerARefusalAfterTheSumEndsTheRunToo(@TempDir Path dir) throws Exception {
    Outcome o = run(dir, k -> null, 3, true);
    for (int i = 0; i < W; i++) {
      assertEquals(1, o.inputs.get(i), "participant " + i + " sent input in more than one session");
      ExecutionException e = assertInstanceOf(ExecutionException.class, o.results.get(i));
      assertTrue(e.getCause().getMessage().contains("was refused") && e.getCause().getMessage().contains(
          "runs without a ledger, so it joins no further session"), e.getCause().getMessage());
    }
  }

  /**
   * A ledger with room for two sessions (budget 2.5, eps 1 each): the run sends input in two
   * sessions, its ledger refuses the third, and the ledger holds both, spent.
   */
  @Test
  void aLedgerLetsARunSendInputInAsManySessionsAsItsBudgetHolds(@TempDir Path dir) throws Exception {
    Outcome o = run(dir, k -> new LocalLedger(dir.resolve("ledger-" + k + ".json"), 2.5, 1e-4), 3);
    for (int i = 0; i < W; i++) {
      assertEquals(2, o.inputs.get(i), "participant " + i);
      ExecutionException e = assertInstanceOf(ExecutionException.class, o.results.get(i));
      assertTrue(e.getCause().getMessage().contains("the local budget (eps = 2.5"), e.getCause().getMessage());
      LocalLedger book = new LocalLedger(dir.resolve("ledger-" + i + ".json"), 2.5, 1e-4);
      assertEquals(2, book.entries().stream().filter(n -> n.path("status").asText().equals("spent")).count(),
          book.entries().toString());
      assertTrue(book.used()[0].doubleValue() <= 2.0 + 1e-9, "spent " + book.used()[0]);
    }
  }

  /**
   * A run whose second session completes reports both: the session's eps and the run's total over
   * the two sessions it sent input in.
   */
  @Test
  void aRunThatCompletesAfterARestartReportsItsTotal(@TempDir Path dir) throws Exception {
    Outcome o = run(dir, k -> new LocalLedger(dir.resolve("ledger-" + k + ".json"), 2.5, 1e-4), 1);
    for (int i = 0; i < W; i++) {
      assertEquals(2, o.inputs.get(i));
      Participant.Result r = (Participant.Result) o.results.get(i);
      assertTrue(r.completed(), r.reason());
      assertEquals(2, r.sessionsWithInputs());
      assertTrue(r.epsilon() > 0.9 && r.epsilon() <= 1.0 + 1e-9, "session eps " + r.epsilon());
      assertTrue(r.runEpsilon() > 1.8 && r.runEpsilon() <= 2.0 + 1e-9, "run eps " + r.runEpsilon());
    }
  }

  private record Outcome(AtomicIntegerArray inputs, List<Object> results) {}

  /**
   * Runs the participants against a coordinator that drops the streams after each of the first
   * {@code drops} sessions' sums, restarting it each time (bounded: each wait is at most 120 s).
   * Each element of {@code results} is the participant's Result, or the ExecutionException it
   * ended with.
   */
  private static Outcome run(Path dir, java.util.function.IntFunction<LocalLedger> ledgers, int drops)
      throws Exception {
    return run(dir, ledgers, drops, false);
  }

  /**
   * As above; with {@code refuse} the coordinator, having the sum, first opens its next session and
   * then answers the old stream with a refusal in place of the Outcome (the attacker's read of this
   * fix: the refusal path rejoined too).
   */
  private static Outcome run(Path dir, java.util.function.IntFunction<LocalLedger> ledgers, int drops, boolean refuse)
      throws Exception {
    SessionConfig config = Loopback.config(DIGITS, W, W, 1.0).build();
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    List<Dataset> shards = Loopback.shards(DIGITS, W, 60, 9);
    AtomicInteger session = new AtomicInteger(0);
    AtomicInteger started = new AtomicInteger(0); // coordinators restarted so far
    AtomicIntegerArray inputs = new AtomicIntegerArray(W);
    ExecutorService pool = Executors.newFixedThreadPool(W);
    List<Future<Participant.Result>> fs = new ArrayList<>();
    Coordinator c = Coordinator.start(Loopback.onPort(Loopback.inProcess(config, dir.resolve("s0"), null, 1e6), port));
    try {
      for (int i = 0; i < W; i++) {
        int k = i;
        Participant.Hook hook = new Participant.Hook() {
          final ThreadLocal<Boolean> refusing = ThreadLocal.withInitial(() -> false);

          @Override
          public void received(CoordinatorMessage m, io.grpc.ManagedChannel ch) throws Participant.ParticipantException {
            refusing.set(false);
            int s = session.get();
            if (m.hasOutcome() && s < drops && !refuse) {
              // the coordinator kept the sum; the participant sees its stream lost instead of the Outcome
              throw new CoordinatorLink.Lost("lost the coordinator (UNAVAILABLE) after this party sent 1 round(s) "
                  + "of input", null);
            }
            if (m.hasOutcome() && s < drops) {
              long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
              while (started.get() <= s && System.nanoTime() < until) { // its next session is up first
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
              refusing.set(true);
            }
          }

          @Override
          public CoordinatorMessage rewrite(CoordinatorMessage m) {
            return refusing.get() ? CoordinatorMessage.newBuilder().setRefused(dev.helmet.transport.wire.Refused
                .newBuilder().setReason("restarted")).build() : m;
          }

          @Override
          public List<ParticipantMessage> sending(ParticipantMessage m) {
            if (m.hasMaskedInput()) {
              inputs.incrementAndGet(k);
            }
            return List.of(m);
          }
        };
        fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + port, null,
            ParticipantPolicy.upTo(1.0), shards.get(k), 11L + k, 120, ledgers.apply(k)).waiting(30)
            .withTransport(Loopback.IN_PROCESS), hook,
            (kind, fields) -> { })));
      }
      for (int s = 0; s <= drops; s++) {
        Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
        c.close();
        if (!r.completed() || s == drops) {
          break; // the participants stayed away: the session could not complete
        }
        session.incrementAndGet();
        c = Coordinator.start(Loopback.onPort(Loopback.inProcess(config, dir.resolve("s" + (s + 1)), null, 1e6),
            port));
        started.incrementAndGet();
        Coordinator current = c;
        if (allDone(fs, () -> finished(current))) {
          break;
        }
      }
      List<Object> results = new ArrayList<>();
      for (Future<Participant.Result> f : fs) {
        try {
          results.add(f.get(150, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          results.add(e);
        }
      }
      return new Outcome(inputs, results);
    } finally {
      c.close();
      pool.shutdownNow();
    }
  }

  /**
   * Whether every participant has stopped, polled for up to 60 s, or false as soon as the current
   * session has finished (the participants then wait for the next one): a participant that lost its
   * coordinator polls for the next session with a backoff of up to 10 s, and one the new session's
   * ledger refuses must see that session before it stops (a 10 s poll closed the session first on a
   * loaded machine, and the participant then only found no coordinator).
   */
  private static boolean allDone(List<Future<Participant.Result>> fs, java.util.function.BooleanSupplier finished)
      throws InterruptedException {
    for (int t = 0; t < 300; t++) {
      if (fs.stream().allMatch(Future::isDone)) {
        return true;
      }
      if (finished.getAsBoolean()) {
        return false;
      }
      Thread.sleep(200);
    }
    return false;
  }

  private static boolean finished(Coordinator c) {
    try {
      c.await(1, TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
