package dev.helmet.secagg.summation;

import java.util.List;

/**
 * One summation of ring vectors among parties: the only interaction Helmet's blind averaging
 * needs (SPEC 1.3, Alg. 3). Implementations range from {@link PlainSummation} (in the clear, for
 * comparison) to the secure-aggregation protocols; callers see the same outcome either way.
 */
public interface SecureSummation {

  /** A short name for reports: {@code plain}, {@code secagg}, ... */
  String name();

  /** Whether the server sees individual inputs (true only for the in-the-clear baseline). */
  boolean revealsInputs();

  /**
   * Sums {@code inputs.get(i)}, party i's encoded vector, over the parties that complete.
   * A malformed input drops its party (with a reason) rather than the round; fewer than
   * {@code spec.threshold()} contributors abort it.
   */
  SummationOutcome run(SummationSpec spec, List<long[]> inputs);
}
