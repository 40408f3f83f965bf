package dev.helmet.privacy.accounting;

import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;

/**
 * Accumulates {@link DpEvent}s and answers (eps, delta) questions about their composition.
 * Accountants differ in which events they support and how tight they are; callers ask
 * {@link #supports} first. Mutable and not thread-safe.
 */
public interface PrivacyAccountant {

  /** A short name for reports, e.g. {@code "gaussian-exact"}. */
  String name();

  /**
   * Whether every part of {@code event} can be accounted here: composites are walked and each
   * mechanism is checked with {@link #supportsMechanism}.
   */
  default boolean supports(DpEvent event) {
    if (event instanceof SelfComposedDpEvent s) {
      return supports(s.event());
    }
    if (event instanceof ComposedDpEvent c) {
      return c.events().stream().allMatch(this::supports);
    }
    return supportsMechanism(event);
  }

  /** Whether a single (non-composite) event can be accounted here. */
  boolean supportsMechanism(DpEvent event);

  /**
   * Adds {@code count} runs of {@code event}.
   *
   * @throws UnsupportedEventException if {@link #supports} is false
   */
  PrivacyAccountant compose(DpEvent event, int count);

  /** Adds one run of {@code event}. */
  default PrivacyAccountant compose(DpEvent event) {
    return compose(event, 1);
  }

  /** The smallest eps (rounded up) such that everything composed so far is (eps, delta)-DP. */
  double epsilon(double delta);

  /** The delta (rounded up) at which everything composed so far is (eps, delta)-DP. */
  double delta(double epsilon);
}
