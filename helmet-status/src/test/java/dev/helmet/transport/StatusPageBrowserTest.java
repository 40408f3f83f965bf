package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.status.StatusServer;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page as a person sees it: Debian's chromium, headless, loads the page while a session
 * runs and after it, and the test reads the rendered text (the page's script fills it from the
 * JSON). Chromium is installed by scripts/ensure-chromium.sh where the machine allows (root and
 * apt-get); elsewhere the test is skipped with the script's reason. With
 * {@code -Dhelmet.status.screenshot=FILE} it also saves a screenshot of the finished session (the one
 * in docs/deployment.md).
 */
@org.junit.jupiter.api.Tag("integration")
class StatusPageBrowserTest {
  private static final Dataset DIGITS = TestData.digits();
  private static String chromium;

  @BeforeAll
  static void findOrInstallChromium() throws Exception {
    Path script = Path.of("..", "scripts", "ensure-chromium.sh").toAbsolutePath().normalize();
    String why = "scripts/ensure-chromium.sh is missing";
    if (Files.isRegularFile(script)) {
      Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
      boolean ended = p.waitFor(10, TimeUnit.MINUTES);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      why = ended ? out : "installing chromium took more than 10 minutes";
      if (!ended) {
        p.destroyForcibly();
      }
    }
    for (String c : new String[] {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
      if (Files.isExecutable(Path.of(c))) {
        chromium = c;
      }
    }
    if (chromium == null) {
      System.out.println("StatusPageBrowserTest skipped: no chromium: " + why);
    }
    Assumptions.assumeTrue(chromium != null, "no chromium: " + why);
  }

  /** Chromium's flags for a closed machine (no background connections, a fresh profile). */
  private static List<String> chromium(Path profile, String... more) {
    List<String> cmd = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=4000"));
    cmd.addAll(List.of(more));
    return cmd;
  }

  /** The page's text after its script has run, as chromium rendered it. */
  private static String render(String url, Path dir) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(dir, "profile");
    Process p = new ProcessBuilder(chromium(profile, "--dump-dom", url)).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    String dom = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "chromium did not finish");
    // The rendered text: tags removed, entities for the few characters the page's text uses.
    return dom.replaceAll("(?s)<script.*?</script>", " ").replaceAll("<[^>]+>", " ").replace("&amp;", "&")
        .replaceAll("\\s+", " ");
  }


  @Test
  void chromiumShowsTheRunningRoundAndThenTheRelease(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 10));
        StatusServer page = StatusServer.start(c, "127.0.0.1", 0, null)) {
      String waiting = render(page.url(), dir);
      assertTrue(waiting.contains("0 of 3 parties joined") && waiting.contains("waiting for enrolment"), waiting);
      HeldSession held = HeldSession.start(c, 3);
      assertTrue(held.awaitRound());
      String running;
      try {
        running = render(page.url(), dir);
      } finally {
        held.release();
      }
      assertTrue(running.contains("3 of 3 parties joined") && running.contains("(round 1 of 1)")
          && running.contains("answered, deadline in"), running);
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, held.outcomes(), 3);
      String done = render(page.url(), dir);
      assertTrue(done.contains("released the model of 3 contributors") && done.contains("against anyone holding"),
          done);
      assertTrue(done.contains("COMPLETED") && done.contains("budget eps = 10, spent"), done);
      String shot = System.getProperty("helmet.status.screenshot");
      if (shot != null && !shot.isBlank()) {
        Path profile = Files.createTempDirectory(dir, "profile");
        Process p = new ProcessBuilder(chromium(profile, "--window-size=1100,1300",
            "--screenshot=" + Path.of(shot).toAbsolutePath(), page.url()))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
      }
    }
  }
}
