package dev.helmet.experiments;

import dev.helmet.core.util.Checks;

/**
 * A preset that is a computed pipeline, not a learning grid: a mechanism experiment or a timing
 * harness on synthetic data, with a runner, tables and report of its own ({@link Computation}). It
 * keeps no cells, so {@code --report-only}, {@code --rewrite-report}, {@code --reuse} and
 * {@code --cells-at-once} do not apply.
 *
 * @param id its name
 * @param source the paper and figure
 * @param outputs what it writes
 * @param computation how it runs
 * @param network its networked form, or null
 */
public record ComputedPreset(String id, Source source, Outputs outputs, Computation computation,
    NetworkForm network) implements Preset {
  public ComputedPreset {
    Checks.require(id != null && !id.isEmpty(), "a preset needs an id");
    Checks.notNull("source", source);
    Checks.notNull("outputs", outputs);
    Checks.notNull("computation", computation);
  }

  /** A computed preset without networked form. */
  public ComputedPreset(String id, Source source, Outputs outputs, Computation computation) {
    this(id, source, outputs, computation, null);
  }

  /** This preset with the networked form {@code n}. */
  public ComputedPreset withNetwork(NetworkForm n) {
    return new ComputedPreset(id, source, outputs, computation, n);
  }

  /** None: a computed preset runs on its own synthetic data. */
  @Override
  public String defaultDataset() {
    return null;
  }

  /** None: claims sections belong to a grid's report. */
  @Override
  public Claims claims() {
    return null;
  }
}
