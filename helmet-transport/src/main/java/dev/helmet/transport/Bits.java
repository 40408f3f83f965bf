package dev.helmet.transport;

import java.util.BitSet;

/** Party sets on the wire: party i is bit (i mod 8) of byte (i div 8), as in the proto. */
final class Bits {
  private Bits() {}

  static byte[] encode(BitSet set, int parties) {
    if (set.length() > parties) {
      throw new IllegalArgumentException("names party " + (set.length() - 1) + " of " + parties);
    }
    return set.toByteArray();
  }

  /**
   * @throws IllegalArgumentException if the bytes are longer than {@code parties} need or name a
   *     party outside 0 .. parties - 1
   */
  static BitSet decode(byte[] bytes, int parties) {
    if (bytes.length > (parties + 7) / 8) {
      throw new IllegalArgumentException("is " + bytes.length + " bytes; " + parties + " parties need at most "
          + (parties + 7) / 8);
    }
    BitSet s = BitSet.valueOf(bytes);
    if (s.length() > parties) {
      throw new IllegalArgumentException("names party " + (s.length() - 1) + " of " + parties);
    }
    return s;
  }
}
