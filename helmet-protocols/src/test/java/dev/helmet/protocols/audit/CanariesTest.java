package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The generic canaries: registered, applicable to exactly the specs whose relation they fit, and
 * their pairs' shapes.
 */
class CanariesTest {
  private static final Dataset IRIS = TestData.iris();

  private static Set<String> applicable(AlgorithmSpec spec) {
    return Set.copyOf(Canaries.applicable(spec).stream().map(Canary::id).toList());
  }

  @Test
  void theRegistryListsTheGenericCanariesInServiceFileOrder() {
    List<String> ids = Canaries.all().stream().map(Canary::id).toList();
    assertEquals(List.of("input-mirror", "gradient", "add-one", "party"), ids.subList(0, 4));
    for (Canary c : Canaries.all()) {
      assertTrue(!c.description().isBlank(), c.id() + " has no description");
    }
  }

  @Test
  void eachCanaryAppliesToTheSpecsWhoseRelationItFits() throws Exception {
    assertEquals(Set.of("input-mirror", "gradient"), applicable(AuditSpecs.dpFl(1, IRIS)));
    assertEquals(Set.of("add-one"), applicable(AuditSpecs.dpFlAddRemove(1, IRIS)));
    assertEquals(Set.of("input-mirror", "gradient"), applicable(AuditSpecs.wdDp(1, IRIS)));
    assertEquals(Set.of("add-one"), applicable(AuditSpecs.smm(1, IRIS)));
    assertEquals(Set.of("input-mirror", "gradient"), applicable(AuditSpecs.helmet(1, Protection.record(), IRIS)));
    // A record-level pair is a neighbour under user-level protection too (replacing a record
    // replaces part of one party's data), so the record canaries still apply, only weaker.
    assertEquals(Set.of("input-mirror", "gradient", "party"),
        applicable(AuditSpecs.helmet(1, Protection.user(), IRIS)));
  }

