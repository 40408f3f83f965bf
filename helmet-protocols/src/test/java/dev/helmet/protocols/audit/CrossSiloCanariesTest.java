package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.crosssilo.CrossSiloFixedBatchCanary;
import dev.helmet.protocols.crosssilo.CrossSiloProjectionCanary;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.privacy.Protection;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Cross-silo's two canaries: where they apply, and the shape of their pairs. */
class CrossSiloCanariesTest {
  static AlgorithmSpec crossSilo(String json, Dataset data) throws Exception {
    return Algorithms.named("cross-silo").configure(new StrictNode("test", new ObjectMapper().readTree(json),
        IllegalArgumentException::new), new Common(2, 1e-5, 1.0, Protection.record(), 0, data.dimension(),
            data.numClasses()));
  }

  static final String SWOR = "{\"learner\": {\"kind\": \"softmax\"}, \"crosssilo\": {\"sampling\": \"swor\", "
      + "\"batch\": 5, \"swor_mixnet\": \"ideal\", \"noise_split\": \"trusted-hardware\", \"rounds\": 3}}";
  static final String POISSON = "{\"learner\": {\"kind\": \"softmax\"}, \"crosssilo\": {\"rounds\": 3, "
      + "\"noise_split\": \"trusted-hardware\"}}";

  static String projected(String kind, int k) {
    return "{\"learner\": {\"kind\": \"" + kind + "\"}, \"crosssilo\": {\"sampling_rate\": 1, \"rounds\": 1, "
        + "\"grad_clip\": 1, \"noise_split\": \"trusted-hardware\", \"projection\": " + k + "}}";
  }

