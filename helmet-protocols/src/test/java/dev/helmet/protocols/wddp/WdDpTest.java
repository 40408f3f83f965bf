package dev.helmet.protocols.wddp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;

class WdDpTest {
  private static final Dataset DIGITS = TestData.digits();

  private static AlgorithmSpec spec(double eps, String extra) {
    ObjectNode c = JsonNodeFactory.instance.objectNode();
    ObjectNode d = c.putObject("wd_dp");
    for (String kv : extra.isEmpty() ? new String[0] : extra.split(",")) {
      String[] p = kv.split("=");
      try {
        d.put(p[0], Double.parseDouble(p[1]));
      } catch (NumberFormatException e) {
        d.put(p[0], p[1]);
      }
    }
    if (d.has("steps")) {
      d.put("steps", d.get("steps").asInt());
    }
    c.putObject("learner").put("clip_bound", 1);
    Common common = new Common(eps, 1e-5, 0.5, Protection.record(), 0, DIGITS.dimension(), DIGITS.numClasses());
    return new WdDpAlgorithm().configure(new StrictNode("test", c, IllegalArgumentException::new), common);
  }

  private static Simulation.Result simulate(AlgorithmSpec spec, PartitionStrategy parts, SecureSummation summation,
      long noiseSeed) {
    Partition p = parts.split(DIGITS, new SplittableRandom(1));
    return Simulation.run(Simulation.prepare(spec, DIGITS, p, 7, 2, Progress.NONE), p.count(), summation,
        NoiseFactory.seededForTesting(noiseSeed), 2, Progress.NONE);
  }

  private static double accuracy(Simulation.Result r) {
    DesignMatrix all = new dev.helmet.core.preprocess.Preprocessing(1, true).design(DIGITS);
    return Evaluation.of(all.labels(), r.model().predict(all), 10).accuracy();
  }

  /**
   * The calibration against an independent closed form: T Gaussian mechanisms of noise multiplier
   * mu compose to mu/sqrt(T)-GDP (Dong, Roth, Su 2019, Cor. 3.3), whose curve is delta(eps) =
   * Phi(-eps/m + m/2) - e^eps Phi(-eps/m - m/2) with m = sqrt(T)/mu (their Cor. 2.13).
   */
  @Test
  void theStepNoiseMeetsTheTargetByTheGdpClosedForm() {
    for (double eps : new double[] {0.1, 1, 5}) {
      for (int steps : new int[] {1, 50, 400}) {
        WdDpPlan plan = (WdDpPlan) spec(eps, "steps=" + steps).plan(new int[] {100, 300}, 2);
        double mu = plan.noiseMultiplier();
        assertTrue(gdpDelta(eps, Math.sqrt(steps) / mu) <= 1e-5, "eps " + eps + ", T " + steps);
        assertTrue(gdpDelta(eps, Math.sqrt(steps) / (mu * (1 - 1e-6))) > 1e-5,
            "the smallest such noise: eps " + eps + ", T " + steps);
        assertEquals(eps, plan.epsilon(), 1e-6 * eps);
      }
    }
  }

  private static double gdpDelta(double eps, double m) {
    NormalDistribution z = NormalDistribution.of(0, 1);
    return z.cumulativeProbability(-eps / m + m / 2) - Math.exp(eps) * z.cumulativeProbability(-eps / m - m / 2);
  }

  @Test
  void eachPartyNoisesItsGradientForItsOwnSizeAndThePldAgrees() {
    WdDpPlan plan = (WdDpPlan) spec(1, "steps=20").plan(new int[] {50, 200}, 2);
    // sigma_j = mu 2G / n_j: four times the records, a quarter of the noise.
    assertEquals(4 * plan.stepSigma(200), plan.stepSigma(50), 1e-12);
    WdDpPlan pld = (WdDpPlan) spec(1, "steps=20,accountant=pld").plan(new int[] {50, 200}, 2);
    assertEquals(plan.noiseMultiplier(), pld.noiseMultiplier(), 0.01 * plan.noiseMultiplier());
    assertTrue(pld.epsilon() <= 1 + 1e-9, "pld eps " + pld.epsilon());
  }

