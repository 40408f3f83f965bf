package dev.helmet.secagg.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SecAgg+ over the small rings of the Skellam mixture mechanism (SPEC 6: Z_{2^b}, b in {6, 8,
 * 10}): exact sums modulo 2^b with dropouts, and masked inputs of b bits per element on the wire.
 */
class SmallRingSecAggTest {

  /**
   * 60 parties, sized for 20 % dropouts; 3 leave after sharing keys (their pairwise masks must be
   * rebuilt) and 2 before unmasking (their inputs are in the sum). With 5 of 60 gone the sizing's
   * bound on an abort (some party below t live neighbours at 20 % independent dropouts) is 1e-3,
   * and far smaller here, so the run completes.
   */
  @ParameterizedTest
  @ValueSource(ints = {6, 8, 10})
  void secAggPlusSumsRingElementsExactlyModuloTwoToTheBWithDropouts(int bits) {
    int n = 60;
    int length = 333;
    long m = 1L << bits;
    SplittableRandom r = new SplittableRandom(bits);
    long[][] x = new long[n][length];
    for (long[] v : x) {
      for (int j = 0; j < length; j++) {
        v[j] = r.nextLong(m);
      }
    }
    int[] dropBefore = new int[n];
    java.util.Arrays.fill(dropBefore, -1);
    for (int u : new int[] {4, 17, 33}) {
      dropBefore[u] = 2; // shared keys, never sent a masked input
    }
    for (int u : new int[] {8, 50}) {
      dropBefore[u] = 4; // sent a masked input, gone before unmasking
    }
    DropoutPlan plan = (party, parties, steps) -> dropBefore[party];
    SummationSpec spec = SummationSpec.ofRingElements(n, length, bits, n - 10);
    SummationOutcome o = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.2, plan, 2).run(spec, i -> x[i]);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
    assertEquals(n - 3, o.contributors().size());
    assertFalse(o.contributors().contains(17));
    long[] want = new long[length];
    for (int u : o.contributors()) {
      for (int j = 0; j < length; j++) {
        want[j] = (want[j] + x[u][j]) % m;
      }
    }
    assertArrayEquals(want, o.sum(), bits + " bits");
    assertEquals(5, o.dropped().size());
  }

  /**
   * The same session at b = 8 and b = 32: every message but the masked input has the same size, and
   * the masked input carries d bytes instead of 4 d, so each party's bytes differ by exactly 3 d.
   */
  @Test
  void aMaskedInputInAnEightBitRingIsAQuarterOfOneInAThirtyTwoBitRing() {
    int n = 20;
    int length = 1001;
    MaskedInputSizes eight = run(n, length, 8);
    MaskedInputSizes wide = run(n, length, 32);
    assertEquals(Messages.HEADER + length, eight.maskedInput);
    assertEquals(Messages.HEADER + 4 * length, wide.maskedInput);
    assertEquals(4.0, (double) (wide.maskedInput - Messages.HEADER) / (eight.maskedInput - Messages.HEADER));
    assertEquals(3L * length, wide.bytesPerParty - eight.bytesPerParty);
    assertEquals(3L * length * n, wide.serverBytes - eight.serverBytes);
  }

  private record MaskedInputSizes(int maskedInput, long bytesPerParty, long serverBytes) {}

  private static MaskedInputSizes run(int n, int length, int bits) {
    SummationSpec spec = SummationSpec.ofRingElements(n, length, bits, n);
    SummationOutcome o = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.1, DropoutPlan.NONE, 2)
        .run(spec, i -> new long[length]);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
    int masked = Messages.MaskedInput.of(1, 0, new long[length], bits).wireSize();
    return new MaskedInputSizes(masked, o.bytesPerParty(), o.serverBytes());
  }

  /** A 2-bit ring is the smallest: four residues, and sums wrap. */
  @Test
  void twoBitRingsWrap() {
    int n = 5;
    SummationSpec spec = SummationSpec.ofRingElements(n, 3, 2, n);
    SummationOutcome o = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG, 0, DropoutPlan.NONE, 2)
        .run(spec, i -> new long[] {3, 1, i % 4});
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
    assertArrayEquals(new long[] {15 % 4, 5 % 4, (0 + 1 + 2 + 3 + 0) % 4}, o.sum());
    assertEquals(-1, FixedPointEncoding.integers(2).signed(o.sum()[0]));
  }

  @Test
  void ringsOfFewerThanTwoOrMoreThan64BitsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> SummationSpec.ofRingElements(3, 4, 1, 3));
    assertThrows(IllegalArgumentException.class, () -> SummationSpec.ofRingElements(3, 4, 65, 3));
    assertEquals(6, SummationSpec.ofRingElements(3, 4, 6, 3).encoding().ringBits());
    assertEquals(0, SummationSpec.ofRingElements(3, 4, 6, 3).encoding().fractionalBits());
    assertEquals(3, SummationSpec.ofRingElements(3, 4, 6, 3).packedBytes());
  }
}
