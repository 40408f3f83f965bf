package dev.helmet.secagg.crypto;

import java.security.DrbgParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * The source of every secret in secure aggregation: keys, self-mask seeds, Shamir coefficients,
 * nonces, additive shares. One SHA-256 Hash_DRBG (256-bit strength, seeded by the operating
 * system) per thread, so parallel simulated parties do not contend on one lock.
 */
public final class Secrets {
  private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(Secrets::newDrbg);

  private Secrets() {}

  private static SecureRandom newDrbg() {
    try {
      return SecureRandom.getInstance("DRBG",
          DrbgParameters.instantiation(256, DrbgParameters.Capability.RESEED_ONLY, null));
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }

  /** This thread's secure generator. */
  public static SecureRandom random() {
    return RANDOM.get();
  }

  /** {@code n} fresh secret bytes. */
  public static byte[] bytes(int n) {
    byte[] b = new byte[n];
    random().nextBytes(b);
    return b;
  }
}
