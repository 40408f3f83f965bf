package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.audit.ArtifactDiff;
import dev.helmet.protocols.audit.InputMirrorCanary;
import dev.helmet.protocols.audit.NeighbourPair;
import dev.helmet.status.StatusServer;
import dev.helmet.status.StatusSnapshot;
import dev.helmet.transport.wire.SessionConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifact diff of the coordinator's status page ({@link NetworkArtifacts}, issue 49 part 3):
 * sessions on D, on D again and on D' with the same seeds and seeded noise, each with its status
 * page, and after the release every byte it serves compared: {@code /api/status}, {@code
 * /api/ledger}, {@code /metrics}, and the final snapshot's {@code .json} and {@code .html}, beside
 * the database rows and results {@link NetworkArtifacts} compares. Nothing differs beyond the DP
 * release and the declared classes.
 *
 * <p>Digits, three parties of 40 records, as in helmet-transport's NetworkedArtifactDiffTest, over
 * loopback TCP (this module's tests have no in-process gRPC).
 */
@Tag("integration")
class StatusArtifactDiffTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  /**
   * Reads a session's status artifacts. The page is started before anyone joins (its metrics are
   * the coordinator's listener from the start) and read after the session ended.
   */
  private final class Page implements NetworkArtifacts.Extra, SeededRuns.ThrowingConsumer<Coordinator> {
    private StatusServer server;
    private int sessions;

    @Override
    public void accept(Coordinator c) throws Exception {
      server = StatusServer.start(c, "127.0.0.1", 0, null);
    }

    @Override
    public Map<String, JsonNode> read(Coordinator c) throws Exception {
      try (StatusServer s = server) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        out.put("/api/status", JSON.readTree(get(s, "/api/status")));
        out.put("/api/ledger", JSON.readTree(get(s, "/api/ledger")));
        out.put("/metrics", metrics(get(s, "/metrics")));
        Path prefix = dir.resolve("snapshot-" + sessions++).resolve("status");
        List<Path> files = StatusSnapshot.write(c, prefix);
        out.put("status.json", JSON.readTree(Files.readString(files.get(0))));
        out.put("status.html", lines(Files.readString(files.get(1))));
        return out;
      }
    }
  }

  private static String get(StatusServer s, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
        .header("Authorization", "Bearer " + s.token()).timeout(java.time.Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return r.body();
  }

  /**
   * Prometheus text as {@code {series: value}}, every comment line a key of its own, so a series
   * present on one side only shows as absent on the other.
   */
  static ObjectNode metrics(String text) {
    ObjectNode o = JSON.createObjectNode();
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      if (line.startsWith("#") || space < 0) {
        o.put(line, "");
      } else {
        o.put(line.substring(0, space), line.substring(space + 1));
      }
    }
    return o;
  }

  private static ArrayNode lines(String text) {
    ArrayNode a = JSON.createArrayNode();
    text.lines().forEach(a::add);
    return a;
  }

  /** An ISO-8601 instant or a seconds figure, as the snapshot page prints the clock. */
  private static final Pattern CLOCK = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z|\\d+(\\.\\d+)? s\\b");

  /**
   * The class of a difference: the page's HTML line is a clock reading when it is the same with
   * every instant and seconds figure masked (the page prints the JSON's timestamps); the rest as
   * {@link NetworkArtifacts#kind}. A stage's counts are what it waited for and heard, the same on D
   * and D' (RoundDriver counts a stage's parties before its opening goes out).
   */
  static NetworkArtifacts.Kind kind(ArtifactDiff.Difference d, NetworkArtifacts.Session onD,
      NetworkArtifacts.Session onN) {
    if (d.path().startsWith("status.html:")) {
      String a = CLOCK.matcher(d.onD()).replaceAll("#");
      String b = CLOCK.matcher(d.onNeighbour()).replaceAll("#");
      if (a.equals(b)) {
        return NetworkArtifacts.Kind.TIMING;
      }
      return NetworkArtifacts.Kind.FINDING;
    }
    return NetworkArtifacts.kind(d, onD, onN);
  }

  private NetworkArtifacts.Audit audit(SessionConfig config, Dataset d, Partition pd, Dataset n, Partition pn,
      String name) throws Exception {
    Page page = new Page();
    return NetworkArtifacts.audit(dir.resolve(name.replace(' ', '-')), config, d, pd, n, pn, name, true, page, page,
        StatusArtifactDiffTest::kind);
  }

  private static void assertNoFinding(NetworkArtifacts.Audit a) {
    assertTrue(a.diff().compared().containsAll(List.of("/api/status", "/api/ledger", "/metrics", "status.json",
        "status.html", NetworkArtifacts.DATABASE)), a.diff().compared().toString());
    assertTrue(a.diff().differences().stream().anyMatch(d -> d.released()), "the pair must move the release");
    assertEquals(List.of(), a.controlProblems(), "two sessions on D with the same seeds and noise differ");
    assertEquals(List.of(), a.of(NetworkArtifacts.Kind.FINDING),
        "the status page or metrics tell D from D' beyond the DP release");
    // Every status artifact was compared field by field and its differences classed: print them.
    System.out.println("status page and metrics: " + a.diff().findings().stream()
        .filter(d -> d.path().startsWith("/") || d.path().startsWith("status."))
        .map(d -> d.path() + " " + kind(d, a.onD(), a.onN())).toList());
  }

  @Test
  void underAddOrRemoveTheStatusPageAndMetricsShowNoCount() throws Exception {
    Partition p = NetworkedArtifactDiffTest.split();
    assertNoFinding(audit(NetworkedArtifactDiffTest.dpFlAddRemove(), DIGITS, p, DIGITS,
        NetworkedArtifactDiffTest.withoutFirstRecordOfParty0(p), "dp-fl add-remove status"));
  }

  @Test
  void underReplaceOneTheStatusPageAndMetricsShowNothingBeyondTheRelease() throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 2).build();
    Partition p = NetworkedArtifactDiffTest.split();
    NeighbourPair pair = new InputMirrorCanary().pair(SessionPlan.spec(config), DIGITS, p);
    assertNoFinding(audit(config, DIGITS, p, pair.neighbour(), p, "helmet replace-one status"));
  }
}
