package dev.helmet.privacy.noise;

import java.security.DrbgParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Uniform random bits for noise and masks. {@link #secure()} is AES-256-CTR keyed from a
 * {@link SecureRandom} (a SHA-256 Hash_DRBG at 256-bit strength, seeded by the operating system),
 * in the manner of NIST SP 800-90A's CTR_DRBG: hardware AES gives several times the bits per second
 * of the Hash_DRBG in bulk (measured on this project's machines: about 54 M longs/s from the
 * Hash_DRBG in 64 KiB calls). {@link
 * #insecureForTesting} exists only so tests can be repeated; never use it for real noise.
 *
 * <p>Not thread-safe: one instance per thread or party.
 */
public abstract class RandomBits {
  private RandomBits() {}

  /** 64 uniform bits. */
  public abstract long nextLong();

  private long cache;
  private int cached;

  /**
   * One uniform bit, taken from a cached 64-bit value (the samplers' Bernoulli trials need about
   * two bits each, not a 64-bit value).
   */
  public final int nextBit() {
    if (cached == 0) {
      cache = nextLong();
      cached = 64;
    }
    int b = (int) (cache & 1);
    cache >>>= 1;
    cached--;
    return b;
  }

  private long byteCache;
  private int bytesCached;

  /**
   * Eight uniform bits (0 to 255), taken from a cached 64-bit value, high byte first: the exact
   * Bernoulli trial of stochastic rounding is decided by its first eight bits in all but 1 case in
   * 256, so it reads a byte, not a 64-bit value.
   */
  public final int nextByte() {
    if (bytesCached == 0) {
      byteCache = nextLong();
      bytesCached = 8;
    }
    bytesCached--;
    return (int) (byteCache >>> (8 * bytesCached)) & 0xff;
  }

  /** Whether these bits come from a cryptographically secure generator. */
  public abstract boolean isSecure();

  /** A uniform double in [0, 1) with 53 random bits. */
  public final double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** A uniform double in (0, 1]: never 0, so its logarithm is finite. */
  public final double nextDoubleNonZero() {
    return ((nextLong() >>> 11) + 1) * 0x1.0p-53;
  }

  /** A uniform integer in [0, bound), without modulo bias (rejection sampling). */
  public final long nextLong(long bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be > 0. Provided value: " + bound);
    }
    long m = bound - 1;
    if ((bound & m) == 0) {
      return nextLong() & m;
    }
    long r;
    long u;
    do {
      u = nextLong() >>> 1;
      r = u % bound;
    } while (u - r + m < 0); // reject the incomplete last block of size < bound
    return r;
  }

  /** A fresh secure source backed by its own DRBG instance. */
  public static RandomBits secure() {
    return new Secure();
  }

  /**
   * A reproducible, NOT secure source for tests only: its output is predictable from the seed, so
   * noise drawn from it protects nothing.
   */
  public static RandomBits insecureForTesting(long seed) {
    return new Seeded(seed);
  }

  /**
   * A CTR_DRBG-style generator: AES-256 in counter mode (hardware AES through the JCE) keyed from a
   * {@link SecureRandom} DRBG. Each refill produces 16 KiB of keystream plus 48 bytes that become
   * the next key and counter block, so a key found in memory later does not give away earlier
   * output (backtracking resistance, as CTR_DRBG's update step); every 2^32 bytes the key comes
   * fresh from the SecureRandom again. The output of AES-CTR under a uniformly random key is
   * indistinguishable from uniform for far more than 2^32 bytes per key.
   */
  private static final class Secure extends RandomBits {
    /** 16 KiB a refill: parties hold one generator each for a whole run, so it is kept small. */
    private static final int BUFFER = 1 << 14;
    private static final long RESEED_BYTES = 1L << 32;
    /** The plaintext of the keystream: read only, shared by every generator. */
    private static final byte[] ZEROS = new byte[BUFFER + 48];
    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
        long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private final SecureRandom seeds;
    private final byte[] buf = new byte[BUFFER + 48];
    private final javax.crypto.Cipher cipher;
    private int pos = BUFFER;
    private long sinceReseed = RESEED_BYTES;

    Secure() {
      SecureRandom r;
      try {
        r = SecureRandom.getInstance("DRBG",
            DrbgParameters.instantiation(256, DrbgParameters.Capability.RESEED_ONLY, null));
      } catch (NoSuchAlgorithmException e) {
        r = new SecureRandom(); // platform default; still a CSPRNG
      }
      this.seeds = r;
      try {
        this.cipher = javax.crypto.Cipher.getInstance("AES/CTR/NoPadding");
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException("AES/CTR is missing from this JVM", e);
      }
    }

    private void key(byte[] material, int off) {
      try {
        cipher.init(javax.crypto.Cipher.ENCRYPT_MODE,
            new javax.crypto.spec.SecretKeySpec(material, off, 32, "AES"),
            new javax.crypto.spec.IvParameterSpec(material, off + 32, 16));
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException("cannot key AES-256-CTR", e);
      }
    }

    private void refill() {
      if (sinceReseed >= RESEED_BYTES) {
        byte[] fresh = new byte[48];
        seeds.nextBytes(fresh);
        key(fresh, 0);
        java.util.Arrays.fill(fresh, (byte) 0);
        sinceReseed = 0;
      }
      try {
        cipher.update(ZEROS, 0, ZEROS.length, buf, 0);
      } catch (javax.crypto.ShortBufferException e) {
        throw new IllegalStateException(e);
      }
      key(buf, BUFFER); // the last 48 bytes key the next block: earlier output cannot be recomputed
      java.util.Arrays.fill(buf, BUFFER, BUFFER + 48, (byte) 0);
      sinceReseed += ZEROS.length;
      pos = 0;
    }

    @Override
    public long nextLong() {
      if (pos + 8 > BUFFER) {
        refill();
      }
      long v = (long) LONGS.get(buf, pos);
      pos += 8;
      return v;
    }

    @Override
    public boolean isSecure() {
      return true;
    }
  }

  private static final class Seeded extends RandomBits {
    private final SplittableRandom random;

    Seeded(long seed) {
      this.random = new SplittableRandom(seed);
    }

    @Override
    public long nextLong() {
      return random.nextLong();
    }

    @Override
    public boolean isSecure() {
      return false;
    }
  }
}