  static Dataset gaussian(int n, int p, long seed) {
    float[] v = new float[n * p];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) r.nextGaussian();
    }
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      y[i] = i % 2;
    }
    return new Dataset("gaussian", v, y, p, LabelSet.ofIntegers(2), null);
  }

  static double[] clippedGradient(DpSgdModel m, DesignMatrix rows, int row, double[] theta, double clip) {
    double[] g = new double[m.length()];
    m.addClippedGradients(m.records(rows), theta, clip, new int[] {row}, g);
    return g;
  }

  @Test
  void bothAreRegisteredAndApplyOnlyWhereTheirReleaseIs() throws Exception {
    Dataset bc = TestData.breastCancer();
    List<String> ids = Canaries.all().stream().map(Canary::id).toList();
    assertTrue(ids.contains(CrossSiloFixedBatchCanary.ID) && ids.contains(CrossSiloProjectionCanary.ID), ids.toString());
    AlgorithmSpec swor = crossSilo(SWOR, bc);
    List<String> forSwor = Canaries.applicable(swor).stream().map(Canary::id).toList();
    assertTrue(forSwor.contains(CrossSiloFixedBatchCanary.ID), forSwor.toString());
    assertTrue(!forSwor.contains(CrossSiloProjectionCanary.ID), forSwor.toString());

    Canary batch = new CrossSiloFixedBatchCanary();
    assertNull(batch.notApplicable(swor));
    String poisson = batch.notApplicable(crossSilo(POISSON, bc));
    assertNotNull(poisson);
    assertTrue(poisson.contains("swor") && poisson.contains("Poisson"), poisson);
    AlgorithmSpec helmet = ReleaseAuditTest.helmet(1, TestData.iris());
    assertTrue(batch.notApplicable(helmet).contains("the algorithm is helmet"), batch.notApplicable(helmet));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Canaries.named(CrossSiloFixedBatchCanary.ID, crossSilo(POISSON, bc)));
    assertTrue(e.getMessage().contains("does not apply to cross-silo"), e.getMessage());

    Canary projection = new CrossSiloProjectionCanary();
    Dataset g = gaussian(20, 50, 3);
    assertNull(projection.notApplicable(crossSilo(projected("softmax", 5), g)));
    assertTrue(projection.notApplicable(swor).contains("--projection-dim"), projection.notApplicable(swor));
    String mlp = projection.notApplicable(crossSilo(projected("mlp", 5), g));
    assertTrue(mlp.contains("softmax") && mlp.contains("mlp"), mlp);
    String bounds = projection.notApplicable(crossSilo("{\"learner\": {\"kind\": \"softmax\", \"feature_bounds\": "
        + "{\"lower\": -1, \"upper\": 1}}, \"crosssilo\": {\"rounds\": 1, \"projection\": 5}}", g));
    assertTrue(bounds.contains("feature_bounds"), bounds);
    assertTrue(projection.notApplicable(helmet).contains("the algorithm is helmet"), projection.notApplicable(helmet));
  }

  @Test
  void theFixedBatchPairIsCopiesOfOneRowWithOneRelabelled() throws Exception {
    Dataset bc = TestData.breastCancer();
    Partition p = new PartitionStrategy.Iid(3, 0).split(bc, new SplittableRandom(2));
    AlgorithmSpec spec = crossSilo(SWOR, bc);
    NeighbourPair pair = new CrossSiloFixedBatchCanary().pair(spec, bc, p);
    int row = p.indices(0)[0];
    assertEquals(bc.size(), pair.data().size());
    assertEquals(bc.size(), pair.neighbour().size());
    assertEquals(bc.dimension(), pair.data().dimension());
    assertEquals(bc.labelSet(), pair.data().labelSet());
    assertTrue(pair.partition() == p && pair.neighbourPartition() == p, "both sides split as given");
    float[] first = new float[bc.dimension()];
    pair.data().copyRow(0, first, 0);
    for (int i = 0; i < bc.size(); i++) {
      float[] a = new float[bc.dimension()];
      float[] b = new float[bc.dimension()];
      pair.data().copyRow(i, a, 0);
      pair.neighbour().copyRow(i, b, 0);
      assertArrayEquals(first, a, "every record of D is the same row");
      assertArrayEquals(first, b, "D' changes no features");
      assertEquals(1, pair.data().label(i));
      assertEquals(i == row ? 0 : 1, pair.neighbour().label(i), "only party 0's first row is relabelled");
    }
    // Two classes: the two records' clipped gradients are exact negatives, at the softmax model's
    // start and away from it, and at an MLP's seeded start (the pair's premise).
    DesignMatrix design = spec.preprocessing().design(pair.neighbour(), new int[] {row, (row + 1) % bc.size()});
    DpSgdModel softmax = DpSgdModel.softmax(2, bc.dimension() + 1, DpSgdModel.Optimizer.SGD);
    double[] theta = new double[softmax.length()];
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < theta.length; i++) {
      theta[i] = 0.05 * r.nextGaussian();
    }
    DpSgdModel mlp = DpSgdModel.mlp(new Mlp(bc.dimension(), 8, 2), DpSgdModel.Optimizer.SGD, 1);
    for (Object[] at : new Object[][] {{softmax, softmax.start()}, {softmax, theta}, {mlp, mlp.start()}}) {
      DpSgdModel m = (DpSgdModel) at[0];
      double[] x = clippedGradient(m, design, 0, (double[]) at[1], 1);
      double[] xPrime = clippedGradient(m, design, 1, (double[]) at[1], 1);
      double norm = 0;
      for (int i = 0; i < x.length; i++) {
        assertEquals(-xPrime[i], x[i], 1e-12, "g(x) = -g(x') at parameter " + i + " of " + m.describe());
        norm += x[i] * x[i];
      }
      assertEquals(1, Math.sqrt(norm), 1e-9, "both clipped to C = 1 (" + m.describe() + ")");
    }
  }

  @Test
  void theCraftedRecordBeatsTheProjectedClipAndItsMirrorIsTheNeighbour() throws Exception {
    Dataset g = gaussian(20, 400, 3);
    Partition p = new PartitionStrategy.Iid(2, 0).split(g, new SplittableRandom(1));
    AlgorithmSpec spec = crossSilo(projected("softmax", 10), g);
    CrossSiloProjectionCanary canary = new CrossSiloProjectionCanary();
    CrossSiloProjectionCanary.Crafted c = canary.craft(spec, p);
    // The projected ratio of a record crafted along P_0 is about 1 + sqrt(p / k) = 7.3 here, against
    // r(10, delta / (20 * 2 * 1)) = 2.24: its clipped gradient (norm C: the input has norm 10, the
    // gradient 7.1 before the clip at 1) projects to ratio x C, beyond C~ = r C, before C~'s clip.
    assertTrue(c.projectedRatio() > 2.5 * c.clipRatio(), c.projectedRatio() + " against r " + c.clipRatio());
    assertTrue(c.gradientNorm() > 1, "the gradient is clipped: " + c.gradientNorm());
    assertEquals(c.clipRatio(), c.projectedClip(), 1e-12, "C~ = r C at C = 1");
    // Independently: P_0 from the published seed (projection_seed 1, step 0: 1 * 0x9e3779b97f4a7c15 + 1)
    // and the model's own gradient of the crafted input; and records drawn without P stay below r.
    DpSgdModel model = DpSgdModel.softmax(2, g.dimension() + 1, DpSgdModel.Optimizer.ADAM);
    GaussianProjection p0 = new GaussianProjection(0x9e3779b97f4a7c15L + 1, model.length(), 10);
    NeighbourPair pair = canary.pair(spec, g, p);
    int row = p.indices(0)[0];
    DesignMatrix crafted = spec.preprocessing().design(pair.data(), new int[] {row});
    double[] grad = clippedGradient(model, crafted, 0, model.start(), Double.MAX_VALUE);
    assertEquals(c.projectedRatio(), norm(p0.project(grad)) / norm(grad), 1e-6 * c.projectedRatio());
    DesignMatrix honest = spec.preprocessing().design(g, p.indices(1));
    for (int i = 0; i < honest.rows(); i++) {
      double[] h = clippedGradient(model, honest, i, model.start(), Double.MAX_VALUE);
      double ratio = norm(p0.project(h)) / norm(h);
      assertTrue(ratio < c.clipRatio(), "an honest record's ratio " + ratio + " beyond r " + c.clipRatio());
    }
    // The pair: D holds the crafted record, D' its mirror image, same label, nothing else changed.
    float[] a = new float[g.dimension()];
    float[] b = new float[g.dimension()];
    pair.data().copyRow(row, a, 0);
    pair.neighbour().copyRow(row, b, 0);
    assertArrayEquals(c.features(), a);
    double sq = 0;
    for (int j = 0; j < a.length; j++) {
      assertEquals(-a[j], b[j], 0);
      sq += (double) a[j] * a[j];
    }
    assertEquals(10, Math.sqrt(sq), 1e-4, "at the clip bound c = 10");
    assertEquals(c.label(), pair.data().label(row));
    assertEquals(c.label(), pair.neighbour().label(row));
    for (int i = 0; i < g.size(); i++) {
      if (i != row) {
        g.copyRow(i, a, 0);
        pair.neighbour().copyRow(i, b, 0);
        assertArrayEquals(a, b, "row " + i + " unchanged");
        assertEquals(g.label(i), pair.neighbour().label(i));
      }
    }
  }

  static double norm(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }
}
