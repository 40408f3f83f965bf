package dev.helmet.secagg.mixnet;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * One 128-bit token (Algorithm 2's r_ij), as two big-endian halves. Tokens order as unsigned
 * 16-byte strings, which is the canonical order of {@link TokenList}. A token is public once the
 * mix is done; which party owns it is the secret the mixnet protects.
 *
 * @param high the first 8 bytes
 * @param low the last 8 bytes
 */
public record Token(long high, long low) implements Comparable<Token> {
  /** Bytes of a token. */
  public static final int BYTES = 16;

  /** A uniformly random token. */
  public static Token random(SecureRandom random) {
    return new Token(random.nextLong(), random.nextLong());
  }

  /**
   * The token of 16 bytes.
   *
   * @throws IllegalArgumentException if {@code bytes} is not 16 bytes
   */
  public static Token of(byte[] bytes) {
    if (bytes == null || bytes.length != BYTES) {
      throw new IllegalArgumentException("a token is " + BYTES + " bytes. Provided: "
          + (bytes == null ? "null" : bytes.length + " bytes"));
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new Token(b.getLong(), b.getLong());
  }

  /** The 16 bytes. */
  public byte[] toBytes() {
    return ByteBuffer.allocate(BYTES).putLong(high).putLong(low).array();
  }

  @Override
  public int compareTo(Token o) {
    int c = Long.compareUnsigned(high, o.high);
    return c != 0 ? c : Long.compareUnsigned(low, o.low);
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(toBytes());
  }
}
