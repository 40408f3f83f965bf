package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.audit.EpsilonLowerBound;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Audits an algorithm's release on a neighbouring pair: its whole run, through the simulator, on D
 * and on D' with fresh noise each trial, scored by a test fixed before the scored trials.
 *
 * <p>The test is the likelihood-ratio statistic of an isotropic Gaussian release, the projection of
 * the released parameters on the direction in which D' moves them: {@code score = <theta, m' - m>},
 * where {@code m' - m} is the difference of a release on D' and one on D drawn with the same noise
 * (the noise does not depend on the data, so it cancels, up to the ring's rounding), averaged over
 * a few such pilot pairs that are never scored. For a one-shot Gaussian release (helmet) it is the most powerful test there is,
 * so the bound can approach the claim; for other releases it is a valid, if weaker, test.
 *
 * <p>Parties are prepared (their local data and training) once per data set with one seed: that
 * does not depend on the noise. The noise, and every party's seed for the rest of its randomness
 * (Poisson batches, stochastic rounding), is drawn per trial ({@link NoiseFactory#seededForTesting}),
 * which makes an audit repeatable; an audit releases nothing, so its noise need not be secret.
 * Every party contributes (the fewest contributors is the roster), and the summation is plain:
 * a sum in the clear has the same distribution as a secure one's output.
 */
public final class ReleaseAudit {
  private ReleaseAudit() {}

  /**
   * An audit's outcome.
   *
   * @param bound the empirical lower bound and its test
   * @param printedEpsilon the epsilon the run's ledger prints
   * @param delta the delta audited (the ledger's)
   * @param trials scored trials on each data set
   * @param pilot the pilot pairs that fixed the test
   * @param separation how far apart the scores on D and D' lie: the difference of their means over the
   *     pooled standard deviation (mu of a Gaussian mechanism's test; its exact eps follows from it)
   * @param seconds the wall time
   * @param guarantee the audited guarantee in words, as the ledger prints it (whom it protects
   *     against, the relation, the unit): the audit's adversary holds the released model and nothing
   *     else, so it audits that guarantee, and eps_lb above it refutes every stronger-adversary one too
   * @param statistic the test's name
   * @param coalition the parties whose noise shares and seeds the audit knew (the last ones)
   */
  public record Outcome(EpsilonLowerBound.Result bound, double printedEpsilon, double delta, int trials, int pilot,
      String pair, double confidence, double separation, double seconds, String guarantee, String statistic,
      int coalition) {
    /** eps_lb over the printed eps. */
    public double ratio() {
      return bound.epsilon() / printedEpsilon;
    }

    /** Whether the audit found the printed epsilon false (a bug report). */
    public boolean refutes() {
      return bound.epsilon() > printedEpsilon;
    }
  }

  /** Runs the audit of {@code canary}'s pair on {@code data} split as {@code partition}, with its statistic. */
  public static Outcome run(AlgorithmSpec spec, Canary canary, Dataset data, Partition partition, int trials,
      int pilot, double confidence, long seed, int threads, Progress progress) {
    return run(spec, canary, data, partition, partition.count(), trials, pilot, confidence, seed, threads, progress);
  }

  /**
   * As above, with the noise sized for {@code minContributors} (as {@code train} sizes it from
   * {@code --min-contributors} and {@code --dropout}); every party contributes, as in a run where
   * none drops.
   */
  public static Outcome run(AlgorithmSpec spec, Canary canary, Dataset data, Partition partition,
      int minContributors, int trials, int pilot, double confidence, long seed, int threads, Progress progress) {
    return run(spec, canary, data, partition, minContributors, 0, trials, pilot, confidence, seed, threads, progress);
  }

  /**
   * As above, with the audit playing a coalition of the last {@code coalition} parties (never party
   * 0, whose record differs): it knows their noise shares and every other random choice of theirs,
   * as a participant knows its own, so it sees the release as that coalition does ({@link
   * #run(AlgorithmSpec, NeighbourPair, Statistic, int, int, int, int, double, long, int, Progress)}).
   */
  public static Outcome run(AlgorithmSpec spec, Canary canary, Dataset data, Partition partition,
      int minContributors, int coalition, int trials, int pilot, double confidence, long seed, int threads,
      Progress progress) {
    String why = canary.notApplicable(spec);
    if (why != null) {
      throw new IllegalArgumentException("canary " + canary.id() + " does not apply to " + spec.algorithm().id()
          + ": " + why);
    }
    return run(spec, canary.pair(spec, data, partition), canary.statistic(), minContributors, coalition, trials,
        pilot, confidence, seed, threads, progress);
  }

  /** Runs the audit with the projection statistic ({@link Statistic#PROJECTION}). */
  public static Outcome run(AlgorithmSpec spec, NeighbourPair pair, int trials, int pilot, double confidence,
      long seed, int threads, Progress progress) {
    return run(spec, pair, Statistic.PROJECTION, trials, pilot, confidence, seed, threads, progress);
  }

  /**
   * Runs the audit.
   *
   * @param statistic the test, fixed from the pilot pairs before any scored trial is drawn
   * @param trials scored trials on each data set (half choose the threshold, half are counted)
   * @param pilot pairs of runs on D and D' with shared noise that fix the test, never scored
   * @param seed seeds the preparation and every trial's noise
   */
  public static Outcome run(AlgorithmSpec spec, NeighbourPair pair, Statistic statistic, int trials, int pilot,
      double confidence, long seed, int threads, Progress progress) {
    return run(spec, pair, statistic, pair.partition().count(), trials, pilot, confidence, seed, threads, progress);
  }

  /** As above, with the noise sized for {@code minContributors}. */
  public static Outcome run(AlgorithmSpec spec, NeighbourPair pair, Statistic statistic, int minContributors,
      int trials, int pilot, double confidence, long seed, int threads, Progress progress) {
    return run(spec, pair, statistic, minContributors, 0, trials, pilot, confidence, seed, threads, progress);
  }

  /**
   * As above, seen by a coalition of the last {@code coalition} parties: their noise shares and
   * seeds are the same in every trial and on both data sets, so they shift every score by one
   * constant, which is what a coalition that knows them and subtracts them sees. The printed
   * guarantee must name a coalition at least that strong (helmet's covers one participant even at
   * honest fraction 1, and floor((1 - t) w) parties); 0 audits a holder of the model alone.
   */
  public static Outcome run(AlgorithmSpec spec, NeighbourPair pair, Statistic statistic, int minContributors,
      int coalition, int trials, int pilot, double confidence, long seed, int threads, Progress progress) {
    Checks.require(trials >= 4, "an audit needs at least 4 trials, got " + trials);
    Checks.positive("pilot", pilot);
    long start = System.nanoTime();
    int w = pair.partition().count();
    Checks.require(coalition >= PRINTED_COLLUDERS && coalition < w, "the audit's coalition must be in [0, "
        + (w - 1) + "] parties (party 0 holds the differing record). Provided value: " + coalition);
    Simulation.Prepared d = Simulation.prepare(spec, pair.data(), pair.partition(), seed, threads, Progress.NONE);
    Simulation.Prepared n = Simulation.prepare(spec, pair.neighbour(), pair.neighbourPartition(), seed, threads,
        Progress.NONE);
    progress.start("auditing " + spec.algorithm().id() + " on " + pair.description(), 2L * (pilot + trials));
    // The plans are derived as the runners derive them, from sizes that are public: under
    // add-or-remove the configured (train) or claimed (networked) sizes, fixed before the data and
    // the same for both neighbours, which the larger of each party's two sizes stands for here. A
    // plan derived from one side's private sizes would be a release no runner makes (dp-fl's ring
    // width followed its largest party's size). With the noise flag of the audit's own seeded noise.
    int[] sizes = publicSizes(pair);
    Checks.require(minContributors >= 1 && minContributors <= w, "min contributors must be in [1, " + w
        + "]. Provided value: " + minContributors);
    PublicPlan planD = d.spec().plan(sizes, minContributors, false);
    PublicPlan planN = n.spec().plan(sizes, minContributors, false);
    int known = coalition == PRINTED_COLLUDERS ? Math.min(planD.colluders(), w - 1) : coalition;
    int firstKnown = w - known;
    Simulation.Result first = release(d, planD, sizes, seed, 0, firstKnown, threads);
    List<Simulation.Result> pilotD = new ArrayList<>();
    List<Simulation.Result> pilotN = new ArrayList<>();
    for (int t = 0; t < pilot; t++) {
      // The same noise on D and on D': the difference is what the neighbour moves, without the noise.
      pilotD.add(release(d, planD, sizes, seed, -1L - t, firstKnown, threads));
      pilotN.add(release(n, planN, sizes, seed, -1L - t, firstKnown, threads));
      progress.advance(2);
    }
    Statistic.Score score = statistic.fit(pilotD, pilotN);
    double[] sd = new double[trials];
    double[] sn = new double[trials];
    long offset = 1;
    // Trials run in parallel, one thread each: every trial's noise is seeded by its index, so the
    // scores do not depend on the thread count.
    Parallel.forEach(threads, trials, t -> {
      sd[t] = score.of(release(d, planD, sizes, seed, offset + 2L * t, firstKnown, 1));
      sn[t] = score.of(release(n, planN, sizes, seed, offset + 2L * t + 1, firstKnown, 1));
      progress.advance(2);
    });
    progress.finish();
    double delta = first.ledger().delta();
    EpsilonLowerBound.Result bound = EpsilonLowerBound.of(sd, sn, delta, confidence);
    return new Outcome(bound, first.ledger().epsilon(), delta, trials, pilot, pair.description(), confidence,
        separation(sd, sn), (System.nanoTime() - start) / 1e9, first.ledger().guarantees().get(0).describe(),
        statistic.id(), known);
  }

  /**
   * The sizes a pair's plans are derived from: each party's larger size of the two sides, standing
   * for the public bound (configured or claimed sizes) both neighbours share under add-or-remove;
   * under replace-one both sides' sizes are equal.
   */
  public static int[] publicSizes(NeighbourPair pair) {
    int w = pair.partition().count();
    int[] sizes = new int[w];
    for (int i = 0; i < w; i++) {
      sizes[i] = Math.max(pair.partition().size(i), pair.neighbourPartition().size(i));
    }
    return sizes;
  }

  /**
   * The coalition value that stands for the plan's own {@link PublicPlan#colluders()}: the parties
   * the printed guarantee names as colluding, floor((1 - t) w) for honest fraction t.
   */
  public static final int PRINTED_COLLUDERS = -1;

  /** The trial index whose noise and seeds the coalition's parties use in every trial: known to it. */
  private static final long KNOWN = Long.MIN_VALUE;

  private static Simulation.Result release(Simulation.Prepared p, PublicPlan shared, int[] sizes, long seed,
      long trial, int firstKnown, int threads) {
    // A plan that holds its run's state (a SWOR batch sampler) serves one release: shared across
    // trials it would give every trial the same batch, or mix two trials' batches across threads.
    PublicPlan plan = shared.servesOneRun()
        ? p.spec().plan(sizes, shared.minContributors(), false) : shared;
    // Scored trials (0, 1, ...) have noise seeds distinct across trials and data sets; pilots (-1, -2, ...)
    // share theirs between D and D'.
    // Mixed, not a multiple of SplittableRandom's own increment: seeds of the form seed ^ G k put
    // trials on one arithmetic chain of seeds, whose streams are each other's shifted by a fixed number
    // of draws (found by the attacker's read), so long runs shared noise across trials.
    long trialSeed = mix(seed, trial);
    NoiseFactory noise = coalitionKnows(NoiseFactory.seededForTesting(trialSeed),
        NoiseFactory.seededForTesting(mix(seed, KNOWN)), firstKnown, p.parties());
    // Every other random choice of a run is fresh per trial too: the parties' seeds drive their
    // Poisson batches and stochastic rounding (dp-fl, smm), and a release whose batches were the same
    // in every trial is a different mechanism from the one the printed eps amplifies by sampling.
    // The local training in the preparation (helmet's) is shared: it does not depend on these seeds.
    SplittableRandom r = new SplittableRandom(trialSeed ^ 0x632BE59BD9B4E019L);
    long[] seeds = new long[p.parties()];
    SplittableRandom known = new SplittableRandom(mix(seed, KNOWN) ^ 0x632BE59BD9B4E019L);
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = r.nextLong();
      long fixed = known.nextLong();
      if (i >= firstKnown) {
        seeds[i] = fixed;
      }
    }
    Simulation.Prepared fresh = new Simulation.Prepared(p.spec(), p.locals(), p.sizes(), seeds, p.partition());
    return Simulation.run(fresh, plan, new PlainSummation(), noise, threads, Progress.NONE);
  }

  /**
   * Parties {@code firstKnown .. w-1} draw from {@code known}, the same in every trial; the others
   * fresh, and so does any index from w on (the aggregate-noise simulations' centre, which stands
   * for honest parties' noise and is nobody's own).
   */
  private static NoiseFactory coalitionKnows(NoiseFactory fresh, NoiseFactory known, int firstKnown, int w) {
    return new NoiseFactory() {
      @Override
      public dev.helmet.privacy.noise.GaussianNoise gaussian(int party) {
        return party >= firstKnown && party < w ? known.gaussian(party) : fresh.gaussian(party);
      }

      @Override
      public dev.helmet.privacy.noise.DiscreteNoise discrete(int party) {
        return party >= firstKnown && party < w ? known.discrete(party) : fresh.discrete(party);
      }

      @Override
      public boolean isSecure() {
        return false;
      }
    };
  }

  /** A well-mixed 64-bit seed for (seed, trial): Stafford's variant 13 of the MurmurHash3 finaliser, twice. */
  static long mix(long seed, long trial) {
    return mix64(mix64(seed) + 0x632BE59BD9B4E019L * trial + 0x2545F4914F6CDD1DL);
  }

  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double separation(double[] a, double[] b) {
    double ma = mean(a);
    double mb = mean(b);
    double v = 0;
    for (double x : a) {
      v += (x - ma) * (x - ma);
    }
    for (double x : b) {
      v += (x - mb) * (x - mb);
    }
    double sd = Math.sqrt(v / (a.length + b.length - 2));
    return sd == 0 ? 0 : (mb - ma) / sd;
  }

  private static double mean(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x;
    }
    return s / a.length;
  }
}
