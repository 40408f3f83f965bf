package dev.helmet.privacy.noise;

import static dev.helmet.privacy.noise.ExactDecisions.NO;
import static dev.helmet.privacy.noise.ExactDecisions.TWO53;
import static dev.helmet.privacy.noise.ExactDecisions.UNSURE;
import static dev.helmet.privacy.noise.ExactDecisions.YES;
import static dev.helmet.privacy.noise.ExactDecisions.below;
import static dev.helmet.privacy.noise.ExactDecisions.belowExpNeg;

import java.math.BigInteger;

/**
 * Poisson(lambda), 256 <= lambda < 2^40, by rejection. With m = floor(lambda) (a mode) and h(k) =
 * p(k) / p(m), the envelope is 1 on [L, R] = [m - w, m + w], w = round(1.1 sqrt(lambda)), and
 * geometric beyond: h(R) rhoR^(k - R) for k > R with rhoR = lambda / (R + 1), h(L) rhoL^(L - k) for
 * k < L with rhoL = L / lambda. It lies above h because the Poisson pmf is log-concave (ln p(k +
 * 1) - ln p(k) = ln(lambda / (k + 1)) decreases in k), so ln h lies below its chords' extensions:
 * for k >= R, ln h(k) - ln h(R) = sum_{j=R}^{k-1} ln(lambda / (j + 1)) <= (k - R) ln rhoR, and
 * likewise on the left. A proposal k is accepted with probability h(k) / envelope(k), which is a
 * ratio of integers: prod_{j=m+1}^{k} lambda / j (k > m) or prod_{j=k+1}^{m} j / lambda (k < m) on
 * the top, prod_{j=R+1}^{k} (R + 1) / j on the right, prod_{j=k+1}^{L} j / L on the left (0 for
 * k < 0), every factor at most 1 as m <= lambda < m + 1. The acceptance rate is about 0.78.
 *
 * <p>Pre-checks use ln of these products from Stirling's series (error analysis at {@link
 * #lnRatio(long, long, long, double, double[])}); the exact path bounds the products (and the
 * piece thresholds, and rho^g for the tails) by interval arithmetic at any precision, so its
 * numbers stay small however far out k is.
 */
final class PoissonEnvelope extends PoissonSampler {
  /** Below this, ln(b!/a!) is summed term by term instead of by Stirling's series. */
  private static final long STIRLING_MIN = 40;
  static final int TOP = 0;
  static final int RIGHT = 1;
  static final int LEFT = 2;

  private final long num;
  private final long den;
  final long m;
  final long w;
  final long lo;
  final long hi;
  /** lambda - m, in double: absolute error at most 3 2^-53. */
  private final double frac;
  /** ln rhoR and ln rhoL in double, relative error below 16 2^-53. */
  private final double lnRhoR;
  private final double lnRhoL;
  /** The piece thresholds (A_top / A and (A_top + A_right) / A) times 2^53, and their error. */
  private final double cTopX;
  private final double cRightX;
  private final double relSel;
  private BigInteger[][] selCache;
  private int selP = -1;
  /** The error bound of the last lnRatio. */
  private final double[] err = new double[1];

  PoissonEnvelope(RandomBits bits, boolean exactOnly, long num, long den) {
    super(bits, exactOnly);
    this.num = num;
    this.den = den;
    this.m = num / den;
    this.frac = (double) (num - m * den) / (double) den;
    double lambda = (double) num / (double) den;
    // w only tunes the acceptance rate: any w >= 1 with L >= 1 makes an envelope (here w >= 18, L
    // >= 238); Math.sqrt is correctly rounded, so w is the same on every JVM
    this.w = Math.max(1, Math.round(1.1 * Math.sqrt(lambda)));
    this.lo = m - w;
    this.hi = m + w;
    // rhoR = 1 - (w + 1 - frac) / (R + 1); rhoL = 1 - (w + frac) / lambda. The deltas have relative
    // error at most 2.2 and 5.2 2^-53 (frac's 3 2^-53 absolute against w >= 18, lambda's 3 2^-53,
    // one or two roundings); both are below 1/6 (about 1.1 / sqrt(lambda)), where log1p's condition
    // number is below 1.1; Math.log1p adds one ulp (2 2^-53): relative error below 1.1 * 8 + 2 < 16
    // (2^-53).
    this.lnRhoR = Math.log1p(-((w + 1 - frac) / (hi + 1)));
    this.lnRhoL = Math.log1p(-((w + frac) / lambda));
    double lnhR = -lnRatio(m, hi, m, frac, err);
    double errR = err[0];
    double lnhL = lnRatio(lo, m, m, frac, err);
    double errL = err[0];
    // A_right = h(R) lambda / (R + 1 - lambda), A_left = h(L) L / (lambda - L). Relative errors, in
    // 2^-53 beyond errR and errL (exp(errR) - 1 < 1.000001 errR): A_right 9 (Math.exp's ulp 2,
    // lambda 3, R + 1 - lambda 2, a quotient and a product), A_left 6; the positive sum A 2 more than
    // the larger; c1 = A_top / A then max(errR, errL) + 12, c2 = (A_top + A_right) / A errR +
    // max(errR, errL) + 22. relSel = 2.01 max(errR, errL) + 2^-46 covers both (2^-46 = 128 2^-53).
    double aRight = Math.exp(lnhR) * (lambda / (w + 1 - frac));
    double aLeft = Math.exp(lnhL) * (lo / (w + frac));
    double aTop = 2 * w + 1;
    double total = aTop + aRight + aLeft;
    this.cTopX = aTop / total * TWO53;
    this.cRightX = (aTop + aRight) / total * TWO53;
    double rel = 2.01 * Math.max(errR, errL) + 0x1p-46;
    this.relSel = rel <= 0x1p-20 ? rel : Double.NaN; // NaN: below() is always UNSURE
  }

