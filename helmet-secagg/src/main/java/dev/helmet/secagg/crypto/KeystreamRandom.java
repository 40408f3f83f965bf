package dev.helmet.secagg.crypto;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Deterministic, cryptographically strong randomness from a public 32-byte seed: the AES-256-CTR
 * keystream under the seed. Everyone who knows the seed draws the same values, and nobody can
 * steer them without finding a seed that produces a chosen output, so a public structure (the
 * SecAgg+ communication graph) derived from a jointly chosen seed cannot be ground towards a
 * chosen outcome the way a 64-bit {@code SplittableRandom} seed can.
 */
public final class KeystreamRandom {
  private static final int BLOCK = 4096;
  private final Cipher cipher;
  private final byte[] zeros = new byte[BLOCK];
  private final ByteBuffer buffer = ByteBuffer.allocate(BLOCK);

  /**
   * @param seed 32 bytes (an AES-256 key), with a domain label mixed in by the caller
   */
  public KeystreamRandom(byte[] seed) {
    if (seed == null || seed.length != 32) {
      throw new IllegalArgumentException("a keystream seed is 32 bytes");
    }
    try {
      cipher = Cipher.getInstance("AES/CTR/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(seed, "AES"), new IvParameterSpec(new byte[16]));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-CTR is required by the Java platform", e);
    }
    buffer.position(BLOCK); // empty
  }

  /** 64 uniform bits. */
  public long nextLong() {
    if (buffer.remaining() < 8) {
      buffer.clear();
      try {
        cipher.update(zeros, 0, BLOCK, buffer.array(), 0);
      } catch (javax.crypto.ShortBufferException e) {
        throw new IllegalStateException("the keystream buffer holds one block", e);
      }
      buffer.position(0);
    }
    return buffer.getLong();
  }

  /** A uniform integer in [0, bound): rejection sampling, so no value is more likely than another. */
  public int nextInt(int bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive. Provided value: " + bound);
    }
    // Accept r from the largest multiple of bound below 2^63.
    long limit = Long.MAX_VALUE - Long.MAX_VALUE % bound;
    while (true) {
      long r = nextLong() >>> 1;
      if (r < limit) {
        return (int) (r % bound);
      }
    }
  }

  /** A uniformly random permutation of 0..n-1 (Fisher-Yates). */
  public int[] permutation(int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
