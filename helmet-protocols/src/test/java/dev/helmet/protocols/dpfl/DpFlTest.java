package dev.helmet.protocols.dpfl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DpFlTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final Preprocessing PRE = new Preprocessing(1, true);

  private static DpFl.Result run(double eps, int rounds, boolean secure, long noiseSeed) {
    Partition p = new PartitionStrategy.Iid(10, 120).split(DIGITS, new SplittableRandom(1));
    DpFl.Config c = new DpFl.Config(0.2, 1, rounds, 2, eps, 1e-5, 1, DpFl.NoiseSplit.HONEST, "rdp", 0);
    return DpFl.run(DIGITS, p, PRE, c, secure
        ? new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD,
            DropoutPlan.NONE, 2)
        : new PlainSummation(), NoiseFactory.seededForTesting(noiseSeed), 7, 2, Progress.NONE);
  }

  private static double accuracy(DpFl.Result r) {
    DesignMatrix all = PRE.design(DIGITS);
    return Evaluation.of(all.labels(), r.model().predict(all), 10).accuracy();
  }

  /** Little noise (eps = 50): DP-SGD learns the digits; the accounted eps never exceeds the target. */
  @Test
  void learnsWithLittleNoiseAndMeetsItsTarget() {
    DpFl.Result r = run(50, 60, false, 1);
    assertTrue(r.epsilon() <= 50, "eps " + r.epsilon());
    assertTrue(r.epsilon() > 49, "calibrated close to the target: " + r.epsilon());
    double acc = accuracy(r);
    assertTrue(acc > 0.8, "accuracy " + acc);
  }

  /** Secure aggregation sums exactly: with the same sampling and noise the model is identical to the plain run. */
  @Test
  void throughSecAggPlusTheModelIsExactlyThePlainOne() {
    DpFl.Result plain = run(2, 5, false, 3);
    DpFl.Result secure = run(2, 5, true, 3);
    assertArrayEquals(plain.model().weights(), secure.model().weights());
    assertEquals(plain.noiseMultiplier(), secure.noiseMultiplier());
    assertTrue(secure.bytesPerParty() > plain.bytesPerParty());
  }
}
