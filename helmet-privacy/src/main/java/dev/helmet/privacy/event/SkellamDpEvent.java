package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * One release of the multi-dimensional Skellam mechanism (Agarwal, Kairouz, Liu, NeurIPS 2021,
 * "The Skellam Mechanism for Differentially Private Federated Learning", Theorem 3.5): an integer
 * vector whose L2 and L1 sensitivities are given (in grid units, for add-or-remove-one neighbours)
 * plus independent symmetric Skellam noise Sk(mu, mu) = Poisson(mu) - Poisson(mu) per coordinate
 * (variance 2 mu). Its RDP at order alpha is
 *
 * <pre>
 *   alpha D2^2 / (4 mu) + min(((2 alpha - 1) D2^2 + 6 D1) / (16 mu^2), 3 D1 / (4 mu)).
 * </pre>
 *
 * <p>{@code mu} is the total Skellam parameter of the noise in the released sum that is present
 * for both neighbouring data sets: n clients adding Sk(lambda, lambda) each give mu = n lambda, as
 * Skellam noise is closed under summation. Only honest clients' noise counts; the papers count the
 * expected number of clients per round.
 *
 * @param mu total Skellam parameter of the noise, > 0
 * @param l2Sensitivity L2 sensitivity D2 of the integer vector
 * @param l1Sensitivity L1 sensitivity D1 of the integer vector (for integer vectors at most
 *     min(D2^2, sqrt(d) D2))
 */
public record SkellamDpEvent(double mu, double l2Sensitivity, double l1Sensitivity) implements DpEvent {
  public SkellamDpEvent {
    Checks.require(mu > 0 && Double.isFinite(mu), "Skellam mu must be positive and finite. Provided value: " + mu);
    Checks.require(l2Sensitivity > 0 && Double.isFinite(l2Sensitivity),
        "L2 sensitivity must be positive and finite. Provided value: " + l2Sensitivity);
    Checks.require(l1Sensitivity > 0 && Double.isFinite(l1Sensitivity),
        "L1 sensitivity must be positive and finite. Provided value: " + l1Sensitivity);
    Sensitivities.requireOrdered(l1Sensitivity, l2Sensitivity);
  }

  @Override
  public String describe() {
    return String.format("Skellam(mu=%.6g, L2=%.6g, L1=%.6g)", mu, l2Sensitivity, l1Sensitivity);
  }
}
