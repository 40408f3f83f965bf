package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.LocalSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A participant's default ledger is named after its records ({@link LocalDataKey}) under a key that
 * stays on its machine ({@link LocalSecret}); the attacker's read of the turn-3 ledger fix found two
 * ways to get a second, empty ledger for the same data: reordering the rows, and two first runs
 * racing to make the key (a rename replaced the winner's key in 39 of 300 races).
 */
class LocalDataKeyTest {
  @Test
  void theSameRecordsInAnotherOrderHaveTheSameKeyAndOtherRecordsAnother(@TempDir Path dir) {
    Dataset digits = TestData.digits();
    Path key = dir.resolve("ledgers.key");
    int n = digits.size();
    int[] reversed = new int[n];
    int[] fewer = new int[n - 1];
    int[] all = new int[n];
    for (int i = 0; i < n; i++) {
      reversed[i] = n - 1 - i;
      all[i] = i;
      if (i < n - 1) {
        fewer[i] = i;
      }
    }
    String k = LocalDataKey.of(key, digits);
    assertTrue(k.matches("[0-9a-f]{32}"), k);
    assertEquals(k, LocalDataKey.of(key, digits.subset(all, "renamed")), "another name");
    assertEquals(k, LocalDataKey.of(key, digits.subset(reversed, "reversed")), "another order");
    assertNotEquals(k, LocalDataKey.of(key, digits.subset(fewer, "one fewer")), "one record fewer");
    assertNotEquals(k, LocalDataKey.of(dir.resolve("other.key"), digits), "another machine's key");
  }

  @Test
  void runsThatMakeTheKeyTogetherAllUseTheFirstOne(@TempDir Path dir) throws Exception {
    for (int t = 0; t < 100; t++) {
      Path file = dir.resolve("key-" + t);
      CountDownLatch go = new CountDownLatch(1);
      List<byte[]> got = java.util.Collections.synchronizedList(new ArrayList<>());
      List<Thread> threads = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        Thread th = new Thread(() -> {
          try {
            go.await();
            got.add(LocalSecret.of(file));
          } catch (Exception e) {
            got.add(new byte[0]);
          }
        });
        th.start();
        threads.add(th);
      }
      go.countDown();
      for (Thread th : threads) {
        th.join(30_000);
      }
      byte[] onDisk = Files.readAllBytes(file);
      assertEquals(32, onDisk.length);
      for (byte[] k : got) {
        assertArrayEquals(onDisk, k, "race " + t + ": a run used a key that is not the one on disk");
      }
    }
  }
}