  @Test
  void aCanaryThatDoesNotApplyNamesTheRelation() throws Exception {
    AlgorithmSpec addRemove = AuditSpecs.dpFlAddRemove(1, IRIS);
    AlgorithmSpec replaceOne = AuditSpecs.dpFl(1, IRIS);
    String gradient = Canaries.named("gradient", replaceOne).notApplicable(addRemove);
    assertTrue(gradient.contains("replaces a record") && gradient.contains("add-remove"), gradient);
    String addOne = Canaries.named("add-one", addRemove).notApplicable(replaceOne);
    assertTrue(addOne.contains("adds a record") && addOne.contains("replace-one"), addOne);
    String party = Canaries.named("party", AuditSpecs.helmet(1, Protection.user(), IRIS)).notApplicable(replaceOne);
    assertTrue(party.contains("user-level") && party.contains("protects a record") && party.contains("replace-one"),
        party);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Canaries.named("gradient", AuditSpecs.smm(1, IRIS)));
    assertTrue(e.getMessage().contains("does not apply to smm") && e.getMessage().contains("add-remove"),
        e.getMessage());
  }

  @Test
  void labelCanariesDoNotApplyToRegression() throws Exception {
    AlgorithmSpec linreg = Algorithms.named("wd-dp").configure(new StrictNode("test",
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(
            "{\"learner\": {\"target_bounds\": {\"lower\": 0, \"upper\": 10}}}"), IllegalArgumentException::new),
        new Common(1, 1e-5, 1.0, Protection.record(), 0, 4, 1));
    String why = Canaries.named("gradient", AuditSpecs.wdDp(1, IRIS)).notApplicable(linreg);
    assertTrue(why != null && why.contains("numeric targets"), String.valueOf(why));
  }

  /** The learner input of a raw record under {@code spec}'s preprocessing (without the intercept). */
  private static double[] preprocessed(AlgorithmSpec spec, Dataset data, int row) {
    double[] x = new double[data.dimension() + 1];
    spec.preprocessing().apply(data, row, x, 0);
    return java.util.Arrays.copyOfRange(x, 1, x.length);
  }

  /** The coordinate of a learner input that is not zero, checking it is the only one and of norm c. */
  private static int diracCoordinate(double[] x, double c) {
    int j = -1;
    for (int k = 0; k < x.length; k++) {
      if (Math.abs(x[k]) > 1e-6) {
        assertEquals(-1, j, "the canary has a second non-zero coordinate, " + k);
        j = k;
      }
    }
    assertTrue(j >= 0, "the canary is zero");
    assertEquals(c, Math.abs(x[j]), 1e-9 * c, "the canary's coordinate has norm c");
    return j;
  }

  private static void assertSameRow(Dataset a, int i, Dataset b, int k) {
    for (int j = 0; j < a.dimension(); j++) {
      assertEquals(a.feature(i, j), b.feature(k, j), 0, "row " + i + " feature " + j);
    }
    assertEquals(a.label(i), b.label(k), "row " + i + "'s label");
  }

  @Test
  void theGradientCanaryReplacesPartyZerosFirstRowByADiracRecordOnTheLeastUsedFeature() throws Exception {
    AlgorithmSpec spec = AuditSpecs.dpFl(1, IRIS);
    Partition split = AuditSpecs.threeParties(IRIS);
    NeighbourPair pair = Canaries.named("gradient", spec).pair(spec, IRIS, split);
    int row = split.indices(0)[0];
    assertEquals(IRIS.size(), pair.neighbour().size());
    for (int i = 0; i < IRIS.size(); i++) {
      if (i != row) {
        assertSameRow(IRIS, i, pair.neighbour(), i);
      }
    }
    assertEquals(split, pair.neighbourPartition());
    double c = spec.preprocessing().clipBound();
    int j = diracCoordinate(preprocessed(spec, pair.neighbour(), row), c);
    // j carries the least mass of the data's learner inputs, and the canary points against their mean.
    double[] mass = new double[IRIS.dimension()];
    double mean = 0;
    for (int i = 0; i < IRIS.size(); i++) {
      double[] x = preprocessed(spec, IRIS, i);
      for (int k = 0; k < x.length; k++) {
        mass[k] += x[k] * x[k];
      }
      mean += x[j];
    }
    for (double m : mass) {
      assertTrue(mass[j] <= m, "feature " + j + " is not the least used: " + java.util.Arrays.toString(mass));
    }
    assertTrue(Math.signum(mean) == -Math.signum(preprocessed(spec, pair.neighbour(), row)[j]),
        "the canary points along the data's mean");
    assertNotEquals(IRIS.label(row), pair.neighbour().label(row), "the canary keeps the replaced record's label");
  }

  @Test
  void theGradientCanaryUnderFeatureBoundsSitsAtABoundWithTheOtherFeaturesAtTheirMidpoints() throws Exception {
    AlgorithmSpec spec = AuditSpecs.configure("dp-fl", "{\"learner\": {\"feature_bounds\": {\"lower\": 0, "
        + "\"upper\": 8}}, \"dpfl\": {\"rounds\": 1}}", 1, Protection.record(), IRIS);
    NeighbourPair pair = Canaries.named("gradient", spec).pair(spec, IRIS, AuditSpecs.threeParties(IRIS));
    int row = AuditSpecs.threeParties(IRIS).indices(0)[0];
    diracCoordinate(preprocessed(spec, pair.neighbour(), row), spec.preprocessing().clipBound());
  }

  @Test
  void theAddOneCanaryAppendsOneRowToPartyZeroAndChangesNothingElse() throws Exception {
    AlgorithmSpec spec = AuditSpecs.smm(1, IRIS);
    Partition split = AuditSpecs.threeParties(IRIS);
    NeighbourPair pair = Canaries.named("add-one", spec).pair(spec, IRIS, split);
    int n = IRIS.size();
    assertEquals(n + 1, pair.neighbour().size());
    for (int i = 0; i < n; i++) {
      assertSameRow(IRIS, i, pair.neighbour(), i);
    }
    assertEquals(split, pair.partition());
    int[] own = split.indices(0);
    int[] grown = pair.neighbourPartition().indices(0);
    assertEquals(own.length + 1, grown.length);
    assertArrayEquals(own, java.util.Arrays.copyOf(grown, own.length), "party 0's rows keep their order");
    assertEquals(n, grown[own.length], "the canary is party 0's last row");
    for (int p = 1; p < split.count(); p++) {
      assertArrayEquals(split.indices(p), pair.neighbourPartition().indices(p), "party " + p + " changed");
    }
    diracCoordinate(preprocessed(spec, pair.neighbour(), n), spec.preprocessing().clipBound());
    assertTrue(pair.neighbourPartition().countFreeDescription().contains("one canary added"),
        pair.neighbourPartition().countFreeDescription());
  }

  @Test
  void thePartyCanaryMirrorsEveryRowOfPartyZeroAndNoOther() throws Exception {
    AlgorithmSpec spec = AuditSpecs.helmet(1, Protection.user(), IRIS);
    Partition split = AuditSpecs.threeParties(IRIS);
    NeighbourPair pair = Canaries.named("party", spec).pair(spec, IRIS, split);
    assertEquals(split, pair.neighbourPartition());
    Set<Integer> party0 = new java.util.HashSet<>();
    for (int i : split.indices(0)) {
      party0.add(i);
      for (int j = 0; j < IRIS.dimension(); j++) {
        assertEquals(-IRIS.feature(i, j), pair.neighbour().feature(i, j), 0, "row " + i + " is not mirrored");
      }
      assertEquals(IRIS.label(i), pair.neighbour().label(i));
    }
    assertEquals(50, party0.size());
    for (int i = 0; i < IRIS.size(); i++) {
      if (!party0.contains(i)) {
        assertSameRow(IRIS, i, pair.neighbour(), i);
      }
    }
  }

  @Test
  void neighbourPairsRefuseCanariesOfTheWrongShape() {
    Partition split = AuditSpecs.threeParties(IRIS);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NeighbourPair.addOne(IRIS, split, 0, new float[3], 0));
    assertTrue(e.getMessage().contains("3 features"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> NeighbourPair.addOne(IRIS, split, 3, new float[4], 0));
    assertTrue(e.getMessage().contains("party 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> NeighbourPair.replaceParty(IRIS, split, 0, new float[2][4], new int[2]));
    assertTrue(e.getMessage().contains("holds 50 rows"), e.getMessage());
  }
}