  /** Little noise: the weighted average of noisy-GD models learns the digits; more noise, less. */
  @Test
  void learnsWithLittleNoiseAndLessWithMore() {
    Simulation.Result loose = simulate(spec(1000, "steps=300"), new PartitionStrategy.Iid(4, 400),
        new PlainSummation(), 1);
    Simulation.Result tight = simulate(spec(0.5, "steps=300"), new PartitionStrategy.Iid(4, 400),
        new PlainSummation(), 1);
    double a = accuracy(loose);
    double b = accuracy(tight);
    assertTrue(a > 0.85, "eps 1000: " + a);
    assertTrue(b < a, "eps 0.5 " + b + " vs eps 1000 " + a);
    assertTrue(loose.ledger().epsilon() <= 1000 + 1e-6);
    assertTrue(loose.ledger().guarantees().stream().anyMatch(g -> g.against().contains("in the clear")),
        "a summation in the clear: the trusted-server guarantee is stated");
  }

  /** Secure aggregation sums exactly: the same noise gives the same model as the sum in the clear. */
  @Test
  void throughSecAggPlusTheModelIsExactlyThePlainOne() {
    AlgorithmSpec s = spec(2, "steps=30");
    Simulation.Result plain = simulate(s, new PartitionStrategy.Iid(4, 200), new PlainSummation(), 5);
    Simulation.Result secure = simulate(s, new PartitionStrategy.Iid(4, 200), new InProcessSecAgg(
        InProcessSecAgg.Variant.SECAGG_PLUS, 0, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD, DropoutPlan.NONE, 2), 5);
    assertArrayEquals(plain.model().parameters(), secure.model().parameters(), 1e-9);
    assertEquals("secure (the server sees only the sum)", secure.ledger().details().get("trust_mode"));
  }

  /** Weighted (n_j/n) and uniform (1/m) averages differ on uneven parties and agree on even ones. */
  @Test
  void uniformWeightsAreJayaramansAverage() {
    PartitionStrategy even = new PartitionStrategy.Iid(3, 300);
    Simulation.Result sizes = simulate(spec(2, "steps=20"), even, new PlainSummation(), 9);
    Simulation.Result uniform = simulate(spec(2, "steps=20,weighting=uniform"), even, new PlainSummation(), 9);
    assertArrayEquals(sizes.model().parameters(), uniform.model().parameters(), 1e-9);
    PartitionStrategy uneven = new PartitionStrategy.Uneven(4, 100, 4, 0.5);
    Simulation.Result a = simulate(spec(2, "steps=20"), uneven, new PlainSummation(), 9);
    Simulation.Result b = simulate(spec(2, "steps=20,weighting=uniform"), uneven, new PlainSummation(), 9);
    double diff = 0;
    for (int i = 0; i < a.model().parameters().length; i++) {
      diff += Math.abs(a.model().parameters()[i] - b.model().parameters()[i]);
    }
    assertTrue(diff > 1e-3, "uneven parties: the weights matter");
  }

  @Test
  void badSettingsAreRejectedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> spec(1, "weighting=votes"));
    assertTrue(e.getMessage().contains("weighting"), e.getMessage());
    ObjectNode c = JsonNodeFactory.instance.objectNode();
    c.putObject("learner").put("kind", "logreg");
    Common ten = new Common(1, 1e-5, 0.5, Protection.record(), 0, 64, 10);
    e = assertThrows(IllegalArgumentException.class, () -> new WdDpAlgorithm().configure(
        new StrictNode("test", c, IllegalArgumentException::new), ten));
    assertTrue(e.getMessage().contains("softmax"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> spec(1, "weighting=uniform,weight_noise_fraction=0.2"));
    assertTrue(e.getMessage().contains("weight_noise_fraction"), e.getMessage());
  }

  /** Seeded noise is labelled in every ledger; the weight noise share leaves the model (eps1, delta1). */
  @Test
  void theLedgerSaysWhatTheNoiseIsAndWhatItCosts() {
    AlgorithmSpec s = spec(1, "steps=10,weight_noise_fraction=0.2");
    WdDpPlan secure = (WdDpPlan) s.plan(new int[] {40, 60}, 2, true);
    WdDpPlan seeded = (WdDpPlan) s.plan(new int[] {40, 60}, 2, false);
    assertTrue(seeded.summary().get("noise_sampler").toString().startsWith("SEEDED, NOT SECURE"));
    assertTrue(secure.summary().get("noise_sampler").toString().contains("SecureRandom"));
    var ledger = secure.ledger(2, "secagg+", false);
    assertEquals(0.8, ledger.epsilon(), 1e-6, "eps1 = (1 - f) eps");
    assertEquals(0.8e-5, ledger.delta(), 1e-18, "delta1 = (1 - f) delta");
    assertTrue((double) secure.summary().get("weight_noise_std") > 0);
  }
}
