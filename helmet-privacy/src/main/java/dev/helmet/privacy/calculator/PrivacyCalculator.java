package dev.helmet.privacy.calculator;

import dev.helmet.privacy.event.NeighbourRelation;
import java.util.List;

/**
 * One named privacy calculator (registered in {@link PrivacyCalculators}): which options it reads,
 * their checks, and the {@link Calculation} they describe. The options every calculator shares
 * ({@link CalculatorInput}'s record components) are checked by the registry first.
 */
public interface PrivacyCalculator {
  /** The registered name, lower case: what {@code --accountant} takes. */
  String name();

  /** The name with a few words for the option's help, e.g. {@code smm (the Skellam mixture mechanism; ...)}. */
  String summary();

  /** The option of the free parameter: given to {@code privacy epsilon}, computed by {@code privacy noise}. */
  String parameter();

  /** Every option this calculator reads besides the shared ones, its {@link #parameter} among them. */
  List<String> options();

  /** The options that only this calculator reads: refused, with {@link #misuse}, by every other one. */
  default List<String> exclusiveOptions() {
    return List.of();
  }

  /** The refusal of {@link #exclusiveOptions} given to another calculator. */
  default String misuse() {
    List<String> o = exclusiveOptions();
    String list = o.size() == 1 ? o.get(0)
        : String.join(", ", o.subList(0, o.size() - 1)) + " and " + o.get(o.size() - 1);
    return list + " go with --accountant " + name();
  }

  /** Checks this calculator's own options (not the free parameter), before any other calculator's are refused. */
  default void validate(CalculatorInput in) {}

  /**
   * The calculation the options describe, after the shape of the releases (compositions, sampling,
   * neighbours) is checked for this calculator.
   */
  Calculation bind(CalculatorInput in, NeighbourRelation relation);
}