  @Override
  long sample() {
    while (true) {
      int piece = choosePiece(uniform53());
      long k;
      if (piece == TOP) {
        k = lo + uniformInt(2 * w + 1);
      } else if (piece == RIGHT) {
        k = hi + 1 + geometric(RIGHT, uniform53());
      } else {
        k = lo - 1 - geometric(LEFT, uniform53());
        if (k < 0) {
          continue;
        }
      }
      if (accept(piece, k, uniform53())) {
        return k;
      }
    }
  }

  /**
   * The piece of the envelope a proposal comes from, TOP, RIGHT or LEFT with probabilities A_top /
   * A, A_right / A and A_left / A, for the uniform U whose first 53 bits are v: U < c1 = A_top / A
   * gives TOP, else U < c2 = (A_top + A_right) / A gives RIGHT. Pre-check: cTopX and cRightX within
   * relSel (see the constructor); exact: {@link #selectionBounds}.
   */
  int choosePiece(long v) {
    if (!exactOnly) {
      int r = below(v, cTopX, relSel);
      if (r == YES) {
        return TOP;
      }
      if (r == NO) {
        r = below(v, cRightX, relSel);
        if (r != UNSURE) {
          return r == YES ? RIGHT : LEFT;
        }
      }
    }
    LazyUniform u = new LazyUniform(bits, v, 53);
    if (u.below(q -> selectionBounds(q)[0])) {
      return TOP;
    }
    return u.below(q -> selectionBounds(q)[1]) ? RIGHT : LEFT;
  }

  /**
   * Bounds of the piece thresholds c1 = A_top / A and c2 = (A_top + A_right) / A at precision p,
   * {{c1 lo, c1 hi}, {c2 lo, c2 hi}}, where A_top = 2w + 1, A_right = h(R) lambda / (R + 1 -
   * lambda), A_left = h(L) L / (lambda - L), A their sum, with h(R) = prod_{j=m+1}^{R} num / (den
   * j) and h(L) = prod_{j=L+1}^{m} den j / num bounded by interval arithmetic. c1 falls as A_right
   * or A_left grows; c2 = 1 / (1 + A_left / (A_top + A_right)) rises with A_right and falls with
   * A_left, so the bounds of the A's give bounds of both.
   */
  BigInteger[][] selectionBounds(int p) {
    if (p == selP) {
      return selCache;
    }
    int q = p + 2 * (64 - Long.numberOfLeadingZeros(w)) + 8;
    BigInteger bn = BigInteger.valueOf(num);
    BigInteger bd = BigInteger.valueOf(den);
    BigInteger[] hR = LazyUniform.factorProductBounds(m + 1, hi, 0, num, den, 0, q);
    BigInteger[] hL = LazyUniform.factorProductBounds(lo + 1, m, den, 0, 0, num, q);
    BigInteger rNum = bn;
    BigInteger rDen = BigInteger.valueOf(hi + 1).multiply(bd).subtract(bn);
    BigInteger lNum = BigInteger.valueOf(lo).multiply(bd);
    BigInteger lDen = bn.subtract(lNum);
    BigInteger rLo = hR[0].multiply(rNum).divide(rDen);
    BigInteger rHi = LazyUniform.ceilDiv(hR[1].multiply(rNum), rDen);
    BigInteger lLo = hL[0].multiply(lNum).divide(lDen);
    BigInteger lHi = LazyUniform.ceilDiv(hL[1].multiply(lNum), lDen);
    BigInteger top = BigInteger.valueOf(2 * w + 1).shiftLeft(q);
    BigInteger topP = top.shiftLeft(p);
    BigInteger c1Lo = topP.divide(top.add(rHi).add(lHi));
    BigInteger c1Hi = LazyUniform.ceilDiv(topP, top.add(rLo).add(lLo));
    BigInteger c2Lo = top.add(rLo).shiftLeft(p).divide(top.add(rLo).add(lHi));
    BigInteger c2Hi = LazyUniform.ceilDiv(top.add(rHi).shiftLeft(p), top.add(rHi).add(lLo));
    selCache = new BigInteger[][] {{c1Lo, c1Hi}, {c2Lo, c2Hi}};
    selP = p;
    return selCache;
  }

