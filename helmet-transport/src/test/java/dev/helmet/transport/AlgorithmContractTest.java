package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every registered algorithm meets, checked for each one that {@link Algorithms#all}
 * finds on the class path (here also the test toy {@link dev.helmet.transport.toy.PrivateMean},
 * which only the test resources register), so an algorithm is covered the day it is registered:
 *
 * <ol>
 *   <li>its settings round-trip through {@link AlgorithmSpec#toConfig}, the canonical form a
 *       coordinator publishes;
 *   <li>the in-process simulator (plain summation and the secure one alike) and the networked
 *       coordinator and participants release the same model bit for bit under seeded noise;
 *   <li>the released ledger meets the eps target and names its DpEvent (one its accountant
 *       supports), the neighbouring relation and whom it protects against;
 *   <li>the released model file reads back and predicts what the released model predicted;
 *   <li>a bad setting (an unknown key, a negative number) is refused naming it, before any data is
 *       read: the algorithm's reader refuses it, and so does a session's validation, which the
 *       coordinator runs at start and every participant at joining.
 * </ol>
 *
 * <p>The settings are the algorithm's defaults made quick by generic rules on its parameters'
 * keys, never by its name ({@link #quick}), so a new algorithm needs no entry here. One variant more
 * runs where an algorithm has a {@code neighbours} parameter: add-or-remove neighbours, whose
 * party sizes are private (every party claims the session's max_points). The networked session
 * sums through SecAgg+, or through two compute nodes where the plan admits only theirs (asked of
 * {@link PublicPlan#admit}, the admission the simulator applies).
 *
 * <p>Six parties of 40 digits each: every run is small, and the three runs of a variant (plain,
 * secure in process, networked) are made once and shared by the checks that read them.
 */
@Tag("integration")
class AlgorithmContractTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int PARTIES = 6;
  private static final int PER_PARTY = 40;
  private static final double EPSILON = 2;
  /** What a quick variant runs of every parameter whose key is {@code rounds}. */
  private static final int QUICK_ROUNDS = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  /** One variant's runs (or why they failed), made once for the checks that read them. */
  private static final Map<String, Object> RUNS = new ConcurrentHashMap<>();

  /**
   * An algorithm with settings.
   *
   * @param variant "defaults" (made quick) or "add-remove"
   * @param settings its configuration mapping, as in a session file
   */
  record Case(Algorithm algorithm, String variant, ObjectNode settings) {
    @Override
    public String toString() {
      return algorithm.id() + " (" + variant + ")";
    }
  }

  static Stream<Case> algorithms() {
    List<Case> cases = new ArrayList<>();
    for (Algorithm a : Algorithms.all()) {
      cases.add(new Case(a, "defaults", quick(a)));
      ObjectNode addRemove = addOrRemove(a);
      if (addRemove != null) {
        cases.add(new Case(a, "add-remove", addRemove));
      }
    }
    return cases.stream();
  }

  /**
   * The algorithm's defaults, made quick: every parameter whose key is {@code rounds} (the
   * summations of an iterative algorithm) set to {@link #QUICK_ROUNDS}; nothing else is needed for
   * the algorithms registered today, whose other defaults train in well under a second on 40 rows
   * per party. Then {@link #publicNormaliser}.
   */
  static ObjectNode quick(Algorithm a) {
    ObjectNode o = JSON.createObjectNode();
    for (Parameter p : a.parameters()) {
      if (p.key().equals("rounds")) {
        put(o, p.path(), IntNode.valueOf(QUICK_ROUNDS));
      }
    }
    return publicNormaliser(a, o);
  }

  /**
   * The quick settings under add-or-remove neighbours, for an algorithm with a {@code neighbours}
   * parameter (null for one without).
   */
  static ObjectNode addOrRemove(Algorithm a) {
    Parameter neighbours = parameter(a, "neighbours");
    if (neighbours == null) {
      return null;
    }
    ObjectNode o = quick(a);
    put(o, neighbours.path(), JSON.getNodeFactory().textNode(NeighbourRelation.ADD_OR_REMOVE_ONE.id()));
    return publicNormaliser(a, o);
  }

  /**
   * {@code settings} with a public normaliser where their guarantee makes the record counts private
   * (add-or-remove neighbours): there a parameter whose key is {@code expected_batch} stands for the
   * records a round sums, and an algorithm may default it only to a record count fixed by public
   * configuration, which a session does not publish. It is set to what such a count gives (and what
   * a run with public sizes divides by): the {@code sampling_rate} (as given, or its default) times
   * the records of all parties.
   */
  private static ObjectNode publicNormaliser(Algorithm a, ObjectNode settings) {
    Parameter batch = parameter(a, "expected_batch");
    if (batch == null || a.setting(settings, batch.path()) != null) {
      return settings;
    }
    Parameter rate = parameter(a, "sampling_rate");
    JsonNode given = rate == null ? null : a.setting(settings, rate.path());
    double q = rate == null ? 1 : given != null ? given.asDouble() : Double.parseDouble(rate.defaultValue());
    ObjectNode normalised = settings.deepCopy();
    put(normalised, batch.path(), JSON.getNodeFactory().numberNode(q * PARTIES * PER_PARTY));
    try {
      return a.configure(strict(normalised), common(a)).sizesPrivate() ? normalised : settings;
    } catch (RuntimeException e) {
      return settings; // refused with it: the run shows why, without it
    }
  }

  private static Parameter parameter(Algorithm a, String key) {
    return a.parameters().stream().filter(p -> p.key().equals(key)).findFirst().orElse(null);
  }

  /** Sets {@code value} at the dotted {@code path} of {@code root}, making the sections on the way. */
  private static void put(ObjectNode root, String path, JsonNode value) {
    String[] keys = path.split("\\.");
    ObjectNode n = root;
    for (int i = 0; i < keys.length - 1; i++) {
      n = n.has(keys[i]) ? (ObjectNode) n.get(keys[i]) : n.putObject(keys[i]);
    }
    n.set(keys[keys.length - 1], value);
  }

  /** The session every check starts from: six parties, all contributing, half of them trusted to add noise. */
  private static SessionConfig.Builder session(Algorithm a) {
    SessionConfig.Builder b = Loopback.config(DIGITS, PARTIES, PARTIES, EPSILON).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return b.setAlgorithm(a.id());
  }

  private static Common common(Algorithm a) {
    return SessionPlan.common(session(a).build());
  }

  private static StrictNode strict(JsonNode settings) {
    return new StrictNode("test", settings, IllegalArgumentException::new);
  }

  private static Partition partition() {
    return new PartitionStrategy.Iid(PARTIES, PER_PARTY).split(DIGITS, new java.util.SplittableRandom(3));
  }

  private static int[] sizes() {
    int[] sizes = new int[PARTIES];
    Arrays.fill(sizes, PER_PARTY);
    return sizes;
  }

  /** The toy is on this class path, so the suite covers an algorithm that no runner names. */
  @Test
  void theRegistryHoldsTheTestToySoTheSuiteCoversAnAlgorithmNoRunnerNames() {
    assertTrue(Algorithms.all().stream().anyMatch(a -> a.id().equals("private-mean")), Algorithms.ids());
  }

  // a. The canonical form.

  /**
   * configure(toConfig(spec)) has the same canonical form, and is the same spec in everything a
   * party derives from it: its description, shape, terms, relation and plan (so no setting is lost
   * on the way, which equal canonical forms alone would not show if toConfig dropped it both times).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void itsSettingsRoundTripThroughTheirCanonicalForm(Case c) {
    Algorithm a = c.algorithm();
    Common common = common(a);
    AlgorithmSpec spec = a.configure(strict(c.settings()), common);
    ObjectNode canonical = spec.toConfig();
    AlgorithmSpec again = a.configure(strict(canonical), common);
    assertEquals(canonical, again.toConfig(), c + ": configure(toConfig)");
    assertEquals(spec.describe(), again.describe(), c + ": the spec read back from its canonical form");
    assertEquals(spec.rounds(), again.rounds());
    assertEquals(spec.length(), again.length());
    assertEquals(spec.modelParameters(), again.modelParameters());
    assertEquals(spec.modelKind(), again.modelKind());
    assertEquals(spec.preprocessing().describe(), again.preprocessing().describe());
    assertEquals(spec.terms(), again.terms());
    assertEquals(spec.neighbours(), again.neighbours());
    PublicPlan plan = spec.plan(sizes(), PARTIES, false);
    PublicPlan planAgain = again.plan(sizes(), PARTIES, false);
    assertEquals(plan.charge(), planAgain.charge());
    assertEquals(plan.summary().toString(), planAgain.summary().toString());
    // What a participant reads: the published bytes, through the runner's strict reader.
    SessionConfig published = Loopback.algorithm(session(a), a.id(), c.settings().toString()).build();
    assertEquals(canonical, SessionPlan.spec(published).toConfig());
    // The variant is what it says: its settings took effect.
    assertEquals(c.variant().equals("add-remove") ? NeighbourRelation.ADD_OR_REMOVE_ONE : spec.neighbours(),
        spec.neighbours());
  }

  /**
   * Every numeric setting given a value other than its default, where the algorithm accepts it, is
   * in the canonical form with that value, and configures the same spec again. The round trip above
   * runs the defaults, where a setting toConfig drops reads back as its default both times and no
   * comparison shows it; here the dropped value would come back as the default.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void everyChangedNumericSettingSurvivesTheCanonicalForm(Case c) {
    Algorithm a = c.algorithm();
    Common common = common(a);
    List<String> checked = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (Parameter p : a.parameters()) {
      JsonNode changed = changed(p);
      if (changed == null) {
        continue;
      }
      ObjectNode settings = c.settings().deepCopy();
      put(settings, p.path(), changed);
      AlgorithmSpec spec;
      try {
        spec = a.configure(strict(settings), common);
      } catch (IllegalArgumentException e) {
        // Out of its range or in conflict with another setting: refused naming it.
        assertTrue(String.valueOf(e.getMessage()).contains(p.key()), c + ": " + p.path() + ": " + e.getMessage());
        refused.add(p.path() + " (" + e.getMessage() + ")");
        continue;
      }
      ObjectNode canonical = spec.toConfig();
      JsonNode kept = a.setting(canonical, p.path());
      assertTrue(kept != null && kept.isNumber() && kept.asDouble() == changed.asDouble(),
          c + ": " + p.path() + " = " + changed + " given, the canonical form holds " + kept + ": " + canonical);
      assertEquals(canonical, a.configure(strict(canonical), common).toConfig(), c + ": " + p.path());
      checked.add(p.path());
    }
    // The check must reach the algorithm's settings: no more of them refuse the change than carry it.
    assertTrue(!checked.isEmpty() && refused.size() <= checked.size(),
        c + ": checked " + checked + ", refused " + refused);
  }

  /**
   * A value of {@code p} other than its default, or null for one that is not a number. A default in
   * words ("1/beta", "per learner") stands for a number derived from other settings; 0.37 and 3 are
   * values no such rule gives here.
   */
  private static JsonNode changed(Parameter p) {
    double d;
    try {
      d = Double.parseDouble(p.defaultValue());
    } catch (NumberFormatException e) {
      return p.type() == Parameter.Type.INTEGER ? IntNode.valueOf(3)
          : p.type() == Parameter.Type.NUMBER ? JSON.getNodeFactory().numberNode(0.37) : null;
    }
    if (p.type() == Parameter.Type.INTEGER) {
      return IntNode.valueOf((int) d + 1);
    }
    if (p.type() != Parameter.Type.NUMBER) {
      return null;
    }
    // A fraction stays in (0, 1) and a scale changes: 0.5 -> 0.625, 0.01 -> 0.0125, 4 -> 5.
    return JSON.getNodeFactory().numberNode(d == 0 ? 0.125 : d * 1.25 < 1 || d >= 1 ? d * 1.25 : (1 + d) / 2);
  }

  // b. Both runners, bit for bit.

  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void theNetworkedRunReleasesTheInProcessModelBitForBit(Case c) throws Exception {
    Runs r = runs(c);
    double[] plain = r.plain().model().parameters();
    assertArrayEquals(plain, r.secure().model().parameters(), c + ": " + r.summation().name() + " in process = plain");
    Coordinator.Result net = r.networked().coordinator();
    assertTrue(net.completed(), net.reason());
    assertEquals(PARTIES, net.contributors().size());
    assertArrayEquals(plain, net.model().weights().parameters(), c + ": networked = in process");
    assertEquals(c.algorithm().id(), net.model().provenance().get("algorithm"));
    for (Participant.Result p : r.networked().participants()) {
      assertTrue(p.completed(), p.reason());
      // Each participant states the model's guarantee from its own plan, never the coordinator's.
      assertEquals(net.model().privacy().epsilon(), p.model().privacy().epsilon(), 0);
      assertArrayEquals(net.model().weights().parameters(), p.model().weights().parameters());
    }
  }

  // c. The ledger.

  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void theReleasedLedgerMeetsTheTargetAndNamesItsEventRelationAndAudience(Case c) throws Exception {
    Runs r = runs(c);
    ReleasedModel released = r.networked().coordinator().model();
    String protocol = String.valueOf(released.provenance().get("protocol"));
    assertLedger(r, released.privacy(), protocol, false);
    assertLedger(r, r.secure().ledger(), r.summation().name(), false);
    // Every runner accounts the same release alike.
    assertEquals(r.secure().ledger().epsilon(), released.privacy().epsilon(), 0);
    assertEquals(released.privacy().epsilon(), r.networked().coordinator().epsilon(), 0);
  }

  private static void assertLedger(Runs r, PrivacyLedger l, String summation, boolean revealsInputs) {
    Common target = common(r.spec().algorithm());
    String where = summation + " ledger " + l;
    assertTrue(l.epsilon() > 0 && l.epsilon() <= target.epsilon(), "eps " + l.epsilon() + " over the target "
        + target.epsilon() + "; " + where);
    assertTrue(l.delta() > 0 && l.delta() <= target.delta(), "delta " + l.delta() + "; " + where);
    assertEquals(l.epsilon(), l.guarantees().get(0).epsilon(), 0, "the first guarantee is the released model's");
    // The event: what one round released, composed over the rounds, and one its accountant supports.
    PrivacyCharge charge = r.plan().charge();
    assertEquals(r.spec().rounds(), charge.plannedRounds());
    assertTrue(Accountants.named(charge.accountant()).get().supports(charge.event(charge.plannedRounds())),
        charge.accountant() + " does not support " + charge.perRound());
    assertEquals(charge.epsilon(), l.epsilon(), 0, "the ledger's eps is the charge's");
    assertFalse(l.event().isBlank(), where);
    assertTrue(l.accountant().startsWith(charge.accountant()), "accountant " + l.accountant() + ", charged by "
        + charge.accountant());
    // The neighbouring relation the guarantee is stated for.
    String relation = r.spec().neighbours().describe();
    assertEquals(relation, l.neighbours(), where);
    assertEquals(relation, charge.neighbours(), where);
    assertEquals(relation, l.guarantees().get(0).neighbours(), where);
    // Whom it protects against: the summation's audience for the plan's colluders.
    String against = l.guarantees().get(0).against();
    int colluders = r.plan().colluders();
    assertTrue(against.startsWith(Audience.releasedModel(summation, revealsInputs, colluders, true))
        || against.startsWith(Audience.releasedModel(summation, revealsInputs, colluders, false)), where);
  }

  // d. The model file.

  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void theReleasedModelFileReadsBackAndPredictsAlike(Case c) throws Exception {
    ReleasedModel released = runs(c).networked().coordinator().model();
    Path file = dir.resolve(c.algorithm().id() + "-" + c.variant() + ".json");
    ModelFile.write(released, file);
    ReleasedModel read = ModelFile.read(file);
    assertArrayEquals(released.weights().parameters(), read.weights().parameters());
    assertEquals(released.regression(), read.regression());
    if (released.regression()) {
      assertArrayEquals(released.values(DIGITS), read.values(DIGITS));
    } else {
      assertArrayEquals(released.predict(DIGITS), read.predict(DIGITS));
    }
    // The same model in every field, ledger and provenance too (compared as text: a number read
    // back may be held as another numeric type).
    assertEquals(ModelFile.toJson(released).toString(), ModelFile.toJson(read).toString());
  }

  // e. Bad settings.

  /**
   * An unknown key in each of its sections, and at the top level, is refused naming it: by the
   * algorithm's reader, and by the session validation (every participant's and the coordinator's,
   * which refuses to start: nothing is listened for, so nothing is trained).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void anUnknownKeyIsRefusedNamingItBeforeAnyDataIsRead(Case c) throws Exception {
    Algorithm a = c.algorithm();
    Set<String> sections = new LinkedHashSet<>();
    for (Parameter p : a.parameters()) {
      if (p.path().contains(".")) {
        sections.add(p.path().substring(0, p.path().indexOf('.')));
      }
    }
    assertFalse(sections.isEmpty(), a.id() + " has no section of settings");
    for (String section : sections) {
      ObjectNode bad = c.settings().deepCopy();
      put(bad, section + ".no_such_key", IntNode.valueOf(1));
      RuntimeException e = assertThrows(RuntimeException.class, () -> a.configure(strict(bad), common(a)),
          section + ".no_such_key was accepted");
      assertTrue(e.getMessage().contains(section + ".no_such_key"), e.getMessage());
      assertRefusedBySession(a, bad, section + ".no_such_key");
    }
    ObjectNode bad = c.settings().deepCopy();
    bad.put("no_such_section", 1);
    assertRefusedBySession(a, bad, "no_such_section");
    Path db = dir.resolve("refused-" + a.id() + "-" + c.variant());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Coordinator.start(
        Loopback.settings(published(a, bad), db, null, 1e7)));
    assertTrue(e.getMessage().contains("no_such_section"), e.getMessage());
  }

  /**
   * Each of its numeric parameters given -1 is refused naming it, before any data is read. A
   * parameter whose key ends in {@code seed} is left out: a seed may be any number.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void aNegativeValueOfANumericParameterIsRefusedNamingIt(Case c) {
    Algorithm a = c.algorithm();
    int checked = 0;
    for (Parameter p : a.parameters()) {
      if (p.type() != Parameter.Type.NUMBER && p.type() != Parameter.Type.INTEGER || p.key().endsWith("seed")) {
        continue;
      }
      ObjectNode bad = c.settings().deepCopy();
      put(bad, p.path(), IntNode.valueOf(-1));
      RuntimeException e = assertThrows(RuntimeException.class, () -> a.configure(strict(bad), common(a)),
          p.path() + " = -1 was accepted");
      assertTrue(e.getMessage().contains(p.path()), p.path() + ": " + e.getMessage());
      assertRefusedBySession(a, bad, p.path());
      checked++;
    }
    assertTrue(checked > 0, a.id() + " has no numeric parameter");
  }

  /** A session publishing {@code settings} as they are (not through the reader, which would refuse them). */
  private static SessionConfig published(Algorithm a, ObjectNode settings) {
    return session(a).setAlgorithmConfig(ByteString.copyFromUtf8(settings.toString())).build();
  }

  private static void assertRefusedBySession(Algorithm a, ObjectNode settings, String name) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SessionPlan.validate(published(a, settings)), name + " passed the session's validation");
    assertTrue(e.getMessage().contains(name), e.getMessage());
  }

  // The runs.

  /**
   * One variant's runs: the plain and the secure in-process run and the networked session.
   *
   * @param summation the in-process counterpart of the networked summation
   */
  record Runs(SessionConfig config, AlgorithmSpec spec, PublicPlan plan, SecureSummation summation,
      Simulation.Result plain, Simulation.Result secure, SeededRuns.Networked networked) {}

  private static synchronized Runs runs(Case c) throws Exception {
    Object r = RUNS.get(c.toString());
    if (r == null) {
      try {
        r = run(c);
      } catch (Exception | AssertionError e) {
        r = e;
      }
      RUNS.put(c.toString(), r);
    }
    if (r instanceof Exception e) {
      throw e;
    }
    if (r instanceof AssertionError e) {
      throw e;
    }
    return (Runs) r;
  }

  private static Runs run(Case c) throws Exception {
    Algorithm a = c.algorithm();
    Partition p = partition();
    SessionConfig probe = Loopback.algorithm(session(a), a.id(), c.settings().toString()).build();
    AlgorithmSpec spec = SessionPlan.spec(probe);
    PublicPlan plan = spec.plan(claimed(spec, probe), PARTIES, false);
    SecureSummation secagg = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.5,
        InProcessSecAgg.DROPOUTS_FROM_THRESHOLD, DropoutPlan.NONE, 2);
    boolean dca = !admits(spec.plan(claimed(spec, probe), PARTIES, false), secagg);
    SecureSummation summation = dca ? new ComputeServerSummation(2, DropoutPlan.NONE, 2) : secagg;
    if (dca) {
      assertTrue(admits(spec.plan(claimed(spec, probe), PARTIES, false), summation),
          a.id() + "'s plan admits neither SecAgg+ nor compute nodes");
    }
    Path sub = Files.createDirectories(dir.resolve(a.id() + "-" + c.variant()));
    try (SeededRuns.ComputeNodes nodes = dca ? SeededRuns.ComputeNodes.start(sub, PARTIES) : null) {
      SessionConfig config = probe;
      if (dca) {
        config = Loopback.algorithm(session(a).setProtocol("dca").addAllComputeNodes(nodes.entries()), a.id(),
            c.settings().toString()).build();
      }
      Simulation.Result plain = SeededRuns.inProcess(config, DIGITS, p, new PlainSummation());
      Simulation.Result secure = SeededRuns.inProcess(config, DIGITS, p, summation);
      SeededRuns.Networked net = SeededRuns.networked(config, DIGITS, p, sub, nodes, m -> { });
      assertNull(spec.notNetworked(), spec.notNetworked());
      return new Runs(config, spec, plan, summation, plain, secure, net);
    }
  }

  /** The sizes a roster of the partition lists: each party's own, or max_points where sizes are private. */
  private static int[] claimed(AlgorithmSpec spec, SessionConfig config) {
    int[] sizes = sizes();
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = SessionPlan.claimedPoints(spec, config, sizes[i]);
    }
    return sizes;
  }

  /** Whether {@code plan} admits {@code summation} among all the parties (the simulator's check). */
  private static boolean admits(PublicPlan plan, SecureSummation summation) {
    try {
      plan.admit(summation, PARTIES);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
