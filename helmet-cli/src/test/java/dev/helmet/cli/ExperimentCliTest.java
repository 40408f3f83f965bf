package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code helmet experiment run} as a user runs it (MNIST, fetched and verified on first use). */
@org.junit.jupiter.api.Tag("integration")
class ExperimentCliTest {
  static void assertInvalid(Cli c, String expected) {
    assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
    assertTrue(c.errorLine().contains(expected), "expected '" + expected + "' in: " + c.err);
    assertFalse(c.err.contains("\tat "), "no stack trace for bad input: " + c.err);
  }

  /**
   * The smm-sum preset (quick: 20 points in d = 4096, b = 10 and 14): every mechanism, b, gamma and
   * eps is measured, and the paper's shape shows: with 14 bits SMM's error is close to the central
   * Gaussian's (Bao et al. report it slightly above, from the 1.2 factor of its RDP bound), the
   * coarser scale of 10 bits costs accuracy, and there SMM is far ahead of the distributed discrete
   * Gaussian and Skellam mechanisms (measured 27x at eps 1, 19x at eps 3).
   */
  @Test
  void quickSmmSumPresetMeasuresEveryMechanism(@TempDir Path dir) throws Exception {
    Cli run = Cli.run("experiment", "run", "--preset", "smm-sum", "--quick", "--out", dir.toString(), "--quiet");
    assertEquals(0, run.exit, run.toString());
    List<String> rows = Files.readAllLines(dir.resolve("results.csv"));
    assertTrue(rows.get(0).startsWith("mechanism,bits,gamma,epsilon,repeat,mse_per_coordinate"), rows.get(0));
    java.util.Map<String, Double> mse = new java.util.HashMap<>();
    for (String r : rows.subList(1, rows.size())) {
      String[] f = r.split(",");
      mse.put(f[0] + "/" + f[1] + "/" + f[2] + "/" + f[3], Double.parseDouble(f[5]));
    }
    for (String eps : List.of("1.0", "3.0", "5.0")) {
      double gauss = mse.get("gaussian/14/64.0/" + eps);
      double smm = mse.get("smm/14/128.0/" + eps);
      assertTrue(smm >= gauss * 0.8 && smm < 2.5 * gauss, "eps " + eps + ": smm " + smm + ", gaussian " + gauss);
      assertTrue(mse.get("smm/10/4.0/" + eps) > smm, "10 bits with gamma 4 is coarser than 14 bits");
      // The paper's claim: with few bits SMM is far ahead of DDG and Skellam (whose conditional
      // rounding inflates the sensitivity when gamma is small); with more bits they are comparable.
      for (String base : List.of("ddg", "skellam")) {
        assertTrue(mse.get("smm/10/4.0/" + eps) * 5 < mse.get(base + "/10/4.0/" + eps), base + " at 10 bits, eps "
            + eps + ": " + mse);
        assertTrue(smm < 2 * mse.get(base + "/14/128.0/" + eps), base + " at 14 bits, eps " + eps + ": " + mse);
      }
    }
    assertTrue(Files.exists(dir.resolve("mse-vs-eps-b14.svg")));
    assertTrue(Files.readString(dir.resolve("report.md")).contains("| smm | 14 | 128 |"));
  }

  /** Where {@link #wdDpEpsRun} ran the quick wd-dp-eps preset, once for the class. */
  @TempDir static Path shared;

  private static Cli wdDpEps;

  /**
   * The quick wd-dp-eps preset on breast-cancer (its default data set), run once for the class:
   * {@link #quickWdDpEpsPresetSweepsEpsAndParties} asserts on this run, and the tests of
   * --report-only, reruns and --rewrite-report each start from a copy of its finished folder
   * ({@link #finishedWdDpEps}) instead of running the same 18 cells again.
   */
  private static synchronized Cli wdDpEpsRun() {
    if (wdDpEps == null) {
      wdDpEps = Cli.run("experiment", "run", "--preset", "wd-dp-eps", "--quick", "--out",
          shared.resolve("wddp-eps").toString());
    }
    return wdDpEps;
  }

  /** A copy in {@code out} of the finished quick wd-dp-eps folder, as its own run would have left it. */
  private static void finishedWdDpEps(Path out) throws java.io.IOException {
    Cli run = wdDpEpsRun();
    assertEquals(0, run.exit, run.toString());
    QuickRuns.copyTree(shared.resolve("wddp-eps"), out);
  }

