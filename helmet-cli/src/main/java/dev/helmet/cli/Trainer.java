package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.helmet.HelmetJob;
import dev.helmet.protocols.helmet.HelmetPrivacy;
import dev.helmet.protocols.helmet.HelmetRun;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** The shared engine of {@code helmet train} and {@code helmet demo}: build a job, run it, report. */
final class Trainer {
  private Trainer() {}

  /** What to run. */
  record Spec(
      DataOptions data,
      PartitionStrategy partition,
      ModelOptions model,
      HelmetPrivacy privacy,
      RunOptions run,
      int perPartyRequested,
      String title) {}

  static ObjectNode train(Spec spec, PrintWriter out, PrintWriter err) {
    long start = System.nanoTime();
    ConsoleProgress progress = new ConsoleProgress(System.err, !spec.run().quiet);
    if (!spec.run().quiet) {
      err.println("loading " + spec.data().dataset + " ...");
      err.flush();
    }
    BuiltinDataset.TrainTest data = spec.data().load(spec.run().seed);
    LearnerConfig learner = spec.model().learnerConfig();
    SecureSummation summation = spec.run().summation(1 - spec.privacy().honestFraction());
    HelmetJob job = new HelmetJob(data.train(), data.test(), spec.partition(), spec.model().preprocessing(), learner,
        spec.privacy(), summation, spec.run().noiseKind(), spec.run().ringBits, spec.run().seed, spec.run().threads(),
        spec.run().reference);
    HelmetRun.Report report = HelmetRun.run(job, NoiseFactory.secure(), progress, spec.run().noiseDraws);
    double wall = (System.nanoTime() - start) / 1e9;
    if (spec.run().modelOut != null) {
      write(report.model(), spec.run().modelOut);
    }
    ObjectNode json = summary(spec, report, wall, summation);
    if (spec.run().json) {
      out.println(Json.print(json));
    } else {
      printHuman(spec, report, wall, out, summation);
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

  static ObjectNode summary(Spec spec, HelmetRun.Report r, double wall, SecureSummation summation) {
    ObjectNode j = Json.object();
    Map<String, Object> d = r.model().privacy().details();
    j.put("dataset", spec.data().dataset);
    j.put("learner", r.model().learner().kind().id());
    j.put("protocol", summation.name());
    j.put("in_the_clear", summation.revealsInputs());
    j.put("noise", String.valueOf(d.get("noise")));
    j.put("parties", r.partition().count());
    j.put("per_party", spec.perPartyRequested() > 0 ? spec.perPartyRequested()
        : (double) r.partition().totalSize() / r.partition().count());
    j.put("partition", r.partition().description());
    List<Double> drawAcc = r.draws().stream().map(Evaluation::accuracy).toList();
    j.put("test_accuracy", mean(drawAcc));
    j.put("test_macro_f1", r.draws().stream().mapToDouble(Evaluation::macroF1).average().orElse(Double.NaN));
    if (drawAcc.size() > 1) {
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
    if (r.reference() != null) {
      j.put("reference_accuracy", r.reference().accuracy());
      j.put("reference_macro_f1", r.reference().macroF1());
    }
    Json.put(j, "epsilon", r.model().privacy().epsilon());
    j.put("delta", r.model().privacy().delta());
    j.put("target_epsilon", spec.privacy().epsilon());
    j.put("noise_multiplier", r.release().noiseMultiplier());
    j.put("sensitivity", r.release().sensitivity());
    j.put("scaled_sensitivity", r.release().scaledSensitivity());
    j.put("releases", ((Number) d.get("releases")).intValue());
    j.put("honest_fraction", spec.privacy().honestFraction());
    j.put("protection", spec.privacy().protection().describe());
    LearnerConfig c = r.model().learner();
    j.put("lambda", c.lambda());
    j.put("radius", c.radius());
    j.put("epochs", c.epochs());
    j.put("batch_size", c.batchSize());
    j.put("clip", r.model().preprocessing().clipBound());
    j.put("normalise", r.model().preprocessing().normalise());
    j.put("seed", spec.run().seed);
    j.put("ring_bits", r.release().encoding().ringBits());
    SummationOutcome so = r.release().summation();
    j.put("rounds", 1); // one summation: each party sends its noised model once
    j.put("bytes_per_party", so.bytesPerParty());
    j.put("server_bytes", so.serverBytes());
    j.put("secagg_seconds", so.seconds());
    j.put("server_seconds", so.serverSeconds());
    j.put("party_seconds", so.partySeconds());
    j.put("contributors", so.contributors().size());
    j.put("dropped", so.dropped().size());
    j.set("summation_parameters", Json.MAPPER.valueToTree(so.parameters()));
    j.put("wall_seconds", wall);
    ObjectNode t = j.putObject("timings");
    t.put("partition", r.timings().partition());
    t.put("local_training", r.timings().training());
    t.put("release", r.timings().release());
    t.put("reference", r.timings().reference());
    t.put("evaluation", r.timings().evaluation());
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

  /** The summation's chosen parameters as a phrase, e.g. " (random Harary graph, ..., threshold 95)". */
  static String describe(Map<String, Object> p) {
    java.util.List<String> parts = new java.util.ArrayList<>();
    if (p.containsKey("graph")) {
      parts.add(p.get("graph") + ", threshold " + p.get("threshold"));
    }
    if (p.containsKey("servers")) {
      parts.add(p.get("servers") + " servers");
    }
    if (p.containsKey("max_dropout")) {
      parts.add(String.format("sized for %s %% dropouts and %s %% colluding parties",
          fmt(100 * ((Number) p.get("max_dropout")).doubleValue()),
          fmt(100 * ((Number) p.get("colluding_fraction")).doubleValue())));
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  private static void printHuman(Spec spec, HelmetRun.Report r, double wall, PrintWriter out,
      SecureSummation summation) {
    Map<String, Object> d = r.model().privacy().details();
    SummationOutcome so = r.release().summation();
    String protocol = summation.revealsInputs()
        ? summation.name() + " summation (IN THE CLEAR: the server sees every party's noised model; for "
            + "comparison only)"
        : summation.name() + describe(so.parameters()) + String.format(
            "; server %.2f s, %.3f s per party", so.serverSeconds(), so.partySeconds());
    out.println(spec.title());
    out.printf("  data              %s; %s%n", spec.data().dataset, r.partition().description());
    out.printf("  learner           %s, Lambda %s, R %s, %d epochs, batch %d, clip c=%s%s%n",
        r.model().learner().kind().id(), fmt(r.model().learner().lambda()), fmt(r.model().learner().radius()),
        r.model().learner().epochs(), r.model().learner().batchSize(), fmt(r.model().preprocessing().clipBound()),
        r.model().preprocessing().normalise() ? " (rows normalised)" : "");
    List<Double> drawAcc = r.draws().stream().map(Evaluation::accuracy).toList();
    String label = spec.data().validationFraction > 0 ? "valid. accuracy" : "test accuracy";
    if (drawAcc.size() == 1) {
      out.printf("  %-17s %.2f %%  (macro-F1 %.3f)%n", label, 100 * r.test().accuracy(), r.test().macroF1());
    } else {
      out.printf("  %-17s %.2f %%  mean of %d noise draws (sd %.2f, min %.2f); each draw is a separate release%n",
          label, 100 * mean(drawAcc), drawAcc.size(), 100 * std(drawAcc),
          100 * drawAcc.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN));
    }
    if (r.reference() != null) {
      out.printf("  reference         %.2f %%  non-private centralized, same objective on the pooled data%n",
          100 * r.reference().accuracy());
    }
    printPrivacy(out, r.model().privacy());
    out.printf("  noise multiplier  %.4f over %s release(s); sensitivity %.4g per party and release%n",
        r.release().noiseMultiplier(), d.get("releases"), r.release().sensitivity());
    out.printf("  protocol          %s; %d B per party%n", protocol, so.bytesPerParty());
    if (!so.dropped().isEmpty()) {
      out.printf("  dropouts          %d parties dropped, %d contributed (noise calibrated for at least %s)%n",
          so.dropped().size(), so.contributors().size(), d.get("min_contributors"));
    }
    out.printf("  noise             %s%n", d.get("noise_sampler"));
    out.printf("  wall time         %.1f s (local training %.1f s, noise and summation %.1f s, reference %.1f s)%n",
        wall, r.timings().training(), r.timings().release(), r.timings().reference());
    if (spec.run().modelOut != null) {
      out.printf("  model             %s%n", spec.run().modelOut);
    }
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

  /** Cross-validation: repeats x folds runs on the training data; reports mean and spread. */
  static ObjectNode crossValidate(Spec spec, int folds, int repeats, PrintWriter out, PrintWriter err) {
    long start = System.nanoTime();
    ConsoleProgress progress = new ConsoleProgress(System.err, !spec.run().quiet);
    BuiltinDataset.TrainTest data = spec.data().load(spec.run().seed);
    Dataset all = data.train();
    List<StratifiedKFold.Fold> splits = StratifiedKFold.split(all.labels(), all.numClasses(), folds, repeats,
        new SplittableRandom(spec.run().seed));
    List<Double> acc = new ArrayList<>();
    List<Double> f1 = new ArrayList<>();
    List<Double> ref = new ArrayList<>();
    HelmetRun.Report last = null;
    for (StratifiedKFold.Fold f : splits) {
      Dataset tr = all.subset(f.train(), all.name() + " fold " + f.fold() + " train");
      Dataset te = all.subset(f.test(), all.name() + " fold " + f.fold() + " test");
      HelmetJob job = new HelmetJob(tr, te, spec.partition(), spec.model().preprocessing(),
          spec.model().learnerConfig(), spec.privacy(), spec.run().summation(1 - spec.privacy().honestFraction()),
          spec.run().noiseKind(),
          spec.run().ringBits,
          spec.run().seed + 31L * f.repeat() + f.fold(), spec.run().threads(), spec.run().reference);
      last = HelmetRun.run(job, NoiseFactory.secure(), progress, spec.run().noiseDraws);
      last.draws().forEach(e -> {
        acc.add(e.accuracy());
        f1.add(e.macroF1());
      });
      if (last.reference() != null) {
        ref.add(last.reference().accuracy());
      }
    }
    double wall = (System.nanoTime() - start) / 1e9;
    ObjectNode j = summary(spec, last, wall, spec.run().summation(1 - spec.privacy().honestFraction()));
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
      out.printf("  noise multiplier  %.4f%n", last.release().noiseMultiplier());
      out.printf("  wall time         %.1f s%n", wall);
    }
    out.flush();
    return j;
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
}
