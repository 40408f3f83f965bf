package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.partition.Partition;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.audit.ArtifactDiff;
import dev.helmet.protocols.audit.InputMirrorCanary;
import dev.helmet.protocols.audit.NeighbourPair;
import dev.helmet.protocols.audit.ReleaseAudit;
import dev.helmet.protocols.simulation.LocalSession;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The artifact diff of {@code helmet train} (issue 49, part 3): the whole in-process pipeline run on
 * D and on D' with the same seed and the same noise, and every artifact it releases compared field
 * by field: the model file, the {@code --json} summary and the printed report. Whatever differs
 * other than the DP release itself is reported with its path ({@link ArtifactPaths} declares the
 * release and the reported classes, each with its argument).
 *
 * <p>The noise is seeded ({@link NoiseFactory#seededForTesting}), draw k alike on every run, so the
 * release moves only as far as the data moves it, and a field outside it that differs is the
 * data's doing. That noise is not private, and the audit releases nothing: it writes its model
 * files to a temporary directory it removes, never to {@code --model-out}, and a normal run cannot
 * reach it ({@link LocalSession.Fixed} is made here only). A third run, on D again, is the control: it
 * must differ from the first in clock readings alone, or the "same noise, same seeds" premise
 * failed and the audit says so ({@link Outcome#control}).
 *
 * <p>The pair follows the guarantee's neighbouring relation: under replace-one, party 0's first
 * record replaced by its mirror image ({@link InputMirrorCanary}); under add-or-remove, D' is D
 * without party 0's first record, every other party's rows unchanged. A diff with no finding
 * shows no artifact field that tells this pair apart beyond the release; it says nothing about
 * the release itself (that is the epsilon audit's, {@code ReleaseAudit}) nor about other pairs,
 * and a timing channel is outside what it can decide.
 */
final class ArtifactAudit {
  private ArtifactAudit() {}

  /**
   * One run's artifacts, as released.
   *
   * @param model the model file's text, as {@code --model-out} writes it
   * @param summary the {@code --json} object's text
   * @param report the report {@code train} prints without {@code --json}
   */
  record Artifacts(String model, String summary, String report) {}

  /**
   * The audit's outcome.
   *
   * @param pair what D and D' are
   * @param diff D against D': its findings are every difference outside the declared release
   * @param control D against D once more (the same seed and noise): clock readings alone may differ
   */
  record Outcome(String pair, ArtifactDiff diff, ArtifactDiff control, Trainer.Spec spec) {
    /** The differences of the kind named, outside the release ({@link ArtifactPaths.Kind}). */
    List<ArtifactDiff.Difference> of(ArtifactPaths.Kind kind) {
      return ArtifactPaths.of(diff, kind, spec);
    }

    /** What tells D from D' beyond the release and the declared classes: each one a privacy bug. */
    List<ArtifactDiff.Difference> findings() {
      return of(ArtifactPaths.Kind.FINDING);
    }

    /**
     * The control's differences other than clock readings: anything here means the runs are not
     * reproducible with the same seed and noise, so D against D' cannot be read (empty when sound).
     */
    List<ArtifactDiff.Difference> controlProblems() {
      return control.differences().stream()
          .filter(d -> d.released() || ArtifactPaths.kind(d, spec) != ArtifactPaths.Kind.TIMING).toList();
    }

    /** The outcome as JSON (for {@code helmet audit --artifacts --json}). */
    ObjectNode toJson() {
      ObjectNode j = Json.object();
      j.put("pair", pair);
      ArrayNode compared = j.putArray("compared");
      diff.compared().stream().sorted().forEach(compared::add);
      j.put("release_differences", diff.differences().size() - diff.findings().size());
      put(j, "findings", findings());
      put(j, "holder_only", of(ArtifactPaths.Kind.HOLDER));
      put(j, "timing", of(ArtifactPaths.Kind.TIMING));
      put(j, "control_problems", controlProblems());
      j.put("note", "a lower-level check: no finding means no artifact field told this pair apart beyond the DP "
          + "release; it does not audit the release, other pairs or timing");
      return j;
    }

    /** The outcome for people, one difference a line. */
    void print(PrintWriter out) {
      out.println("artifact diff: " + pair + "; compared " + String.join(", ", diff.compared().stream().sorted()
          .toList()) + " of runs on D and D' with the same seed and noise, and a control run on D");
      out.printf("  release           %d field(s) differ, all declared the DP release or computed from it and the "
          + "public evaluation data%n", diff.differences().size() - diff.findings().size());
      section(out, "FINDINGS", findings(), "none");
      section(out, "holder only", of(ArtifactPaths.Kind.HOLDER), "none");
      section(out, "timing", of(ArtifactPaths.Kind.TIMING), "none");
      section(out, "control", controlProblems(), "reproducible (clock readings alone differ)");
    }

    private static void section(PrintWriter out, String title, List<ArtifactDiff.Difference> ds, String none) {
      out.printf("  %-17s %s%n", title, ds.isEmpty() ? none : ds.size() + " difference(s)");
      ds.forEach(d -> out.println("    " + d));
    }

    private static void put(ObjectNode j, String key, List<ArtifactDiff.Difference> ds) {
      ArrayNode a = j.putArray(key);
      for (ArtifactDiff.Difference d : ds) {
        a.addObject().put("path", d.path()).put("on_d", d.onD()).put("on_neighbour", d.onNeighbour());
      }
    }
  }

  /**
   * The audit as {@code helmet audit --artifacts} runs it: the data loaded as {@code train} loads
   * it (the evaluation data held fixed on both sides), the pair {@link #neighbours} builds, and
   * {@link #run(Trainer.Spec, NeighbourPair, Dataset, FeatureStage, ConsoleProgress)}.
   */
  static Outcome run(Trainer.Spec spec, ConsoleProgress progress) {
    DataOptions.Loaded loaded = spec.data().load(spec.run().seed, spec.run().threads(), progress);
    BuiltinDataset.TrainTest data = loaded.data();
    return run(spec, neighbours(spec, data.train(), spec.run().seed), data.test(), loaded.stage(), progress);
  }

  /**
   * Runs {@code spec} on D, on D again and on D' (each split as the pair gives, with the same seed,
   * {@code --seed}, and the same noise), evaluating on {@code test}, and compares their artifacts.
   *
   * @throws IllegalArgumentException for an engine other than the local one (its parties draw their
   *     own secure noise, which the audit cannot hold fixed), or a run the spec refuses
   */
  static Outcome run(Trainer.Spec spec, NeighbourPair pair, Dataset test, FeatureStage stage,
      ConsoleProgress progress) {
    if (spec.run().distributed()) {
      throw new IllegalArgumentException("the artifact audit runs the parties in this process (--engine local): "
          + "on --engine " + spec.run().engine + " they draw their own noise, which the audit cannot hold fixed");
    }
    long seed = spec.run().seed;
    // The plans of both sides are derived from one public bound on the sizes, as a train run's from
    // its configured split and a networked one's from the claimed max_points: the larger of each
    // party's two sizes. Under replace-one the sizes are equal and public anyway.
    int[] planSizes = ReleaseAudit.publicSizes(pair);
    Artifacts onD = artifacts(spec, pair.data(), pair.partition(), planSizes, test, stage, seed, progress);
    Artifacts again = artifacts(spec, pair.data(), pair.partition(), planSizes, test, stage, seed, progress);
    Artifacts onNeighbour = artifacts(spec, pair.neighbour(), pair.neighbourPartition(), planSizes, test, stage, seed,
        progress);
    return new Outcome(pair.description(), compare(spec, onD, onNeighbour), compare(spec, onD, again), spec);
  }

  /**
   * The pair for {@code spec}'s neighbouring relation, D split as {@code train} splits it with
   * {@code seed}: replace-one, party 0's first record mirrored; add-or-remove, party 0's first
   * record removed.
   */
  static NeighbourPair neighbours(Trainer.Spec spec, Dataset data, long seed) {
    AlgorithmSpec a = Trainer.configure(spec, data);
    // Trainer.run splits with the first generator split off the seed's; so does this.
    Partition partition = spec.partition().split(data, new SplittableRandom(seed).split());
    if (a.sizesPrivate()) {
      return removeOne(spec, data, partition, seed);
    }
    NeighbourPair p = new InputMirrorCanary().pair(a, data, partition);
    // The data set's name is the operator's label of its source (a file name), not computed from
    // its records: D and D' of one audit carry one name, so it is not reported as a difference.
    return new NeighbourPair(p.data(), p.neighbour().named(data.name()), p.partition(), p.neighbourPartition(),
        "replace-one: " + p.description() + " (its mirror image -x, party 0's first record)");
  }

  /**
   * D' = D without party 0's first record (add-or-remove neighbours), every other party's rows the
   * same records; D' is split as the spec's partition would word it for D' (its descriptions are
   * the strategy's own for D', so a count in them would show).
   */
  static NeighbourPair removeOne(Trainer.Spec spec, Dataset data, Partition partition, long seed) {
    int row = partition.indices(0)[0];
    int[] keep = new int[data.size() - 1];
    for (int i = 0, k = 0; i < data.size(); i++) {
      if (i != row) {
        keep[k++] = i;
      }
    }
    Dataset neighbour = data.subset(keep, data.name());
    List<int[]> parties = new ArrayList<>();
    for (int p = 0; p < partition.count(); p++) {
      parties.add(java.util.Arrays.stream(partition.indices(p)).filter(i -> i != row).map(i -> i < row ? i : i - 1)
          .toArray());
    }
    Partition worded;
    try {
      worded = spec.partition().split(neighbour, new SplittableRandom(seed).split());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the artifact audit's D' (D without one record) is too small for the "
          + "configured split: give the training data at least one row more than --parties x --per-party ("
          + e.getMessage() + ")", e);
    }
    Partition split = new Partition(parties, worded.description(), worded.countFreeDescription());
    return new NeighbourPair(data, neighbour, partition, split, "add-or-remove: party 0's first record (row " + row
        + ") removed, party 0 holds " + split.size(0) + " records in D' and " + partition.size(0) + " in D");
  }

  /** Compares two runs' artifacts, the release and the declared classes as {@link ArtifactPaths} gives them. */
  static ArtifactDiff compare(Trainer.Spec spec, Artifacts onD, Artifacts onNeighbour) {
    return new ArtifactDiff()
        .json(ArtifactPaths.MODEL, onD.model(), onNeighbour.model(), ArtifactPaths.modelReleased())
        .json(ArtifactPaths.SUMMARY, onD.summary(), onNeighbour.summary(), ArtifactPaths.summaryReleased(spec))
        .text(ArtifactPaths.REPORT, onD.report(), onNeighbour.report(), ArtifactPaths.reportReleased(spec));
  }

  /** Noise draw k of every run of one audit: the same on D, on D again and on D'. */
  private static NoiseFactory noise(long seed, int draw) {
    return NoiseFactory.seededForTesting(seed ^ (0x9E3779B97F4A7C15L * (draw + 1)));
  }

  /**
   * One run of the pipeline {@code train} runs (Trainer.run, then the model file Trainer.write
   * writes, Trainer.summary's --json and TrainerReport's report), split as given, noise fixed.
   */
  static Artifacts artifacts(Trainer.Spec spec, Dataset train, Partition partition, int[] planSizes, Dataset test,
      FeatureStage stage, long seed, ConsoleProgress progress) {
    long start = System.nanoTime();
    LocalSession.Outcome r = Trainer.run(spec, train, test, stage, seed, progress, null, null,
        new LocalSession.Fixed(partition, draw -> noise(seed, draw), planSizes));
    double wall = (System.nanoTime() - start) / 1e9;
    StringWriter report = new StringWriter();
    try (PrintWriter out = new PrintWriter(report)) {
      TrainerReport.printRun(spec, r, out);
      TrainerReport.printReference(r, wall, out);
    }
    return new Artifacts(modelFile(r), Json.print(Trainer.summary(spec, r, wall)), report.toString());
  }

  /** The model file's text as Trainer.write writes it, through a private temporary file removed after. */
  private static String modelFile(LocalSession.Outcome r) {
    try {
      Path dir = Files.createTempDirectory("helmet-artifact-audit");
      Path file = dir.resolve("model.json");
      try {
        Trainer.write(r.model(), file);
        return Files.readString(file);
      } finally {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the artifact audit cannot write its model file: " + e.getMessage(), e);
    }
  }
}
