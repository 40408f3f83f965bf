package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ModelFormatException;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.SessionConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The released model a participant reads from the coordinator's Outcome is bounded by its own
 * session (security review turn 3, T3-7): an honest model of every algorithm is read, with room to
 * spare; a document of empty objects, a deeply nested one and a model of another shape are refused
 * before the tree grows (the bytes the reading thread allocates are measured, not timed).
 */
class ReleasedModelBoundsTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 6;

  private static final String HELMET = Loopback.HELMET;
  private static final String DPFL_MLP = "{\"learner\": {\"kind\": \"mlp\", \"hidden\": [8], \"clip_bound\": 10}, "
      + "\"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, \"rounds\": 2, \"learning_rate\": 2, "
      + "\"accountant\": \"pld\", \"neighbours\": \"replace-one\"}}";

  private static SessionConfig config(String algorithm, String json) {
    SessionConfig.Builder b = Loopback.config(DIGITS, W, W - 1, 4).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, algorithm, json).build();
  }

  /** The participant's side of a session of {@code config}, after its roster: its plan derived. */
  private static ParticipantRun participant(SessionConfig config, int[] sizes) {
    AlgorithmSpec spec = SessionPlan.spec(config);
    ParticipantRun run = new ParticipantRun(config, spec, "test", null, null, new byte[32], sizes[0], null, 0,
        NoiseFactory.secure(), Participant.Hook.NONE, null, ParticipantPolicy.upTo(1e7), null);
    run.plan = spec.plan(sizes, (int) config.getMinContributors(), true);
    return run;
  }

  /** The honest released model of {@code config}: an in-process run, written as the coordinator writes it. */
  private static ReleasedModel honest(SessionConfig config) {
    AlgorithmSpec spec = SessionPlan.spec(config);
    Partition partition = new PartitionStrategy.Iid(W, 30).split(DIGITS, new SplittableRandom(3));
    Simulation.Prepared p = Loopback.rostered(config, Simulation.prepare(spec, DIGITS, partition, 7L, 2, Progress.NONE));
    Simulation.Result r = Simulation.run(p, (int) config.getMinContributors(), new PlainSummation(),
        NoiseFactory.seededForTesting(11), 2, Progress.NONE);
    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", "test");
    provenance.put("created", "2025-01-01T00:00:00Z");
    provenance.put("session", "00".repeat(16));
    provenance.put("session_name", config.getName());
    provenance.put("dataset", config.getDataset());
    provenance.put("parties", W);
    provenance.put("contributors", W);
    provenance.put("protocol", config.getProtocol() + " over gRPC");
    provenance.put("algorithm", spec.algorithm().id());
    provenance.put("rounds", r.rounds());
    return ReleasedModel.of(spec, r.model(), SessionPlan.labels(config), (int) config.getFeatures(), r.ledger(),
        provenance, SessionPlan.featureStage(config));
  }

  private static int[] sizes(SessionConfig config) {
    int[] s = new int[W];
    java.util.Arrays.fill(s, SessionPlan.claimedPoints(SessionPlan.spec(config), config, 30));
    return s;
  }

  private static Outcome outcome(byte[] json) throws IOException {
    return Outcome.newBuilder().setStatus("completed").setModelGzip(ByteString.copyFrom(gzip(json)))
        .addAllContributors(List.of(0, 1, 2, 3, 4, 5)).build();
  }

  private static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream z = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(z)) {
      g.write(b);
    }
    return z.toByteArray();
  }

  private static long tokens(byte[] json) throws IOException {
    long n = 0;
    try (JsonParser p = new JsonFactory().createParser(json)) {
      while (p.nextToken() != null) {
        n++;
      }
    }
    return n;
  }

  /** The bytes the current thread allocates while {@code r} runs, or -1 if the JVM cannot say. */
  private static long allocatedBy(Runnable r) {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    if (!(mx instanceof com.sun.management.ThreadMXBean sun) || !sun.isThreadAllocatedMemorySupported()) {
      r.run();
      return -1;
    }
    sun.setThreadAllocatedMemoryEnabled(true);
    long before = sun.getThreadAllocatedBytes(Thread.currentThread().getId());
    r.run();
    return sun.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
  }

  /** The PoC's document: {@code [{},{},...]} of {@code bytes} bytes. */
  private static byte[] emptyObjects(int bytes) {
    byte[] out = new byte[bytes];
    out[0] = '[';
    int i = 1;
    while (i + 3 < bytes - 1) {
      out[i++] = '{';
      out[i++] = '}';
      out[i++] = ',';
    }
    out[i++] = '{';
    out[i++] = '}';
    while (i < bytes - 1) {
      out[i++] = ' ';
    }
    out[bytes - 1] = ']';
    return out;
  }

  /**
   * Every algorithm's honest model (the linear ones, an MLP, SMM's MLP whose inputs are padded,
   * cross-silo's model whose inputs are projected) is read and released, in at most half the bytes
   * and tokens its bounds allow.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "helmet|" + HELMET,
      "helmet|{\"learner\": {\"kind\": \"svm\", \"epochs\": 3}, \"noise\": \"gaussian\"}",
      "dp-fl|" + DPFL_MLP,
      "smm|{\"learner\": {\"kind\": \"mlp\", \"hidden\": [8]}, \"smm\": {\"bits\": 12, \"gamma\": 64, "
          + "\"sampling_rate\": 0.2, \"expected_batch\": 36, \"rounds\": 2, \"learning_rate\": 0.02}}",
      "wd-dp|{\"wd_dp\": {\"steps\": 5}}",
      "cross-silo|{\"crosssilo\": {\"sampling\": \"poisson\", \"rounds\": 2, \"projection\": 50}}",
      "private-mean|{\"mean\": {\"clip\": 1}}"})
  void anHonestModelOfEveryAlgorithmIsReadWithRoomToSpare(String algorithm, String json) throws IOException {
    SessionConfig config = config(algorithm, json);
    ReleasedModel model = honest(config);
    byte[] text = ModelFile.toJson(model).toString().getBytes(StandardCharsets.UTF_8);
    OutcomeModel.Limits limits = OutcomeModel.Limits.of(SessionPlan.spec(config), config);
    assertEquals(model.weights().parameters().length, limits.parameters(), "the spec's count of the released model");
    assertTrue(2 * text.length <= limits.bytes(), text.length + " bytes against a bound of " + limits.bytes());
    assertTrue(2 * tokens(text) <= limits.tokens(), tokens(text) + " tokens against a bound of " + limits.tokens());
    Participant.Result r = participant(config, sizes(config)).result(outcome(text), 0);
    assertTrue(r.completed(), r.reason());
    assertArrayEquals(model.weights().parameters(), r.model().weights().parameters());
  }

  /**
   * The PoC: 16 MiB of {@code [{},{},...]} (16 KiB gzipped; it parsed into about 450 MiB of tree
   * under the fixed 256 MiB byte cap) is refused at the session's bound, and reading it allocates
   * a few MiB.
   */
  @Test
  void aDocumentOfEmptyObjectsIsRefusedBeforeItsTreeIsBuilt() throws IOException {
    SessionConfig config = config("helmet", HELMET);
    ParticipantRun run = participant(config, sizes(config));
    Outcome bomb = outcome(emptyObjects(16 << 20));
    Participant.Result[] r = new Participant.Result[1];
    long allocated = allocatedBy(() -> r[0] = run.result(bomb, 0));
    assertFalse(r[0].completed());
    assertTrue(r[0].reason().contains("is larger than a session releasing 650 parameters allows"), r[0].reason());
    System.out.printf("T3-7: a 16 MiB document of empty objects refused after %d KiB allocated: %s%n", allocated >> 10,
        r[0].reason());
    assumeTrue(allocated >= 0, "the JVM does not count allocated bytes");
    assertTrue(allocated < 64L << 20, "reading the refused model allocated " + (allocated >> 20) + " MiB");
  }

  /**
   * Even where the byte bound admits the document (a model of a million parameters allows 65 MiB),
   * the token bound stops a 32 MiB document of empty objects (11 million objects, 900 MiB of tree)
   * after about a million tokens.
   */
  @Test
  void theTokenBoundStopsEmptyObjectsThatTheByteBoundAdmits() throws IOException {
    int d = 1_000_000;
    OutcomeModel.Limits limits = new OutcomeModel.Limits(d, OutcomeModel.FIXED_BYTES
        + (long) OutcomeModel.BYTES_PER_VALUE * d, OutcomeModel.FIXED_TOKENS + d, OutcomeModel.STRING_SLACK_CHARS, null);
    byte[] json = emptyObjects(32 << 20);
    assertTrue(json.length < limits.bytes());
    ByteString gz = ByteString.copyFrom(gzip(json));
    ModelFormatException[] e = new ModelFormatException[1];
    long allocated = allocatedBy(() -> e[0] = assertThrows(ModelFormatException.class,
        () -> OutcomeModel.read(gz, limits, "the model")));
    assertTrue(e[0].getMessage().contains("Token count"), e[0].getMessage());
    System.out.printf("T3-7: a 32 MiB document of empty objects within a 65 MiB byte bound refused after %d MiB "
        + "allocated: %s%n", allocated >> 20, e[0].getMessage());
    assumeTrue(allocated >= 0, "the JVM does not count allocated bytes");
    assertTrue(allocated < 256L << 20, "reading the refused model allocated " + (allocated >> 20) + " MiB");
  }

  /** An honest model whose provenance nests 500 levels deep (within Jackson's default 1,000) is refused. */
  @Test
  void aDeeplyNestedModelIsRefused() throws IOException {
    SessionConfig config = config("helmet", HELMET);
    ObjectNode root = ModelFile.toJson(honest(config));
    ArrayNode deep = ((ObjectNode) root.get("provenance")).putArray("deep");
    for (int i = 0; i < 500; i++) {
      deep = deep.addArray();
    }
    Participant.Result r = participant(config, sizes(config)).result(outcome(root.toString().getBytes(
        StandardCharsets.UTF_8)), 0);
    assertFalse(r.completed());
    assertTrue(r.reason().contains("nesting depth"), r.reason());
  }

  /**
   * A well-formed MLP of another hidden width than the session's (9 instead of 8: 685 parameters,
   * not 610) is refused, naming both counts.
   */
  @Test
  void aModelOfAnotherShapeIsRefused() throws IOException {
    SessionConfig config = config("dp-fl", DPFL_MLP);
    ObjectNode root = ModelFile.toJson(honest(config));
    ObjectNode w = (ObjectNode) root.get("weights");
    w.putArray("widths").add(64).add(9).add(10);
    ArrayNode values = w.putArray("values");
    for (int i = 0; i < 65 * 9 + 10 * 10; i++) {
      values.add(0.5);
    }
    Participant.Result r = participant(config, sizes(config)).result(outcome(root.toString().getBytes(
        StandardCharsets.UTF_8)), 0);
    assertFalse(r.completed());
    assertTrue(r.reason().contains("has 685 parameters; the model this participant's session releases has 610"),
        r.reason());
  }
  /**
   * The attacker's read of the T3-7 fix: a 4 KB model whose feature stage was a scattering of
   * 512x512 images with J = 9 made the participant build a filter bank of 5.7 GiB, before the
   * parameter count was checked. The model's feature stage is now compared, as data, with the
   * session's before anything is built from it.
   */
  @Test
  void aModelWhoseFeatureStageIsNotTheSessionsIsRefusedBeforeAnyTransformIsBuilt() throws IOException {
    SessionConfig config = config("helmet", HELMET);
    ObjectNode root = ModelFile.toJson(honest(config));
    ObjectNode stage = ((ObjectNode) root.get("preprocessing")).putObject("feature_stage");
    stage.put("features", "scatter").put("shape", "512x512").put("J", 9).put("L", 2).put("order", 2).put("groups", 1);
    ParticipantRun run = participant(config, sizes(config));
    Outcome o = outcome(root.toString().getBytes(StandardCharsets.UTF_8));
    Participant.Result[] r = new Participant.Result[1];
    long allocated = allocatedBy(() -> r[0] = run.result(o, 0));
    assertFalse(r[0].completed());
    assertTrue(r[0].reason().contains("feature stage") && r[0].reason().contains("is not the session's raw"),
        r[0].reason());
    assumeTrue(allocated >= 0, "the JVM does not count allocated bytes");
    assertTrue(allocated < 64L << 20, "reading the refused model allocated " + (allocated >> 20) + " MiB");
  }

  /**
   * The attacker's read of the T3-7 fix: 16 MiB of unknown fields in the published configuration
   * raised the model's byte bound to 100 MB. Only the first MiB of the configuration counts now.
   */
  @Test
  void aConfigurationPaddedWithUnknownFieldsDoesNotRaiseTheBound() {
    SessionConfig config = config("helmet", HELMET);
    OutcomeModel.Limits plain = OutcomeModel.Limits.of(SessionPlan.spec(config), config);
    SessionConfig padded = config.toBuilder().setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
        .addField(999, com.google.protobuf.UnknownFieldSet.Field.newBuilder()
            .addLengthDelimited(ByteString.copyFrom(new byte[16 << 20])).build()).build()).build();
    OutcomeModel.Limits limits = OutcomeModel.Limits.of(SessionPlan.spec(padded), padded);
    assertTrue(limits.bytes() <= plain.bytes() + OutcomeModel.CONFIG_EXPANSION * OutcomeModel.CONFIG_BYTES_COUNTED,
        limits + " vs " + plain);
    assertTrue(limits.bytes() < 16L << 20, "the bound grew with the padding: " + limits.bytes());
  }
}
