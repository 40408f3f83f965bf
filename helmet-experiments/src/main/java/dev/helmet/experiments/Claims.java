package dev.helmet.experiments;

import java.util.Map;

/**
 * A report section that checks a paper's claims against a grid's results (the Skellam mixture
 * paper's, for its presets). A preset names its section ({@link Preset#claims}); {@link Report}
 * writes it after the accuracy tables where it applies to the results.
 */
public interface Claims {
  /**
   * Whether the section applies to {@code summary} ({@link Results#summarise}: selection, variant,
   * partition, parties, eps to cell): the results hold what it compares.
   */
  boolean applies(Map<String, Map<String, Map<String, Map<Integer, Map<Double, Results.Cell>>>>> summary);

  /** Appends the section to {@code md}. */
  void write(ExperimentConfig c, Map<String, Map<String, Map<String, Map<Integer, Map<Double, Results.Cell>>>>>
      summary, StringBuilder md);
}
