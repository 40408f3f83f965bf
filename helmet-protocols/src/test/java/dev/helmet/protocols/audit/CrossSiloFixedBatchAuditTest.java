package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.crosssilo.CrossSiloAuditVariants;
import dev.helmet.protocols.crosssilo.CrossSiloFixedBatchCanary;
import dev.helmet.protocols.privacy.Protection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.commons.statistics.distribution.HypergeometricDistribution;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fixed-size-batch canary against cross-silo's sampling without replacement (privacy review
 * turn 3, finding 1): today's printed eps holds, and the eps that a5230d4 printed for the same
 * noise (the Poisson replace-one pair in each step) is refuted.
 *
 * <p>The release is the same at a5230d4 and today for a given sigma; only the accounting changed.
 * So one audit of today's release serves both: its lower bound must exceed the old eps and stay
 * under today's. Adversary: anyone holding every round's model (the ledger's "covers every round's
 * model"); neighbours: replace one record (the only relation SWOR offers).
 *
 * <p>The configuration. The old pair and the attained pair move a step's mean alike, so the gap
 * lies in the tails: a D' run differs only in the steps that draw the canary's record (rate b / n),
 * and only where the noise there is large enough to show it. Computed first with this project's
 * PLD accountant and the audit's own bound on simulated scores of this test's statistic: at 3,000
 * trials a side the gap shows only over a hundred steps or more (b / n = 0.005, 200 steps, sigma
 * 0.8: eps_lb 1.52 to 1.94 over 9 seeds against the old 1.08), and one step or a few do not (one
 * step at b / n = 0.5: 1.7 against 3.0). Here that is out of reach: each simulated step costs 0.2 to
 * 0.3 ms of thread start-up (Simulation runs every round's parties through a new ForkJoinPool), and
 * calibrating sigma below 1 over 200 steps ran out of a 6 GB heap (the search's first probe, sigma
 * 0.5). At a fixed budget of trials times steps, few steps and many trials do best. Simulated, 150
 * seeds each (eps_lb median and 10th percentile, seeds at or below the old eps):
 *
 * <pre>
 *   b/n   steps sigma trials  old eps  today's  eps_lb med / p10   at or below
 *   0.02    2   0.8   30,000   1.158    7.40    1.76 / 1.39          1 of 150
 *   0.02    5   0.8   20,000   1.409    8.45    2.11 / 1.72          2 of 150
 *   0.05    1   0.8   40,000   1.945    8.36    2.62 / 2.16          3 of 150
 *   0.05    2   0.9   30,000   1.639    7.52    2.27 / 1.85          5 of 150
 * </pre>
 *
 * This test runs the first: b = 4 of n = 200 records, 2 steps, noise calibrated to today's eps 7.4
 * (sigma 0.800), with 100,000 trials a side. At 30,000 its false-failure rate was about 1 % (1 of
 * 150 simulated seeds; eps_lb 0.97 in 1 of 13 real audits, the others 1.34 to 2.56); more trials
 * tighten the Clopper-Pearson bounds of the rare tail events the gap lies in (60,000: eps_lb 2.12),
 * and since single-threaded rounds run inline (Parallel) they take about 15 s. The batches come from
 * the ideal sampler's SecureRandom, so no seed repeats an audit. The noise split is
 * trusted-hardware, whose guarantee counts all the noise the audit sees (the colluders split sizes
 * the noise for M - T - 1 shares and the audit would see M of them), and no coalition holds
 * records, so the whole batch is honest and the pair is attained exactly. The data are synthetic
 * (the canary's: 200 copies of one row of the breast-cancer shape, 30 features, 2 classes); with the
 * clip at 1 against inputs of norm 10 and a learning rate of 1e-4 both gradients stay clipped.
 */
@Tag("statistical")
class CrossSiloFixedBatchAuditTest {
  static final int TRIALS = 100_000;
  static final int ROUNDS = 2;
  static final int RECORDS = 200;
  static final int BATCH = 4;
  static final double EPSILON = 7.4;

  static AlgorithmSpec spec(Dataset data) throws Exception {
    String json = "{\"learner\": {\"kind\": \"softmax\", \"clip_bound\": 10}, \"crosssilo\": {\"sampling\": "
        + "\"swor\", \"batch\": " + BATCH + ", \"swor_mixnet\": \"ideal\", \"noise_split\": \"trusted-hardware\", "
        + "\"rounds\": " + ROUNDS + ", \"grad_clip\": 1, \"optimizer\": \"sgd\", \"learning_rate\": 1e-4}}";
    return Algorithms.named("cross-silo").configure(new StrictNode("test", new ObjectMapper().readTree(json),
        IllegalArgumentException::new), new Common(EPSILON, 1e-5, 1.0, Protection.record(), 0, data.dimension(),
            data.numClasses()));
  }

  /**
   * The eps a5230d4 printed at noise multiplier sigma: each step the mixture over the honest count
   * m ~ Hypergeometric(n, n_H, b) of the Poisson replace-one pair at rate m / n_H (its
   * SworAmplification step, unbucketed: bucketing only moved mass to larger m, so this is at most
   * what it printed), composed over the steps, at the run's mechanism delta.
   */
  static double oldEpsilon(int n, int known, int batch, double sigma, int steps, double delta) {
    int honest = n - known;
    HypergeometricDistribution h = HypergeometricDistribution.of(n, honest, batch);
    List<Double> weights = new ArrayList<>();
    List<DpEvent> parts = new ArrayList<>();
    for (int m = h.getSupportLowerBound(); m <= h.getSupportUpperBound(); m++) {
      weights.add(h.probability(m));
      parts.add(m == 0 ? new NoOpDpEvent() : new PoissonSampledDpEvent(Math.min(1, (double) m / honest),
          new GaussianDpEvent(sigma), NeighbourRelation.REPLACE_ONE));
    }
    double total = weights.stream().mapToDouble(Double::doubleValue).sum();
    double[] w = weights.stream().mapToDouble(x -> x / total).toArray();
    DpEvent step = new MixtureDpEvent(w, parts.toArray(new DpEvent[0]));
    return new PldAccountant().compose(step, steps).epsilon(delta);
  }

  @Test
  void theFixedSizePairRefutesThePoissonPairsEpsilonButNotTodays() throws Exception {
    Dataset shape = TestData.breastCancer().subset(IntStream.range(0, RECORDS).toArray(), "breast-cancer 200");
    Partition partition = new PartitionStrategy.Iid(4, 0).split(shape, new SplittableRandom(1));
    AlgorithmSpec spec = spec(shape);
    Canary canary = Canaries.named(CrossSiloFixedBatchCanary.ID, spec);
    NeighbourPair pair = canary.pair(spec, shape, partition);
    int[] sizes = IntStream.range(0, partition.count()).map(partition::size).toArray();
    PublicPlan plan = spec.plan(sizes, sizes.length, false);
    double sigma = plan.noiseMultiplier();
    // No coalition under trusted-hardware (colluders() = 0): every record honest.
    assertEquals(0, plan.colluders(), "the trusted-hardware split tolerates no coalition");
    double old = oldEpsilon(RECORDS, 0, BATCH, sigma, ROUNDS, plan.charge().mechanismDelta());
    double q = (double) BATCH / RECORDS;
    // Enough pilot pairs that some draw the record (about 20 draws expected; none with probability e^-20).
    int pilots = (int) Math.ceil(20 / (q * ROUNDS));
    ReleaseAudit.Outcome o = ReleaseAudit.run(CrossSiloAuditVariants.everyRound(spec), pair,
        new CrossSiloRoundStatistic(ROUNDS, q), TRIALS, pilots, 0.95, 11, 2, Progress.NONE);
    System.out.printf("cross-silo swor b %d of %d, %d steps, sigma %.4f: eps_lb %.3f, printed eps %.3f, old eps "
        + "%.3f, separation %.3f, %d trials, %.1f s%n", BATCH, RECORDS, ROUNDS, sigma, o.bound().epsilon(),
        o.printedEpsilon(), old, o.separation(), o.trials(), o.seconds());
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above today's printed " + o.printedEpsilon());
    assertTrue(o.bound().epsilon() > old, "eps_lb " + o.bound().epsilon() + " does not refute a5230d4's eps " + old
        + " at sigma " + sigma);
  }
}
