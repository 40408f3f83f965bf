package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;

/**
 * The clip of the Skellam mixture mechanism (Bao et al., PVLDB 15(11), 2022, Algorithm 5), which
 * enforces the two conditions its privacy theorem rests on (Theorem 5, Corollary 1, Eq. (4)):
 *
 * <pre>
 *   sum_j phi(|g_j|) <= c   and   ceil(|g_j|) <= Delta_inf for every j,
 * </pre>
 *
 * where {@code phi(t) = t^2 + p - p^2}, k = floor(t), p = t - k. Equivalently {@code phi(t) = k^2 +
 * (2k + 1) p}: phi interpolates t^2 linearly between consecutive integers, so it is increasing and
 * continuous, phi(t) >= t^2 (the excess p - p^2 is the variance of the stochastic rounding), and it
 * has the inverse {@code phiInv(v) = k + (v - k^2) / (2k + 1)} with k = floor(sqrt(v)).
 *
 * <p>Algorithm 5 as printed has three typos, corrected here (SPEC section 6): line 3 reads "+ p^2"
 * for "- p^2"; line 7 reads "y / (2g' + 1)" for "(|v| - g'^2) / (2g' + 1)"; line 10 divides by
 * |g'| where the sign of g is meant (g / |g|, with 0 / 0 = 1, i.e. zero stays zero).
 *
 * <p><b>Steps.</b> v_j = phi(|g_j|); if sum_j v_j > c, every v_j is scaled by (just under) c /
 * ||v||_1 and mapped back with phiInv; then |g_j| is clipped to Delta_inf; signs are kept. The
 * result satisfies both conditions <em>exactly</em> for the doubles returned (not only up to
 * rounding): {@link #phiSumUpperBound} bounds sum_j phi(|g_j|) of the returned values from above,
 * with every floating-point rounding accounted for, and the clip shrinks until that bound is at
 * most c. Because the privacy guarantee is a statement about the exact values that are then
 * stochastically rounded, "close to c" is not good enough: the scale factor is c / ||v||_1 times
 * (1 - eta), with eta = 8 (D + 16) 2^-53 (about 6e-11 for D = 65,536, far below anything that
 * matters for accuracy), which leaves room for the rounding of ||v||_1, of the products and of
 * phiInv; should the rigorous bound still exceed c, eta is doubled and the clip redone (in the
 * tests this never happens twice). If the sum is already at most c by the rigorous bound, g is left
 * as it is (apart from the Delta_inf clip), as in Algorithm 5 with min(1, c / ||v||_1) = 1.
 *
 * <p>Inputs so large that ||v||_1 overflows (|g_j| around 1e150 and above, which no L2-clipped
 * and scaled gradient reaches) are halved, exactly, until it does not; this step is not in
 * Algorithm 5 and only shrinks the vector further, so the guarantee is unaffected.
 */
public final class MixtureClip {
  /** Largest Delta_inf: keeps 2k + 1 and the rounded values exact in a double and a long. */
  public static final long MAX_DELTA_INF = 1L << 50;
  /** Smallest c: far above the underflow terms that {@link #phiSumUpperBound} ignores. */
  public static final double MIN_C = 0x1p-900;
  /** Largest c: keeps phiInv of a scaled v, at most sqrt(c) + 1, below 2^50. */
  public static final double MAX_C = 0x1p90;

  private static final double U = 0x1p-53;
  private static final int MAX_RETRIES = 60;

  private MixtureClip() {}

  /** phi(t) = t^2 + p - p^2 = k^2 + (2k + 1) p for t >= 0 (k = floor(t), p = t - k), in double. */
  public static double phi(double t) {
    if (!(t >= 0 && t < Double.POSITIVE_INFINITY)) { // messages built only on failure: a hot path
      throw new IllegalArgumentException("t must be >= 0 and finite. Provided value: " + t);
    }
    double k = Math.floor(t);
    return k * k + (2 * k + 1) * (t - k);
  }

