package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page outlives its session (issue 47, row 18: it vanished at the release, so its final
 * state was never seen): with {@code --status-listen} given it stays up after the outcome is
 * printed, until its linger ends (here: an interrupt, as Ctrl-C ends it for a user), and with
 * {@code -o MODEL.json} the final state is written next to the model, without subjects or token.
 * Also the address printed for a wildcard listen (row 19).
 */
@org.junit.jupiter.api.Tag("integration")
class StatusLingerCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void thePageStaysUpAfterTheSessionAndTheFinalStateIsWrittenNextToTheModel(@TempDir Path dir) throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    int port = Loopback.freePort();
    Path yaml = NetworkCliTest.session(dir, port, "");
    Path model = dir.resolve("model.json");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int[] exit = {-1};
    Thread coordinator = new Thread(() -> {
      picocli.CommandLine cl = Main.newCommandLine();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      exit[0] = cl.execute("coordinator", "--config", yaml.toString(), "--status-listen", "127.0.0.1:0", "-o",
          model.toString());
    });
    coordinator.start();
    String iris = TestData.path("iris.csv").toString();
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> {
        try {
          return Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", iris,
              "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--no-ledger",
              "--min-contributors", "3", "--honest-fraction", "1");
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
    }
    // The outcome is printed, then the page lingers (60 s by default for an address the user gave).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!err.toString().contains("stays up") && coordinator.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(err.toString().contains("the status page stays up 60 s more"), err.toString());
    assertTrue(out.toString().contains("completed"), out.toString());
    Matcher m = Pattern.compile("status page (http://127\\.0\\.0\\.1:([0-9]+))/#token=([0-9a-f]+)")
        .matcher(err.toString());
    assertTrue(m.find(), err.toString());
    String base = m.group(1);
    String token = m.group(3);
    HttpResponse<String> after = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/status"))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, after.statusCode(), after.body());
    JsonNode live = JSON.readTree(after.body());
    assertEquals("DONE", live.at("/session/phase").asText());
    assertEquals("COMPLETED", live.at("/session/status").asText());
    assertTrue(coordinator.isAlive(), "the coordinator ended before its linger");

    // The final state, next to the model: the page without a script, and its JSON.
    Path html = dir.resolve("model-status.html");
    Path json = dir.resolve("model-status.json");
    assertTrue(err.toString().contains("final state is in " + html), err.toString());
    String page = Files.readString(html);
    assertFalse(page.contains("<script"), page);
    assertTrue(page.contains("released the model of 3 contributors") && page.contains("COMPLETED"), page);
    JsonNode snapshot = JSON.readTree(json.toFile());
    JsonNode l = snapshot.get("ledger");
    // eps as people read it (rounded up; what is left rounded down), the same on the page and in the JSON's text
    assertEquals(dev.helmet.privacy.ledger.Guarantee.format(l.get("spent_epsilon").asDouble()),
        l.at("/text/spent_epsilon").asText());
    assertEquals(dev.helmet.privacy.ledger.Guarantee.formatLeft(l.get("left_epsilon").asDouble()),
        l.at("/text/left_epsilon").asText());
    assertTrue(page.contains("budget eps = 1.5, spent " + l.at("/text/spent_epsilon").asText() + ", reserved 0, left "
        + l.at("/text/left_epsilon").asText() + " ("), page);
    assertTrue(page.contains("eps spent") && page.contains("sessions that spent eps"), "the chart's axes: " + page);
    assertEquals(live.at("/session/id"), snapshot.at("/session/id"));
    assertEquals(live.at("/release"), snapshot.at("/release"));
    assertEquals(live.at("/ledger"), snapshot.at("/ledger"));
    for (String file : new String[] {page, Files.readString(json)}) {
      assertFalse(file.contains(token), "the access token was written out");
      assertFalse(file.contains("participant-1") || file.contains("CN="), "a certificate subject was written out");
    }

    coordinator.interrupt(); // as Ctrl-C ends the linger
    coordinator.join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(coordinator.isAlive());
    assertEquals(0, exit[0], err.toString());
    assertThrows(java.io.IOException.class, () -> HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/status"))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()));
  }

  @Test
  void aWildcardAddressIsPrintedAsANameOtherMachinesCanDial() {
    String url = "https://0.0.0.0:8080/#token=ab12";
    String named = StatusPage.reachable(url, List.of("localhost", "127.0.0.1", "coord.example.org", "10.0.0.5"),
        "a-host");
    assertTrue(named.startsWith("https://coord.example.org:8080/#token=ab12 (listening on all addresses on port 8080: "
        + "its certificate names coord.example.org, 10.0.0.5"), named);
    String host = StatusPage.reachable(url, List.of("localhost"), "a-host");
    assertTrue(host.startsWith("https://a-host:8080/#token=ab12 (listening on all addresses") && host.contains(
        "a-host is this machine's name"), host);
    assertTrue(StatusPage.reachable("https://[::]:8080/#token=ab12", List.of("fd00::5"), null)
        .startsWith("https://[fd00::5]:8080/"));
    assertFalse(StatusPage.reachable(url, List.of(), null).contains("0.0.0.0"));
  }
}
