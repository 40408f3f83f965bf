package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-machine example as README.md ("Over a network") and docs/deployment.md (steps 3 to 5)
 * publish it, run as written: the session file and the commands are read out of the documents at
 * test time, so a document edited into something that does not run fails here (issue 47 item 1:
 * the published participant command refused the published session). Only what must differ on one
 * machine is replaced: the coordinator's address (127.0.0.1 and a free port, in `listen:` and
 * `--coordinator`), the folders (the certificates of `helmet certs --out certs --participants 3
 * --host 127.0.0.1`, the demo flow of docs/deployment.md step 2; the ledgers in the test's folder,
 * not the home directory), the participant's name, and the data: a small synthetic file with the
 * session's 784 features and labels 0-9 in place of the MNIST shard, so that no download is
 * needed. Every other flag and session key is the documents'.
 */
@org.junit.jupiter.api.Tag("integration")
class DocumentedCommandsTest {
  @TempDir Path dir;

  @Test
  void theReadmesNetworkExampleRunsAsWritten() throws Exception {
    String section = section(read("README.md"), "## Over a network");
    List<String> block = fenced(section, "sh");
    String yaml = heredoc(block, "cat > session.yaml <<'YAML'", "YAML");
    runSession(yaml, command(block, "./helmet coordinator"), command(block, "./helmet participant"));
  }

  @Test
  void theDeploymentGuidesStepsRunAsWritten() throws Exception {
    String guide = read("docs/deployment.md");
    String yaml = String.join("\n", fenced(section(guide, "3. **The session**"), "yaml")) + "\n";
    List<String> coordinator = command(fenced(section(guide, "4. **Start the coordinator**"), "sh"),
        "./helmet coordinator");
    List<String> participant = command(fenced(section(guide, "5. **Start the participants**"), "sh"),
        "./helmet participant");
    runSession(yaml, coordinator, participant);
  }

  /**
   * The documented session with a coordinator and as many participants as it has parties, in this
   * process over TLS on loopback; asserts that it completes and every party gets the model.
   */
  private void runSession(String documentedYaml, List<String> coordinatorCommand, List<String> participantCommand)
      throws Exception {
    Cli certs = Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3", "--host",
        "127.0.0.1");
    assertEquals(0, certs.exit, certs.toString());
    int port = Loopback.freePort();
    Matcher listen = Pattern.compile("(?m)^listen: (\\S+):(\\d+)$").matcher(documentedYaml);
    assertTrue(listen.find(), "the documented session has no `listen: HOST:PORT` line:\n" + documentedYaml);
    String documentedPort = listen.group(2);
    Matcher parties = Pattern.compile("(?m)^parties: (\\d+)").matcher(documentedYaml);
    assertTrue(parties.find(), documentedYaml);
    int n = Integer.parseInt(parties.group(1));
    assertTrue(n <= 3, "the certificates made here are for 3 participants; the session has " + n);
    assertTrue(documentedYaml.contains("features: 784"), "the synthetic data has 784 features:\n" + documentedYaml);
    Path yaml = Files.writeString(dir.resolve("session.yaml"),
        listen.replaceFirst("listen: 127.0.0.1:" + port));

    List<String> coordinatorArgs = new ArrayList<>();
    for (int i = 0; i < coordinatorCommand.size(); i++) {
      String t = coordinatorCommand.get(i);
      coordinatorArgs.add(t);
      if (t.equals("--config")) {
        assertEquals("session.yaml", coordinatorCommand.get(i + 1), coordinatorCommand.toString());
        coordinatorArgs.add(yaml.toString());
        i++;
      } else if (t.equals("-o") || t.equals("--model-out")) {
        coordinatorArgs.add(dir.resolve(coordinatorCommand.get(++i)).toString());
      }
    }
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(
        () -> Cli.run(coordinatorArgs.toArray(new String[0])));
    awaitListening(port, coordinator);

