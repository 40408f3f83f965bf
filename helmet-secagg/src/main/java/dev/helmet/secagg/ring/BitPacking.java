package dev.helmet.secagg.ring;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The wire form of a vector of ring elements: L elements of Z_{2^b} (2 <= b <= 64) in exactly
 * {@code ceil(L b / 8)} bytes, little-endian bit packing. Element i occupies the bits {@code i b ..
 * (i + 1) b - 1} of the byte string read as one little-endian integer, i.e. bit k of the string is
 * bit {@code k mod 8} of byte {@code floor(k / 8)}, and the element's least significant bit comes
 * first. The {@code 8 ceil(L b / 8) - L b} (< 8) padding bits at the top of the last byte are zero.
 *
 * <p>For b a multiple of 8 this is the plain little-endian encoding of each element in b/8 bytes,
 * so 32- and 64-bit rings keep the byte layout and size they had before packing (4 and 8 bytes per
 * element); smaller rings send exactly b bits per element (a 6-bit ring: 3 bytes per 4 elements).
 *
 * <p>Decoding is strict: a vector has one encoding only. {@link #problem} names what is wrong with
 * a received byte string (its length, or non-zero padding); every element it decodes is below 2^b
 * by construction, so no other check is needed.
 */
public final class BitPacking {
  /** The smallest ring a vector may live in. */
  public static final int MIN_BITS = 2;
  /** The largest ring a vector may live in. */
  public static final int MAX_BITS = 64;

  private BitPacking() {}

  /** {@code ceil(length bits / 8)}: the bytes of a packed vector. */
  public static long packedBytes(long length, int bits) {
    checkBits(bits);
    if (length < 0) {
      throw new IllegalArgumentException("vector length must be >= 0. Provided value: " + length);
    }
    return (length * bits + 7) / 8;
  }

  /**
   * Packs {@code values}, each an element of Z_{2^bits}.
   *
   * @throws IllegalArgumentException if an element has bits at or above {@code bits} (the caller
   *     must reduce mod 2^b first), naming the first such element
   */
  public static byte[] pack(long[] values, int bits) {
    long size = packedBytes(values.length, bits);
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(values.length + " elements of " + bits + " bits do not fit one array");
    }
    long mask = mask(bits);
    for (int i = 0; i < values.length; i++) {
      if ((values[i] & ~mask) != 0) {
        throw new IllegalArgumentException("element " + i + " is outside the ring Z_2^" + bits);
      }
    }
    byte[] out = new byte[(int) size];
    if (bits == 32 || bits == 64) {
      ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
      if (bits == 32) {
        for (long v : values) {
          b.putInt((int) v);
        }
      } else {
        b.asLongBuffer().put(values);
      }
      return out;
    }
    long buf = 0;
    int have = 0; // bits in buf, always < 8 between elements
    int o = 0;
    for (long v : values) {
      if (bits <= 56) {
        buf |= v << have; // have + bits <= 63: nothing is shifted out
        have += bits;
      } else {
        // 57 to 63 bits: in two halves, so that no bit is shifted out of the 64-bit buffer.
        buf |= (v & 0xFFFF_FFFFL) << have;
        have += 32;
        while (have >= 8) {
          out[o++] = (byte) buf;
          buf >>>= 8;
          have -= 8;
        }
        buf |= (v >>> 32) << have;
        have += bits - 32;
      }
      while (have >= 8) {
        out[o++] = (byte) buf;
        buf >>>= 8;
        have -= 8;
      }
    }
    if (have > 0) {
      out[o] = (byte) buf;
    }
    return out;
  }

  /**
   * What is wrong with {@code packed} as a vector of {@code length} elements of {@code bits} bits,
   * or null if nothing: the byte count must be exactly {@code ceil(length bits / 8)} and the
   * padding bits of the last byte zero.
   */
  public static String problem(byte[] packed, int length, int bits) {
    long want = packedBytes(length, bits);
    if (packed == null) {
      return "no bytes, expected " + length + " elements of " + bits + " bits packed in " + want + " bytes";
    }
    if (packed.length != want) {
      return packed.length + " bytes, expected " + length + " elements of " + bits + " bits packed in " + want
          + " bytes";
    }
    int padding = (int) (8 * want - (long) length * bits);
    if (padding > 0 && ((packed[packed.length - 1] & 0xFF) >>> (8 - padding)) != 0) {
      return "the " + padding + " padding bits after element " + (length - 1) + " are not zero";
    }
    return null;
  }

  /**
   * Unpacks {@code length} elements of {@code bits} bits.
   *
   * @throws IllegalArgumentException with {@link #problem}'s message if {@code packed} is malformed
   */
  public static long[] unpack(byte[] packed, int length, int bits) {
    long[] out = new long[length];
    decode(packed, bits, out, false);
    return out;
  }

  /**
   * Adds the packed vector to {@code acc} element-wise modulo 2^bits, without unpacking it into a
   * second array (the server's running sum). {@code acc} holds ring elements; its length is the
   * vector length. Nothing is added if {@code packed} is malformed.
   *
   * @throws IllegalArgumentException with {@link #problem}'s message if {@code packed} is malformed
   */
  public static void addInto(long[] acc, byte[] packed, int bits) {
    decode(packed, bits, acc, true);
  }

  private static void decode(byte[] packed, int bits, long[] target, boolean add) {
    String problem = problem(packed, target.length, bits);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    long mask = mask(bits);
    int n = target.length;
    if (bits == 32 || bits == 64) {
      ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        long v = bits == 32 ? b.getInt(4 * i) & 0xFFFF_FFFFL : b.getLong(8 * i);
        target[i] = add ? (target[i] + v) & mask : v;
      }
      return;
    }
    long buf = 0;
    int have = 0;
    int in = 0;
    int low = Math.min(bits, 32); // read in at most two pieces of at most 32 bits
    long lowMask = mask(low);
    for (int i = 0; i < n; i++) {
      while (have < low) { // have < 32 before each byte: no bit is lost
        buf |= (packed[in++] & 0xFFL) << have;
        have += 8;
      }
      long v = buf & lowMask;
      buf >>>= low;
      have -= low;
      if (bits > 32) {
        int high = bits - 32;
        while (have < high) {
          buf |= (packed[in++] & 0xFFL) << have;
          have += 8;
        }
        v |= (buf & mask(high)) << 32;
        buf >>>= high;
        have -= high;
      }
      target[i] = add ? (target[i] + v) & mask : v;
    }
  }

  /** The mask of the low {@code bits} bits. */
  static long mask(int bits) {
    return bits == 64 ? -1L : (1L << bits) - 1;
  }

  private static void checkBits(int bits) {
    if (bits < MIN_BITS || bits > MAX_BITS) {
      throw new IllegalArgumentException("ring bits must be in [" + MIN_BITS + ", " + MAX_BITS + "]. Provided value: "
          + bits);
    }
  }
}
