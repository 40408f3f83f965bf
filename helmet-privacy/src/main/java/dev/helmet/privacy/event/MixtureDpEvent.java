package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A revealed mixture: component i runs with probability {@code weights[i]}, drawn independently of
 * the data, and the adversary learns which one ran. SWOR with a malicious coalition is one
 * (docs/design/cross-silo.md 1.4: the coalition sees how many honest records m its batch holds,
 * and m's law does not depend on the data under replace-one), as is a projection whose norm ratio
 * is public (1.5).
 *
 * <p>Since the index is revealed, the pair of output laws is {@code (sum_i w_i delta_i x P_i,
 * sum_i w_i delta_i x Q_i)}, and each divergence is linear in the weights:
 *
 * <ul>
 *   <li>PLD: {@code omega = sum_i w_i omega_i} in each direction (remove and add separately; the
 *       worse direction is taken only after composition), and the hockey-stick divergence is
 *       {@code delta(eps) = sum_i w_i delta_i(eps)};
 *   <li>RDP: {@code D_alpha = 1/(alpha - 1) ln sum_i w_i exp((alpha - 1) D_alpha(P_i || Q_i))}.
 * </ul>
 *
 * @param weights the probabilities of the components: each in [0, 1], summing to 1 within 1e-9
 * @param components what runs in each case (one per weight)
 */
public record MixtureDpEvent(double[] weights, DpEvent[] components) implements DpEvent {
  /** How far the weights may sum from 1 (rounding in the caller's normalisation). */
  public static final double WEIGHT_SUM_TOLERANCE = 1e-9;

  public MixtureDpEvent {
    Checks.notNull("weights", weights);
    Checks.notNull("components", components);
    Checks.require(weights.length == components.length && weights.length > 0, "a mixture needs one weight per "
        + "component and at least one component. Provided: " + weights.length + " weights, " + components.length
        + " components");
    weights = weights.clone();
    components = components.clone();
    double sum = 0;
    for (int i = 0; i < weights.length; i++) {
      double w = weights[i];
      Checks.require(w >= 0 && w <= 1, "mixture weight " + i + " must be in [0, 1]. Provided value: " + w);
      Checks.notNull("mixture component " + i, components[i]);
      sum += w;
    }
    Checks.require(Math.abs(sum - 1) <= WEIGHT_SUM_TOLERANCE,
        "mixture weights must sum to 1. Provided sum: " + sum);
  }

  /** A copy of the weights. */
  @Override
  public double[] weights() {
    return weights.clone();
  }

  /** A copy of the components. */
  @Override
  public DpEvent[] components() {
    return components.clone();
  }

  /** The number of components. */
  public int size() {
    return weights.length;
  }

  /** Weight i, without copying the array. */
  public double weight(int i) {
    return weights[i];
  }

  /** Component i, without copying the array. */
  public DpEvent component(int i) {
    return components[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MixtureDpEvent m && Arrays.equals(weights, m.weights)
        && Arrays.equals(components, m.components);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(weights) + Arrays.hashCode(components);
  }

  @Override
  public String toString() {
    return "MixtureDpEvent[weights=" + Arrays.toString(weights) + ", components=" + Arrays.toString(components) + "]";
  }

  @Override
  public String describe() {
    return IntStream.range(0, weights.length)
        .mapToObj(i -> String.format("%.4g: %s", weights[i], components[i].describe()))
        .collect(Collectors.joining("; ", "Mixture(", ")"));
  }
}
