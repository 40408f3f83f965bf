package dev.helmet.experiments;

import dev.helmet.core.util.Checks;

/**
 * A preset that is a learning grid: {@link #config} builds the experiment configuration, which the
 * runner ({@link ExperimentRunner}) runs cell by cell, resumable, as it runs an experiment file;
 * {@link Report} writes results.csv, the plots and report.md, with the preset's {@link #claims}.
 *
 * @param id its name
 * @param source the paper and figure
 * @param defaultDataset the data set when none is named
 * @param grid builds the configuration
 * @param claims the report's claims section, or null
 * @param network its networked form, or null
 */
public record GridPreset(String id, Source source, String defaultDataset, Grid grid, Claims claims,
    NetworkForm network) implements Preset {
  public GridPreset {
    Checks.require(id != null && !id.isEmpty(), "a preset needs an id");
    Checks.notNull("source", source);
    Checks.notNull("default data set", defaultDataset);
    Checks.notNull("grid", grid);
  }

  /** A grid without claims or networked form. */
  public GridPreset(String id, Source source, String defaultDataset, Grid grid) {
    this(id, source, defaultDataset, grid, null, null);
  }

  /** This preset with the report's claims section {@code c}. */
  public GridPreset withClaims(Claims c) {
    return new GridPreset(id, source, defaultDataset, grid, c, network);
  }

  /** This preset with the networked form {@code n}. */
  public GridPreset withNetwork(NetworkForm n) {
    return new GridPreset(id, source, defaultDataset, grid, claims, n);
  }

  @Override
  public Outputs outputs() {
    return Outputs.GRID;
  }

  /** The configuration for {@code dataset} (quick or full) on the feature stage {@code features}. */
  public ExperimentConfig config(String dataset, boolean quick, String features) {
    return grid.build(dataset, quick, features);
  }

  /** Builds a grid preset's configuration. */
  @FunctionalInterface
  public interface Grid {
    /**
     * The configuration for {@code dataset}, the quick (a minute or two) or full grid, on the
     * feature stage {@code features} (raw, scatter, hog).
     *
     * @throws IllegalArgumentException if the preset does not run on that data or feature stage
     */
    ExperimentConfig build(String dataset, boolean quick, String features);
  }
}
