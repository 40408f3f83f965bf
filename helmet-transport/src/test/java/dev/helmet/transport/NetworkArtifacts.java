package dev.helmet.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.protocols.audit.ArtifactDiff;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The artifact diff of a networked session (issue 49, part 3): what a session run with {@link
 * SeededRuns#networked} (the same participant seeds, the same seeded noise, the same enrolment
 * order) leaves behind, as JSON trees to compare field by field, and the classes of difference two
 * sessions show whatever their data. Anything else that differs is a finding.
 *
 * <p>Artifacts: every row of the coordinator's database ({@link DatabaseRows}), the released model
 * file, the coordinator's result (what {@code helmet coordinator} reports) and each participant's;
 * a caller may add its own (the status page and the metrics, in helmet-status's tests). Pairwise
 * masks and key pairs come from SecureRandom in every run; they cancel in the sum and never reach
 * an artifact, so the release is the same function of the data and the seeded noise as in
 * process.
 */
final class NetworkArtifacts {
  private static final ObjectMapper JSON = new ObjectMapper();

  private NetworkArtifacts() {}

  static final String DATABASE = "database";
  static final String MODEL = "model.json";
  static final String RESULT = "coordinator-result";

  /** Artifacts a caller reads from the coordinator after the session, before it closes (by name). */
  interface Extra {
    Map<String, JsonNode> read(Coordinator c) throws Exception;
  }

  /**
   * One session's artifacts.
   *
   * @param artifacts by name, the session id replaced
   * @param releasedBytes the released model as the Outcome message carries it: its text gzipped
   *     (RoundDriver.gzip), with the field's length prefix (protobuf's varint)
   * @param parties the participants
   */
  record Session(Map<String, JsonNode> artifacts, long releasedBytes, int parties) {}

  /**
   * One session's artifacts by name, the session id (16 bytes from SecureRandom, fresh per run, not
   * computed from data) replaced by {@code <session-id>} wherever it occurs, so the rows it keys line
   * up and a text that names it (a budget's first reason, a page's "name (first 8 digits)") compares
   * by the rest.
   */
  static Session run(SessionConfig config, Dataset data, Partition partition, Path dir, boolean tcp,
      SeededRuns.ThrowingConsumer<Coordinator> started, Extra extra) throws Exception {
    Files.createDirectories(dir);
    Map<String, JsonNode> extras = new LinkedHashMap<>();
    SeededRuns.Networked n = SeededRuns.networked(config, data, partition, dir, null, m -> {}, tcp, started,
        c -> extras.putAll(extra.read(c)));
    Coordinator.Result r = n.coordinator();
    Map<String, JsonNode> out = new LinkedHashMap<>();
    out.put(DATABASE, DatabaseRows.of("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath()));
    out.put(MODEL, ModelFile.toJson(r.model()));
    out.put(RESULT, result(r));
    for (int k = 0; k < n.participants().size(); k++) {
      out.put("participant-" + k, participant(n.participants().get(k)));
    }
    out.putAll(extras);
    out.replaceAll((name, tree) -> withoutSession(tree, r.sessionId()));
    // What RoundDriver sends of this model in the Outcome: ModelFile.toJson(model).toString(), gzipped.
    int sent = RoundDriver.gzip(ModelFile.toJson(r.model()).toString()).length;
    return new Session(out, sent + com.google.protobuf.CodedOutputStream.computeUInt32SizeNoTag(sent),
        partition.count());
  }

  private static ObjectNode result(Coordinator.Result r) {
    ObjectNode j = JSON.createObjectNode();
    j.put("session", r.sessionId()).put("completed", r.completed()).put("reason", r.reason())
        .put("epsilon", r.epsilon()).put("delta", r.delta()).put("enrolled", r.enrolled());
    j.set("contributors", JSON.valueToTree(r.contributors()));
    j.set("dropped", JSON.valueToTree(r.dropped()));
    j.put("server_bytes", r.serverBytes()).put("bytes_per_participant", r.bytesPerParticipant())
        .put("seconds", r.seconds());
    j.set("parameters", JSON.valueToTree(r.parameters()));
    return j;
  }

  private static ObjectNode participant(Participant.Result p) {
    ObjectNode j = JSON.createObjectNode();
    j.put("completed", p.completed()).put("reason", p.reason()).put("epsilon", p.epsilon()).put("party", p.party());
    j.set("contributors", JSON.valueToTree(p.contributors()));
    j.put("bytes_sent", p.bytesSent()).put("bytes_received", p.bytesReceived()).put("seconds", p.seconds())
        .put("neighbours", p.neighbours()).put("against", p.against()).put("run_epsilon", p.runEpsilon())
        .put("sessions_with_inputs", p.sessionsWithInputs());
    j.set("model", p.model() == null ? JSON.nullNode() : ModelFile.toJson(p.model()));
    return j;
  }

  private static JsonNode withoutSession(JsonNode n, String session) {
    if (n.isTextual()) {
      // Whole, or as pages show it short after a session's name: "test (314fd620)".
      return TextNode.valueOf(n.asText().replace(session, "<session-id>")
          .replace("(" + session.substring(0, 8) + ")", "(<session-id>)"));
    }
    if (n.isObject()) {
      ObjectNode o = JSON.createObjectNode();
      n.fields().forEachRemaining(e -> o.set(e.getKey().replace(session, "<session-id>"),
          withoutSession(e.getValue(), session)));
      return o;
    }
    if (n.isArray()) {
      ArrayNode a = JSON.createArrayNode();
      n.forEach(x -> a.add(withoutSession(x, session)));
      return a;
    }
    return n;
  }

  /**
   * The release: the model's parameters, wherever the model is stored (the database's releases row,
   * the model file, every participant's copy).
   */
  static boolean released(String pointer) {
    return pointer.startsWith("/weights/values/") || pointer.contains("/MODEL/weights/values/")
        || pointer.startsWith("/model/weights/values/");
  }

  /** D's artifacts against those of D', each compared as a JSON tree (a name on one side only is an absent tree). */
  static ArtifactDiff compare(Session onD, Session onNeighbour) {
    return compare(onD.artifacts(), onNeighbour.artifacts());
  }

  /** As above, for artifacts by name. */
  static ArtifactDiff compare(Map<String, JsonNode> onD, Map<String, JsonNode> onNeighbour) {
    ArtifactDiff diff = new ArtifactDiff();
    java.util.Set<String> names = new java.util.LinkedHashSet<>(onD.keySet());
    names.addAll(onNeighbour.keySet());
    for (String name : names) {
      JsonNode a = onD.getOrDefault(name, JSON.nullNode());
      JsonNode b = onNeighbour.getOrDefault(name, JSON.nullNode());
      diff.json(name, a, b, NetworkArtifacts::released);
    }
    return diff;
  }

  /** How a difference outside the release is reported. */
  enum Kind {
    /**
     * A reading of a clock: a timestamp ({@code *_AT} columns, flyway's {@code installed_on}, a
     * ledger entry's {@code updated}), a
     * duration ({@code seconds}, {@code execution_time}, a metric's duration sum or maximum), the
     * model's creation time, a countdown. Not computed from the data's values; how long a party's
     * work takes does grow with its records, a timing channel outside what this diff decides.
     */
    TIMING,
    /**
     * Fresh per session from SecureRandom, not computed from data: the published configuration's
     * session id and graph-nonce commitment (SHA-256 of the coordinator's nonce), and the digest of
     * that configuration, which contains them.
     */
    FRESH,
    /**
     * A count of bytes that includes the released model (the Outcome message every participant
     * receives carries the model file gzipped, RoundDriver): it may move by exactly what that
     * compressed text's length moves, times the participants for the coordinator's total, and by
     * nothing else. The text is a function of the release (its parameters' digits), the model's
     * creation time and the session id, so such a move is the release's (and a clock's and a
     * fresh id's); a count off by any other amount stays a finding.
     */
    RELEASE_LENGTH,
    /** Anything else: a field that tells D from D' beyond the DP release. */
    FINDING
  }

  private static final Pattern TIMING_LEAF = Pattern.compile("(?i).*_at|at|created|updated|installed_on|execution_time"
      + "|seconds|.*_seconds|seconds_left|helmet_stage_duration_seconds_(sum|max)\\{.*");
  /** Byte counts per participant that include the Released message once. */
  private static final Pattern PER_PARTY_BYTES = Pattern.compile("bytes_per_participant|bytes_received"
      + "|helmet_session_bytes_per_participant_bytes(\\{.*)?");

  /** The class of a difference outside the release, between sessions {@code onD} and {@code onN}. */
  static Kind kind(ArtifactDiff.Difference d, Session onD, Session onN) {
    String path = d.path();
    String pointer = path.substring(path.indexOf(':') + 1);
    String leaf = pointer.substring(pointer.lastIndexOf('/') + 1).replace("~1", "/").replace("~0", "~");
    long moved = onN.releasedBytes() - onD.releasedBytes();
    if (leaf.equals("server_bytes") && movedBy(d, moved * onD.parties())
        || PER_PARTY_BYTES.matcher(leaf).matches() && movedBy(d, moved)) {
      return Kind.RELEASE_LENGTH;
    }
    if (TIMING_LEAF.matcher(leaf).matches()) {
      return Kind.TIMING;
    }
    if (leaf.equalsIgnoreCase("CONFIG_DIGEST") || pointer.matches(".*/CONFIG/\\d+")
        && fresh(d.onD()) && fresh(d.onNeighbour())) {
      return Kind.FRESH;
    }
    return Kind.FINDING;
  }

  /** Whether the difference is of two numbers, the neighbour's {@code by} more than D's. */
  private static boolean movedBy(ArtifactDiff.Difference d, long by) {
    try {
      // A number, or a number in text (a Prometheus sample's value, "26598.0").
      return new java.math.BigDecimal(d.onNeighbour().replace("\"", ""))
          .subtract(new java.math.BigDecimal(d.onD().replace("\"", "")))
          .compareTo(java.math.BigDecimal.valueOf(by)) == 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean fresh(String configLine) {
    return configLine.startsWith("\"session_id: ") || configLine.startsWith("\"graph_nonce_commitment: ");
  }

  /** The differences outside the release of the given kind, between sessions {@code onD} and {@code onN}. */
  static List<ArtifactDiff.Difference> of(ArtifactDiff diff, Kind kind, Session onD, Session onN) {
    return diff.findings().stream().filter(d -> kind(d, onD, onN) == kind).toList();
  }

  /** How differences are classed: {@link NetworkArtifacts#kind}, or a caller's rules for its own artifacts first. */
  interface Classifier {
    Kind kind(ArtifactDiff.Difference d, Session onD, Session onNeighbour);
  }

  /** The three runs, and what the diff and the control show. */
  record Audit(Session onD, Session again, Session onN, ArtifactDiff diff, ArtifactDiff control,
      Classifier classifier) {
    /** The differences of D against D' outside the release, of this kind. */
    List<ArtifactDiff.Difference> of(Kind kind) {
      return diff.findings().stream().filter(d -> classifier.kind(d, onD, onN) == kind).toList();
    }

    /** The control's differences that are released or of no declared class (none: the runs reproduce). */
    List<ArtifactDiff.Difference> controlProblems() {
      return control.differences().stream()
          .filter(d -> d.released() || classifier.kind(d, onD, again) == Kind.FINDING).toList();
    }
  }

  /**
   * Sessions on D, on D again (the control) and on D', each with its own database under {@code dir},
   * compared (over loopback TCP with {@code tcp}, else the in-process transport); the outcome is
   * printed on one line.
   */
  static Audit audit(Path dir, SessionConfig config, Dataset d, Partition pd, Dataset n, Partition pn, String name,
      boolean tcp, SeededRuns.ThrowingConsumer<Coordinator> started, Extra extra, Classifier classifier)
      throws Exception {
    long start = System.nanoTime();
    Session onD = run(config, d, pd, dir.resolve("d"), tcp, started, extra);
    Session again = run(config, d, pd, dir.resolve("d-again"), tcp, started, extra);
    Session onN = run(config, n, pn, dir.resolve("neighbour"), tcp, started, extra);
    Audit a = new Audit(onD, again, onN, compare(onD, onN), compare(onD, again), classifier);
    System.out.printf("%s: compared %s; %d release difference(s); findings %s; release length %s; timing %d, fresh "
        + "%d; control problems %s; gzipped model %d, %d, %d B (%.1f s)%n", name,
        new java.util.TreeSet<>(a.diff.compared()),
        a.diff.differences().size() - a.diff.findings().size(), a.of(Kind.FINDING),
        a.of(Kind.RELEASE_LENGTH), a.of(Kind.TIMING).size(),
        a.of(Kind.FRESH).size(), a.controlProblems(),
        onD.releasedBytes(), again.releasedBytes(), onN.releasedBytes(), (System.nanoTime() - start) / 1e9);
    return a;
  }
}
