package dev.helmet.secagg.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BitPackingTest {
  private static final int[] LENGTHS = {0, 1, 2, 3, 5, 7, 8, 9, 15, 63, 64, 65, 1001};

  private static long[] random(int length, int bits, SplittableRandom r) {
    long[] v = new long[length];
    for (int i = 0; i < length; i++) {
      v[i] = r.nextLong() & BitPacking.mask(bits);
    }
    return v;
  }

  /** The definition: element i in bits i b .. (i + 1) b - 1 of one little-endian integer. */
  private static byte[] reference(long[] values, int bits) {
    BigInteger all = BigInteger.ZERO;
    for (int i = values.length - 1; i >= 0; i--) {
      all = all.shiftLeft(bits).or(new BigInteger(Long.toUnsignedString(values[i])));
    }
    byte[] out = new byte[(int) BitPacking.packedBytes(values.length, bits)];
    for (int k = 0; k < out.length; k++) {
      out[k] = all.shiftRight(8 * k).byteValue();
    }
    return out;
  }

  @Test
  void everyRingFrom2To64BitsRoundTripsAtOddLengthsAndMatchesTheDefinition() {
    SplittableRandom r = new SplittableRandom(1);
    for (int bits = 2; bits <= 64; bits++) {
      for (int length : LENGTHS) {
        long[] v = random(length, bits, r);
        if (length > 2) {
          v[0] = BitPacking.mask(bits); // every bit set, and the extremes of the ring
          v[1] = 0;
        }
        byte[] p = BitPacking.pack(v, bits);
        String where = bits + " bits, " + length + " elements";
        assertEquals(((long) length * bits + 7) / 8, p.length, where);
        assertArrayEquals(reference(v, bits), p, where);
        assertNull(BitPacking.problem(p, length, bits), where);
        assertArrayEquals(v, BitPacking.unpack(p, length, bits), where);
      }
    }
  }

  @Test
  void addIntoAddsTheUnpackedVectorModuloTheRing() {
    SplittableRandom r = new SplittableRandom(2);
    for (int bits = 2; bits <= 64; bits++) {
      long mask = BitPacking.mask(bits);
      long[] acc = random(37, bits, r);
      long[] x = random(37, bits, r);
      long[] want = new long[37];
      for (int i = 0; i < 37; i++) {
        want[i] = (acc[i] + x[i]) & mask;
      }
      BitPacking.addInto(acc, BitPacking.pack(x, bits), bits);
      assertArrayEquals(want, acc, bits + " bits");
    }
  }

  /** Byte-aligned rings keep the layout the wire had before packing: b/8 little-endian bytes each. */
  @Test
  void byteAlignedRingsArePlainLittleEndianWords() {
    long[] v = {0x0102_0304L, 0xFFFF_FFFEL, 7};
    ByteBuffer b32 = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer b64 = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    for (long x : v) {
      b32.putInt((int) x);
      b64.putLong(x);
    }
    assertArrayEquals(b32.array(), BitPacking.pack(v, 32));
    assertArrayEquals(b64.array(), BitPacking.pack(v, 64));
    assertArrayEquals(new byte[] {1, 2, (byte) 0xFF}, BitPacking.pack(new long[] {1, 2, 255}, 8));
  }

  /** Four 6-bit elements in three bytes: 1, 2, 3, 63 -> 000001 000010 000011 111111, low bits first. */
  @Test
  void sixBitElementsArePinned() {
    assertArrayEquals(HexFormat.of().parseHex("8130fc"), BitPacking.pack(new long[] {1, 2, 3, 63}, 6));
    assertArrayEquals(HexFormat.of().parseHex("8100"), BitPacking.pack(new long[] {1, 2}, 6));
  }

  @Test
  void aPackedVectorOfTheWrongLengthIsRefusedNamingBothLengths() {
    byte[] p = BitPacking.pack(new long[10], 6); // 60 bits: 8 bytes
    assertEquals(8, p.length);
    String expected = "7 bytes, expected 10 elements of 6 bits packed in 8 bytes";
    assertEquals(expected, BitPacking.problem(java.util.Arrays.copyOf(p, 7), 10, 6));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BitPacking.unpack(java.util.Arrays.copyOf(p, 7), 10, 6));
    assertEquals(expected, e.getMessage());
    assertEquals("9 bytes, expected 10 elements of 6 bits packed in 8 bytes",
        BitPacking.problem(new byte[9], 10, 6));
    long[] acc = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertThrows(IllegalArgumentException.class, () -> BitPacking.addInto(acc, new byte[9], 6));
    assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, acc, "a malformed vector adds nothing");
  }

  /** One vector, one encoding: the padding bits above the last element must be zero. */
  @Test
  void setPaddingBitsAreRefused() {
    byte[] p = BitPacking.pack(new long[] {63, 63, 63, 63, 63, 63, 63, 63, 63, 63}, 6);
    assertNull(BitPacking.problem(p, 10, 6));
    p[7] |= (byte) 0x40;
    assertEquals("the 4 padding bits after element 9 are not zero", BitPacking.problem(p, 10, 6));
    assertThrows(IllegalArgumentException.class, () -> BitPacking.unpack(p, 10, 6));
  }

  @Test
  void elementsOutsideTheRingCannotBePackedAndRingSizesAreChecked() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BitPacking.pack(new long[] {3, 64}, 6));
    assertEquals("element 1 is outside the ring Z_2^6", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> BitPacking.pack(new long[1], 1));
    assertTrue(e.getMessage().startsWith("ring bits must be in [2, 64]"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BitPacking.packedBytes(1, 65));
  }

  @Test
  void packedSizesAreCeilingOfLengthTimesBitsOverEight() {
    assertEquals(47_708, BitPacking.packedBytes(63_610, 6));
    assertEquals(63_610, BitPacking.packedBytes(63_610, 8));
    assertEquals(79_513, BitPacking.packedBytes(63_610, 10));
    assertEquals(254_440, BitPacking.packedBytes(63_610, 32));
    assertEquals(1, BitPacking.packedBytes(1, 2));
    assertEquals(1, BitPacking.packedBytes(4, 2));
    assertEquals(2, BitPacking.packedBytes(5, 2));
  }
}
