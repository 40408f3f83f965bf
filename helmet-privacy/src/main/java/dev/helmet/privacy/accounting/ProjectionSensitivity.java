package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.NeighbourRelation;
import org.apache.commons.statistics.distribution.GammaDistribution;

/**
 * The sensitivity of a random projection, for "clip, then project" (Heikkila et al., "Differentially
 * private cross-silo federated learning", Sec. 2.2, Def. 2.4, Lemma 2.1, Sec. 3.5 and Theorem 2 with
 * Appendix B eqs. (4)-(8); docs/design/cross-silo.md 1.5).
 *
 * <p>For P in R^(d x k) with i.i.d. N(0, 1/k) entries drawn independently of a vector a with
 * ||a|| <= C, ||P^T a||^2 = (||a||^2/k) chi^2_k <= (C^2/k) chi^2_k, a Gamma(shape k/2, scale
 * 2 C^2/k) variable (eqs. (4)-(7)). So the projection is (C r, delta')-sensitive (Def. 2.4) with
 *
 * <pre>
 *   r(k, delta') = sqrt(F^{-1}_{Gamma(k/2, 2/k)}(1 - delta')) = sqrt(chi^2_k.isf(delta') / k)   (eq. (8)),
 * </pre>
 *
 * and by Lemma 2.1 an (eps, delta) mechanism sized for sensitivity C r is (eps, delta +
 * delta')-DP. The authors' {@code proj_sens = sqrt(gamma.ppf(1 - delta', a=k/2, scale=2(cC)^2/k))}
 * is C r (with c = neighbour_const).
 *
 * <p>The slack is paid per release: with a fresh P each step, K steps cost 1 - (1 - c delta')^K
 * (doubt 4), where c = 1 under add/remove and c = 2 under replace-one, since the replace-one pair
 * needs both projected vectors bounded, not only their difference (doubt 3; a union bound).
 *
 * <p><b>Limit.</b> The probability is over P drawn independently of a. A P from a public seed
 * fixed before the data does not give that against someone who chooses a record knowing the seed:
 * a record along P's top singular directions has ratio near 1 + sqrt(d / k) (privacy review turn
 * 3, finding 2: 3.78 against r = 1.46 for MNIST's softmax at k = 100). Cross-silo therefore no
 * longer charges the slack: it clips each record's projection to C r(k, delta') ({@link
 * dev.helmet.privacy.mechanism.GaussianProjection#addClippedProjections}), a deterministic bound,
 * and uses {@link #clipRatio} only to place that clip where an honest record rarely reaches it.
 * {@link #perStepSlack} and {@link #totalSlack} remain for {@code helmet privacy projection}, which
 * prints the paper's (Delta, delta')-sensitivity.
 */
public final class ProjectionSensitivity {
  /**
   * Relative rounding applied upwards to the clip ratio: commons-statistics inverts the regularised
   * gamma function to about 1e-14 relative (the test cross-checks 1e-9 by an independent
   * bisection), so 1e-12 covers it with room and changes no printed digit.
   */
  static final double RATIO_ROUND_UP = 1e-12;

  private ProjectionSensitivity() {}

  /**
   * r(k, delta') = sqrt(Gamma(k/2, 2/k).inverseSurvivalProbability(delta')), rounded up: the factor
   * by which the clip C grows after a k-dimensional Gaussian projection, except with probability
   * delta'. The inverse survival function keeps its digits for small delta', where 1 - delta' would
   * lose them (design note 1.5). Examples (scipy): k = 100, delta' = 1e-5 gives 1.311865; k = 400,
   * delta' = 1e-8 gives 1.203706.
   *
   * @param dimension k, the projection dimension, >= 1
   * @param deltaPrime the probability that the bound fails, in (0, 1)
   */
  public static double clipRatio(int dimension, double deltaPrime) {
    Checks.positive("projection dimension", dimension);
    Checks.require(deltaPrime > 0 && deltaPrime < 1,
        "projection slack delta' must be in (0, 1). Provided value: " + deltaPrime);
    double k = dimension;
    double t = GammaDistribution.of(k / 2, 2 / k).inverseSurvivalProbability(deltaPrime);
    return Math.sqrt(t) * (1 + RATIO_ROUND_UP);
  }

  /**
   * The per-release failure probability c delta': delta' under add/remove (one vector's projection
   * bounded), 2 delta' under replace-one (both vectors', by a union bound; doubt 3).
   */
  public static double perStepSlack(NeighbourRelation relation, double deltaPrime) {
    Checks.notNull("neighbour relation", relation);
    Checks.require(deltaPrime > 0 && deltaPrime < 1,
        "projection slack delta' must be in (0, 1). Provided value: " + deltaPrime);
    double s = relation == NeighbourRelation.REPLACE_ONE ? 2 * deltaPrime : deltaPrime;
    return Math.min(1, s);
  }

  /**
   * 1 - (1 - s)^K for a per-step slack s over K independent releases (a fresh P each step), rounded
   * up: computed as -expm1(K log1p(-s)), accurate for tiny s, then raised by a relative 1e-12 to
   * cover the two rounded library calls. Never more than min(1, K s).
   */
  public static double totalSlack(double perStep, int steps) {
    Checks.require(perStep >= 0 && perStep <= 1, "per-step slack must be in [0, 1]. Provided value: " + perStep);
    Checks.positive("steps", steps);
    if (perStep == 1) {
      return 1;
    }
    double t = -Math.expm1(steps * Math.log1p(-perStep));
    return Math.min(Math.min(1, steps * perStep * (1 + 1e-15)), t * (1 + 1e-12));
  }
}
