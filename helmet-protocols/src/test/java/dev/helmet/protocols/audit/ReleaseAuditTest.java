package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The audit of helmet's one-shot release (blind averaging of Huber-SVMs, discrete Gaussian noise) on iris: sound
 * (the lower bound stays under the printed eps) and powerful (it exceeds the printed eps of a release
 * whose noise is under-scaled).
 */
@Tag("statistical")
class ReleaseAuditTest {
  static final int TRIALS = Integer.getInteger("helmet.audit.trials", 3_000);

  static AlgorithmSpec helmet(double eps, Dataset data) throws Exception {
    // Honest fraction 1: the audit sees every party's noise, so it audits the guarantee that counts all of it.
    return Algorithms.named("helmet").configure(new StrictNode("test", new ObjectMapper().readTree("{\"learner\": {\"kind\": \"svm\", \"normalise\": true, \"clip_bound\": 3, \"lambda\": 20, \"radius\": 0.16}}"),
        IllegalArgumentException::new), new Common(eps, 1e-5, 1.0, Protection.record(), 0, data.dimension(),
            data.numClasses()));
  }

  static NeighbourPair pair(Dataset iris) throws Exception {
    Partition p = new PartitionStrategy.Iid(5, 0).split(iris, new SplittableRandom(1));
    // The registered input-space canary: a record's mirror image with its label. Under strong
    // regularisation every margin stays in the hinge's linear part, so each one-vs-rest gradient of
    // the canary is the negation of the record's: the local models move by 2 |x| / (n Lambda).
    NeighbourPair pair = Canaries.named("input-mirror", helmet(1, iris)).pair(helmet(1, iris), iris, p);
    int row = p.indices(0)[0];
    for (int j = 0; j < iris.dimension(); j++) {
      assertEquals(-iris.feature(row, j), pair.neighbour().feature(row, j), 0, "the canary is the mirror image");
    }
    return pair;
  }

  @Test
  void auditOfTheOneShotReleaseStaysUnderThePrintedEpsilon() throws Exception {
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = ReleaseAudit.run(helmet(1, iris), pair(iris), TRIALS, 4, 0.95, 3, 2, Progress.NONE);
    System.out.printf("helmet eps %.3f: eps_lb %.3f (ratio %.2f), separation %.3f, %d trials, %.1f s%n",
        o.printedEpsilon(), o.bound().epsilon(), o.ratio(), o.separation(), o.trials(), o.seconds());
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    assertTrue(o.separation() > 0.03, "the test's direction lost the canary: separation " + o.separation());
    // No floor on eps_lb here: the canary moves the model by 2 |x| / (n Lambda) and the noise is sized
    // for 2 (Lambda R + |x|) / (n Lambda), twice that (R = |x| / Lambda, the least radius that holds the
    // optimum), so the most any test can show is the eps of mu = 0.2, about 0.7; 20,000 trials reach
    // 0.15 (70 s), 6,000 about 0. The power of this same audit is asserted below.
  }

  @Test
  void underScaledNoiseIsCaught() throws Exception {
    // A release whose noise is sized for eps 30 but whose ledger would print eps 1 (noise under-scaled
    // about twentyfold, the bug the audit is for): the audit's bound must exceed the printed 1. At
    // 6,000 trials noise sized for eps 8 gives eps_lb 0.88 (separation 0.62): a sevenfold under-scale
    // needs more trials than this lane affords.
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = ReleaseAudit.run(helmet(30, iris), pair(iris), 3_000, 4, 0.95, 5, 2, Progress.NONE);
    System.out.printf("helmet noise of eps %.3f: eps_lb %.3f, separation %.3f, %d trials, %.1f s%n",
        o.printedEpsilon(), o.bound().epsilon(), o.separation(), o.trials(), o.seconds());
    assertTrue(o.bound().epsilon() > 1, "eps_lb " + o.bound().epsilon() + " does not catch noise sized for eps 8");
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the true " + o.printedEpsilon());
  }
}
