package dev.helmet.privacy.calculator;

import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.event.DpEvent;
import java.util.function.Supplier;

/**
 * A calculator bound to its options: the {@link DpEvent} of each value of its free parameter (a
 * noise multiplier, each client's Skellam lambda, each client's binomial trials), the accountant
 * that supports it, and how {@link Calibration#smallest} searches the parameter. {@link
 * PrivacyCalculators#epsilon} and {@link PrivacyCalculators#noise} run every calculation the same
 * way.
 */
public interface Calculation {
  /** The target delta. */
  double delta();

  /** The event of the releases when the free parameter is {@code value}. */
  DpEvent event(double value);

  /** Fresh accountants that support {@link #event}. */
  Supplier<PrivacyAccountant> accountants();

  /**
   * The calibration's search over a variable x with {@link #value}(x) the parameter: by default the
   * noise multiplier itself, to {@link Calibration}'s default tolerance.
   */
  default Calibration.Search search() {
    return Calibration.Search.noiseMultiplier(this::event);
  }

  /** The parameter at the search's x (x itself by default; rounded up where the parameter is discrete). */
  default double value(double x) {
    return x;
  }

  /** The parameter as given to {@code privacy epsilon} (the bound options), checked; refused, naming its option, when absent. */
  double given();

  /** The refusal of a value whose eps is infinite (too little noise for the accountant's theorem). */
  default String noEpsilon(double value) {
    return "no finite epsilon at delta " + delta() + " for " + value;
  }

  /** What {@code privacy epsilon} prints: the eps of {@code value}. */
  Report epsilonReport(double value, double epsilon);

  /**
   * What {@code privacy noise} prints: the calibrated {@code value} for {@code target}, and the eps
   * it gives (never above the target).
   */
  Report noiseReport(double value, double target, double epsilon);
}
