package dev.helmet.secagg.summation;

import dev.helmet.core.util.Progress;
import java.util.function.IntFunction;

/**
 * One summation of ring vectors among parties: the only interaction Helmet's blind averaging
 * needs (SPEC 1.3, Alg. 3). Implementations range from {@link PlainSummation} (in the clear, for
 * comparison) to the secure-aggregation protocols; callers see the same outcome either way.
 */
public interface SecureSummation {

  /** A short name for reports: {@code plain}, {@code secagg}, {@code secagg+}, ... */
  String name();

  /** Whether the server sees individual inputs (true only for the in-the-clear baseline). */
  boolean revealsInputs();

  /**
   * The fewest parties whose inputs are summed in any sum the server learns among {@code parties}:
   * 1 when it sees the inputs, the group size when it learns each group's sum (pairwise masks in
   * disjoint groups), {@code parties} when it learns only the total (the default).
   */
  default int smallestRevealedSum(int parties) {
    return revealsInputs() ? 1 : parties;
  }

  /**
   * Sums the parties' encoded vectors over the parties that complete. {@code inputs.apply(i)} is
   * party i's vector; it is asked for once, when party i needs it, so inputs can be produced lazily.
   * A malformed input or a party that drops out is left out (with a reason) rather than failing the
   * round; fewer than {@code spec.threshold()} contributors abort it and release nothing.
   */
  default SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs) {
    return run(spec, inputs, Progress.NONE);
  }

  /** As {@link #run(SummationSpec, IntFunction)}, reporting the parties' steps to {@code progress}. */
  SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs, Progress progress);
}
