package dev.helmet.secagg.crypto;

import java.math.BigInteger;
import org.bouncycastle.math.ec.rfc7748.X25519Field;

/**
 * Variable-time arithmetic on edwards25519 (-x^2 + y^2 = 1 + d x^2 y^2 over GF(2^255 - 19)) for
 * verifying public signatures: point decoding, and a multi-scalar multiplication sum_j [k_j] P_j
 * (Straus' interleaving with width-w NAF recodings, one chain of doublings shared by all points).
 * Nothing here may touch a secret: run times depend on the scalars and points. (The batch
 * verifier's random coefficients may leak this way after use, which costs it nothing.)
 *
 * <p>Field elements are BouncyCastle's {@link X25519Field} (ten signed 25/26-bit limbs). Its
 * multiplication accepts limbs up to about 2^27 in magnitude: the output of a multiplication or
 * {@link X25519Field#carry}, or the sum, difference or negation of at most two such values.
 * Wherever more terms accumulate, the value is carried before it is multiplied.
 *
 * <p>Formulas: extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, T = XY/Z, with the unified
 * addition and the doubling of RFC 8032, section 5.1.4 (Hisil, Wong, Carter and Dawson 2008).
 */
final class Edwards25519 {
  static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
  /** The prime order of the base point, 2^252 + 27742317777372353535851937790883648493. */
  static final BigInteger L = BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));

  private static final int[] D = constant(new BigInteger(
      "37095705934669439343138083508754565189542113879843219016388785533085940283555"));
  private static final int[] D2 = constant(new BigInteger(
      "16295367250680780974490674513165176452449235426866156013048779062215315747161"));
  private static final int[] BASE_X = constant(new BigInteger(
      "15112221349535400772501151409588531511454012693041857206046113283949847762202"));
  private static final int[] BASE_Y = constant(new BigInteger(
      "46316835694926478169428394003475163141307993866256225615783033603165251855960"));

  private Edwards25519() {}

  private static int[] constant(BigInteger v) {
    byte[] le = new byte[32];
    byte[] be = v.toByteArray();
    for (int i = 0; i < be.length && i < 32; i++) {
      le[i] = be[be.length - 1 - i];
    }
    int[] z = X25519Field.create();
    X25519Field.decode(le, 0, z);
    return z;
  }

  /** A point in extended coordinates. */
  static final class Point {
    final int[] x = X25519Field.create();
    final int[] y = X25519Field.create();
    final int[] z = X25519Field.create();
    final int[] t = X25519Field.create();

    static Point identity() {
      Point p = new Point();
      X25519Field.one(p.y);
      X25519Field.one(p.z);
      return p;
    }

    /** The point (-x, y). */
    Point negate() {
      Point n = new Point();
      X25519Field.negate(x, n.x);
      X25519Field.copy(y, 0, n.y, 0);
      X25519Field.copy(z, 0, n.z, 0);
      X25519Field.negate(t, n.t);
      return n;
    }

    void set(Point q) {
      X25519Field.copy(q.x, 0, x, 0);
      X25519Field.copy(q.y, 0, y, 0);
      X25519Field.copy(q.z, 0, z, 0);
      X25519Field.copy(q.t, 0, t, 0);
    }
  }

  /** A point prepared for addition: (Y + X, Y - X, 2Z, 2dT). */
  static final class Cached {
    final int[] yPlusX = X25519Field.create();
    final int[] yMinusX = X25519Field.create();
    final int[] z2 = X25519Field.create();
    final int[] t2d = X25519Field.create();

    Cached(Point p) {
      X25519Field.apm(p.y, p.x, yPlusX, yMinusX);
      X25519Field.add(p.z, p.z, z2);
      X25519Field.carry(z2);
      X25519Field.mul(p.t, D2, t2d);
    }

    private Cached() {}

    /** The cached form of the negated point (-x, y). */
    Cached negate() {
      Cached n = new Cached();
      X25519Field.copy(yMinusX, 0, n.yPlusX, 0);
      X25519Field.copy(yPlusX, 0, n.yMinusX, 0);
      X25519Field.copy(z2, 0, n.z2, 0);
      X25519Field.negate(t2d, n.t2d);
      return n;
    }
  }

  /** Scratch registers for {@link #add} and {@link #dbl}, so the loops allocate nothing. */
  static final class Scratch {
    final int[] a = X25519Field.create();
    final int[] b = X25519Field.create();
    final int[] c = X25519Field.create();
    final int[] d = X25519Field.create();
    final int[] e = X25519Field.create();
    final int[] f = X25519Field.create();
    final int[] g = X25519Field.create();
    final int[] h = X25519Field.create();
  }

  /** r = p + q (r may be p). */
  static void add(Point p, Cached q, Point r, Scratch s) {
    X25519Field.sub(p.y, p.x, s.e);
    X25519Field.mul(s.e, q.yMinusX, s.a);
    X25519Field.add(p.y, p.x, s.e);
    X25519Field.mul(s.e, q.yPlusX, s.b);
    X25519Field.mul(p.t, q.t2d, s.c);
    X25519Field.mul(p.z, q.z2, s.d);
    X25519Field.apm(s.b, s.a, s.h, s.e);
    X25519Field.apm(s.d, s.c, s.g, s.f);
    X25519Field.mul(s.e, s.f, r.x);
    X25519Field.mul(s.g, s.h, r.y);
    X25519Field.mul(s.e, s.h, r.t);
    X25519Field.mul(s.f, s.g, r.z);
  }

  /** r = 2p (r may be p); T is computed only if {@code withT} (an addition needs it, a doubling does not). */
  static void dbl(Point p, Point r, boolean withT, Scratch s) {
    X25519Field.sqr(p.x, s.a);
    X25519Field.sqr(p.y, s.b);
    X25519Field.sqr(p.z, s.c);
    X25519Field.add(s.c, s.c, s.c);
    X25519Field.apm(s.a, s.b, s.h, s.g); // h = A + B, g = A - B
    X25519Field.add(p.x, p.y, s.e);
    X25519Field.sqr(s.e, s.d);
    X25519Field.sub(s.h, s.d, s.e); // E = H - (X + Y)^2
    X25519Field.carry(s.e);
    X25519Field.add(s.c, s.g, s.f); // F = C + G
    X25519Field.carry(s.f);
    X25519Field.mul(s.e, s.f, r.x);
    X25519Field.mul(s.g, s.h, r.y);
    if (withT) {
      X25519Field.mul(s.e, s.h, r.t);
    }
    X25519Field.mul(s.f, s.g, r.z);
  }

  /**
   * Decodes a 32-byte point encoding (RFC 8032, section 5.1.3): null unless y is canonical (below
   * p) and some x with the encoded sign solves the curve equation.
   */
  static Point decode(byte[] encoded) {
    if (encoded == null || encoded.length != 32) {
      return null;
    }
    byte[] yBytes = encoded.clone();
    int sign = (yBytes[31] & 0x80) >>> 7;
    yBytes[31] &= 0x7F;
    if (!canonical(yBytes)) {
      return null;
    }
    Point p = new Point();
    X25519Field.decode(yBytes, 0, p.y);
    int[] u = X25519Field.create();
    int[] v = X25519Field.create();
    X25519Field.sqr(p.y, u);
    X25519Field.mul(D, u, v);
    X25519Field.subOne(u); // u = y^2 - 1
    X25519Field.addOne(v); // v = d y^2 + 1
    if (!X25519Field.sqrtRatioVar(u, v, p.x)) {
      return null;
    }
    X25519Field.normalize(p.x);
    boolean zero = X25519Field.isZeroVar(p.x);
    if (zero && sign == 1) {
      return null;
    }
    if ((p.x[0] & 1) != sign) {
      X25519Field.negate(p.x, p.x);
    }
    X25519Field.one(p.z);
    X25519Field.mul(p.x, p.y, p.t);
    return p;
  }

  /** Whether [8]p is the identity: p is one of the eight points of small order. */
  static boolean smallOrder(Point p) {
    Scratch s = new Scratch();
    Point r = new Point();
    dbl(p, r, false, s);
    dbl(r, r, false, s);
    dbl(r, r, false, s);
    return isIdentity(r);
  }

  private static boolean isIdentity(Point r) {
    int[] x = r.x.clone();
    int[] y = r.y.clone();
    int[] z = r.z.clone();
    X25519Field.normalize(x);
    X25519Field.normalize(y);
    X25519Field.normalize(z);
    return X25519Field.isZeroVar(x) && X25519Field.areEqualVar(y, z);
  }

  /** Whether a little-endian 255-bit value is below p = 2^255 - 19. */
  private static boolean canonical(byte[] y) {
    if ((y[31] & 0xFF) != 0x7F) {
      return true;
    }
    for (int i = 30; i >= 1; i--) {
      if ((y[i] & 0xFF) != 0xFF) {
        return true;
      }
    }
    return (y[0] & 0xFF) < 0xED;
  }

  /** The base point B of RFC 8032. */
  static Point base() {
    Point b = new Point();
    X25519Field.copy(BASE_X, 0, b.x, 0);
    X25519Field.copy(BASE_Y, 0, b.y, 0);
    X25519Field.one(b.z);
    X25519Field.mul(b.x, b.y, b.t);
    return b;
  }

  /**
   * The odd multiples P, 3P, ..., (2^(w-1) - 1)P ready for addition, followed by their negations:
   * digit d > 0 adds entry d / 2, digit d < 0 adds entry 2^(w-2) + (-d) / 2.
   */
  static Cached[] oddMultiples(Point p, int w) {
    int m = 1 << (w - 2);
    Scratch s = new Scratch();
    Cached[] table = new Cached[2 * m];
    Point twice = new Point();
    dbl(p, twice, true, s);
    Cached step = new Cached(twice);
    Point acc = new Point();
    acc.set(p);
    for (int i = 0; i < m; i++) {
      if (i > 0) {
        add(acc, step, acc, s);
      }
      table[i] = new Cached(acc);
      table[m + i] = table[i].negate();
    }
    return table;
  }

  /**
   * The width-w NAF of a non-negative scalar below 2^256: digits[i] is 0 or odd with |digits[i]| <
   * 2^(w-1), sum digits[i] 2^i = k, and of any w consecutive digits at most one is nonzero.
   */
  static byte[] wnaf(BigInteger k, int w) {
    if (k.signum() < 0 || k.bitLength() > 256) {
      throw new IllegalArgumentException("a scalar must be in [0, 2^256)");
    }
    long[] words = new long[5]; // one spare word of zeros for windows reaching past bit 255
    byte[] be = k.toByteArray();
    for (int i = 0; i < be.length && i < 32; i++) {
      words[i >>> 3] |= (be[be.length - 1 - i] & 0xFFL) << (8 * (i & 7));
    }
    byte[] digits = new byte[257];
    int windowMask = (1 << w) - 1;
    int carry = 0;
    int i = 0;
    while (i < 257) {
      int shift = i & 63;
      long bits = words[i >>> 6] >>> shift;
      if (shift + w > 64) {
        bits |= words[(i >>> 6) + 1] << (64 - shift);
      }
      int window = (int) bits & windowMask;
      if ((window & 1) == carry) {
        i++; // bit + carry is even: a zero digit, the carry moves on
        continue;
      }
      int digit = window + carry; // odd, below 2^w
      carry = 0;
      if (digit >= 1 << (w - 1)) {
        digit -= 1 << w;
        carry = 1;
      }
      digits[i] = (byte) digit;
      i += w;
    }
    return digits;
  }

  /**
   * Whether [8] sum_j [digits_j] P_j is the identity, where tables[j] is {@link #oddMultiples} of
   * P_j for the NAF width its digits use.
   */
  static boolean sumTimesCofactorIsIdentity(Cached[][] tables, byte[][] digits) {
    Scratch s = new Scratch();
    Point r = Point.identity();
    int top = -1;
    for (byte[] d : digits) {
      for (int i = d.length - 1; i > top; i--) {
        if (d[i] != 0) {
          top = i;
          break;
        }
      }
    }
    for (int i = top; i >= 0; i--) {
      boolean adds = false;
      for (byte[] d : digits) {
        if (i < d.length && d[i] != 0) {
          adds = true;
          break;
        }
      }
      if (i < top) {
        dbl(r, r, adds, s);
      }
      if (!adds) {
        continue;
      }
      for (int j = 0; j < digits.length; j++) {
        int d = i < digits[j].length ? digits[j][i] : 0;
        if (d > 0) {
          add(r, tables[j][d >>> 1], r, s);
        } else if (d < 0) {
          add(r, tables[j][(tables[j].length >>> 1) + ((-d) >>> 1)], r, s);
        }
      }
    }
    for (int i = 0; i < 3; i++) {
      dbl(r, r, false, s);
    }
    return isIdentity(r);
  }
}
