package dev.helmet.protocols.simulation;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Progress;
import dev.helmet.core.util.Version;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.SecureSummation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * One in-process session, value in, value out: split the training data among the parties, check
 * the roster, let every party prepare (train) on its own share, run the rounds through {@link
 * Simulation} (or an {@link Engine}), evaluate on the test data, build the {@link ReleasedModel}
 * with its provenance and privacy ledger, and train the non-private reference. It knows no
 * algorithm (everything specific comes through {@link AlgorithmSpec}) and no command line: {@code
 * helmet train} and {@code helmet demo} map their options to {@link Settings} and print the {@link
 * Outcome}.
 */
public final class LocalSession {
  private LocalSession() {}

  /**
   * What to run.
   *
   * @param algorithm the configured algorithm
   * @param partition how the training data is split among the parties
   * @param summation how each round's inputs are summed, with its simulated dropouts; null: the
   *     algorithm's aggregate simulation (no messages)
   * @param engine where the parties run when not in this process (they sum in the clear), else null
   * @param engineName the engine's name as the provenance records it (null with no engine)
   * @param minContributors the fewest contributors the noise is calibrated for and the summation
   *     needs; 0: (1 - dropout) of the parties
   * @param dropout the fraction of parties the summation drops (simulated)
   * @param threads worker threads
   * @param noiseDraws noise draws evaluated on the same trained parties (the first is the release)
   * @param reference whether to train the non-private centralized reference on the pooled data
   * @param optimalityGap with the reference: true always, false never, null when cheap enough
   *     ({@link CentralizedReference#gapTooCostly})
   * @param labelsSource where the class names came from, for the provenance
   * @param defaultEpsilon the target epsilon when the run took the default one (the algorithm may
   *     say it is low for it), null when it was given
   * @param notes receives the notes said before the run starts (its cost, a low default epsilon);
   *     a no-op to keep quiet
   * @param warnings receives warnings said whatever the notes (a reference skipped for memory)
   */
  public record Settings(
      AlgorithmSpec algorithm,
      PartitionStrategy partition,
      SecureSummation summation,
      Engine engine,
      String engineName,
      int minContributors,
      double dropout,
      int threads,
      int noiseDraws,
      boolean reference,
      Boolean optimalityGap,
      String labelsSource,
      Double defaultEpsilon,
      Consumer<String> notes,
      Consumer<String> warnings) {}

  /**
   * What an artifact audit holds fixed across the runs it compares: the split of the training data,
   * and the noise of each draw (draw 0 is the written release). Only an audit makes one, and its
   * runs release nothing; {@code train} and {@code demo} pass none, so their runs split by the
   * settings and draw every noise from SecureRandom. {@code planSizes}: the sizes the plan is
   * derived from, the public bound both neighbours share under add-or-remove (a train run's are its
   * split's, which the configuration fixes; a plan derived from one side's private sizes could tell
   * the pair apart, as dp-fl's ring did), null for the partition's own.
   */
  public record Fixed(Partition partition, IntFunction<NoiseFactory> noise, int[] planSizes) {}

  /**
   * One run's outcome.
   *
   * @param test the released model's evaluation on the test data (draw 0)
   * @param draws every noise draw's evaluation, draw 0 first
   * @param reference the non-private reference, or null when not trained
   * @param trainingSeconds the parties' local work before the rounds
   * @param releaseSeconds the rounds
   * @param referenceSeconds the reference
   */
  public record Outcome(AlgorithmSpec spec, ReleasedModel model, Simulation.Result result, Evaluation test,
      List<Evaluation> draws, CentralizedReference.Outcome reference, Partition partition, double trainingSeconds,
      double releaseSeconds, double referenceSeconds) {}

  /** Runs the settings on {@code train}, evaluating on {@code test}. */
  public static Outcome run(Settings s, Dataset train, Dataset test, FeatureStage stage, long seed,
      Progress progress) {
    return run(s, train, test, stage, seed, progress, null, null, null);
  }

