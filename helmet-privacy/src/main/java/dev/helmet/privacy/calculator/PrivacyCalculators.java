package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.event.NeighbourRelation;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The registry of privacy calculators (opacus' {@code create_accountant}: a name gives the
 * accountant) and the one routine they all go through. {@link #epsilon}: the accountant's eps of
 * the calculation's event at the given parameter. {@link #noise}: {@link Calibration#smallest}
 * over the calculation's search, then the eps of the value found (never above the target: the
 * search returns a value the accountant passed, raised). A new calculator is one class and one line
 * in {@link #ALL}.
 */
public final class PrivacyCalculators {
  /** Every calculator, in the order their options are checked and their names listed. */
  private static final List<PrivacyCalculator> ALL = List.of(
      GaussianCalculator.EXACT,
      GaussianCalculator.RDP,
      GaussianCalculator.PLD,
      new SmmCalculator(),
      new CpSgdCalculator());

  private PrivacyCalculators() {}

  /** Every registered calculator. */
  public static List<PrivacyCalculator> all() {
    return ALL;
  }

  /** The registered names, in order. */
  public static List<String> names() {
    return ALL.stream().map(PrivacyCalculator::name).toList();
  }

  /** The name used when none is given: the exact Gaussian for unsampled releases, RDP for sampled ones. */
  public static String defaultName(boolean sampled) {
    return sampled ? GaussianCalculator.RDP.name() : GaussianCalculator.EXACT.name();
  }

  /** Every calculator's summary, as one list for the {@code --accountant} help: "a, b (...) or c". */
  public static String summaries() {
    return list(ALL.stream().map(PrivacyCalculator::summary).toList());
  }

  /**
   * The calculator of that name (any case).
   *
   * @throws IllegalArgumentException naming the registered ones, for any other name
   */
  public static PrivacyCalculator named(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    return ALL.stream().filter(c -> c.name().equals(key)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("--accountant must be " + list(names()) + ". Provided value: " + name));
  }

  /**
   * Checks the shared options, resolves the calculator ({@code name} null: {@link #defaultName}),
   * checks its own options and refuses every other calculator's, and binds it.
   */
  public static Calculation bind(String name, CalculatorInput in) {
    Checks.positive("compositions", in.compositions());
    Checks.openUnit("delta", in.delta());
    Checks.positive("group size", in.groupSize());
    NeighbourRelation relation = switch (in.neighbours().toLowerCase(Locale.ROOT)) {
      case "add-remove" -> NeighbourRelation.ADD_OR_REMOVE_ONE;
      case "replace-one" -> NeighbourRelation.REPLACE_ONE;
      default -> throw new IllegalArgumentException("--neighbours must be add-remove or replace-one. Provided value: "
          + in.neighbours());
    };
    PrivacyCalculator calculator = named(name != null ? name : defaultName(in.sampled()));
    for (PrivacyCalculator c : ALL) {
      if (c == calculator) {
        c.validate(in);
      } else if (c.exclusiveOptions().stream().anyMatch(in::has)) {
        throw new IllegalArgumentException(c.misuse());
      }
    }
    return calculator.bind(in, relation);
  }

  /** {@code privacy epsilon}: the eps of the parameter given in {@code in}. */
  public static Report epsilon(String name, CalculatorInput in) {
    Calculation c = bind(name, in);
    double value = c.given();
    double eps = Calibration.epsilon(c.event(value), c.accountants(), c.delta());
    if (!(eps < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException(c.noEpsilon(value));
    }
    return c.epsilonReport(value, eps);
  }

  /** {@code privacy noise}: the smallest parameter whose eps is at most {@code target}, and that eps. */
  public static Report noise(String name, CalculatorInput in, double target) {
    Checks.positive("epsilon", target);
    Calculation c = bind(name, in);
    String parameter = named(name != null ? name : defaultName(in.sampled())).parameter();
    Checks.require(!in.has(parameter), parameter + " is what `privacy noise` computes; leave it out");
    double value = c.value(Calibration.smallest(c.search(), c.accountants(), target, c.delta()));
    return c.noiseReport(value, target, Calibration.epsilon(c.event(value), c.accountants(), c.delta()));
  }

  private static String list(List<String> items) {
    return items.size() == 1 ? items.get(0) : items.subList(0, items.size() - 1).stream()
        .collect(Collectors.joining(", ")) + " or " + items.get(items.size() - 1);
  }
}
