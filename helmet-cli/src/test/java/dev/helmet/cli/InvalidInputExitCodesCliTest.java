package dev.helmet.cli;

import static dev.helmet.cli.CliAssertions.assertInvalid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.Certificates;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invalid input exits 2 with one line naming the problem, as the README's exit codes say (issue 47
 * item 7): a participant's policy numbers, plaintext off loopback, its own certificate expired or
 * of the wrong role, local data that does not fit the session; and in `train`, --classes for a
 * built-in set. Exit 4 stays for sessions refused by a policy or aborted. Also the hints those
 * errors and warnings give: a label so rare it is likely a typo, too many parties for the rows.
 */
@org.junit.jupiter.api.Tag("integration")
class InvalidInputExitCodesCliTest {
  @TempDir Path dir;

  private static String iris() {
    return TestData.path("iris.csv").toString();
  }

  /** A participant's arguments before anything connects: nothing listens on port 1. */
  private static String[] participant(String... extra) {
    List<String> args = new ArrayList<>(List.of("participant", "--coordinator", "127.0.0.1:1", "--data", iris(),
        "--skip-rows", "1", "--no-ledger", "--wait", "0"));
    args.addAll(List.of(extra));
    return args.toArray(new String[0]);
  }

  /** Refused before it connects: exit 2, one error line, and no attempt to reach the coordinator. */
  private static void refusedUpFront(Cli c, String expected) {
    assertInvalid(c, expected);
    assertFalse(c.err.contains("connecting to the coordinator"), c.err);
  }

  @Test
  void aPolicyNumberOutOfRangeIsRefusedWhenTheOptionsAreReadNamingTheFlag() {
    String[][] cases = {
        {"--max-epsilon", "-1", "--max-epsilon must be > 0 and finite. Provided value: -1"},
        {"--max-epsilon", "NaN", "--max-epsilon must be > 0 and finite. Provided value: NaN"},
        {"--max-epsilon", "Infinity", "--max-epsilon must be > 0 and finite"},
        {"--budget-epsilon", "0", "--budget-epsilon must be > 0 and finite"},
        {"--max-delta", "-1e-5", "--max-delta must be in [0, 1). Provided value: -1e-5"},
        {"--max-delta", "NaN", "--max-delta must be in [0, 1)"},
        {"--budget-delta", "2", "--budget-delta must be in [0, 1]"},
        {"--honest-fraction", "0", "--honest-fraction must be in (0, 1]"},
        {"--min-honest-fraction", "1.5", "--honest-fraction must be in (0, 1]. Provided value: 1.5"},
        {"--min-contributors", "0", "--min-contributors must be >= 1. Provided value: 0"},
        {"--max-colluders", "-2", "--max-colluders must be >= 0"},
        {"--max-points", "0", "--max-points must be >= 1"},
        {"--shard-size", "0", "--shard-size must be >= 1"},
    };
    for (String[] k : cases) {
      refusedUpFront(Cli.run(participant("--plaintext", k[0], k[1])), k[2]);
    }
  }

  @Test
  void plaintextToAnAddressOffLoopbackIsInvalidInputNotARefusedSession() {
    Cli c = Cli.run("participant", "--coordinator", "10.77.0.1:7443", "--data", iris(), "--skip-rows", "1",
        "--no-ledger", "--plaintext");
    refusedUpFront(c, "--plaintext is for loopback tests only; 10.77.0.1:7443 is not a loopback address");
    assertTrue(c.errorLine().contains("--tls-dir"), c.err);
  }

  /**
   * Its own certificate is checked before it connects: expired, a coordinator's (serverAuth only)
   * or a compute node's each get a line naming the file and the way to a new one, where the
   * participant used to see a raw OpenSslException (SSLV3_ALERT_CERTIFICATE_EXPIRED).
   */
  @Test
  void anExpiredOrWrongRoleCertificateIsNamedBeforeConnecting() throws Exception {
    Path certs = dir.resolve("certs");
    assertEquals(0, Cli.run("certs", "--out", certs.toString(), "--participants", "1", "--compute-nodes", "1").exit);
    Path old = dir.resolve("old");
    // Valid from a minute ago until 30 s ago.
    Certificates.create(old, List.of("127.0.0.1"), 1, Duration.ofSeconds(-30));

    Cli expired = Cli.run(participant("--tls-dir", old.toString(), "--name", "participant-1"));
    refusedUpFront(expired, "this participant's certificate " + old.resolve("participant-1.pem"));
    assertTrue(expired.errorLine().contains("expired at") && expired.errorLine().contains("helmet certs sign --role "
        + "participant"), expired.err);

    Cli coordinatorsCertificate = Cli.run(participant("--cert", certs.resolve("coordinator.pem").toString(), "--key",
        certs.resolve("coordinator-key.pem").toString(), "--ca", certs.resolve("ca.pem").toString()));
    refusedUpFront(coordinatorsCertificate, certs.resolve("coordinator.pem") + " (CN=");
    assertTrue(coordinatorsCertificate.errorLine().contains("does not allow TLS client authentication (extended key "
        + "usage serverAuth only: a coordinator's certificate)"), coordinatorsCertificate.err);

    Cli node = Cli.run(participant("--tls-dir", certs.toString(), "--name", "compute-node-1"));
    refusedUpFront(node, "is a compute node's certificate (OU=compute-node), not a participant's");
  }