  /**
   * phiInv(v) = k + (v - k^2) / (2k + 1), k = floor(sqrt(v)), for v >= 0, in double: the t >= 0
   * with phi(t) = v. Math.sqrt is correctly rounded, so it can land on k + 1 when v is just below
   * (k + 1)^2; k is corrected by comparing k^2 and (k + 1)^2 with v (exact below 2^26).
   */
  public static double phiInv(double v) {
    if (!(v >= 0 && v < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("v must be >= 0 and finite. Provided value: " + v);
    }
    if (v < 1) {
      return v; // k = 0: the general formula gives (v - 0) / 1 = v exactly; most rotated coordinates land here
    }
    double k = Math.floor(Math.sqrt(v));
    if (k * k > v) {
      k -= 1;
    } else if ((k + 1) * (k + 1) <= v) {
      k += 1;
    }
    return k + (v - k * k) / (2 * k + 1);
  }

  /**
   * The clipped copy of {@code g}: sum_j phi(|g_j|) <= c and |g_j| <= Delta_inf (so ceil|g_j| <=
   * Delta_inf) hold exactly for the returned doubles, signs are kept, and {@code g} is unchanged.
   *
   * @param g the scaled, rotated gradient; every coordinate finite
   * @param c the bound on sum_j phi(|g_j|), in [2^-900, 2^90] (c = gamma^2 Delta_2^2 for unit
   *     L2 sensitivity Delta_2 before scaling)
   * @param deltaInf the bound Delta_inf on ceil|g_j|, an integer in [1, 2^50]
   */
  public static double[] clip(double[] g, double c, long deltaInf) {
    double[] out = new double[g.length];
    clipInto(g, c, deltaInf, out);
    return out;
  }

  /**
   * {@link #clip} into {@code out} (g's length, overwritten; not g itself): for callers that clip
   * many vectors and keep the buffer. The same values, bit for bit.
   *
   * <p>Neither pass stores the phi values: the second computes each one again from g, by the same
   * operations as the first, so the two passes read g and write only the result.
   */
  public static void clipInto(double[] g, double c, long deltaInf, double[] out) {
    if (!(c >= MIN_C && c <= MAX_C)) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("c must be in [2^-900, 2^90]. Provided value: " + c);
    }
    if (!(deltaInf >= 1 && deltaInf <= MAX_DELTA_INF)) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("Delta_inf must be in [1, 2^50]. Provided value: " + deltaInf);
    }
    int n = g.length;
    if (out.length != n || out == g) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("the output must be a new array of g's length " + n);
    }
    // v_j = phi(|g_j| scale), their sum (four running sums, as phiSumUpperBound adds) and whether
    // every |g_j| scale is at most 2^50, in one pass; scale = 1 unless the sum overflows.
    double scale = 1;
    boolean inRange;
    double norm;
    while (true) {
      double s0 = 0;
      double s1 = 0;
      double s2 = 0;
      double s3 = 0;
      inRange = true;
      int j = 0;
      for (; j + 3 < n; j += 4) {
        double t0 = Math.abs(g[j]) * scale; // scale is a power of two: exact outside the subnormals
        double t1 = Math.abs(g[j + 1]) * scale;
        double t2 = Math.abs(g[j + 2]) * scale;
        double t3 = Math.abs(g[j + 3]) * scale;
        inRange &= t0 <= MAX_DELTA_INF & t1 <= MAX_DELTA_INF & t2 <= MAX_DELTA_INF & t3 <= MAX_DELTA_INF; // NaN: false
        if (t0 < 1 & t1 < 1 & t2 < 1 & t3 < 1) { // most rotated coordinates: term(t) = t, bit for bit
          s0 += t0;
          s1 += t1;
          s2 += t2;
          s3 += t3;
        } else {
          s0 += term(t0);
          s1 += term(t1);
          s2 += term(t2);
          s3 += term(t3);
        }
      }
      for (; j < n; j++) {
        double t = Math.abs(g[j]) * scale;
        inRange &= t <= MAX_DELTA_INF;
        s0 += term(t);
      }
      if (!inRange && scale == 1) { // large values, or a coordinate that is not finite (checked once)
        for (int k = 0; k < n; k++) {
          if (!Double.isFinite(g[k])) {
            throw new IllegalArgumentException(
                "gradient coordinate " + k + " must be finite. Provided value: " + g[k]);
          }
        }
      }
      norm = (s0 + s1) + (s2 + s3);
      if (Double.isFinite(norm)) {
        break;
      }
      scale *= 0.5; // never grows a value
    }
    double cap = deltaInf;
    // The sum is one of the same terms as phiSumUpperBound's, added as there: the proof of that
    // bound holds for it, so it bounds sum_j phi(|g_j| scale) without another pass.
    if (inRange && upperBound(norm, n) <= c) {
      for (int j = 0; j < n; j++) {
        out[j] = Math.copySign(Math.min(Math.abs(g[j]) * scale, cap), g[j]);
      }
      return;
    }
    double eta = 8 * (n + 16.0) * U;
    for (int attempt = 0; attempt < MAX_RETRIES && eta < 1; attempt++, eta *= 2) {
      double s = Math.min(1 - eta, c / norm * (1 - eta));
      // out_j with g_j's sign, and the bound of sum_j phi(|out_j|), in one pass (|out_j| <= cap <=
      // 2^50: every term is one phiSumUpperBound would add, in the same four sums)
      double s0 = 0;
      double s1 = 0;
      double s2 = 0;
      double s3 = 0;
      int j = 0;
      for (; j + 3 < n; j += 4) {
        // v_j again, as the first pass computed it
        double v0 = Math.abs(g[j]) * scale;
        double v1 = Math.abs(g[j + 1]) * scale;
        double v2 = Math.abs(g[j + 2]) * scale;
        double v3 = Math.abs(g[j + 3]) * scale;
        if (!(v0 < 1 & v1 < 1 & v2 < 1 & v3 < 1)) {
          v0 = term(v0);
          v1 = term(v1);
          v2 = term(v2);
          v3 = term(v3);
        }
        double o0 = s * v0;
        double o1 = s * v1;
        double o2 = s * v2;
        double o3 = s * v3;
        // Below 1 (most coordinates), phiInv(o) = o, min(o, cap) = o (cap >= 1) and term(o) = o, bit
        // for bit: only the others take the general path.
        if (o0 < 1 & o1 < 1 & o2 < 1 & o3 < 1) {
          s0 += o0;
          s1 += o1;
          s2 += o2;
          s3 += o3;
        } else {
          o0 = Math.min(phiInv(o0), cap);
          o1 = Math.min(phiInv(o1), cap);
          o2 = Math.min(phiInv(o2), cap);
          o3 = Math.min(phiInv(o3), cap);
          s0 += term(o0);
          s1 += term(o1);
          s2 += term(o2);
          s3 += term(o3);
        }
        out[j] = Math.copySign(o0, g[j]);
        out[j + 1] = Math.copySign(o1, g[j + 1]);
        out[j + 2] = Math.copySign(o2, g[j + 2]);
        out[j + 3] = Math.copySign(o3, g[j + 3]);
      }
      for (; j < n; j++) {
        double o = Math.min(phiInv(s * term(Math.abs(g[j]) * scale)), cap);
        out[j] = Math.copySign(o, g[j]);
        s0 += term(o);
      }
      if (upperBound((s0 + s1) + (s2 + s3), n) <= c) {
        return;
      }
    }
    // Unreachable in practice (the first attempt already leaves a margin of about 5 D 2^-53 c);
    // the zero vector satisfies both conditions whatever happened.
    java.util.Arrays.fill(out, 0);
  }

  /** k^2 + (2k + 1)(t - k), k = floor(t): phi(t) for 0 <= t <= 2^50, as every sum here computes it. */
  private static double term(double t) {
    double k = Math.floor(t);
    return k * k + (2 * k + 1) * (t - k);
  }

  /**
   * An upper bound of sum_j phi(|x_j|) for the exact real values of the doubles x_j, or +infinity
   * when some |x_j| exceeds 2^50 or is not finite.
   *
   * <p>Why it bounds (u = 2^-53, n the length, t_j = |x_j| <= 2^50): k = floor(t) and 2k + 1 are
   * exact, and so is p = t - k (for t >= 1, k lies in [t/2, t], so Sterbenz's lemma applies; for t
   * < 1, p = t). Each term T_j = fl(fl(k^2) + fl((2k + 1) p)) adds two nonnegative values computed
   * with relative error at most u each and rounds once more, so T_j >= phi(t_j) (1 - u)^2 - 2^-1075
   * (the last for a product that underflows). The terms are added in four running sums (term j to
   * sum j mod 4, the tail to the first), which are then added as (s0 + s1) + (s2 + s3). Every
   * addition of nonnegative values loses at most a factor (1 - u) (additions in the subnormal range
   * are exact), and each term passes through at most n + 1 roundings on its way to the total (its
   * own two, at most floor(n/4) + (n mod 4) - 1 in its running sum and 2 in adding the four, which
   * is at most n + 1 for n >= 4; when n < 4 the other sums are zero and adding them is exact), as
   * in one running sum, so the computed sum S satisfies sum_j phi(t_j) <= (S + n 2^-1075) / (1 -
   * u)^(n + 1) <= S (1 + 2 (n + 1) u) + n 2^-1074, as (1 - u)^(n + 1) >= 1 - (n + 1) u >= 1/2.
   * With m = (n + 2)
   * 2^-51 (so 1 + m is exact), a = fl(S (1 + m)) >= S (1 + m) (1 - u) - 2^-1075 >= S (1 + 2 (n +
   * 1) u) - 2^-1075. The value returned, nextUp(fl(a + 2^-1000)), exceeds a + 2^-1000 (rounding to
   * nearest moves by at most half the spacing, nextUp by a whole one), and 2^-1000 > n 2^-1074 +
   * 2^-1075. Hence the returned value is at least the exact sum, whatever the rounding.
   */
  public static double phiSumUpperBound(double[] x) {
    int n = x.length;
    Checks.require(n < (1 << 30) + 1, "length must be at most 2^30. Provided value: " + n);
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    boolean inRange = true;
    int j = 0;
    for (; j + 3 < n; j += 4) {
      double t0 = Math.abs(x[j]);
      double t1 = Math.abs(x[j + 1]);
      double t2 = Math.abs(x[j + 2]);
      double t3 = Math.abs(x[j + 3]);
      inRange &= t0 <= MAX_DELTA_INF & t1 <= MAX_DELTA_INF & t2 <= MAX_DELTA_INF & t3 <= MAX_DELTA_INF; // NaN: false
      s0 += term(t0);
      s1 += term(t1);
      s2 += term(t2);
      s3 += term(t3);
    }
    for (; j < n; j++) {
      double t = Math.abs(x[j]);
      inRange &= t <= MAX_DELTA_INF;
      s0 += term(t);
    }
    return inRange ? upperBound((s0 + s1) + (s2 + s3), n) : Double.POSITIVE_INFINITY;
  }

  /** The bound of {@link #phiSumUpperBound} from the computed sum S of n terms (see the proof there). */
  private static double upperBound(double sum, int n) {
    double m = (n + 2) * 0x1p-51;
    return Math.nextUp(sum * (1 + m) + 0x1p-1000);
  }
}
