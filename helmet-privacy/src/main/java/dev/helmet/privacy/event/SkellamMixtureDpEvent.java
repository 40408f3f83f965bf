package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * One release of the Skellam mixture mechanism (SMM; Bao et al., PVLDB 2022, Theorem 5 and
 * Corollary 1): a sum of integer vectors, each stochastically rounded from a real vector x with
 * {@code sum_j phi(|x_j|) <= c} ({@code phi(t) = t^2 + p - p^2}, p the fractional part of t) and
 * {@code ceil|x_j| <= deltaInf}, plus symmetric Skellam noise Sk(lambda, lambda) per coordinate in
 * total. Its RDP at order alpha is {@code (1.2 alpha + 1)/2 * c/(2 lambda)}, but only where
 * {@code alpha < 2 lambda/deltaInf + 1} and {@code 10.9 alpha^2 - 1.8 alpha - 9.1 < 4 lambda/deltaInf^2};
 * at other orders nothing is known and accountants take the RDP as infinite.
 *
 * <p>{@code lambda} is the total Skellam parameter of the noise in the released sum that is
 * present for both neighbouring data sets (the paper's n lambda for n clients of Sk(lambda,
 * lambda) each): Skellam noise is closed under summation, and the bound depends on n and lambda
 * only through their product.
 *
 * @param lambda total Skellam parameter of the noise in the sum
 * @param c the mixture clip bound on {@code sum_j phi(|x_j|)} (gamma^2 for unit L2 sensitivity
 *     after scaling by gamma)
 * @param deltaInf the bound on {@code ceil|x_j|}, a positive integer
 */
public record SkellamMixtureDpEvent(double lambda, double c, int deltaInf) implements DpEvent {
  public SkellamMixtureDpEvent {
    Checks.require(lambda > 0 && Double.isFinite(lambda), "Skellam lambda must be positive. Provided value: "
        + lambda);
    Checks.require(c > 0 && Double.isFinite(c), "mixture clip bound c must be positive. Provided value: " + c);
    Checks.positive("delta_inf", deltaInf);
  }

  @Override
  public String describe() {
    return String.format("SkellamMixture(lambda=%.6g, c=%.6g, delta_inf=%d)", lambda, c, deltaInf);
  }
}
