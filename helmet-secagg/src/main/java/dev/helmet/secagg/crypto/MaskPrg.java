package dev.helmet.secagg.crypto;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mask generator: AES-256 in counter mode keyed by a 32-byte seed (each seed is derived for
 * one purpose only, so the all-zero IV is never reused under a key), read as little-endian ring
 * elements of {@code ceil(b/8)} bytes with the bits above b cleared.
 *
 * <p>The JDK's AES-CTR intrinsic (AES-NI, VAES where present) makes the keystream itself cheap
 * (about 15 GB/s per core on a Zen 4 test machine), so the cost is in turning bytes into ring
 * elements and adding them. Masks are therefore expanded in blocks of {@value #CHUNK} keystream
 * bytes: every seed's block is copied into a primitive array by a bulk view copy and added into a
 * block accumulator with a plain array loop that the JIT vectorises, and the accumulator is folded
 * into the caller's vector once per block, after all seeds. Everything a call touches per block
 * stays in the L1 cache, and nothing is allocated per element.
 */
public final class MaskPrg {
  /** Keystream bytes per seed and block. Small blocks keep the working set in L1. */
  static final int CHUNK = 4096;
  /** Seeds expanded together; more seeds take further passes over the vector. */
  static final int GROUP = 64;
  private static final byte[] ZEROS = new byte[CHUNK];

  private MaskPrg() {}

  /**
   * Adds ({@code subtract = false}) or subtracts the first {@code acc.length} ring elements of
   * PRG({@code seed}) to {@code acc}, modulo {@code 2^ringBits}.
   */
  public static void apply(byte[] seed, boolean subtract, long[] acc, int ringBits, CryptoProfile profile) {
    apply(List.of(seed), new boolean[] {subtract}, acc, ringBits, profile);
  }

  /**
   * For every i, adds PRG({@code seeds.get(i)}) to {@code acc}, or subtracts it where {@code
   * subtract[i]}, modulo {@code 2^ringBits}: the same result as applying the seeds one at a time,
   * with one pass over {@code acc} per {@value #GROUP} seeds. Every element of {@code acc} is
   * reduced modulo {@code 2^ringBits} on return (when there is at least one seed).
   */
  public static void apply(List<byte[]> seeds, boolean[] subtract, long[] acc, int ringBits, CryptoProfile profile) {
    if (seeds.size() != subtract.length) {
      throw new IllegalArgumentException(seeds.size() + " seeds and " + subtract.length + " signs");
    }
    if (ringBits < 1 || ringBits > 64) {
      throw new IllegalArgumentException("ring bits must be in [1, 64]. Provided value: " + ringBits);
    }
    long t = profile.start();
    for (int from = 0; from < seeds.size(); from += GROUP) {
      int to = Math.min(seeds.size(), from + GROUP);
      Cipher[] ciphers = new Cipher[to - from];
      for (int i = from; i < to; i++) {
        ciphers[i - from] = keystream(seeds.get(i));
      }
      Expander e = new Expander(ringBits, ciphers, Arrays.copyOfRange(subtract, from, to));
      try {
        e.run(acc);
      } catch (ShortBufferException ex) {
        throw new IllegalStateException("the keystream buffer holds one block", ex);
      }
    }
    profile.stop(CryptoProfile.Op.PRG, t, seeds.size());
  }

  private static Cipher keystream(byte[] seed) {
    try {
      Cipher c = Cipher.getInstance("AES/CTR/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(seed, "AES"), new IvParameterSpec(new byte[16]));
      return c;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-CTR is required by the Java platform", e);
    }
  }

  /** One pass over a vector with a group of seeds; buffers live for one call (thread confined). */
  private static final class Expander {
    private final int width;
    private final long mask;
    private final Cipher[] ciphers;
    private final boolean[] subtract;
    private final int perBlock;
    private final byte[] stream = new byte[CHUNK];

    Expander(int ringBits, Cipher[] ciphers, boolean[] subtract) {
      this.width = (ringBits + 7) / 8;
      this.mask = ringBits == 64 ? -1L : (1L << ringBits) - 1;
      this.ciphers = ciphers;
      this.subtract = subtract;
      this.perBlock = CHUNK / width;
    }

    void run(long[] acc) throws ShortBufferException {
      switch (width) {
        case 4 -> run32(acc);
        case 8 -> run64(acc);
        default -> runBytes(acc);
      }
    }

    /** Rings of 25 to 32 bits: 32-bit lanes, whose wrap-around is addition modulo 2^32. */
    private void run32(long[] acc) throws ShortBufferException {
      IntBuffer view = ByteBuffer.wrap(stream).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
      int[] words = new int[perBlock];
      int[] sum = new int[perBlock];
      for (int start = 0; start < acc.length; start += perBlock) {
        int n = Math.min(perBlock, acc.length - start);
        Arrays.fill(sum, 0);
        for (int s = 0; s < ciphers.length; s++) {
          ciphers[s].update(ZEROS, 0, 4 * n, stream, 0);
          view.get(0, words, 0, n);
          if (subtract[s]) {
            for (int i = 0; i < n; i++) {
              sum[i] -= words[i];
            }
          } else {
            for (int i = 0; i < n; i++) {
              sum[i] += words[i];
            }
          }
        }
        for (int i = 0; i < n; i++) {
          acc[start + i] = (acc[start + i] + (sum[i] & 0xFFFFFFFFL)) & mask;
        }
      }
    }

    /** Rings of 57 to 64 bits: 64-bit lanes. */
    private void run64(long[] acc) throws ShortBufferException {
      LongBuffer view = ByteBuffer.wrap(stream).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
      long[] words = new long[perBlock];
      long[] sum = new long[perBlock];
      for (int start = 0; start < acc.length; start += perBlock) {
        int n = Math.min(perBlock, acc.length - start);
        Arrays.fill(sum, 0);
        for (int s = 0; s < ciphers.length; s++) {
          ciphers[s].update(ZEROS, 0, 8 * n, stream, 0);
          view.get(0, words, 0, n);
          if (subtract[s]) {
            for (int i = 0; i < n; i++) {
              sum[i] -= words[i];
            }
          } else {
            for (int i = 0; i < n; i++) {
              sum[i] += words[i];
            }
          }
        }
        for (int i = 0; i < n; i++) {
          acc[start + i] = (acc[start + i] + sum[i]) & mask;
        }
      }
    }

    /**
     * Other widths: each element assembled from its bytes. The bits above b need no clearing per
     * element, since only the sum modulo 2^b is kept.
     */
    private void runBytes(long[] acc) throws ShortBufferException {
      long[] sum = new long[perBlock];
      for (int start = 0; start < acc.length; start += perBlock) {
        int n = Math.min(perBlock, acc.length - start);
        Arrays.fill(sum, 0);
        for (int s = 0; s < ciphers.length; s++) {
          ciphers[s].update(ZEROS, 0, width * n, stream, 0);
          long sign = subtract[s] ? -1 : 1;
          for (int i = 0; i < n; i++) {
            long v = 0;
            for (int b = width - 1; b >= 0; b--) {
              v = (v << 8) | (stream[i * width + b] & 0xffL);
            }
            sum[i] += sign * v;
          }
        }
        for (int i = 0; i < n; i++) {
          acc[start + i] = (acc[start + i] + sum[i]) & mask;
        }
      }
    }
  }
}
