package dev.helmet.secagg.summation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlainSummationTest {
  private final FixedPointEncoding enc = new FixedPointEncoding(32, 10);

  @Test
  void sumsAllWellFormedInputsInTheRing() {
    List<long[]> in = List.of(enc.encode(new double[] {1, -2}), enc.encode(new double[] {0.5, 0.25}),
        enc.encode(new double[] {-3, 1}));
    SummationOutcome o = new PlainSummation().run(new SummationSpec(3, 2, enc, 3), in::get);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status());
    assertArrayEquals(new double[] {-1.5, -0.75}, enc.decode(o.sum()));
    assertEquals(List.of(0, 1, 2), o.contributors());
    assertEquals(8, o.bytesPerParty());
  }

  @Test
  void malformedInputsDropTheirPartyWithAReasonAndTheRestGoOn() {
    List<long[]> in = new ArrayList<>();
    in.add(enc.encode(new double[] {1, 1}));
    in.add(new long[] {1}); // wrong length
    in.add(new long[] {1L << 40, 0}); // outside the 32-bit ring
    in.add(null); // never arrived
    in.add(enc.encode(new double[] {2, 2}));
    SummationOutcome o = new PlainSummation().run(new SummationSpec(5, 2, enc, 2), in::get);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status());
    assertArrayEquals(new double[] {3, 3}, enc.decode(o.sum()));
    assertEquals(3, o.dropped().size());
    assertTrue(o.dropped().get(0).detail().contains("length 1, expected 2"));
    assertTrue(o.dropped().get(1).detail().contains("outside the 32-bit ring"));
    assertEquals("MALFORMED_INPUT", o.dropped().get(2).reason());
  }

  @Test
  void fewerContributorsThanTheThresholdAbortsAndReleasesNothing() {
    List<long[]> in = new ArrayList<>();
    in.add(enc.encode(new double[] {1}));
    in.add(null);
    in.add(null);
    SummationOutcome o = new PlainSummation().run(new SummationSpec(3, 1, enc, 2), in::get);
    assertEquals(SummationOutcome.Status.ABORTED, o.status());
    assertNull(o.sum());
  }
}
