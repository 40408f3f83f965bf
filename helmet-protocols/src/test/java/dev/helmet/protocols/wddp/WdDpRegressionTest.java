package dev.helmet.protocols.wddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.TabularData;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.OptimalityGap;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.blind.BlindAveragingAlgorithm;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** WD-DP's linear regression: configuration, a learned model, and the optimality gap. */
class WdDpRegressionTest {
  private static final int P = 4;

  /** y = 10 + 5 (x1 - x2) + noise, features in [-1, 1]; targets within [0, 20]. */
  private static Dataset data(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * P];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < P; j++) {
        x[i * P + j] = (float) (2 * r.nextDouble() - 1);
      }
      y[i] = 10 + 5 * (x[i * P] - x[i * P + 1]) + 0.3 * r.nextGaussian();
    }
    return new Dataset("synthetic", x, new int[n], P, TabularData.NO_CLASSES, null).withTargets(y);
  }

  private static Common common(double eps) {
    return new Common(eps, 1e-5, 0.5, Protection.record(), 0, P, 1);
  }

  private static AlgorithmSpec spec(double eps, String loss, boolean bounds) {
    ObjectNode c = JsonNodeFactory.instance.objectNode();
    c.putObject("wd_dp").put("loss", loss).put("steps", 400);
    ObjectNode l = c.putObject("learner").put("normalise", false);
    if (bounds) {
      l.putObject("target_bounds").put("lower", 0).put("upper", 20);
    }
    return new WdDpAlgorithm().configure(new StrictNode("test", c, IllegalArgumentException::new), common(eps));
  }

  @Test
  void regressionNeedsPublicTargetBoundsAndOnlyWdDpFitsIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> spec(1, "squared", false));
    assertTrue(e.getMessage().contains("target_bounds") && e.getMessage().contains("--target-bounds"),
        e.getMessage());
    IllegalArgumentException h = assertThrows(IllegalArgumentException.class, () -> new BlindAveragingAlgorithm().configure(
        new StrictNode("test", JsonNodeFactory.instance.objectNode(), IllegalArgumentException::new), common(1)));
    assertTrue(h.getMessage().contains("--algorithm wd-dp"), h.getMessage());
    assertTrue(spec(1, "squared", true).describe().contains("linreg (squared loss, R 1)"));
  }

  /**
   * With hardly any noise the weighted average of the parties' models fits the data (R^2 near the
   * noiseless optimum's) and its optimality gap is small; at eps 0.5 the gap is larger. The
   * predictions are in the targets' units.
   */
  @Test
  void fitsSyntheticDataAndTheGapGrowsWithTheNoise() {
    Dataset train = data(2000, 1);
    Dataset test = data(500, 2);
    Partition parts = new PartitionStrategy.Iid(4, 500).split(train, new SplittableRandom(3));
    double[] gaps = new double[2];
    double[] r2 = new double[2];
    double[] eps = {1e5, 0.5};
    for (int k = 0; k < 2; k++) {
      AlgorithmSpec s = spec(eps[k], "squared", true);
      Simulation.Result r = Simulation.run(Simulation.prepare(s, train, parts, 7, 2, Progress.NONE), 4,
          new PlainSummation(), NoiseFactory.seededForTesting(11), 2, Progress.NONE);
      DesignMatrix rows = s.preprocessing().design(test);
      Evaluation e = Evaluation.of(r.model(), rows, test, s.preprocessing());
      r2[k] = e.regression().r2();
      DesignMatrix pooled = s.preprocessing().design(train, parts.pooled());
      OptimalityGap gap = OptimalityGap.solve(s, pooled);
      gaps[k] = gap.of(r.model(), pooled);
      assertTrue(gaps[k] >= -1e-9, "a gap is never negative: " + gaps[k]);
      assertEquals(0, gap.of(gap.model(), pooled), 0);
    }
    assertTrue(r2[0] > 0.6, "R^2 with hardly any noise: " + r2[0]);
    assertTrue(gaps[0] < 0.01, "gap with hardly any noise: " + gaps[0]);
    assertTrue(gaps[1] > gaps[0], "eps 0.5 gap " + gaps[1] + " vs " + gaps[0]);
  }

  /** The PL loss: the same privacy calibration, its own (larger) Lipschitz and smoothness bounds. */
  @Test
  void thePlLossHasItsOwnBounds() {
    WdDpPlan sq = (WdDpPlan) spec(1, "squared", true).plan(new int[] {100, 100}, 2);
    WdDpPlan pl = (WdDpPlan) spec(1, "pl", true).plan(new int[] {100, 100}, 2);
    assertEquals(sq.noiseMultiplier(), pl.noiseMultiplier(), 1e-12);
    // G_pl = G_sq + 2R + 3 with R = 1: the per-step noise grows by that much over G
    double gSq = (Double) sq.summary().get("lipschitz");
    double gPl = (Double) pl.summary().get("lipschitz");
    assertEquals(gSq + 5, gPl, 1e-12);
    assertEquals(gPl / gSq, pl.stepSigma(100) / sq.stepSigma(100), 1e-12);
  }
}