  /**
   * --report-only writes results.csv, plots and report.md from the cells finished so far, runs
   * none, and leaves cells.jsonl as it is (a grid may be appending to it, mid-line).
   */
  @Test
  void reportOnlyReportsTheFinishedCellsAndTouchesNothingElse(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("grid");
    String[] preset = {"experiment", "run", "--preset", "wd-dp-eps", "--quick", "--dataset", "breast-cancer", "--out",
        out.toString(), "--quiet"};
    Cli none = Cli.run(append(preset, "--report-only"));
    assertEquals(Main.INVALID_INPUT, none.exit, none.toString());
    assertTrue(none.errorLine().contains("holds no experiment yet"), none.err);
    finishedWdDpEps(out);
    Path cells = out.resolve("cells.jsonl");
    List<String> all = Files.readAllLines(cells);
    assertEquals(18, all.size());
    // five finished cells, and a sixth being written
    String partial = String.join("\n", all.subList(0, 5)) + "\n" + all.get(5).substring(0, 40);
    Files.writeString(cells, partial);
    String finalCsv = Files.readString(out.resolve("results.csv"));
    // the run's own flags are ignored: a Spark run's command reports too (no Spark needed)
    Cli report = Cli.run(append(preset, "--report-only", "--engine", "spark", "--threads", "1"));
    assertEquals(0, report.exit, report.toString());
    assertTrue(report.out.contains("5 of 18 cells finished so far (nothing run)"), report.out);
    assertEquals(partial, Files.readString(cells), "cells.jsonl untouched, its partial line included");
    assertEquals(finalCsv, Files.readString(out.resolve("results.csv")), "the run's own results untouched");
    List<String> csv = Files.readAllLines(out.resolve("partial").resolve("results.csv"));
    assertTrue(csv.size() > 1 && csv.size() < finalCsv.split("\n").length, csv.toString());
    String md = Files.readString(out.resolve("partial").resolve("report.md"));
    assertTrue(md.contains("--report-only (5 of 18 cells)") && md.contains("from the cells finished so far"), md);
    Cli other = Cli.run("experiment", "run", "--preset", "wd-dp-eps", "--dataset", "breast-cancer", "--out",
        out.toString(), "--report-only");
    assertEquals(Main.INVALID_INPUT, other.exit, other.toString());
    assertTrue(other.errorLine().contains("holds another experiment than this command describes")
        && !other.errorLine().contains("delete"), other.err);
    Cli timing = Cli.run("experiment", "run", "--preset", "crosssilo-sampling", "--quick", "--out",
        dir.resolve("s").toString(), "--report-only");
    assertEquals(Main.INVALID_INPUT, timing.exit, timing.toString());
    assertTrue(timing.errorLine().contains("--report-only applies to experiments that keep their cells"), timing.err);
    assertFalse(Files.exists(dir.resolve("s")), "nothing run, nothing written");
  }

  /**
   * Running a finished experiment again runs nothing and keeps the report of the invocation that ran
   * its cells (which names that invocation's time) instead of one saying this one took 0 s.
   */
  @Test
  void rerunningAFinishedExperimentKeepsItsReport(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("grid");
    String[] preset = {"experiment", "run", "--preset", "wd-dp-eps", "--quick", "--dataset", "breast-cancer", "--out",
        out.toString(), "--quiet"};
    finishedWdDpEps(out);
    String md = Files.readString(out.resolve("report.md"));
    String csv = Files.readString(out.resolve("results.csv"));
    Cli again = Cli.run(preset);
    assertEquals(0, again.exit, again.toString());
    assertTrue(again.out.contains("18 cells (0 run now, 18 kept from before)")
        && again.out.contains("every cell was finished by earlier invocations: their report is left as it was"),
        again.out);
    assertEquals(md, Files.readString(out.resolve("report.md")));
    assertEquals(csv, Files.readString(out.resolve("results.csv")));
    Cli json = Cli.run(append(preset, "--json"));
    assertEquals(0, json.exit, json.toString());
    var j = new ObjectMapper().readTree(json.out);
    assertTrue(j.get("report_kept").asBoolean() && j.get("ran").asInt() == 0 && j.get("plots").size() > 0, json.out);
    assertEquals(md, Files.readString(out.resolve("report.md")));
  }