  /**
   * G with P[G >= g] = rho^g (rhoR for the right tail, rhoL for the left), for the uniform U whose
   * first 53 bits are v, by inversion: G = floor(ln U / ln rho). Pre-check for v >= 2^30 (U >=
   * 2^-23), as in {@link DiscreteGaussian#geometricExp}: ln U lies in [ln(v 2^-53), ln(v 2^-53) +
   * 1/v); Math.log is within one ulp (below 2^-48, as |ln| < 16), ln rho within 16 2^-53 relative
   * and the quotient rounds by 2^-53, so the true quotient is within (1/v + 2^-48) / |ln rho| + 17
   * 2^-53 gh of gh (gh >= 0). The band (1/v + 2^-44) / |ln rho| + gh 2^-44 covers that and the
   * roundings of 1/v, of the band and of gh +- band (half an ulp of gh). The exact path compares U
   * with bounds of rho^g.
   */
  long geometric(int side, long v) {
    double lnRho = side == RIGHT ? lnRhoR : lnRhoL;
    double gh = v == 0 ? 0 : Math.log(v * 0x1p-53) / lnRho;
    if (!exactOnly && v >= (1L << 30)) {
      double band = (1.0 / v + 0x1p-44) / -lnRho + gh * 0x1p-44;
      double k = Math.floor(gh);
      if (gh - band > k && gh + band < k + 1) {
        return (long) k;
      }
    }
    LazyUniform u = new LazyUniform(bits, v, 53);
    long k = (long) Math.floor(v >= (1L << 30) ? gh : u.lnEstimate() / lnRho);
    while (k > 0 && !u.below(rhoPower(side, k))) {
      k--;
    }
    while (u.below(rhoPower(side, k + 1))) {
      k++;
    }
    return k;
  }

  /** rho^g exactly: rhoR = lambda / (R + 1) = num / ((R + 1) den), rhoL = L / lambda = L den / num. */
  LazyUniform.Real rhoPower(int side, long g) {
    if (side == RIGHT) {
      return LazyUniform.ratioPower(BigInteger.valueOf(num),
          BigInteger.valueOf(hi + 1).multiply(BigInteger.valueOf(den)), g);
    }
    return LazyUniform.ratioPower(BigInteger.valueOf(lo).multiply(BigInteger.valueOf(den)),
        BigInteger.valueOf(num), g);
  }

  /**
   * Whether proposal k of the piece is accepted, for the uniform U whose first 53 bits are v: U <
   * c = h(k) / envelope(k) <= 1. Pre-check: ln c = +- lnRatio(...) (sum of ln(lambda / j), ln(j /
   * lambda), ln((R + 1) / j) or ln(j / L) over the factors of c) within its error bound err, then
   * {@link ExactDecisions#belowExpNeg} with e = -ln c >= 0, or c < e^-38 if ln c + err < -38; err
   * above 2^-21 (far tails, or a left-tail k below 40 with L large) leaves it to the exact product.
   */
  boolean accept(int piece, long k, long v) {
    if (!exactOnly) {
      double lnc;
      if (piece == TOP) {
        lnc = k >= m ? -lnRatio(m, k, m, frac, err) : lnRatio(k, m, m, frac, err);
      } else if (piece == RIGHT) {
        lnc = -lnRatio(hi, k, hi + 1, 0, err);
      } else {
        lnc = lnRatio(k, lo, lo, 0, err);
      }
      int r = UNSURE;
      if (lnc + err[0] < -38) {
        r = below(v, 0, 0x1p-50); // c < e^-38 < 2^-54
      } else if (err[0] <= 0x1p-21) {
        r = belowExpNeg(v, TWO53, -lnc, err[0]);
      }
      if (r != UNSURE) {
        return r == YES;
      }
    }
    return new LazyUniform(bits, v, 53).below(exactAcceptance(piece, k));
  }

