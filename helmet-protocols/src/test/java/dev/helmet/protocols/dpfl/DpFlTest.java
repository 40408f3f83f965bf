package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.ClippedGradients;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.simulation.Simulation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DpFlTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final Preprocessing PRE = new Preprocessing(1, true);

  /** Add-or-remove neighbours, RDP, the public normaliser q x 1200 records (fast to calibrate). */
  private static DpFl.Config addRemove(int rounds, double eps, double honestFraction) {
    return new DpFl.Config(0.2, 1, rounds, 2, eps, 1e-5, honestFraction, DpFl.NoiseSplit.HONEST, "rdp", 0,
        NeighbourRelation.ADD_OR_REMOVE_ONE, 0.2 * 1200);
  }

  /** DP-FL through the in-process simulator; a null summation is the aggregate simulation. */
  static Simulation.Result simulate(DpFl.Config c, SecureSummation summation, long noiseSeed) {
    Partition p = new PartitionStrategy.Iid(10, 120).split(DIGITS, new SplittableRandom(1));
    Common common = new Common(c.epsilon(), c.delta(), c.honestFraction(), Protection.record(), c.ringBits(),
        DIGITS.dimension(), DIGITS.numClasses());
    DpFlSpec spec = new DpFlSpec(new DpFlAlgorithm(), common, c, PRE);
    return Simulation.run(Simulation.prepare(spec, DIGITS, p, 7, 2, Progress.NONE), 10, summation,
        NoiseFactory.seededForTesting(noiseSeed), 2, Progress.NONE);
  }

  private static Simulation.Result run(double eps, int rounds, boolean secure, long noiseSeed) {
    return simulate(addRemove(rounds, eps, 1), secure
        ? new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD,
            DropoutPlan.NONE, 2)
        : new PlainSummation(), noiseSeed);
  }

  private static double accuracy(Simulation.Result r) {
    DesignMatrix all = PRE.design(DIGITS);
    return Evaluation.of(all.labels(), r.model().predict(all), 10).accuracy();
  }

  /** Little noise (eps = 50): DP-SGD learns the digits; the accounted eps never exceeds the target. */
  @Test
  void learnsWithLittleNoiseAndMeetsItsTarget() {
    Simulation.Result r = run(50, 60, false, 1);
    assertTrue(r.ledger().epsilon() <= 50, "eps " + r.ledger().epsilon());
    assertTrue(r.ledger().epsilon() > 49, "calibrated close to the target: " + r.ledger().epsilon());
    double acc = accuracy(r);
    assertTrue(acc > 0.8, "accuracy " + acc);
  }

  /** Secure aggregation sums exactly: with the same sampling and noise the model is identical to the plain run. */
  @Test
  void throughSecAggPlusTheModelIsExactlyThePlainOne() {
    Simulation.Result plain = run(2, 5, false, 3);
    Simulation.Result secure = run(2, 5, true, 3);
    assertArrayEquals(plain.model().parameters(), secure.model().parameters());
    assertEquals(plain.plan().noiseMultiplier(), secure.plan().noiseMultiplier());
    assertTrue(secure.bytesPerParty() > plain.bytesPerParty());
  }

  /**
   * The geometric-skip Poisson sampler includes every record independently with probability q:
   * over 20,000 rounds each of 50 records is sampled q times as often (binomial, within 5.3
   * standard errors: false failure below 1e-7 per record), and the number sampled per round has
   * the binomial variance n q (1 - q) (within 10 %, 5.5 SE of the sample variance).
   */
  @Test
  void poissonSamplerIncludesEachRecordWithProbabilityQ() {
    DesignMatrix m = PRE.design(DIGITS, java.util.stream.IntStream.range(0, 50).toArray());
    int cols = m.cols();
    double q = 0.03;
    int rounds = 20_000;
    RandomBits rng = RandomBits.insecureForTesting(11);
    int[] hits = new int[50];
    double sumK = 0;
    double sumK2 = 0;
    double[] theta = new double[10 * cols];
    for (int r = 0; r < rounds; r++) {
      int k = 0;
      for (int i : ClippedGradients.sample(50, q, rng)) {
        hits[i]++;
        k++;
      }
      sumK += k;
      sumK2 += (double) k * k;
    }
    double se = Math.sqrt(rounds * q * (1 - q));
    for (int i = 0; i < 50; i++) {
      assertTrue(Math.abs(hits[i] - rounds * q) < 5.33 * se, "record " + i + ": " + hits[i] + " of " + rounds);
    }
    double mean = sumK / rounds;
    double var = sumK2 / rounds - mean * mean;
    assertTrue(Math.abs(var / (50 * q * (1 - q)) - 1) < 0.1, "variance " + var);
    // and the sampler drives the gradient: at q = 1 every record is used, at tiny q almost none
    double[] all = new double[10 * cols];
    ClippedGradients.add(m, theta, 10, 1e9, 1, rng, all);
    double[] none = new double[10 * cols];
    ClippedGradients.add(m, theta, 10, 1e9, 1e-12, rng, none);
    assertTrue(java.util.Arrays.stream(all).map(Math::abs).sum() > 0);
    assertEquals(0, java.util.Arrays.stream(none).map(Math::abs).sum());
  }

  /**
   * The blocked gradient (scores of 64 records at a time, one update per block) is the sum of the
   * records' own clipped gradients (p - e_y) x^T min(1, C / (|p - e_y| |x|)), computed here one
   * record at a time, on more records than one block, with clipping active for some.
   */
  @Test
  void blockedClippedGradientsAreThePerRecordSum() {
    DesignMatrix m = PRE.design(DIGITS, java.util.stream.IntStream.range(0, 150).toArray());
    int cols = m.cols();
    double[] theta = new double[10 * cols];
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    for (int i = 0; i < theta.length; i++) {
      theta[i] = r.nextGaussian() * 0.3;
    }
    // Clip at the median gradient norm, so about half the records are clipped.
    double[] norms = new double[m.rows()];
    for (int i = 0; i < m.rows(); i++) {
      double[] p = softmaxMinusOneHot(m, theta, i);
      double n2 = 0;
      for (double v : p) {
        n2 += v * v;
      }
      norms[i] = Math.sqrt(n2) * m.rowNorm(i);
    }
    double clip = java.util.Arrays.stream(norms).sorted().toArray()[m.rows() / 2];
    double[] blocked = new double[10 * cols];
    ClippedGradients.add(m, theta, 10, clip, 1, RandomBits.insecureForTesting(1), blocked);
    double[] byHand = new double[10 * cols];
    int clipped = 0;
    for (int i = 0; i < m.rows(); i++) {
      double[] p = softmaxMinusOneHot(m, theta, i);
      double f = Math.min(1, clip / norms[i]);
      clipped += f < 1 ? 1 : 0;
      for (int k = 0; k < 10; k++) {
        m.axpy(i, f * p[k], byHand, k * cols);
      }
    }
    assertTrue(clipped > 10 && clipped < m.rows(), "clipping active for some records: " + clipped);
    for (int i = 0; i < blocked.length; i++) {
      assertEquals(byHand[i], blocked[i], 1e-9 * (1 + Math.abs(byHand[i])), "element " + i);
    }
  }

  private static double[] softmaxMinusOneHot(DesignMatrix m, double[] theta, int i) {
    double[] p = new double[10];
    double z = 0;
    for (int k = 0; k < 10; k++) {
      p[k] = Math.exp(m.dot(i, theta, k * m.cols()));
      z += p[k];
    }
    for (int k = 0; k < 10; k++) {
      p[k] = p[k] / z - (k == m.label(i) ? 1 : 0);
    }
    return p;
  }

  /** The aggregate simulation learns as the per-party run does and reports no communication. */
  @Test
  void aggregateSimulationMatchesThePerPartyRun() {
    Simulation.Result agg = simulate(addRemove(60, 50, 1), null, 1);
    Simulation.Result per = run(50, 60, false, 1);
    assertEquals(per.plan().noiseMultiplier(), agg.plan().noiseMultiplier());
    // The ledger says what ran: a simulation has no server, and its noise is labelled floating point.
    String against = agg.ledger().guarantees().get(0).against();
    assertTrue(against.contains("a simulation: no server"), against);
    assertTrue(String.valueOf(agg.ledger().details().get("noise_sampler")).startsWith("continuous Gaussian in floating "
        + "point"), String.valueOf(agg.ledger().details().get("noise_sampler")));
    assertEquals(0, agg.bytesPerParty());
    assertTrue(Math.abs(accuracy(agg) - accuracy(per)) < 0.05, accuracy(agg) + " vs " + accuracy(per));
  }

  /** The plan refuses models that would void the clipping, and rounds a party cannot afford. */
  /**
   * At honest fraction 1 no party may collude, but each participant holds every round's model and
   * knows its own noise share: the other W - 1 shares alone must still carry the calibrated std
   * sigma C (privacy review turn 3, finding 4; at a5230d4 each party added sigma C / sqrt(W)).
   */
  @Test
  void atHonestFractionOneTheOtherPartiesNoiseAloneCarriesTheCalibratedStd() {
    DpFl.Config c = addRemove(5, 1, 1.0);
    DpFlPlan plan = DpFlPlan.of(c, new int[] {10, 10, 10, 10}, 4, 3, 2);
    double others = plan.partyStd() * Math.sqrt(3);
    assertTrue(others >= plan.noiseMultiplier() * c.clip() * (1 - 1e-12),
        "the observer's view keeps std " + others + " < sigma C = " + plan.noiseMultiplier() * c.clip());
    String against = plan.ledger(4, "secagg+", false).guarantees().get(0).against();
    assertTrue(against.contains("any one participant, though it knows its own noise share, is covered"), against);
  }

  @Test
  void planRefusesNonFiniteModelsAndImpossibleSplits() {
    DpFl.Config c = addRemove(5, 1, 0.5);
    DpFlPlan plan = DpFlPlan.of(c, new int[] {10, 10, 10, 10}, 4, 3, 2);
    double[] theta = new double[6];
    theta[2] = Double.NaN;
    var e = assertThrows(IllegalArgumentException.class, () -> plan.checkModel(theta));
    assertTrue(e.getMessage().contains("not finite"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> plan.checkModel(new double[5]));
    // Half may collude and only half must contribute: no honest party is guaranteed.
    var e2 = assertThrows(IllegalArgumentException.class, () -> DpFlPlan.of(c, new int[] {10, 10, 10, 10}, 2, 3, 2));
    assertTrue(e2.getMessage().contains("no honest party"), e2.getMessage());
    // More contributors than needed only add noise: the party std is sized for the minimum.
    DpFlPlan four = DpFlPlan.of(c, new int[] {10, 10, 10, 10}, 4, 3, 2);
    DpFlPlan three = DpFlPlan.of(c, new int[] {10, 10, 10, 10}, 3, 3, 2);
    assertTrue(three.partyStd() > four.partyStd());
  }

  /**
   * DP-FL states its guarantee under a named relation, so it compares with Helmet's replace-one:
   * the same noise costs more eps under replace-one than under add-or-remove, up to twice as much
   * at small eps (the review found eps 1 under add/remove to be eps 1.90 under replace-one; here,
   * at eps about 2.5, 3.47). Replace-one needs the PLD
   * accountant; add-or-remove needs a public normaliser, and the step then ignores the records.
   */
  @Test
  void theNeighbourRelationIsExplicitAndTheNormaliserPublic() {
    double sigma = 1.2;
    int rounds = 20;
    DpFl.Config ar = new DpFl.Config(0.1, 1, rounds, 2, 1, 1e-5, 1, DpFl.NoiseSplit.HONEST, "pld", 0,
        NeighbourRelation.ADD_OR_REMOVE_ONE, 100);
    DpFl.Config ro = DpFl.Config.replaceOne(0.1, 1, rounds, 2, 1, 1e-5, 1, DpFl.NoiseSplit.HONEST, 0);
    double epsAr = new dev.helmet.privacy.accounting.PldAccountant().compose(ar.event(sigma)).epsilon(1e-5);
    double epsRo = new dev.helmet.privacy.accounting.PldAccountant().compose(ro.event(sigma)).epsilon(1e-5);
    assertTrue(epsRo > 1.3 * epsAr && epsRo < 2 * epsAr, "replace-one " + epsRo + " vs add/remove " + epsAr);
    var rdp = assertThrows(IllegalArgumentException.class, () -> new DpFl.Config(0.1, 1, rounds, 2, 1, 1e-5, 1,
        DpFl.NoiseSplit.HONEST, "rdp", 0, NeighbourRelation.REPLACE_ONE, Double.NaN));
    assertTrue(rdp.getMessage().contains("pld"), rdp.getMessage());
    var norm = assertThrows(IllegalArgumentException.class, () -> new DpFl.Config(0.1, 1, rounds, 2, 1, 1e-5, 1,
        DpFl.NoiseSplit.HONEST, "rdp", 0, NeighbourRelation.ADD_OR_REMOVE_ONE, Double.NaN));
    assertTrue(norm.getMessage().contains("public expected batch size"), norm.getMessage());
    // Under add-or-remove one more record must not change the step (release 0.1 divided by q n).
    DpFlPlan plan = DpFlPlan.of(addRemove(5, 1, 1), new int[] {10, 10}, 2, 3, 2);
    double[] a = new double[6];
    double[] b = new double[6];
    double[] sum = {1, 2, 3, 4, 5, 6};
    plan.step(a, sum, 20);
    plan.step(b, sum, 21);
    assertArrayEquals(a, b);
    assertEquals("add or remove one record", plan.charge().neighbours());
  }
}
