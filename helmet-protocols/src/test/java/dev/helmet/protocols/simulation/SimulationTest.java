package dev.helmet.protocols.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The in-process simulator end to end, and what it refuses. */
class SimulationTest {
  private static AlgorithmSpec helmet(double eps, Dataset data) throws Exception {
    return Algorithms.named("helmet").configure(new StrictNode("test", new ObjectMapper().readTree(
        "{\"noise\": \"gaussian\"}"), IllegalArgumentException::new), new Common(eps, 1e-5, 0.5, Protection.record(),
            0, data.dimension(), data.numClasses()));
  }

  private static double accuracy(double eps, Dataset train, Dataset test) throws Exception {
    Partition p = new PartitionStrategy.Iid(20, 0).split(train, new SplittableRandom(1));
    AlgorithmSpec spec = helmet(eps, train);
    Simulation.Result r = Simulation.run(Simulation.prepare(spec, train, p, 2, 2, Progress.NONE), 20,
        new PlainSummation(), NoiseFactory.seededForTesting(4), 2, Progress.NONE);
    assertTrue(r.ledger().epsilon() <= eps, "eps " + r.ledger().epsilon());
    assertEquals(1, r.rounds());
    assertEquals(20, r.contributors());
    DesignMatrix t = spec.preprocessing().design(test);
    return Evaluation.of(t.labels(), r.model().predict(t), 10).accuracy();
  }

  /** 20 parties x 67 digits: at eps = 30 the noise hardly matters; at eps = 0.3 it dominates. */
  @Test
  void accuracyRisesWithEpsilon() throws Exception {
    Dataset d = TestData.digits();
    StratifiedKFold.Fold f = StratifiedKFold.holdout(d.labels(), 10, 0.25, new SplittableRandom(1));
    Dataset train = d.subset(f.train(), "digits-train");
    Dataset test = d.subset(f.test(), "digits-test");
    double loose = accuracy(30, train, test);
    double strict = accuracy(0.3, train, test);
    assertTrue(loose > 0.8, "eps 30 accuracy " + loose);
    assertTrue(loose > strict + 0.1, "eps 30: " + loose + ", eps 0.3: " + strict);
  }

  @Test
  void dataOfAnotherShapeAndEmptyPartiesAreRefused() throws Exception {
    Dataset digits = TestData.digits();
    Dataset iris = TestData.iris();
    Partition p = new PartitionStrategy.Iid(2, 0).split(iris, new SplittableRandom(1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Simulation.prepare(helmet(1, digits), iris, p, 1, 1, Progress.NONE));
    assertTrue(e.getMessage().contains("the data has 4 features; the configuration expects 64"), e.getMessage());
    var none = assertThrows(UnsupportedOperationException.class, () -> Simulation.run(Simulation.prepare(
        helmet(1, iris), iris, p, 1, 1, Progress.NONE), 2, null, NoiseFactory.seededForTesting(1), 1, Progress.NONE));
    assertTrue(none.getMessage().contains("helmet has no aggregate simulation"), none.getMessage());
  }
}