  /** h(k) / envelope(k) as a product of factors at most 1 (see the class comment). */
  LazyUniform.Real exactAcceptance(int piece, long k) {
    if (piece == TOP) {
      return k >= m ? LazyUniform.factorProduct(m + 1, k, 0, num, den, 0) // prod lambda / j
          : LazyUniform.factorProduct(k + 1, m, den, 0, 0, num); // prod j / lambda
    }
    if (piece == RIGHT) {
      return LazyUniform.factorProduct(hi + 1, k, 0, hi + 1, 1, 0); // prod (R + 1) / j
    }
    return LazyUniform.factorProduct(k + 1, lo, 1, 0, 0, lo); // prod j / L
  }

  /**
   * sum_{j=a+1}^{b} ln(j / x) = ln(b! / a!) - (b - a) ln x for 0 <= a <= b < 2^52 and x = xi + xf
   * (xi >= 1 an integer below 2^41, 0 <= xf < 1 with absolute error at most 3 2^-53); sets a bound
   * on the error of the returned double in {@code err[0]}. All counts below are in units of 2^-53.
   *
   * <p>Terms j <= 40 are summed directly: x in double is within 4 relative (xf's error and one
   * rounding), j / x within 5, so each Math.log is within 5.01 absolute + one ulp (2 |term|), and
   * each addition rounds by 1 of the partial sum; (n + 1) (8 + 2 sum |term|) covers the n terms.
   * Above, with r = b - a and Stirling's series ln n! = (n + 1/2) ln n - n + ln(2 pi)/2 + 1/(12n) -
   * 1/(360 n^3) + 1/(1260 n^5) - ... (its remainder has the sign of, and is smaller than, the first
   * term left out, 1/(1680 n^7), for real n > 0: DLMF 5.11.ii; the two remainders cost at most
   * 1/(840 a^7) < 1/(800 a^7)), ln(b! / a!) - r ln x is computed without cancellation as d = t1 +
   * t2 - r + corr with t1 = (b + 1/2) log1p(r / a), t2 = r log1p((a - x) / x) and corr the 1/n
   * terms. t1 is within 5 |t1| (1/a and r (1/a) round, log1p's condition number is at most 1 for a
   * positive argument, its ulp 2, the product 1). log1p((a - x) / x) is within 9 max(1, x/a)
   * absolute plus 2 ulps: its argument's error, 3 + 6 |a - x| / x (xf's error, the subtraction, x's
   * 4 and the quotient's 1 relative), is magnified by x / a, the derivative of log1p there (the
   * argument's error stays far below a / x, as a >= 40 and x < 2^41); the product with r adds 1
   * |t2|. The four additions (t1 + t2, - r, + corr, sum + d) round by 1 of the sum of the
   * magnitudes each, corr (below 1/480) errs by far less than 1. In all: 5 |t1| + 3 |t2| + 9 r
   * max(1, x/a) + 4 (|t1| + |t2| + r + 1) + |sum|, within the 16 (|t1| + |t2| + r + |sum| + 1) + 10
   * r max(1, x/a) used.
   */
  static double lnRatio(long a, long b, long xi, double xf, double[] err) {
    double x = xi + xf;
    double sum = 0;
    double e = 0;
    if (a < STIRLING_MIN) {
      long end = Math.min(b, STIRLING_MIN);
      double abs = 0;
      for (long j = a + 1; j <= end; j++) {
        double t = Math.log(j / x);
        sum += t;
        abs += Math.abs(t);
      }
      e = ((end - a) + 1) * (8 + 2 * abs) * 0x1p-53;
      a = end;
    }
    if (a == b) {
      err[0] = e;
      return sum;
    }
    long r = b - a;
    double ia = 1.0 / a;
    double ib = 1.0 / b;
    double t1 = (b + 0.5) * Math.log1p(r * ia);
    double t2 = r * Math.log1p(((double) (a - xi) - xf) / x);
    double ia2 = ia * ia;
    double ib2 = ib * ib;
    double corr = ib * (1.0 / 12 - ib2 * (1.0 / 360 - ib2 * (1.0 / 1260)))
        - ia * (1.0 / 12 - ia2 * (1.0 / 360 - ia2 * (1.0 / 1260)));
    double d = t1 + t2 - r + corr;
    e += (16 * (Math.abs(t1) + Math.abs(t2) + r + Math.abs(sum) + 1) + 10 * r * Math.max(1, x * ia)) * 0x1p-53
        + ia2 * ia2 * ia2 * ia * (1.0 / 800);
    err[0] = e;
    return sum + d;
  }
}