  /**
   * As above; {@code released} receives the released model as soon as it exists, and {@code
   * evaluated} the run's outcome without its reference, both before the non-private reference is
   * trained (which can be slow or run short of memory), so the private result is out first;
   * {@code fixed} (an artifact audit's, else null) gives the split and the noise.
   */
  public static Outcome run(Settings s, Dataset train, Dataset test, FeatureStage stage, long seed,
      Progress progress, Consumer<ReleasedModel> released, Consumer<Outcome> evaluated, Fixed fixed) {
    AlgorithmSpec a = s.algorithm();
    SecureSummation summation = s.summation();
    SplittableRandom root = new SplittableRandom(seed);
    // The split's generator is drawn either way, so the parties' seeds below are the same.
    SplittableRandom splitting = root.split();
    Partition partition = fixed != null ? fixed.partition() : s.partition().split(train, splitting);
    IntFunction<NoiseFactory> noise = fixed != null ? fixed.noise() : draw -> NoiseFactory.secure();
    long partySeed = root.nextLong();
    // What no party's data can change is checked before anyone trains.
    String rosterProblem = a.rosterProblem(partition.count(), minContributors(s.minContributors(),
        partition.count(), s.dropout()));
    if (rosterProblem != null) {
      throw new IllegalArgumentException(rosterProblem);
    }
    if (a.sizesPrivate() && s.partition() instanceof PartitionStrategy.Natural) {
      // The party column decides how many parties there are: removing a party's only record removes
      // the party, and W is in every artifact (privacy review turn 3, attacker's read of finding 3).
      throw new IllegalArgumentException("under add-or-remove neighbours the number of parties must not depend on "
          + "the data, and --partition natural takes it from the party column: use --partition iid with --parties "
          + "(and --per-party), or --neighbours replace-one (sizes and parties public)");
    }
    if (a.sizesPrivate() && a.planDependsOnSizes() && s.partition().configuredRecords() <= 0) {
      // The plan (its ring encoding) is sized from the parties' sizes; under add-or-remove they are
      // private unless the configuration fixes them, and a plan computed from them could tell
      // neighbouring data sets apart (privacy review turn 3, finding 3).
      throw new IllegalArgumentException("under add-or-remove neighbours the record counts are private, and this "
          + "algorithm sizes its summation's encoding from the parties' sizes: give --per-party N (every party's "
          + "size, fixed before the data) or --neighbours replace-one (sizes public)");
    }
    int w = partition.count();
    int dropping = (int) Math.floor(s.dropout() * w + 1e-9);
    int fewest = minContributors(s.minContributors(), w, s.dropout());
    if (dropping > 0 && w - dropping < fewest) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "--dropout %s drops %d of the %d parties, "
          + "leaving %d, fewer than --min-contributors %d: the summation would abort; use --dropout at most %s, or "
          + "--min-contributors at most %d", fmt(s.dropout()), dropping, w, w - dropping, fewest,
          fmt(Math.floor(100.0 * (w - fewest) / w) / 100), w - dropping));
    }
    if (w < 2 && summation instanceof InProcessSecAgg) {
      throw new IllegalArgumentException("secure aggregation needs at least 2 parties; with --parties 1 choose "
          + "--summation plain (one party's model, noised, is released as it is)");
    }
    if (summation instanceof InProcessSecAgg secagg) {
      String sizing = secagg.sizingProblem(w, fewest);
      if (sizing != null) {
        throw new IllegalArgumentException(sizing);
      }
    }
    // Summed in aggregate or in the clear, a round costs a fraction of a secure summation's.
    String cost = summation == null || summation.revealsInputs() ? null : RunCost.note(a, w);
    if (cost != null) {
      s.notes().accept(cost);
    }
    String low = s.defaultEpsilon() == null ? null : a.algorithm().defaultEpsilonNote(s.defaultEpsilon());
    if (low != null) {
      s.notes().accept(low);
    }
    long t1 = System.nanoTime();
    int minContributors = fewest;
    Simulation.Prepared prepared = null;
    Simulation.Result r;
    long t2;
    Engine engine = s.engine();
    if (engine != null && fixed != null) {
      throw new IllegalArgumentException("an artifact audit holds the noise fixed in this process: --engine local");
    }
    if (engine != null) {
      r = onEngine(engine, a, train, partition, partySeed, minContributors, progress);
      t2 = System.nanoTime();
    } else {
      prepared = Simulation.prepare(a, train, partition, partySeed, s.threads(), progress);
      t2 = System.nanoTime();
      r = simulate(prepared, a, fixed, minContributors, summation, noise.apply(0), s.threads(), progress);
    }
    long t3 = System.nanoTime();
    DesignMatrix testRows = a.preprocessing().design(test);
    Evaluation eval = Evaluation.of(r.model(), testRows, test, a.preprocessing());
    List<Evaluation> draws = new ArrayList<>();
    draws.add(eval);
    for (int d = 1; d < s.noiseDraws(); d++) {
      Simulation.Result other = prepared == null
          ? onEngine(engine, a, train, partition, partySeed, minContributors, progress)
          : simulate(prepared, a, fixed, minContributors, summation, noise.apply(d), s.threads(), progress);
      draws.add(Evaluation.of(other.model(), testRows, test, a.preprocessing()));
    }
    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", Version.get());
    provenance.put("created", Instant.now().toString());
    // Provenance names the data's source, never a digest or statistic of it: a hash of private data
    // lets anyone holding the model test guesses of a record, and an accuracy on private data is a
    // release the guarantee does not cover (docs/privacy.md).
    provenance.put("dataset", train.name());
    // Under add-or-remove neighbours the record counts are private: no count of the data is released.
    provenance.put("partition", partition.description(a.sizesPrivate()));
    provenance.put("parties", partition.count());
    provenance.put("seed", seed);
    provenance.put("protocol", summation == null ? "simulated" : summation.name());
    provenance.put("algorithm", a.algorithm().id());
    if (s.engineName() != null) {
      provenance.put("engine", s.engineName());
    }
    provenance.put("rounds", r.rounds());
    provenance.put("algorithm_config", a.toConfig());
    provenance.put("labels", s.labelsSource());
    provenance.put("features", stage.id());
    ReleasedModel model = ReleasedModel.of(a, r.model(), train.labelSet(), train.dimension(), r.ledger(), provenance,
        stage);
    // The release is spent: hand it over (written to disk) before anything else can fail.
    if (released != null) {
      released.accept(model);
    }
    long t4 = System.nanoTime();
    if (evaluated != null) {
      evaluated.accept(new Outcome(a, model, r, eval, draws, null, partition, secs(t1, t2), secs(t2, t3), 0));
    }
    CentralizedReference.Outcome reference = null;
    if (s.reference()) {
      reference = CentralizedReference.train(a, train, partition.pooled(), testRows, test,
          new SplittableRandom(root.nextLong()), r.model(), s.optimalityGap(), progress, s.warnings());
    }
    long t5 = System.nanoTime();
    return new Outcome(a, model, r, eval, draws, reference, partition, secs(t1, t2), secs(t2, t3), secs(t4, t5));
  }

  /**
   * A cross-validation's runs: every noise draw's accuracy and macro-F1 over all folds, the
   * references' accuracies (empty without references), and the last fold's outcome.
   */
  public record Folds(List<Double> accuracies, List<Double> macroF1, List<Double> references, Outcome last) {}

  /**
   * Cross-validation: {@code repeats} x {@code folds} stratified runs on {@code all}, each a
   * separate release of its fold's training data; {@code settings} gives each fold's settings from
   * its training data.
   */
  public static Folds crossValidate(Function<Dataset, Settings> settings, Dataset all, FeatureStage stage,
      int folds, int repeats, long seed, Progress progress) {
    List<StratifiedKFold.Fold> splits = StratifiedKFold.split(all.labels(), all.numClasses(), folds, repeats,
        new SplittableRandom(seed));
    List<Double> acc = new ArrayList<>();
    List<Double> f1 = new ArrayList<>();
    List<Double> ref = new ArrayList<>();
    Outcome last = null;
    for (StratifiedKFold.Fold f : splits) {
      Dataset tr = all.subset(f.train(), all.name() + " fold " + f.fold() + " train");
      Dataset te = all.subset(f.test(), all.name() + " fold " + f.fold() + " test");
      last = run(settings.apply(tr), tr, te, stage, seed + 31L * f.repeat() + f.fold(), progress);
      last.draws().forEach(e -> {
        acc.add(e.accuracy());
        f1.add(e.macroF1());
      });
      if (last.reference() != null) {
        ref.add(last.reference().evaluation().accuracy());
      }
    }
    return new Folds(acc, f1, ref, last);
  }

  /**
   * The fewest contributors among {@code parties}: {@code given}, or when it is 0 (1 - dropout) of
   * them, at least 1.
   */
  public static int minContributors(int given, int parties, double dropoutTolerance) {
    if (given < 0) {
      throw new IllegalArgumentException("min contributors must be >= 0. Provided value: " + given);
    }
    if (given > parties) {
      throw new IllegalArgumentException("--min-contributors " + given + " exceeds the " + parties + " parties");
    }
    if (given > 0) {
      return given;
    }
    return Math.max(1, (int) Math.floor((1 - dropoutTolerance) * parties + 1e-9));
  }

  private static String fmt(double v) {
    return dev.helmet.core.util.Numbers.fmt(v);
  }

  private static Simulation.Result simulate(Simulation.Prepared prepared, AlgorithmSpec a, Fixed fixed,
      int minContributors, SecureSummation summation, NoiseFactory noise, int threads, Progress progress) {
    if (fixed == null || fixed.planSizes() == null) {
      return Simulation.run(prepared, minContributors, summation, noise, threads, progress);
    }
    return Simulation.run(prepared, a.plan(fixed.planSizes(), minContributors, noise.isSecure()), summation, noise,
        threads, progress);
  }

  /**
   * The run on an engine other than this process: every party prepares and contributes there, with
   * secure noise, and the sum is plain.
   */
  private static Simulation.Result onEngine(Engine engine, AlgorithmSpec a, Dataset train, Partition partition,
      long partySeed, int minContributors, Progress progress) {
    return engine.run(new Engine.Job(a, train, partition, partySeed, minContributors, null), progress);
  }

  private static double secs(long a, long b) {
    return (b - a) / 1e9;
  }
}
