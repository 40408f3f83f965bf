package dev.helmet.secagg.ring;

import dev.helmet.core.util.Checks;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Fixed-point encoding of reals into the ring Z_{2^b} (SPEC 2.1): {@code x -> round(x 2^f) mod
 * 2^b}, decoded as the signed representative in {@code [-2^(b-1), 2^(b-1))} divided by 2^f. Ring
 * addition is Java's wrapping long addition masked to b bits, so a sum of encodings decodes to the
 * sum of the rounded inputs as long as that sum's magnitude stays below {@code 2^(b-1)}; {@link
 * #forBound} picks the precision from public parameters so that it always does.
 *
 * <p>With no fractional bits ({@link #integers}) this is the plain ring Z_{2^b} for callers that
 * produce ring elements themselves, such as the Skellam mixture mechanism's encoder (SPEC 6: b in
 * {6, 8, 10}, integers already reduced mod 2^b): the summation adds them mod 2^b and {@link
 * #signed} unwraps the sum to {@code [-2^(b-1), 2^(b-1))}. Any ring of 2 to 64 bits is accepted
 * here; {@link #forBound}, which chooses a fixed-point precision for real inputs, asks for at least
 * {@link #MIN_FRACTIONAL_BITS} fractional bits and so for a ring of at least 10 bits.
 *
 * @param ringBits b, between 2 and 64
 * @param fractionalBits f, at least 0 and at most b - 2
 */
public record FixedPointEncoding(int ringBits, int fractionalBits) {
  /** Fewer fractional bits than this would make rounding error visible next to typical DP noise. */
  public static final int MIN_FRACTIONAL_BITS = 8;

  public FixedPointEncoding {
    Checks.inRange("ring bits", ringBits, BitPacking.MIN_BITS, BitPacking.MAX_BITS);
    Checks.inRange("fractional bits", fractionalBits, 0, ringBits - 2);
  }

  /**
   * The ring Z_{2^b} itself, no fractional bits: inputs are integers already reduced mod 2^b by
   * the caller, and sums are read with {@link #signed} (or as unsigned residues).
   */
  public static FixedPointEncoding integers(int ringBits) {
    return new FixedPointEncoding(ringBits, 0);
  }

  /** The mask of the low b bits. */
  public long mask() {
    return ringBits == 64 ? -1L : (1L << ringBits) - 1;
  }

  /**
   * Bytes of one element stored on its own, {@code ceil(b/8)}. Vectors travel bit-packed, in
   * {@link #packedBytes} bytes.
   */
  public int bytesPerValue() {
    return (ringBits + 7) / 8;
  }

  /** Bytes of a vector of {@code length} elements on the wire: {@code ceil(length b / 8)} ({@link BitPacking}). */
  public long packedBytes(int length) {
    return BitPacking.packedBytes(length, ringBits);
  }

  /**
   * The encoding with the most fractional bits for which {@code parties} inputs, each with every
   * coordinate in {@code [-bound, bound]}, cannot wrap the ring:
   * {@code parties (bound 2^f + 1/2) < 2^(b-1)} (each rounding adds at most 1/2). The inequality
   * is checked in exact arithmetic.
   *
   * @throws RingOverflowException if even {@link #MIN_FRACTIONAL_BITS} cannot hold the sum
   */
  public static FixedPointEncoding forBound(int ringBits, double bound, int parties) {
    return forBound(ringBits, bound, parties, ringBits - 2);
  }

  /**
   * The ring a run asked for ({@code ringBits} 32 or 64, at most 40 fractional bits), or with 0 the
   * smaller ring that still keeps 16 fractional bits: 32 bits when they do, else 64.
   */
  public static FixedPointEncoding choose(int ringBits, double bound, int parties) {
    if (ringBits != 0) {
      return forBound(ringBits, bound, parties, 40);
    }
    try {
      FixedPointEncoding e = forBound(32, bound, parties, 40);
      if (e.fractionalBits() >= 16) {
        return e;
      }
    } catch (IllegalArgumentException e) {
      // 32 bits cannot hold the sum: 64
    }
    return forBound(64, bound, parties, 40);
  }

  /** As {@link #forBound(int, double, int)} with at most {@code maxFractionalBits} fractional bits. */
  public static FixedPointEncoding forBound(int ringBits, double bound, int parties, int maxFractionalBits) {
    Checks.inRange("ring bits", ringBits, 8, 64);
    Checks.positive("input bound", bound);
    Checks.positive("parties", parties);
    int best = -1;
    for (int f = 0; f <= Math.min(ringBits - 2, maxFractionalBits); f++) {
      if (fits(ringBits, f, bound, parties)) {
        best = f;
      } else {
        break;
      }
    }
    if (best < MIN_FRACTIONAL_BITS) {
      throw new RingOverflowException(String.format(
          "a %d-bit ring cannot hold the sum of %d inputs bounded by %.6g with %d fractional bits of "
              + "precision; use a larger ring (64 bits) or a smaller radius/noise bound",
          ringBits, parties, bound, MIN_FRACTIONAL_BITS));
    }
    return new FixedPointEncoding(ringBits, best);
  }

  /** Whether {@code parties} inputs in {@code [-bound, bound]} sum without wrapping. */
  public boolean holds(double bound, int parties) {
    return fits(ringBits, fractionalBits, bound, parties);
  }

  /** Throws unless {@link #holds}. */
  public void requireHolds(double bound, int parties) {
    if (!holds(bound, parties)) {
      throw new RingOverflowException(String.format(
          "the sum of %d inputs bounded by %.6g can wrap a %d-bit ring with %d fractional bits",
          parties, bound, ringBits, fractionalBits));
    }
  }

  private static boolean fits(int b, int f, double bound, int parties) {
    // parties * (bound * 2^f + 1/2) < 2^(b-1), exactly.
    BigDecimal perInput = new BigDecimal(bound).multiply(new BigDecimal(BigInteger.ONE.shiftLeft(f)))
        .add(new BigDecimal("0.5"));
    BigDecimal total = perInput.multiply(BigDecimal.valueOf(parties));
    return total.compareTo(new BigDecimal(BigInteger.ONE.shiftLeft(b - 1))) < 0;
  }

  /** Encodes one value; {@code |x|} must be within the agreed bound (callers clamp first). */
  public long encode(double x) {
    if (!Double.isFinite(x)) {
      throw new IllegalArgumentException("cannot encode a non-finite value: " + x);
    }
    return Math.round(Math.scalb(x, fractionalBits)) & mask();
  }

  /** Encodes a vector. */
  public long[] encode(double[] x) {
    long[] out = new long[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = encode(x[i]);
    }
    return out;
  }

  /** The signed representative of a ring element, as a long. */
  public long signed(long v) {
    if (ringBits == 64) {
      return v;
    }
    long m = v & mask();
    return (m & (1L << (ringBits - 1))) != 0 ? m - (1L << ringBits) : m;
  }

  /** Decodes one ring element. */
  public double decode(long v) {
    return Math.scalb((double) signed(v), -fractionalBits);
  }

  /** Decodes a vector. */
  public double[] decode(long[] v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = decode(v[i]);
    }
    return out;
  }

  /** Whether {@code v} is a valid ring element (no bits above b). */
  public boolean inRing(long v) {
    return (v & ~mask()) == 0;
  }

  /** {@code acc += x} in the ring, element-wise. */
  public void addInto(long[] acc, long[] x) {
    long m = mask();
    for (int i = 0; i < acc.length; i++) {
      acc[i] = (acc[i] + x[i]) & m;
    }
  }
}
