package dev.helmet.protocols.blind;

import dev.helmet.protocols.privacy.Protection;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Blind averaging through the real secure-aggregation protocol, with the exact discrete Gaussian
 * (the registry's spec and the in-process simulator: {@link BlindAveragingRuns}).
 */
class SecureReleaseTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final Preprocessing PRE = new Preprocessing(10, true);
  private static final LearnerConfig SOFTMAX =
      new LearnerConfig(LearnerKind.SOFTMAX, 0.5, 2, 10, 10, SmoothnessBound.TIGHT, 0.1);

  private static Simulation.Prepared locals(int parties, int perParty) {
    Partition p = new PartitionStrategy.Iid(parties, perParty).split(DIGITS, new SplittableRandom(1));
    return BlindAveragingRuns.prepare(DIGITS, p, PRE, SOFTMAX, 2, 2);
  }

  @Test
  void secAggPlusReleasesBitForBitTheModelThePlainSumReleases() {
    Simulation.Prepared l = locals(30, 40);
    for (NoiseKind kind : NoiseKind.values()) {
      Simulation.Result plain = BlindAveragingRuns.release(l, BlindAveragingPrivacy.of(1, 1e-5, 0.5), new PlainSummation(),
          NoiseFactory.seededForTesting(5), kind, 0, 2);
      Simulation.Result secure = BlindAveragingRuns.release(l, BlindAveragingPrivacy.of(1, 1e-5, 0.5),
          new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.1, DropoutPlan.NONE, 2),
          NoiseFactory.seededForTesting(5), kind, 0, 2);
      assertArrayEquals(plain.model().parameters(), secure.model().parameters(), 0.0, kind.id());
      assertEquals(false, secure.ledger().details().get("summation_reveals_inputs"));
      assertEquals("secagg+", secure.ledger().details().get("summation"));
    }
  }

  /**
   * The released model minus the noiseless weighted mean has per-coordinate variance w sigma^2 /
   * (2^2f meanSize^2) (the discrete Gaussian's variance is sigma^2 up to a relative 1e-7 here), up
   * to the rounding of the signal onto the grid (below 1e-6 of the noise). Sample variance of m =
   * 650 x 30 values within 6 standard errors: false-failure rate 2e-9.
   */
  @Test
  void theDiscreteNoiseHasTheCalibratedScale() {
    Simulation.Prepared l = locals(40, 40);
    double[] mean = new double[BlindAveragingRuns.local(l, 0).weights().length];
    for (int i = 0; i < l.parties(); i++) {
      double[] w = BlindAveragingRuns.local(l, i).weights();
      for (int j = 0; j < mean.length; j++) {
        mean[j] += w[j] / l.parties();
      }
    }
    double sumSq = 0;
    int m = 0;
    double want = 0;
    for (int rep = 0; rep < 30; rep++) {
      Simulation.Result r = BlindAveragingRuns.release(l, BlindAveragingPrivacy.of(1, 1e-5, 0.5), new PlainSummation(),
          NoiseFactory.seededForTesting(200 + rep), NoiseKind.DISCRETE_GAUSSIAN, 0, 2);
      long sigma2 = (Long) r.ledger().details().get("discrete_sigma_squared");
      double grid = Math.scalb(1.0, r.plan().encoding().fractionalBits());
      want = 40.0 * sigma2 / (grid * grid * 40 * 40);
      double[] got = r.model().parameters();
      for (int j = 0; j < got.length; j++) {
        sumSq += (got[j] - mean[j]) * (got[j] - mean[j]);
        m++;
      }
    }
    assertEquals(want, sumSq / m, 6 * Math.sqrt(2.0 / m) * want);
  }

  @Test
  void theDiscreteLedgerUsesTheDistributedDiscreteGaussianBound() {
    Simulation.Prepared l = locals(30, 40);
    Simulation.Result r = BlindAveragingRuns.release(l, BlindAveragingPrivacy.of(0.5, 1e-5, 0.5), new PlainSummation(),
        NoiseFactory.secure(), NoiseKind.DISCRETE_GAUSSIAN, 0, 2);
    assertTrue(r.ledger().epsilon() <= 0.5 && r.ledger().epsilon() > 0.45, String.valueOf(r.ledger().epsilon()));
    assertTrue(r.ledger().event().startsWith("distributed discrete Gaussian"), r.ledger().event());
    assertTrue(r.ledger().accountant().startsWith("rdp"));
    assertTrue(((String) r.ledger().details().get("noise_sampler")).contains("exact discrete Gaussian"));
    // rounding onto the grid costs at most 1 % of the sensitivity
    double l2 = (double) r.ledger().details().get("grid_l2_sensitivity");
    double d = (int) r.ledger().details().get("dimension");
    assertTrue(Math.sqrt(d) <= 0.0101 * l2, "rounding share " + Math.sqrt(d) / l2);
  }

  @Test
  void dropoutsLeaveContributorsAboveTheMinimumAndTheLedgerReportsTheAchievedEpsilon() {
    Simulation.Prepared l = locals(40, 40);
    BlindAveragingPrivacy p = new BlindAveragingPrivacy(1, 1e-5, 0.5, Protection.record(), 34, 0);
    Simulation.Result r = BlindAveragingRuns.release(l, p,
        new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.15, DropoutPlan.random(0.15, -1, 9), 2),
        NoiseFactory.secure(), NoiseKind.DISCRETE_GAUSSIAN, 0, 2);
    int contributors = (int) r.ledger().details().get("contributors");
    assertTrue(contributors >= 34 && contributors <= 40, String.valueOf(contributors));
    assertTrue(r.ledger().epsilon() <= 1.0 + 1e-9, "at least the calibrated number contributed");
    assertEquals(contributors, r.last().contributors().size());
    assertEquals(contributors, r.contributors());
  }

  @Test
  void dropoutsBelowTheMinimumAbortAndReleaseNothing() {
    Simulation.Prepared l = locals(20, 40);
    int[] leaving = {1, 2, 3};
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> BlindAveragingRuns.release(l,
        BlindAveragingPrivacy.of(1, 1e-5, 0.5), // min contributors = all 20
        new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG, 0.3, DropoutPlan.of(leaving, 2), 2), NoiseFactory.secure(),
        NoiseKind.DISCRETE_GAUSSIAN, 0, 2));
    assertTrue(e.getMessage().contains("nothing was released"), e.getMessage());
  }
}
