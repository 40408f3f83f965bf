package dev.helmet.experiments;

import java.util.List;

/**
 * A built-in experiment ({@code helmet experiment run --preset ID}): one of a paper's figures or
 * tables, on the data we have. A preset is either a learning grid ({@link GridPreset}: an {@link
 * ExperimentConfig} run cell by cell through {@link ExperimentRunner}, as an experiment file is) or
 * a computed pipeline ({@link ComputedPreset}: a mechanism experiment or a timing harness with a
 * runner of its own). Either may have a networked form ({@link #network()}, {@code --network}).
 *
 * <p>Presets are registered per algorithm: each sub-package of {@code dev.helmet.experiments}
 * ({@code blind}, {@code wddp}, {@code smm}, {@code crosssilo}) has a {@link Provider}, listed in
 * {@code META-INF/services/dev.helmet.experiments.Preset$Provider}; {@link Presets} finds them. A
 * new preset is a {@link GridPreset} or {@link ComputedPreset} in its algorithm's provider.
 */
public sealed interface Preset permits GridPreset, ComputedPreset {
  /** Its name on the command line ({@code --preset ID}). */
  String id();

  /** The paper and the figure or table it reproduces. */
  Source source();

  /**
   * The data set it runs on when {@code --dataset} is not given, or null for a preset that makes its
   * own (synthetic) data and refuses {@code --dataset} and {@code --features}.
   */
  String defaultDataset();

  /** The files its run writes into {@code --out}. */
  Outputs outputs();

  /** The form {@code --network} runs, or null: this preset has none. */
  NetworkForm network();

  /**
   * The section of the report that checks the paper's claims against the results, or null. Only a
   * grid's report has one ({@link Report}).
   */
  Claims claims();

  /**
   * Where a preset comes from.
   *
   * @param paper the paper, in a few words ({@code "Heikkilä et al., cross-silo federated learning"})
   * @param figure the figure or table of that paper ({@code "Fig. 3"})
   */
  record Source(String paper, String figure) {
    public Source {
      dev.helmet.core.util.Checks.notNull("paper", paper);
      dev.helmet.core.util.Checks.notNull("figure", figure);
    }
  }

  /**
   * What a run writes.
   *
   * @param csv the result tables ({@code results.csv} first)
   * @param plots whether it draws plots (each as PNG and SVG; their names depend on the grid)
   * @param report the report ({@code report.md}), which embeds the plots
   */
  record Outputs(List<String> csv, boolean plots, String report) {
    /** A learning grid's: results.csv, the plots and report.md ({@link Report}). */
    public static final Outputs GRID = new Outputs(List.of("results.csv"), true, "report.md");

    public Outputs {
      csv = List.copyOf(csv);
      dev.helmet.core.util.Checks.require(!csv.isEmpty() && csv.get(0).equals("results.csv"),
          "a preset's first table is results.csv. Provided value: " + csv);
      dev.helmet.core.util.Checks.notNull("report", report);
    }
  }

  /**
   * A preset's networked form: the same figure measured over loopback connections (each party,
   * node and coordinator with its own TLS identity) instead of in process.
   *
   * @param outputs what it writes
   * @param computation how it runs
   */
  record NetworkForm(Outputs outputs, Computation computation) {
    public NetworkForm {
      dev.helmet.core.util.Checks.notNull("outputs", outputs);
      dev.helmet.core.util.Checks.notNull("computation", computation);
    }
  }

  /** Registers an algorithm's presets (found by {@link java.util.ServiceLoader}). */
  interface Provider {
    /** Its presets, in the order help and errors list them. */
    List<Preset> presets();
  }
}
