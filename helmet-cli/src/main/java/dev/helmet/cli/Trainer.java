package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.simulation.LocalSession;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code helmet train} and {@code helmet demo} share: configure the algorithm from the options,
 * map them to a {@link LocalSession} (the in-process session, in helmet-protocols), and print its
 * outcome or write it as {@code --json}. It knows no algorithm: everything specific comes through
 * the registry ({@link AlgorithmSpec}, and the plan's own summary figures).
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

  /**
   * The session's settings from the options, for training data of {@code train}'s shape: the
   * algorithm configured ({@link #configure}), the summation and the engine made from the options.
   */
  static LocalSession.Settings settings(Spec spec, Dataset train) {
    AlgorithmSpec a = configure(spec, train);
    SecureSummation summation = spec.run().summation(1 - spec.privacy().honestFraction);
    boolean quiet = spec.run().quiet;
    java.util.function.Consumer<String> notes = line -> {
      if (!quiet) {
        System.err.println(line);
        System.err.flush();
      }
    };
    java.util.function.Consumer<String> warnings = line -> {
      System.err.println(line);
      System.err.flush();
    };
    return new LocalSession.Settings(a, spec.partition(), summation, spec.run().engine(),
        spec.run().distributed() ? spec.run().engine.toLowerCase(java.util.Locale.ROOT) : null,
        spec.privacy().minContributors, spec.run().dropout, spec.run().threads(), spec.run().noiseDraws,
        spec.run().reference, spec.run().optimalityGap, spec.data().labelsSource(),
        spec.privacy().epsilonGiven() ? null : spec.privacy().epsilon, notes, warnings);
  }

  /** Runs the spec on {@code train}, evaluating on {@code test} ({@link LocalSession#run}). */
  static LocalSession.Outcome run(Spec spec, Dataset train, Dataset test, FeatureStage stage, long seed,
      ConsoleProgress progress) {
    return run(spec, train, test, stage, seed, progress, null, null, null);
  }

  /**
   * As above, with {@link LocalSession#run}'s {@code released} and {@code evaluated} hooks and an
   * artifact audit's {@code fixed} split and noise (else null).
   */
  static LocalSession.Outcome run(Spec spec, Dataset train, Dataset test, FeatureStage stage, long seed,
      ConsoleProgress progress, java.util.function.Consumer<ReleasedModel> released,
      java.util.function.Consumer<LocalSession.Outcome> evaluated, LocalSession.Fixed fixed) {
    return LocalSession.run(settings(spec, train), train, test, stage, seed, progress, released, evaluated, fixed);
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
    LocalSession.Outcome report = run(spec, data.train(), data.test(), loaded.stage(), spec.run().seed, progress,
        model -> {
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
    }, null);
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

  static ObjectNode summary(Spec spec, LocalSession.Outcome r, double wall) {
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
    LocalSession.Folds runs = LocalSession.crossValidate(train -> settings(spec, train), loaded.data().train(),
        loaded.stage(), folds, repeats, spec.run().seed, progress);
    List<Double> acc = runs.accuracies();
    List<Double> f1 = runs.macroF1();
    List<Double> ref = runs.references();
    LocalSession.Outcome last = runs.last();
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

  /** A number for print ({@link dev.helmet.core.util.Numbers#fmt}). */
  static String fmt(double v) {
    return dev.helmet.core.util.Numbers.fmt(v);
  }
}