  /**
   * --rewrite-report writes a finished experiment's report again from its cells with the current
   * report code (here replacing a stale sentence), keeps the command and time of the invocation
   * that ran them, runs nothing, and refuses a folder that is not finished.
   */
  @Test
  void rewriteReportRewritesAFinishedReportAndKeepsItsInvocation(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("grid");
    String[] preset = {"experiment", "run", "--preset", "wd-dp-eps", "--quick", "--dataset", "breast-cancer", "--out",
        out.toString(), "--quiet"};
    finishedWdDpEps(out);
    Path report = out.resolve("report.md");
    String md = Files.readString(report);
    String first = md.lines().filter(l -> l.startsWith("Made by")).findFirst().orElseThrow();
    String stale = first.replaceFirst("this invocation took \\d+ s", "this invocation took 4242 s")
        .replace(" --quiet", "");
    String old = md.replace(first, stale).replaceFirst("Every variant is accounted under the same neighbouring "
        + "relation[^.]*\\.", "STALE SENTENCE.");
    Files.writeString(report, old);
    String cells = Files.readString(out.resolve("cells.jsonl"));
    String csv = Files.readString(out.resolve("results.csv"));
    Cli both = Cli.run(append(preset, "--rewrite-report", "--report-only"));
    assertEquals(Main.INVALID_INPUT, both.exit, both.toString());
    assertTrue(both.errorLine().contains("not both"), both.err);
    Cli json = Cli.run(append(preset, "--rewrite-report", "--json"));
    assertEquals(0, json.exit, json.toString());
    var j = new ObjectMapper().readTree(json.out);
    assertTrue(j.get("report_rewritten").asBoolean() && j.get("ran").asInt() == 0, json.out);
    assertEquals(4242, j.get("seconds").asDouble(), json.out);
    String now = Files.readString(report);
    assertFalse(now.contains("STALE SENTENCE"), now);
    assertTrue(now.contains("Every variant is accounted under the same neighbouring relation"), now);
    assertTrue(now.contains("this invocation took 4242 s") && now.contains("This text was rewritten from the same "
        + "cells by `helmet experiment run --preset wd-dp-eps --dataset breast-cancer --quick --out"), now);
    assertEquals(cells, Files.readString(out.resolve("cells.jsonl")), "the cells untouched");
    assertEquals(csv, Files.readString(out.resolve("results.csv")), "the same rows");
    // a report that does not name its invocation cannot be rewritten keeping it
    Files.writeString(report, "# hand-made\n");
    Cli unnamed = Cli.run(append(preset, "--rewrite-report"));
    assertEquals(Main.INVALID_INPUT, unnamed.exit, unnamed.toString());
    assertTrue(unnamed.errorLine().contains("does not name the invocation"), unnamed.err);
    assertEquals("# hand-made\n", Files.readString(report), "nothing written on refusal");
    // an unfinished folder is refused, naming how many cells it holds
    List<String> all = Files.readAllLines(out.resolve("cells.jsonl"));
    Files.writeString(out.resolve("cells.jsonl"), String.join("\n", all.subList(0, 5)) + "\n");
    Cli partial = Cli.run(append(preset, "--rewrite-report"));
    assertEquals(Main.INVALID_INPUT, partial.exit, partial.toString());
    assertTrue(partial.errorLine().contains("holds 5 of the 18 cells"), partial.err);
  }

  private static String[] append(String[] a, String... more) {
    String[] out = java.util.Arrays.copyOf(a, a.length + more.length);
    System.arraycopy(more, 0, out, a.length, more.length);
    return out;
  }

  /**
   * The smm-fl preset's quick form runs the MLP through the mechanism, accounted within each target
   * eps (the JVM's one quick smm-fl run, {@link QuickRuns}, which CellsAtOnceCliTest reuses).
   */
  @Test
  void quickSmmFlPresetRunsWithinItsTargets() throws Exception {
    var rows = CliAssertions.rows(QuickRuns.finished("smm-fl"));
    assertEquals(5 * 2 * 3, rows.size(), "five variants at two eps, each as a grid row and two selections: " + rows);
    for (var r : rows) {
      assertTrue(List.of("smm-b8", "ddg-b8", "skellam-b8", "cpsgd-b8", "dp-sgd").contains(r.get("variant"))
          && r.get("learner").equals("mlp"), r.toString());
      assertTrue(Double.parseDouble(r.get("dp_eps")) <= Double.parseDouble(r.get("target_eps")) + 1e-9, r.toString());
      double a = Double.parseDouble(r.get("test_acc"));
      assertTrue(a >= 0 && a <= 1, r.toString());
    }
  }