    List<CompletableFuture<Cli>> participants = new ArrayList<>();
    for (int k = 1; k <= n; k++) {
      String[] args = participantArgs(participantCommand, documentedPort, port, k, synthetic(k));
      participants.add(CompletableFuture.supplyAsync(() -> Cli.run(args)));
    }
    for (CompletableFuture<Cli> f : participants) {
      Cli p = f.get(180, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      // The party number is the roster's index, written as one, not as a count of contributors.
      assertTrue(p.out.contains("session completed with " + n + " contributors; this participant is party "), p.out);
      assertFalse(p.out.matches("(?s).*party \\d+ of \\d+ contributors.*"), p.out);
    }
    Cli c = coordinator.get(180, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    assertTrue(Files.size(dir.resolve("model.json")) > 0, "the coordinator wrote no model");
    for (int k = 1; k <= n; k++) {
      assertTrue(Files.size(dir.resolve("model-" + k + ".json")) > 0, "participant " + k + " wrote no model");
    }
  }

  /**
   * The documented participant command with only the machine's own values replaced; every other
   * token is passed on as written.
   */
  private String[] participantArgs(List<String> documented, String documentedPort, int port, int k, Path data) {
    List<String> args = new ArrayList<>();
    List<String> replaced = new ArrayList<>();
    for (int i = 0; i < documented.size(); i++) {
      String t = documented.get(i);
      switch (t) {
        case "--coordinator" -> {
          String target = documented.get(++i);
          assertTrue(target.endsWith(":" + documentedPort), "the participant dials " + target + " but the session "
              + "listens on port " + documentedPort);
          args.addAll(List.of(t, "127.0.0.1:" + port));
        }
        case "--tls-dir" -> {
          assertEquals("certs", documented.get(++i), documented.toString());
          args.addAll(List.of(t, dir.resolve("certs").toString()));
        }
        case "--name" -> {
          assertTrue(documented.get(++i).matches("participant-\\d+"), documented.toString());
          args.addAll(List.of(t, "participant-" + k));
        }
        case "--data" -> {
          assertEquals("mnist", documented.get(++i), documented.toString());
          args.addAll(List.of(t, data.toString()));
        }
        // The MNIST shard's options go with the MNIST data the synthetic file replaces.
        case "--shard", "--shard-size" -> i++;
        case "-o", "--model-out" -> {
          i++;
          args.addAll(List.of(t, dir.resolve("model-" + k + ".json").toString()));
        }
        default -> {
          args.add(t);
          continue;
        }
      }
      replaced.add(t);
    }
    assertTrue(replaced.containsAll(List.of("--coordinator", "--tls-dir", "--name", "--data")),
        "the documented participant command lost an option this test replaces: " + documented);
    // Its own ledger in the test's folder (the default is in the home directory).
    args.addAll(List.of("--ledger-dir", dir.resolve("ledgers").toString()));
    return args.toArray(new String[0]);
  }

  /** 60 rows of 784 values in [0, 1] and labels 0-9 (each six times): the shape of an MNIST shard. */
  private Path synthetic(int k) throws IOException {
    SplittableRandom rng = new SplittableRandom(k);
    StringBuilder csv = new StringBuilder();
    for (int row = 0; row < 60; row++) {
      for (int j = 0; j < 784; j++) {
        csv.append(String.format(Locale.ROOT, "%.3f,", rng.nextDouble()));
      }
      csv.append(row % 10).append('\n');
    }
    return Files.writeString(dir.resolve("party-" + k + ".csv"), csv);
  }

  /** Waits (at most 60 s, 100 ms apart) until the coordinator accepts connections, or has ended. */
  private static void awaitListening(int port, CompletableFuture<Cli> coordinator) throws Exception {
    for (int i = 0; i < 600; i++) {
      if (coordinator.isDone()) {
        throw new AssertionError("the coordinator ended before listening: " + coordinator.get());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("the coordinator does not listen on port " + port);
  }

  private static String read(String relative) throws IOException {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path p = d.resolve(relative);
      if (Files.isRegularFile(p) && Files.isRegularFile(d.resolve("pom.xml"))) {
        return Files.readString(p);
      }
    }
    throw new AssertionError(relative + " not found above " + Path.of("").toAbsolutePath());
  }

  /** The text from the line that starts with {@code heading} (after any indentation) to the end. */
  private static String section(String text, String heading) {
    Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(heading)).matcher(text);
    assertTrue(m.find(), "no '" + heading + "' in the document");
    return text.substring(m.start());
  }

  /** The lines of the first fenced block of {@code language} in {@code text}, its indentation removed. */
  private static List<String> fenced(String text, String language) {
    Matcher m = Pattern.compile("(?m)^([ \\t]*)```" + language + "\\s*$").matcher(text);
    assertTrue(m.find(), "no ```" + language + " block in:\n" + text.substring(0, Math.min(400, text.length())));
    String indent = m.group(1);
    List<String> lines = new ArrayList<>();
    for (String line : text.substring(m.end()).lines().skip(1).toList()) {
      if (line.trim().equals("```")) {
        return lines;
      }
      lines.add(line.startsWith(indent) ? line.substring(indent.length()) : line.strip());
    }
    throw new AssertionError("an unclosed ```" + language + " block");
  }

  /** The body of the here-document that {@code opening} starts and {@code end} closes. */
  private static String heredoc(List<String> block, String opening, String end) {
    int from = block.indexOf(opening);
    assertTrue(from >= 0, "no `" + opening + "` in:\n" + String.join("\n", block));
    int to = block.subList(from, block.size()).indexOf(end);
    assertTrue(to > 0, "the here-document is not closed by " + end);
    return String.join("\n", block.subList(from + 1, from + to)) + "\n";
  }

  /**
   * The command that starts with {@code prefix}, its continuation lines joined and its comment cut,
   * as words without {@code ./helmet}. The documents quote nothing, so words split at spaces.
   */
  private static List<String> command(List<String> block, String prefix) {
    StringBuilder cmd = null;
    for (String line : block) {
      if (cmd == null && !line.startsWith(prefix)) {
        continue;
      }
      String code = line.replaceFirst("\\s+#.*$", "");
      boolean continued = code.endsWith("\\");
      cmd = (cmd == null ? new StringBuilder() : cmd.append(' '))
          .append(continued ? code.substring(0, code.length() - 1) : code);
      if (!continued) {
        break;
      }
    }
    assertTrue(cmd != null, "no `" + prefix + "` command in:\n" + String.join("\n", block));
    String text = cmd.toString().trim();
    assertFalse(text.contains("'") || text.contains("\"") || text.contains("$"),
        "the command quotes or expands something, which this test does not parse: " + text);
    List<String> words = new ArrayList<>(List.of(text.split("\\s+")));
    assertEquals("./helmet", words.remove(0));
    return words;
  }
}
