package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Version;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The shared engine of {@code helmet train} and {@code helmet demo}: configure the algorithm, run it
 * in the in-process simulator, evaluate, report. It knows no algorithm: everything specific comes
 * through the registry ({@link AlgorithmSpec}, and the plan's own summary figures).
 */
final class Trainer {
  private Trainer() {}

  /**
   * What to run.
   *
   * @param algorithm the algorithm and its settings from the command line (a configuration mapping)
   */
  record Spec(
      DataOptions data,
      PartitionStrategy partition,
      Algorithm algorithm,
      ObjectNode algorithmConfig,
      PrivacyOptions privacy,
      RunOptions run,
      int perPartyRequested,
      String title) {}

  /** One run's outcome, with what the report needs. */
  record Report(AlgorithmSpec spec, ReleasedModel model, Simulation.Result result, Evaluation test, List<Evaluation> draws,
      CentralizedReference.Outcome reference, Partition partition, double trainingSeconds, double releaseSeconds,
      double referenceSeconds) {}

  /** Configures the algorithm for {@code train}'s shape. */
  static AlgorithmSpec configure(Spec spec, Dataset train) {
    return configure(spec, train.dimension(), train.numClasses(), train.isRegression());
  }

  /** Configures the algorithm for training data of this shape (classes 1: regression). */
  static AlgorithmSpec configure(Spec spec, int dimension, int classes, boolean regression) {
    // Records fixed by configuration (parties x --per-party, or a built-in set's published split),
    // never train.size(): an algorithm may default a normaliser to it (smm's expected batch).
    long configured = spec.partition().configuredRecords();
    Common common = new Common(spec.privacy().epsilon, spec.privacy().delta, spec.privacy().honestFraction,
        spec.privacy().protection(), spec.run().ringBits(), dimension, classes,
        configured > 0 ? configured : spec.data().publicTrainRecords());
    ObjectNode config = withLearnerDefault(spec.algorithmConfig(), "feature_bounds", spec.data().featureBoundsConfig());
    config = withLearnerDefault(config, "target_bounds", regression ? spec.data().targetBoundsConfig() : null);
    return AlgorithmOptions.configure(spec.algorithm(), config, common);
  }

  /**
   * {@code config} with {@code learner.key} set to {@code value} (public bounds from the command line
   * or the data set's documentation) unless the settings give it already or value is null.
   */
  private static ObjectNode withLearnerDefault(ObjectNode config, String key, ObjectNode value) {
    if (value == null) {
      return config;
    }
    ObjectNode out = config.deepCopy();
    ObjectNode learner = out.has("learner") ? (ObjectNode) out.get("learner") : out.putObject("learner");
    if (!learner.has(key)) {
      learner.set(key, value);
    }
    return out;
  }

  private static Simulation.Result simulate(Simulation.Prepared prepared, AlgorithmSpec a, Fixed fixed,
      int minContributors, SecureSummation summation, NoiseFactory noise, int threads, ConsoleProgress progress) {
    if (fixed == null || fixed.planSizes() == null) {
      return Simulation.run(prepared, minContributors, summation, noise, threads, progress);
    }
    return Simulation.run(prepared, a.plan(fixed.planSizes(), minContributors, noise.isSecure()), summation, noise,
        threads, progress);
  }

  /** Runs the spec on {@code train}, evaluating on {@code test}. */
  static Report run(Spec spec, Dataset train, Dataset test, FeatureStage stage, long seed, ConsoleProgress progress) {
    return run(spec, train, test, stage, seed, progress, null, null);
  }

  /**
   * What an artifact audit ({@link ArtifactAudit}) holds fixed across the runs it compares: the
   * split of the training data, and the noise of each draw (draw 0 is the written release). Only
   * the audit makes one, and its runs release nothing; {@code train} and {@code demo} pass none, so
   * their runs split by the spec and draw every noise from SecureRandom. {@code planSizes}: the
   * sizes the plan is derived from, the public bound both neighbours share under add-or-remove (a
   * train run's are its split's, which the configuration fixes; a plan derived from one side's
   * private sizes could tell the pair apart, as dp-fl's ring did), null for the partition's own.
   */
  record Fixed(Partition partition, java.util.function.IntFunction<NoiseFactory> noise, int[] planSizes) {}

  /**
   * As above; {@code released} receives the released model as soon as it exists, and {@code
   * evaluated} the run's report without its reference, both before the non-private reference is
   * trained (which can be slow or run short of memory), so the private result is out first.
   */
  static Report run(Spec spec, Dataset train, Dataset test, FeatureStage stage, long seed, ConsoleProgress progress,
      java.util.function.Consumer<ReleasedModel> released, java.util.function.Consumer<Report> evaluated) {
    return run(spec, train, test, stage, seed, progress, released, evaluated, null);
  }

  /** As above; {@code fixed} (an artifact audit's, else null) gives the split and the noise. */
  static Report run(Spec spec, Dataset train, Dataset test, FeatureStage stage, long seed, ConsoleProgress progress,
      java.util.function.Consumer<ReleasedModel> released, java.util.function.Consumer<Report> evaluated,
      Fixed fixed) {
    AlgorithmSpec a = configure(spec, train);
    SecureSummation summation = spec.run().summation(1 - spec.privacy().honestFraction);
    SplittableRandom root = new SplittableRandom(seed);
    // The split's generator is drawn either way, so the parties' seeds below are the same.
    SplittableRandom splitting = root.split();
    Partition partition = fixed != null ? fixed.partition() : spec.partition().split(train, splitting);
    java.util.function.IntFunction<NoiseFactory> noise = fixed != null ? fixed.noise() : draw -> NoiseFactory.secure();
    long partySeed = root.nextLong();
    // What no party's data can change is checked before anyone trains.
    String rosterProblem = a.rosterProblem(partition.count(), spec.privacy().minContributors(partition.count(),
        spec.run().dropout));
    if (rosterProblem != null) {
      throw new IllegalArgumentException(rosterProblem);
    }
    if (a.sizesPrivate() && spec.partition() instanceof dev.helmet.core.partition.PartitionStrategy.Natural) {
      // The party column decides how many parties there are: removing a party's only record removes
      // the party, and W is in every artifact (privacy review turn 3, attacker's read of finding 3).
      throw new IllegalArgumentException("under add-or-remove neighbours the number of parties must not depend on "
          + "the data, and --partition natural takes it from the party column: use --partition iid with --parties "
          + "(and --per-party), or --neighbours replace-one (sizes and parties public)");
    }
    if (a.sizesPrivate() && a.planDependsOnSizes() && spec.partition().configuredRecords() <= 0) {
      // The plan (its ring encoding) is sized from the parties' sizes; under add-or-remove they are
      // private unless the configuration fixes them, and a plan computed from them could tell
      // neighbouring data sets apart (privacy review turn 3, finding 3).
      throw new IllegalArgumentException("under add-or-remove neighbours the record counts are private, and this "
          + "algorithm sizes its summation's encoding from the parties' sizes: give --per-party N (every party's "
          + "size, fixed before the data) or --neighbours replace-one (sizes public)");
    }
    int w = partition.count();
    int dropping = (int) Math.floor(spec.run().dropout * w + 1e-9);
    int fewest = spec.privacy().minContributors(w, spec.run().dropout);
    if (dropping > 0 && w - dropping < fewest) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "--dropout %s drops %d of the %d parties, "
          + "leaving %d, fewer than --min-contributors %d: the summation would abort; use --dropout at most %s, or "
          + "--min-contributors at most %d", Trainer.fmt(spec.run().dropout), dropping, w, w - dropping, fewest,
          Trainer.fmt(Math.floor(100.0 * (w - fewest) / w) / 100), w - dropping));
    }
    if (w < 2 && summation instanceof dev.helmet.secagg.protocol.InProcessSecAgg) {
      throw new IllegalArgumentException("secure aggregation needs at least 2 parties; with --parties 1 choose "
          + "--summation plain (one party's model, noised, is released as it is)");
    }
    if (summation instanceof dev.helmet.secagg.protocol.InProcessSecAgg secagg) {
      String sizing = secagg.sizingProblem(w, fewest);
      if (sizing != null) {
        throw new IllegalArgumentException(sizing);
      }
    }
    // Summed in aggregate or in the clear, a round costs a fraction of a secure summation's.
    String cost = summation == null || summation.revealsInputs() ? null : costNote(a, w);
    if (cost != null && !spec.run().quiet) {
      System.err.println(cost);
      System.err.flush();
    }
    String low = spec.privacy().epsilonGiven() ? null : a.algorithm().defaultEpsilonNote(spec.privacy().epsilon);
    if (low != null && !spec.run().quiet) {
      System.err.println(low);
      System.err.flush();
    }
    long t1 = System.nanoTime();
    int minContributors = spec.privacy().minContributors(partition.count(), spec.run().dropout);
    Simulation.Prepared prepared = null;
    Simulation.Result r;
    long t2;
    dev.helmet.protocols.simulation.Engine engine = spec.run().engine();
    if (engine != null && fixed != null) {
      throw new IllegalArgumentException("an artifact audit holds the noise fixed in this process: --engine local");
    }
    if (engine != null) {
      r = onEngine(engine, a, train, partition, partySeed, minContributors, progress);
      t2 = System.nanoTime();
    } else {
      prepared = Simulation.prepare(a, train, partition, partySeed, spec.run().threads(), progress);
      t2 = System.nanoTime();
      r = simulate(prepared, a, fixed, minContributors, summation, noise.apply(0), spec.run().threads(), progress);
    }
    long t3 = System.nanoTime();
    DesignMatrix testRows = a.preprocessing().design(test);
    Evaluation eval = Evaluation.of(r.model(), testRows, test, a.preprocessing());
    List<Evaluation> draws = new ArrayList<>();
    draws.add(eval);
    for (int d = 1; d < spec.run().noiseDraws; d++) {
      Simulation.Result other = prepared == null
          ? onEngine(engine, a, train, partition, partySeed, minContributors, progress)
          : simulate(prepared, a, fixed, minContributors, summation, noise.apply(d), spec.run().threads(), progress);
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
    if (spec.run().distributed()) {
      provenance.put("engine", spec.run().engine.toLowerCase(java.util.Locale.ROOT));
    }
    provenance.put("rounds", r.rounds());
    provenance.put("algorithm_config", a.toConfig());
    provenance.put("labels", spec.data().labelsSource());
    provenance.put("features", stage.id());
    ReleasedModel model = ReleasedModel.of(a, r.model(), train.labelSet(), train.dimension(), r.ledger(), provenance,
        stage);
    // The release is spent: hand it over (written to disk) before anything else can fail.
    if (released != null) {
      released.accept(model);
    }
    long t4 = System.nanoTime();
    if (evaluated != null) {
      evaluated.accept(new Report(a, model, r, eval, draws, null, partition, secs(t1, t2), secs(t2, t3), 0));
    }
    CentralizedReference.Outcome reference = null;
    if (spec.run().reference) {
      reference = CentralizedReference.train(a, train, partition.pooled(), testRows, test,
          new SplittableRandom(root.nextLong()), r.model(), spec.run().optimalityGap, progress);
    }
    long t5 = System.nanoTime();
    return new Report(a, model, r, eval, draws, reference, partition, secs(t1, t2), secs(t2, t3), secs(t4, t5));
  }

  /**
   * Runs of at least this many party-rounds (rounds x parties: each party computes an input and
   * takes part in a summation every round) are announced before they start, with how to shorten
   * them. Measured here through SecAgg+ on MNIST (2 shared cores, other work running) a party-round
   * costs 10-60 ms: smm's 1,000 rounds x 10 parties 252 s (docs/smm.md: 204-598 s), cross-silo's
   * 1,250 x 10 94 s, dp-fl's 50 x 100 85-181 s and 50 x 1,000 about 12-25 min. From 3,000 on (half
   * a minute at the least), so each of those defaults says up front what it costs.
   */
  static final long LONG_RUN_PARTY_ROUNDS = 3_000;

  /**
   * Before a run of at least {@link #LONG_RUN_PARTY_ROUNDS} party-rounds through a secure
   * summation, what it will cost and how to make it quicker: fewer rounds through the algorithm's
   * own round settings (its parameters {@code <section>.rounds} and {@code <section>.epochs}), or
   * fewer parties; null for a shorter run.
   */
  static String costNote(AlgorithmSpec a, int parties) {
    long work = (long) a.rounds() * parties;
    if (work < LONG_RUN_PARTY_ROUNDS) {
      return null;
    }
    List<String> shorten = new ArrayList<>();
    for (dev.helmet.protocols.algorithm.Parameter p : a.algorithm().parameters()) {
      if (!p.path().startsWith("learner.") && (p.path().endsWith(".rounds") || p.path().endsWith(".epochs"))) {
        shorten.add(p.flag());
      }
    }
    shorten.add("--parties");
    return String.format(java.util.Locale.ROOT, "helmet: note: %s runs %,d round(s) x %,d parties = %,d "
        + "party-rounds, at some 10-60 ms each on 2 cores about %s to %s; the progress line gives an ETA. Fewer "
        + "with %s", a.algorithm().id(), a.rounds(), parties, work, minutes(work * 0.010), minutes(work * 0.060),
        String.join(" or ", shorten));
  }

  /** Seconds as a rounded duration in words: "3 min", "2.5 h". */
  private static String minutes(double seconds) {
    if (seconds < 90) {
      return Math.round(seconds) + " s";
    }
    if (seconds < 5400) {
      return Math.round(seconds / 60) + " min";
    }
    return fmt(Math.round(seconds / 360) / 10.0) + " h";
  }

  /**
   * The run on an engine other than this process (--engine): every party prepares and contributes
   * there, with secure noise, and the sum is plain (checked with the engine's options before any
   * work, {@link RunOptions#checkEngineOptions}).
   */
  private static Simulation.Result onEngine(dev.helmet.protocols.simulation.Engine engine, AlgorithmSpec a,
      Dataset train, Partition partition, long partySeed, int minContributors, ConsoleProgress progress) {
    return engine.run(new dev.helmet.protocols.simulation.Engine.Job(a, train, partition, partySeed, minContributors,
        null), progress);
  }

  static ObjectNode train(Spec spec, PrintWriter out, PrintWriter err) {
    spec.run().checkEngineOptions();
    long start = System.nanoTime();
    ConsoleProgress progress = new ConsoleProgress(System.err, !spec.run().quiet);
    if (!spec.run().quiet) {
      err.println("loading " + spec.data().dataset + " ...");
      err.flush();
    }
    DataOptions.Loaded loaded = spec.data().load(spec.run().seed, spec.run().threads(), progress);
    BuiltinDataset.TrainTest data = loaded.data();
    Report report = run(spec, data.train(), data.test(), loaded.stage(), spec.run().seed, progress, model -> {
      if (spec.run().modelOut != null) {
        write(model, spec.run().modelOut);
        if (!spec.data().labelsSource().startsWith("public")) {
          err.println("helmet: note: the model file lists the classes found in " + spec.data().dataset
              + "; pass --classes to state them publicly if which classes occur is private");
          err.flush();
        }
      }
    }, privateRun -> {
      if (!spec.run().json) {
        // The private result first: the reference after it may take long, and is only a comparison.
        TrainerReport.printRun(spec, privateRun, out);
        out.flush();
      }
    });
    double wall = (System.nanoTime() - start) / 1e9;
    ObjectNode json = summary(spec, report, wall);
    if (spec.run().json) {
      out.println(Json.print(json));
    } else {
      TrainerReport.printReference(report, wall, out);
    }
    out.flush();
    return json;
  }

  /** Writes the model file, turning a failure into an error that names the path. */
  static void write(ReleasedModel m, Path p) {
    try {
      ModelFile.write(m, p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the model to " + p + ": " + e.getMessage(), e);
    }
  }

  static ObjectNode summary(Spec spec, Report r, double wall) {
    ObjectNode j = Json.object();
    Simulation.Result res = r.result();
    SummationOutcome so = res.last();
    String summation = spec.run().distributed() ? "plain" : so == null ? "simulated"
        : String.valueOf(r.model().provenance().get("protocol"));
    boolean inTheClear = so == null || Boolean.TRUE.equals(r.model().privacy().details().get("summation_reveals_inputs"));
    j.put("dataset", spec.data().dataset);
    j.put("features", r.model().featureStage().id());
    j.put("feature_dimension", r.model().features());
    j.put("algorithm", r.model().provenance().get("algorithm").toString());
    j.put("learner", r.model().kind().id());
    j.put("protocol", summation);
    j.put("summation", summation);
    j.put("engine", spec.run().engine.toLowerCase(java.util.Locale.ROOT));
    j.put("in_the_clear", inTheClear);
    j.put("parties", r.partition().count());
    // per_party: the configured --per-party (public), else the mean local size, which is public under
    // replace-one neighbours and private under add-or-remove (then null: no count of the data leaves).
    boolean countsPrivate = r.spec().sizesPrivate();
    if (spec.perPartyRequested() > 0) {
      j.put("per_party", spec.perPartyRequested());
    } else if (countsPrivate) {
      j.putNull("per_party");
    } else {
      j.put("per_party", (double) r.partition().totalSize() / r.partition().count());
    }
    j.put("partition", r.partition().description(countsPrivate));
    List<Double> drawAcc = r.draws().stream().map(Evaluation::accuracy).toList();
    boolean regression = r.test().isRegression();
    if (regression) {
      j.putNull("test_accuracy");
      j.putNull("test_macro_f1");
      j.put("test_mse", mean(r.draws().stream().map(e -> e.regression().mse()).toList()));
      j.put("test_rmse", mean(r.draws().stream().map(e -> e.regression().rmse()).toList()));
      Json.put(j, "test_r2", mean(r.draws().stream().map(e -> e.regression().r2()).toList()));
      j.put("target_units", "the data's own (predictions mapped back by the public target bounds)");
    } else {
      j.put("test_accuracy", mean(drawAcc));
      j.put("test_macro_f1", r.draws().stream().mapToDouble(Evaluation::macroF1).average().orElse(Double.NaN));
    }
    if (regression && r.draws().size() > 1) {
      j.put("noise_draws", r.draws().size());
      ArrayNode a = j.putArray("test_mse_draws");
      r.draws().forEach(e -> a.add(e.regression().mse()));
    }
    if (!regression && drawAcc.size() > 1) {
      j.put("noise_draws", drawAcc.size());
      j.put("noise_draws_note", "a measurement, not a private release: the accuracies come from "
          + drawAcc.size() + " separate releases of the same data; the privacy guarantee covers one release "
          + "(the written model)");
      j.put("test_accuracy_sd", std(drawAcc));
      j.put("test_accuracy_min", drawAcc.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN));
      ArrayNode a = j.putArray("test_accuracy_draws");
      drawAcc.forEach(a::add);
    }
    j.put("evaluated_on", spec.data().validationFraction > 0 ? "validation holdout of the training data" : "test data");
    // Accuracies are for the person running this, who holds the data: they are statistics of it
    // that no guarantee covers, so they never go into the model file.
    j.put("evaluation_note", "computed on data you hold; not covered by the privacy guarantee and not written to "
        + "the model file: publish it only if that data is public");
    if (r.reference() != null && r.reference().evaluation().isRegression()) {
      j.put("reference_mse", r.reference().evaluation().regression().mse());
      Json.put(j, "reference_r2", r.reference().evaluation().regression().r2());
    } else if (r.reference() != null) {
      j.put("reference_accuracy", r.reference().evaluation().accuracy());
      j.put("reference_macro_f1", r.reference().evaluation().macroF1());
    }
    if (r.reference() != null && r.reference().gapSkipped() != null) {
      j.put("optimality_gap_skipped", r.reference().gapSkipped());
    }
    if (r.reference() != null && r.reference().optimum() != null) {
      j.put("optimality_gap", r.reference().gap());
      j.put("reference_optimality_gap", r.reference().referenceGap());
      j.put("optimum", r.reference().optimum());
      j.put("optimality_gap_note", "L_D(theta) - L_D(theta*) on the pooled training data: a statistic of it, for "
          + "whoever holds that data; not covered by the privacy guarantee and not written to the model file");
    }
    if (r.reference() != null) {
      if (r.reference().epochs() > 0) {
        j.put("reference_epochs", r.reference().epochs());
      }
      j.put("reference", r.reference().description());
    }
    Json.put(j, "epsilon", r.model().privacy().epsilon());
    j.put("delta", r.model().privacy().delta());
    // whom epsilon (the released model's guarantee) protects against, and for which neighbours;
    // the model's other guarantees are under privacy.guarantees in the model file
    j.put("epsilon_against", r.model().privacy().guarantees().get(0).against());
    j.put("epsilon_neighbours", r.model().privacy().guarantees().get(0).neighbours());
    j.put("target_epsilon", spec.privacy().epsilon);
    j.put("honest_fraction", spec.privacy().honestFraction);
    j.put("protection", spec.privacy().protection().describe());
    // The algorithm's own public figures (noise multiplier, sensitivity, sampling rate, ...).
    j.setAll((ObjectNode) Json.MAPPER.valueToTree(res.plan().summary()));
    j.put("clip", r.model().preprocessing().clipBound());
    j.put("normalise", r.model().preprocessing().normalise());
    j.put("seed", spec.run().seed);
    j.put("rounds", res.rounds());
    j.put("bytes_per_party", res.bytesPerParty());
    j.put("server_bytes", res.serverBytes());
    j.put("secagg_seconds", res.summationSeconds());
    if (so != null) {
      j.put("server_seconds", so.serverSeconds());
      j.put("party_seconds", so.partySeconds());
      j.put("dropped", so.dropped().size());
      j.set("summation_parameters", Json.MAPPER.valueToTree(so.parameters()));
    }
    j.put("contributors", res.contributors());
    j.put("wall_seconds", wall);
    ObjectNode t = j.putObject("timings");
    t.put("local_training", r.trainingSeconds());
    t.put("release", r.releaseSeconds());
    t.put("reference", r.referenceSeconds());
    if (spec.run().modelOut != null) {
      j.put("model", spec.run().modelOut.toString());
    }
    ArrayNode cm = j.putArray("confusion_matrix");
    for (long[] row : r.test().confusion()) {
      ArrayNode a = cm.addArray();
      for (long v : row) {
        a.add(v);
      }
    }
    j.set("privacy", ModelFile.ledgerToJson(r.model().privacy()));
    return j;
  }

  /** Cross-validation: repeats x folds runs on the training data; reports mean and spread. */
  static ObjectNode crossValidate(Spec spec, int folds, int repeats, PrintWriter out, PrintWriter err) {
    spec.run().checkEngineOptions();
    long start = System.nanoTime();
    ConsoleProgress progress = new ConsoleProgress(System.err, !spec.run().quiet);
    DataOptions.Loaded loaded = spec.data().load(spec.run().seed, spec.run().threads(), progress);
    Dataset all = loaded.data().train();
    List<StratifiedKFold.Fold> splits = StratifiedKFold.split(all.labels(), all.numClasses(), folds, repeats,
        new SplittableRandom(spec.run().seed));
    List<Double> acc = new ArrayList<>();
    List<Double> f1 = new ArrayList<>();
    List<Double> ref = new ArrayList<>();
    Report last = null;
    for (StratifiedKFold.Fold f : splits) {
      Dataset tr = all.subset(f.train(), all.name() + " fold " + f.fold() + " train");
      Dataset te = all.subset(f.test(), all.name() + " fold " + f.fold() + " test");
      last = run(spec, tr, te, loaded.stage(), spec.run().seed + 31L * f.repeat() + f.fold(), progress);
      last.draws().forEach(e -> {
        acc.add(e.accuracy());
        f1.add(e.macroF1());
      });
      if (last.reference() != null) {
        ref.add(last.reference().evaluation().accuracy());
      }
    }
    double wall = (System.nanoTime() - start) / 1e9;
    ObjectNode j = summary(spec, last, wall);
    j.put("folds", folds);
    j.put("repeats", repeats);
    j.put("test_accuracy", mean(acc));
    j.put("test_accuracy_std", std(acc));
    j.put("test_macro_f1", mean(f1));
    if (!ref.isEmpty()) {
      j.put("reference_accuracy", mean(ref));
    }
    ArrayNode per = j.putArray("fold_accuracies");
    acc.forEach(per::add);
    j.remove("confusion_matrix");
    j.put("epsilon_note", "per run: each of the " + acc.size() + " runs is a separate release of its fold's data");
    if (spec.run().json) {
      out.println(Json.print(j));
    } else {
      out.println(spec.title() + " -- " + repeats + " x " + folds + "-fold stratified cross-validation");
      out.printf("  accuracy          %.2f %% +- %.2f (mean +- std over %d runs)%n", 100 * mean(acc), 100 * std(acc),
          acc.size());
      if (!ref.isEmpty()) {
        out.printf("  reference         %.2f %%  non-private centralized%n", 100 * mean(ref));
      }
      printPrivacy(out, last.model().privacy()); // per run; each fold is a separate release of its data
      out.printf("  per run           each of the %d runs is a separate release of its fold's data%n", acc.size());
      out.printf("  noise multiplier  %.4f%n", last.result().plan().noiseMultiplier());
      out.printf("  wall time         %.1f s%n", wall);
    }
    out.flush();
    return j;
  }

  /** The summation's chosen parameters as a phrase, e.g. " (random Harary graph, ..., threshold 95)". */
  static String describe(Map<String, Object> p) {
    List<String> parts = new ArrayList<>();
    if (p.containsKey("graph")) {
      parts.add(p.get("graph") + (p.containsKey("threshold") ? ", threshold " + p.get("threshold")
          : p.containsKey("group_size") ? ", groups of " + p.get("group_size") + " (no dropout recovery)" : ""));
    }
    if (p.containsKey("servers")) {
      parts.add(p.get("servers") + " servers");
    }
    if (p.containsKey("max_dropout")) {
      parts.add(String.format("sized for %s %% dropouts and %s %% colluding parties",
          fmt(100 * ((Number) p.get("max_dropout")).doubleValue()),
          fmt(100 * ((Number) p.get("colluding_fraction")).doubleValue())));
    }
    if (p.containsKey("setup_seconds")) {
      parts.add(String.format(java.util.Locale.ROOT, "setup before round 0: %s, %.1f s", p.get("setup"),
          ((Number) p.get("setup_seconds")).doubleValue()));
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  /**
   * Prints every guarantee of a run, each naming whom it protects against and the neighbouring
   * relation: "  privacy           (eps = 0.5, delta = 1e-05) per record (neighbours: ...), against ...".
   */
  static void printPrivacy(PrintWriter out, dev.helmet.privacy.ledger.PrivacyLedger ledger) {
    for (var g : ledger.guarantees()) {
      out.printf("  %-17s %s%n", "privacy", g.describe());
    }
  }

  static double mean(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  static double std(List<Double> v) {
    double m = mean(v);
    if (v.size() < 2) {
      return 0;
    }
    double s = v.stream().mapToDouble(x -> (x - m) * (x - m)).sum();
    return Math.sqrt(s / (v.size() - 1));
  }

  /** An eps or delta for print: rounded up, never below the bound ({@link dev.helmet.privacy.ledger.Guarantee#format}). */
  static String fmtBound(double v) {
    return dev.helmet.privacy.ledger.Guarantee.format(v);
  }

  /** What is left of a budget for print: rounded down ({@link dev.helmet.privacy.ledger.Guarantee#formatLeft}). */
  static String fmtLeft(double v) {
    return dev.helmet.privacy.ledger.Guarantee.formatLeft(v);
  }

  static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return v > 0 ? "infinity" : String.valueOf(v);
    }
    if (v != 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
      return String.format("%.3g", v);
    }
    String s = String.format("%.4f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  private static double secs(long a, long b) {
    return (b - a) / 1e9;
  }
}
