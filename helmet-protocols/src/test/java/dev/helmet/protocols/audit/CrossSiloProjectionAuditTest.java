package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.accounting.ProjectionSensitivity;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SlackDpEvent;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.crosssilo.CrossSiloAuditVariants;
import dev.helmet.protocols.crosssilo.CrossSiloProjectionCanary;
import dev.helmet.protocols.privacy.Protection;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The public-projection canary against cross-silo's {@code projection_dim} (privacy review turn 3,
 * finding 2): today's release, which clips each record's projection to C~, is not refuted; the
 * a5230d4 release, which projected the sum of clipped gradients, is, at the eps a5230d4 printed.
 *
 * <p>Adversary: anyone holding the released model (the audit sees all the noise and the model;
 * trusted-hardware split, whose guarantee counts all of it); neighbours: replace one record; the
 * record is chosen after P_0's seed is published, as the review's attacker does.
 *
 * <p>The configuration: one round at sampling rate 1, so the release is one Gaussian step, its
 * model an invertible image of the projected sum (SGD, one step from zero), and the projection
 * statistic is the likelihood-ratio test. Synthetic data of 1,000 features (20 records, 2 classes,
 * in 2 parties) and k = 10: the crafted record's projected gradient is 10.8 times its norm (about
 * 1 + sqrt(p / k)), against r(10, 2.5e-7) = 2.24 (projection_slack's default delta / (20 c
 * rounds)), so the a5230d4 release moves by 4.8 times the 2 C~ its noise is sized for. At printed
 * eps 2 the noise gives separation mu = 2 / sigma, about 0.5, to today's release and about 2.4 to
 * a5230d4's, which 3,000 trials a side turn into an eps_lb well above 2 (with 2,000 features, 6.7
 * times and eps_lb 4.6, in twice the time). False failures: the audit's bound on 300 simulated
 * Gaussian audits of 3,000 trials a side stayed within [0, 1.20] at mu 0.49 (never above 2) and
 * within [3.07, 5.02] at mu 2.40 (never at or below 2.007), so each assertion fails well under 1
 * run in 300 (the separation floor 0.35 is 5 standard errors below 0.49).
 */
@Tag("statistical")
class CrossSiloProjectionAuditTest {
  static final int TRIALS = Integer.getInteger("helmet.audit.trials", 3_000);
  static final int FEATURES = 1_000;
  static final int K = 10;
  static final double EPSILON = 2;

  static Dataset data;
  static Partition partition;
  static AlgorithmSpec spec;
  static NeighbourPair pair;

  @BeforeAll
  static void setUp() throws Exception {
    int n = 20;
    float[] values = new float[n * FEATURES];
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) r.nextGaussian();
    }
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      labels[i] = i % 2;
    }
    data = new Dataset("gaussian " + n + " x " + FEATURES, values, labels, FEATURES, LabelSet.ofIntegers(2), null);
    partition = new PartitionStrategy.Iid(2, 0).split(data, new SplittableRandom(1));
    String json = "{\"learner\": {\"kind\": \"softmax\"}, \"crosssilo\": {\"sampling_rate\": 1, \"rounds\": 1, "
        + "\"grad_clip\": 1, \"optimizer\": \"sgd\", \"learning_rate\": 1, \"noise_split\": \"trusted-hardware\", "
        + "\"projection\": " + K + "}}";
    spec = Algorithms.named("cross-silo").configure(new StrictNode("test", new ObjectMapper().readTree(json),
        IllegalArgumentException::new), new Common(EPSILON, 1e-5, 1.0, Protection.record(), 0, FEATURES, 2));
    pair = Canaries.named(CrossSiloProjectionCanary.ID, spec).pair(spec, data, partition);
  }

  static PrivacyLedger ledger() {
    PublicPlan plan = spec.plan(new int[] {partition.size(0), partition.size(1)}, 2, false);
    return plan.ledger(2, "plain", true);
  }

  @Test
  void todaysReleaseIsNotRefutedByTheCraftedRecord() {
    ReleaseAudit.Outcome o = ReleaseAudit.run(spec, pair, TRIALS, 4, 0.95, 13, 2, Progress.NONE);
    System.out.printf("cross-silo k %d, each projection clipped: eps_lb %.3f, printed eps %.3f, separation %.3f, "
        + "%d trials, %.1f s%n", K, o.bound().epsilon(), o.printedEpsilon(), o.separation(), o.trials(), o.seconds());
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    // The clip leaves the pair 2 C~ apart at most, and the crafted pair reaches nearly that: the
    // separation is near 2 / sigma (0.51 here), so the test did find the canary.
    assertTrue(o.separation() > 0.35, "the test lost the canary: separation " + o.separation());
  }

  @Test
  void theCraftedRecordRefutesTheEpsilonOfTheReleaseThatProjectedTheSum() {
    PrivacyLedger l = ledger();
    double sigma = (Double) l.details().get("noise_multiplier");
    double deltaPrime = (Double) l.details().get("projection_clip_tail");
    double clampTail = (Double) l.details().get("delta_clamp_tail");
    // a5230d4 sized the noise for C~ the same way and charged the projection's slack: each step
    // Slack(2 delta', the replace-one Poisson-subsampled Gaussian), at its mechanism delta (delta less
    // the noise clamp's tail and the 0.5 % it set aside for P's column norms).
    double delta = l.delta();
    double old = new PldAccountant().compose(new SlackDpEvent(ProjectionSensitivity.perStepSlack(
        NeighbourRelation.REPLACE_ONE, deltaPrime), new PoissonSampledDpEvent(1, new GaussianDpEvent(sigma),
        NeighbourRelation.REPLACE_ONE)), 1).epsilon(delta - clampTail - delta / 200);
    AtomicLong clamped = new AtomicLong();
    ReleaseAudit.Outcome o = ReleaseAudit.run(CrossSiloAuditVariants.projectingTheSum(spec, clamped), pair, TRIALS,
        4, 0.95, 17, 2, Progress.NONE);
    System.out.printf("cross-silo k %d, the sum projected (a5230d4): eps_lb %.3f, printed eps %.3f, old eps %.3f, "
        + "separation %.3f, %d trials, %.1f s%n", K, o.bound().epsilon(), o.printedEpsilon(), old, o.separation(),
        o.trials(), o.seconds());
    assertEquals(0, clamped.get(), "the ring's bound cut the old release's inputs: it is not a5230d4's release");
    assertTrue(o.bound().epsilon() > old, "eps_lb " + o.bound().epsilon() + " does not refute a5230d4's eps " + old);
  }
}
