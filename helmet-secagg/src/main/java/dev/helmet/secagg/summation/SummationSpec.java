package dev.helmet.secagg.summation;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.ring.FixedPointEncoding;

/**
 * Public parameters of one summation.
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
}
