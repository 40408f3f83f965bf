package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's connection limits (security review turn 3, T3-5) on the command line: listed in
 * --help with their defaults, and a value out of range refused naming the option before anything
 * starts.
 */
@org.junit.jupiter.api.Tag("integration")
class CoordinatorConnectionOptionsCliTest {
  @Test
  void theConnectionLimitsAreDocumentedAndCheckedNamingTheOption(@TempDir Path dir) throws Exception {
    Cli help = Cli.run("coordinator", "--help");
    assertEquals(0, help.exit, help.toString());
    for (String option : new String[] {"--max-connections", "--max-handshakes-per-address",
        "--handshake-start-seconds"}) {
      assertTrue(help.out.contains(option), option + " missing from " + help.out);
    }
    assertTrue(help.out.contains("at least 1024") && help.out.contains("at least 64"), help.out);

    Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "1");
    Path yaml = NetworkCliTest.session(dir, Loopback.freePort(), "");
    String[][] cases = {
      {"--handshake-start-seconds", "0", "--handshake-start-seconds must be in [1, 10]"},
      {"--handshake-start-seconds", "11", "--handshake-start-seconds must be in [1, 10]"},
      {"--max-connections", "0", "--max-connections must be at least 1"},
      {"--max-handshakes-per-address", "-3", "--max-handshakes-per-address must be at least 1"},
    };
    for (String[] c : cases) {
      Cli bad = Cli.run("coordinator", "--config", yaml.toString(), "--status-listen", "none", c[0], c[1]);
      assertEquals(Main.INVALID_INPUT, bad.exit, bad.toString());
      assertTrue(bad.errorLine().contains(c[2]), bad.err);
    }
  }
}
