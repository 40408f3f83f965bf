package dev.helmet.protocols.helmet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HelmetRunTest {
  private static HelmetRun.Report run(double eps, Dataset train, Dataset test) {
    HelmetJob job = new HelmetJob(train, test, new PartitionStrategy.Iid(20, 0), HelmetDefaults.preprocessing(),
        HelmetDefaults.learner(LearnerKind.SOFTMAX), HelmetPrivacy.of(eps, 1e-5, 0.5), new PlainSummation(),
        NoiseKind.GAUSSIAN, 0, 1, 2, true);
    return HelmetRun.run(job, NoiseFactory.seededForTesting(4), Progress.NONE);
  }

  @Test
  void endToEndOnDigitsAccuracyRisesWithEpsilonAndProvenanceIsRecorded() {
    Dataset d = TestData.digits();
    StratifiedKFold.Fold f = StratifiedKFold.holdout(d.labels(), 10, 0.25, new SplittableRandom(1));
    Dataset train = d.subset(f.train(), "digits-train");
    Dataset test = d.subset(f.test(), "digits-test");
    HelmetRun.Report strict = run(0.3, train, test);
    HelmetRun.Report loose = run(30, train, test);
    // 20 parties x 67 digits: at eps = 30 the noise hardly matters; at eps = 0.3 it dominates.
    assertTrue(loose.test().accuracy() > 0.8, "eps 30 accuracy " + loose.test().accuracy());
    assertTrue(loose.test().accuracy() > strict.test().accuracy() + 0.1,
        "eps 30: " + loose.test().accuracy() + ", eps 0.3: " + strict.test().accuracy());
    assertNotNull(loose.reference());
    assertTrue(loose.reference().accuracy() > 0.85, "reference " + loose.reference().accuracy());
    assertEquals(20, loose.partition().count());
    assertEquals("digits-train", loose.model().provenance().get("dataset"));
    assertFalse(loose.model().provenance().containsKey("test_accuracy"), "an accuracy on private data is no provenance");
    assertEquals("plain", loose.model().provenance().get("protocol"));
  }

  @Test
  void mismatchedTrainAndTestDataAreRejected() {
    Dataset digits = TestData.digits();
    Dataset iris = TestData.iris();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HelmetJob(digits, iris, new PartitionStrategy.Iid(2, 0), HelmetDefaults.preprocessing(),
            HelmetDefaults.learner(LearnerKind.SOFTMAX), HelmetPrivacy.of(1, 1e-5, 0.5), new PlainSummation(),
            NoiseKind.GAUSSIAN, 0, 1, 1, false));
    assertTrue(e.getMessage().contains("64 features but test data has 4"), e.getMessage());
  }
}