  /** The |B| and gamma sweeps of smm-fl: variants named SERIES@X, plotted against X. */
  @Test
  void quickSmmSweepPresetsPlotAccuracyAgainstTheSweptValue(@TempDir Path dir) throws Exception {
    for (String preset : List.of("smm-fl-batch", "smm-fl-gamma")) {
      Path out = dir.resolve(preset);
      Cli run = Cli.run("experiment", "run", "--preset", preset, "--quick", "--out", out.toString(), "--quiet");
      assertEquals(0, run.exit, run.toString());
      List<String> rows = Files.readAllLines(out.resolve("results.csv"));
      assertTrue(rows.stream().skip(1).allMatch(r -> r.split(",")[0].matches("(smm|ddg)-b8@[0-9.]+")), rows.toString());
      assertTrue(Files.exists(out.resolve("accuracy-vs-sweep.svg")), preset);
      assertTrue(Files.readString(out.resolve("report.md")).contains("accuracy-vs-sweep.png"), preset);
    }
  }

  /**
   * The fig6 preset's quick form runs, writes every output and resumes. Its 8 cells are 2 party
   * counts (10, 100) x 2 learners x 2 repeats; before the quick form dropped W = 1000 (all of
   * MNIST's training images, most of the run's time) it had 12.
   */
  @Test
  void quickFig6PresetRunsAndResumes(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("fig6");
    Cli run = Cli.run("experiment", "run", "--preset", "fig6", "--dataset", "mnist", "--quick", "--out", out.toString());
    assertEquals(0, run.exit, run.toString());
    assertTrue(run.out.contains("fig6-mnist-quick: 8 cells (8 run now, 0 kept from before)"), run.out);
    for (String f : new String[] {"results.csv", "report.md", "accuracy-vs-eps-validation.png",
        "accuracy-vs-eps-test.svg", "accuracy-vs-parties.png"}) {
      assertTrue(Files.size(out.resolve(f)) > 0, f);
    }
    Cli again = Cli.run("experiment", "run", "--preset", "fig6", "--dataset", "mnist", "--quick", "--out",
        out.toString());
    assertEquals(0, again.exit, again.toString());
    assertTrue(again.out.contains("fig6-mnist-quick: 8 cells (0 run now, 8 kept from before)"), again.out);
    // The same folder for another experiment is refused, naming the reason.
    assertInvalid(Cli.run("experiment", "run", "--preset", "fig5", "--quick", "--out", out.toString()),
        "holds the results of a different experiment");
  }

  /**
   * The WD-DP imbalance preset (quick): WD-DP, Jayaraman and Wang (centralized) at every
   * imbalance, and the imbalance's partition is named in results.csv. breast-cancer is fetched like MNIST (Debian package).
   */
  @Test
  void quickWdDpImbalancePresetRunsBothWeightings(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("wddp");
    Cli run = Cli.run("experiment", "run", "--preset", "wd-dp-imbalance", "--quick", "--out", out.toString());
    assertEquals(0, run.exit, run.toString());
    assertTrue(run.out.contains("27 cells (27 run now, 0 kept from before)"), run.out);
    java.util.List<String> rows = Files.readAllLines(out.resolve("results.csv"));
    for (String variant : new String[] {"wd-dp", "jayaraman", "wang"}) {
      for (String u : new String[] {"uneven-u1", "uneven-u5", "uneven-u9"}) {
        assertTrue(rows.stream().anyMatch(r -> r.startsWith(variant + ",") && r.contains("," + u + ",")),
            variant + " at " + u);
      }
    }
    assertTrue(Files.size(out.resolve("partitions.png")) > 0);
    assertTrue(Files.readString(out.resolve("report.md")).contains("--preset wd-dp-imbalance --dataset breast-cancer"));
  }

  /**
   * The PL preset (quick) on boston-housing: MSE and optimality gap against eps and imbalance, WD-DP,
   * Jayaraman and Wang, each chart stating its settings; no accuracy charts for regression.
   */
  @Test
  void quickWdDpPlPresetReportsMseAndGaps(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("pl");
    Cli run = Cli.run("experiment", "run", "--preset", "wd-dp-pl", "--quick", "--out", out.toString());
    assertEquals(0, run.exit, run.toString());
    assertTrue(run.out.contains("18 cells (18 run now, 0 kept from before)"), run.out);
    List<String> rows = Files.readAllLines(out.resolve("results.csv"));
    assertTrue(rows.get(0).endsWith("test_mse,test_r2,val_mse,optimality_gap,nonprivate_metric"), rows.get(0));
    assertTrue(rows.stream().anyMatch(r -> r.startsWith("wang,linreg,")), "rows");
    String svg = Files.readString(out.resolve("gap-vs-imbalance.svg"));
    assertTrue(svg.contains("trusted server") && svg.contains("T 50") && svg.contains("delta 1.0E-5")
        && svg.contains("eta 1/beta") && svg.contains("on the T steps"), "the chart states its settings");
    assertTrue(Files.readString(out.resolve("metric-vs-imbalance.svg")).contains("non-private (theta*)"));
    assertTrue(!Files.exists(out.resolve("accuracy-vs-eps-validation.png")));
    assertTrue(!Files.exists(out.resolve("accuracy-vs-parties.png")));
    Cli again = Cli.run("experiment", "run", "--preset", "wd-dp-pl", "--quick", "--out", out.toString());
    assertTrue(again.out.contains("18 cells (0 run now, 18 kept from before)"), "resumes: " + again);
  }

