package dev.helmet.secagg.summation;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.ring.FixedPointEncoding;

/**
 * Public parameters of one summation. Inputs are vectors of elements of Z_{2^b}, b = {@code
 * encoding.ringBits()} (2 to 64), and travel bit-packed: {@code ceil(length b / 8)} bytes per vector.
 *
 * @param parties number of parties invited
 * @param length vector length
 * @param encoding the ring and fixed-point precision
 * @param threshold the least number of contributors for which a sum is released
 */
public record SummationSpec(int parties, int length, FixedPointEncoding encoding, int threshold) {
  public SummationSpec {
    Checks.positive("parties", parties);
    Checks.positive("vector length", length);
    Checks.notNull("encoding", encoding);
    Checks.inRange("threshold", threshold, 1, parties);
  }

  /**
   * A summation of raw ring elements of Z_{2^ringBits} (2 <= ringBits <= 64) with no fixed-point
   * meaning: each party's input is a vector of integers it has already reduced mod 2^b (e.g. the
   * Skellam mixture mechanism's encoder, b in {6, 8, 10}), and the sum is their sum mod 2^b.
   */
  public static SummationSpec ofRingElements(int parties, int length, int ringBits, int threshold) {
    return new SummationSpec(parties, length, FixedPointEncoding.integers(ringBits), threshold);
  }

  /** Bytes of one input vector on the wire, bit-packed. */
  public long packedBytes() {
    return encoding.packedBytes(length);
  }
}
