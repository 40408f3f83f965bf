package dev.helmet.secagg.crypto;

import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/** HKDF-SHA256 (RFC 5869), BouncyCastle's implementation. */
public final class Hkdf {
  private Hkdf() {}

  /**
   * {@code length} bytes derived from {@code ikm}, bound to {@code salt} and the purpose string
   * {@code info} so that keys for different purposes or sessions never coincide.
   */
  public static byte[] derive(byte[] ikm, byte[] salt, String info, int length, CryptoProfile profile) {
    return derive(ikm, salt, info.getBytes(StandardCharsets.UTF_8), length, profile);
  }

  /** As {@link #derive(byte[], byte[], String, int, CryptoProfile)} with raw {@code info} bytes. */
  public static byte[] derive(byte[] ikm, byte[] salt, byte[] info, int length, CryptoProfile profile) {
    long t = profile.start();
    HKDFBytesGenerator g = new HKDFBytesGenerator(new SHA256Digest());
    g.init(new HKDFParameters(ikm, salt, info));
    byte[] out = new byte[length];
    g.generateBytes(out, 0, length);
    profile.stop(CryptoProfile.Op.KEY_DERIVATION, t);
    return out;
  }
}
