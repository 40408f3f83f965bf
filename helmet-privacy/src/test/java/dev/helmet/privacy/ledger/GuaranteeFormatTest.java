package dev.helmet.privacy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The one rule for an eps or delta a person reads (issue 47, row 20: {@code 1.4999999983250563},
 * {@code 2.0}, {@code 1.0E-4} and {@code 0.000100} in one workflow): short, and rounded the safe way,
 * up for what is spent or guaranteed, down for what is left.
 */
class GuaranteeFormatTest {
  @Test
  void spentRoundsUpAndLeftRoundsDownToFourDecimals() {
    assertEquals("1.5", Guarantee.format(1.4999999983250563));
    assertEquals("0.5", Guarantee.formatLeft(0.5000000016749437));
    assertEquals("0.5001", Guarantee.format(0.5000000016749437));
    assertEquals("1.4999", Guarantee.formatLeft(1.4999999983250563));
    assertEquals("2", Guarantee.format(2.0));
    assertEquals("2", Guarantee.formatLeft(2.0));
    assertEquals("0", Guarantee.format(0));
    assertEquals("0", Guarantee.formatLeft(-0.0));
    assertEquals("10", Guarantee.format(10));
  }

  @Test
  void smallAndLargeValuesKeepThreeSignificantDigits() {
    assertEquals("1.00e-04", Guarantee.format(1.0e-4));
    assertEquals("1.00e-05", Guarantee.format(1e-5));
    assertEquals("1.00e-05", Guarantee.formatLeft(1e-5));
    assertEquals("1.68e-09", Guarantee.format(1.675e-9 + 1e-15));
    assertEquals("1.67e-09", Guarantee.formatLeft(1.675e-9 + 1e-15));
    assertEquals("-1.68e-09", Guarantee.formatLeft(-1.675e-9 - 1e-15));
    assertEquals("1.24e+06", Guarantee.format(1_234_567));
    assertEquals("infinity", Guarantee.format(Double.POSITIVE_INFINITY));
  }

  @Test
  void aPrintedBoundIsNeverBelowAndPrintedRoomNeverAboveTheValue() {
    SplittableRandom r = new SplittableRandom(47);
    for (int i = 0; i < 10_000; i++) {
      double v = Math.pow(10, r.nextDouble(-12, 7)) * (r.nextBoolean() ? 1 : -1);
      BigDecimal exact = BigDecimal.valueOf(v);
      assertTrue(new BigDecimal(Guarantee.format(v)).compareTo(exact) >= 0, v + " -> " + Guarantee.format(v));
      assertTrue(new BigDecimal(Guarantee.formatLeft(v)).compareTo(exact) <= 0, v + " -> " + Guarantee.formatLeft(v));
    }
  }
}