  /**
   * The WD-DP eps preset (quick): accuracy against eps for 2 and 8 parties, both weightings (the
   * class's one run of it, {@link #wdDpEpsRun}; the others start from copies of its folder).
   */
  @Test
  void quickWdDpEpsPresetSweepsEpsAndParties() throws Exception {
    Path out = shared.resolve("wddp-eps");
    Cli run = wdDpEpsRun();
    assertEquals(0, run.exit, run.toString());
    assertTrue(run.out.contains("18 cells (18 run now, 0 kept from before)"), run.out);
    assertTrue(Files.size(out.resolve("accuracy-vs-eps-validation.png")) > 0);
    java.util.List<String> rows = Files.readAllLines(out.resolve("results.csv"));
    assertTrue(rows.stream().anyMatch(r -> r.startsWith("jayaraman,") && r.contains(",8,27,uneven-u4,")), "rows");
  }

  /**
   * An experiment file on HOG features of the raw 8x8 digits runs end to end and says hog in
   * results.csv; {@code --features} may repeat the file's feature set but not contradict it.
   */
  @Test
  void hogExperimentFileAndTheFeaturesOption(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("digits.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: digits-hog",
        "dataset: " + TestData.path("digits.csv.gz"),
        "features: hog",
        "image_shape: 8x8",
        "parties: [4]",
        "per_party: 100",
        "epsilons: [1000]",
        "variants: [{name: helmet-softmax, algorithm: helmet, settings: {learner: {epochs: 10}}}]",
        ""));
    Path out = dir.resolve("o");
    String[] common = {"--out", out.toString(), "--threads", "2", "--cache-dir", dir.resolve("cache").toString(), "-q"};
    Cli run = Cli.run(concat(new String[] {"experiment", "run", yaml.toString()}, common));
    assertEquals(0, run.exit, run.toString());
    assertTrue(run.out.contains("digits-hog: 1 cells (1 run now, 0 kept from before)"), run.out);
    List<String> csv = Files.readAllLines(out.resolve("results.csv"));
    assertTrue(csv.get(0).contains(",neighbours,features,test_mse,"), csv.get(0));
    assertTrue(csv.size() > 1 && csv.stream().skip(1).allMatch(l -> l.contains(",hog,")), csv.toString());
    Cli same = Cli.run(concat(new String[] {"experiment", "run", yaml.toString(), "--features", "HOG"}, common));
    assertEquals(0, same.exit, same.toString());
    assertTrue(same.out.contains("1 cells (0 run now, 1 kept from before)"), same.out);
    assertInvalid(Cli.run(concat(new String[] {"experiment", "run", yaml.toString(), "--features", "scatter"}, common)),
        "--features scatter disagrees with " + yaml + ", which says features: hog");
    assertInvalid(Cli.run("experiment", "run", "--preset", "fig5", "--features", "sift", "--out", dir.toString()),
        "--features must be one of raw, scatter, hog. Provided value: sift");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void badInvocationsAndFilesNameTheProblem(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("e.yaml");
    Files.writeString(yaml, "dataset: mnist\nparties: [10]\nepsilons: [1]\nvariants: [{algorithm: helmet}]\nrepeat: 2\n");
    assertInvalid(Cli.run("experiment", "run", yaml.toString(), "--out", dir.resolve("o").toString()),
        "unknown key repeat");
    assertInvalid(Cli.run("experiment", "run", yaml.toString(), "--preset", "fig5", "--out", dir.toString()),
        "give either an experiment file or --preset");
    assertInvalid(Cli.run("experiment", "run", "--preset", "fig9", "--out", dir.toString()), "unknown preset fig9");
    assertInvalid(Cli.run("experiment", "run", "--preset", "fig5", "--dataset", "cifar", "--out", dir.toString()),
        "dataset must name a built-in data set");
    assertInvalid(Cli.run("experiment", "run", yaml.toString(), "--quick", "--out", dir.toString()),
        "--quick applies to presets only");
  }
}
