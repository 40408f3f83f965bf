package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import org.junit.jupiter.api.Test;

/**
 * {@code participant --wait}: how long a participant waits for its coordinator (issue 21, item 2),
 * checked before any work and said in words while it waits.
 */
@org.junit.jupiter.api.Tag("integration")
class ParticipantWaitCliTest {
  @Test
  void aWaitOutOfRangeIsRefusedBeforeAnyWork() {
    Cli c = Cli.run("participant", "--coordinator", "127.0.0.1:1", "--data", "no-such-file.csv", "--plaintext",
        "--wait", "-1");
    assertEquals(2, c.exit, c.toString());
    assertTrue(c.err.contains("--wait must be 0 to 86400 seconds. Provided value: -1"), c.err);
  }

  @Test
  void aParticipantSaysWhatItWaitsForAndGivesUpWhenTheWaitIsOver() throws Exception {
    int port = Loopback.freePort(); // nothing listens there
    Cli c = Cli.run("participant", "--coordinator", "127.0.0.1:" + port, "--data",
        TestData.path("iris.csv").toString(), "--skip-rows", "1", "--plaintext", "--wait", "3", "--no-ledger");
    assertEquals(Main.SESSION_FAILED, c.exit, c.toString());
    assertTrue(c.err.contains("the coordinator at 127.0.0.1:" + port + " does not answer")
        && c.err.contains("connection refused: nothing listens there") && c.err.contains("trying again in 1 s"), c.err);
    assertTrue(c.err.contains("gave up after waiting 3 s (--wait)"), c.err);
  }

  /** A trusted compute node is named by its certificate's digest only: '*' (any node) is refused (T3-2). */
  @Test
  void aTrustedNodeMustBeACertificateDigest() {
    Cli c = Cli.run("participant", "--coordinator", "127.0.0.1:1", "--data", TestData.path("iris.csv").toString(),
        "--skip-rows", "1", "--plaintext", "--no-ledger", "--trusted-node", "*");
    assertEquals(2, c.exit, c.toString());
    assertTrue(c.err.contains("--trusted-node takes the SHA-256"), c.err);
  }
}