  /**
   * Local data that does not fit the published session (6 features for 4, a label the session does
   * not list) is invalid input, exit 2, where it used to be a refused session (exit 4); a policy
   * refusal stays exit 4. The session then runs with three fitting participants.
   */
  @Test
  void localDataThatDoesNotFitTheSessionExitsTwoAndAPolicyRefusalFour() throws Exception {
    Path certs = dir.resolve("certs");
    assertEquals(0, Cli.run("certs", "--out", certs.toString(), "--participants", "3").exit);
    int port = Loopback.freePort();
    Path yaml = NetworkCliTest.session(dir, port, "");
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json"));
    List<String> rows = Files.readAllLines(Path.of(iris())).subList(1, 151);
    Path six = Files.write(dir.resolve("six.csv"), rows.stream().map(r -> "1.0,2.0," + r).toList());
    List<String> typo = new ArrayList<>(rows);
    typo.set(10, typo.get(10).replaceFirst(",0$", ",7"));
    Path label7 = Files.write(dir.resolve("label7.csv"), typo);

    String[] common = {"--coordinator", "127.0.0.1:" + port, "--tls-dir", certs.toString(), "--name",
        "participant-1", "--no-ledger", "--min-contributors", "3", "--honest-fraction", "1"};
    Cli wide = Loopback.onceReachable(concat(common, "participant", "--data", six.toString()));
    assertInvalid(wide, "the local data has 6 features; session ");
    assertTrue(wide.errorLine().endsWith("expects 4"), wide.err);
    Cli unknown = Loopback.onceReachable(concat(common, "participant", "--data", label7.toString()));
    assertInvalid(unknown, "unknown label '7'; known labels are [0, 1, 2]");
    Cli policy = Loopback.onceReachable(concat(common, "participant", "--data", iris(), "--skip-rows", "1",
        "--max-epsilon", "0.5"));
    assertEquals(Main.SESSION_FAILED, policy.exit, policy.toString());
    // A refused learner lists the allowed ones in order (they came out in a random one) and names the flag.
    Cli learners = Loopback.onceReachable(concat(common, "participant", "--data", iris(), "--skip-rows", "1",
        "--learners", "svm,logreg,linreg"));
    assertEquals(Main.SESSION_FAILED, learners.exit, learners.toString());
    assertTrue(learners.err.contains("this participant allows [linreg, logreg, svm] (--learners softmax would allow "
        + "it)"), learners.err);

    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String[] args = {"participant", "--coordinator", "127.0.0.1:" + port, "--data", iris(), "--skip-rows", "1",
          "--tls-dir", certs.toString(), "--name", "participant-" + k, "--no-ledger", "--min-contributors", "3",
          "--honest-fraction", "1"};
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run(args)));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
    }
    assertEquals(0, coordinator.get(120, TimeUnit.SECONDS).exit);
  }

  private static String[] concat(String[] common, String command, String... extra) {
    return Stream.of(new String[] {command}, common, extra).flatMap(Stream::of).toArray(String[]::new);
  }

  @Test
  void classesForABuiltInDataSetAreRefusedUnlessTheyAreItsOwn() {
    // Refused before the data is loaded (nothing is fetched).
    assertInvalid(Cli.run("train", "--dataset", "mnist", "--parties", "4", "--classes", "0,1,2",
        "--cache-dir", dir.toString(), "-q"), "the built-in data set mnist has its own public classes [0, 1, 2, 3");
  }

  @Test
  void tooManyPartiesForTheRowsSuggestsParties() {
    assertInvalid(Cli.run("train", "--dataset", iris(), "--skip-rows", "1", "--parties", "1000", "-q"),
        "parties need at least one row each but");
    assertTrue(Cli.run("train", "--dataset", iris(), "--skip-rows", "1", "--parties", "1000", "-q").errorLine()
        .matches(".*: use at most \\d+ parties \\(--parties\\)$"));
  }

  /** One mistyped label among 150 rows becomes a class of its own, and is now named as a likely typo. */
  @Test
  void aLabelOfVeryFewRowsIsNamedAsALikelyTypo() throws Exception {
    List<String> rows = new ArrayList<>(Files.readAllLines(Path.of(iris())).subList(1, 151));
    rows.set(10, rows.get(10).replaceFirst(",0$", ",7"));
    Path typo = Files.write(dir.resolve("typo.csv"), rows);
    PrintStream old = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    Cli trained;
    Cli stated;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      trained = Cli.run("train", "--dataset", typo.toString(), "--parties", "4", "--epochs", "2", "-q");
      String warned = captured.toString(StandardCharsets.UTF_8);
      assertTrue(warned.contains("helmet: warning: label '7' (1 row) of 150 rows in ")
          && warned.contains("a typo is likely") && warned.contains("--classes"), warned);
      captured.reset();
      // Stated classes make it an error instead; the iris file's own labels raise no warning.
      stated = Cli.run("train", "--dataset", typo.toString(), "--parties", "4", "--classes", "0,1,2", "-q");
      Cli clean = Cli.run("train", "--dataset", iris(), "--skip-rows", "1", "--parties", "4", "--epochs", "2", "-q");
      assertEquals(0, clean.exit, clean.toString());
      assertFalse(captured.toString(StandardCharsets.UTF_8).contains("warning: label"), captured.toString());
    } finally {
      System.setErr(old);
    }
    assertEquals(0, trained.exit, trained.toString());
    assertInvalid(stated, "unknown label '7'");
  }
}
