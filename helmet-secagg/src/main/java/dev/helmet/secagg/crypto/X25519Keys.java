package dev.helmet.secagg.crypto;

import java.util.Arrays;
import org.bouncycastle.math.ec.rfc7748.X25519;

/**
 * X25519 key pairs and key agreement (RFC 7748), BouncyCastle's constant-time implementation.
 * Secret keys come from {@link Secrets}.
 */
public final class X25519Keys {
  /** Key and agreement length in bytes. */
  public static final int SIZE = X25519.POINT_SIZE;

  private X25519Keys() {}

  /** A key pair; {@link #toString()} never shows the secret. */
  public record KeyPair(byte[] secret, byte[] publicKey) {
    @Override
    public String toString() {
      return "X25519KeyPair[public " + java.util.HexFormat.of().formatHex(publicKey) + "]";
    }
  }

  /** A fresh key pair. */
  public static KeyPair generate() {
    byte[] sk = new byte[X25519.SCALAR_SIZE];
    X25519.generatePrivateKey(Secrets.random(), sk);
    return new KeyPair(sk, publicKey(sk));
  }

  /** The public key of {@code secret}. */
  public static byte[] publicKey(byte[] secret) {
    byte[] pk = new byte[SIZE];
    X25519.generatePublicKey(secret, 0, pk, 0);
    return pk;
  }

  /**
   * The shared secret of {@code secret} and {@code peerPublic}.
   *
   * @throws CryptoException if the peer key is malformed or of small order (all-zero result)
   */
  public static byte[] agree(byte[] secret, byte[] peerPublic, CryptoProfile profile) {
    if (peerPublic == null || peerPublic.length != SIZE) {
      throw new CryptoException("an X25519 public key is " + SIZE + " bytes");
    }
    long t = profile.start();
    byte[] out = new byte[SIZE];
    boolean ok = X25519.calculateAgreement(secret, 0, peerPublic, 0, out, 0);
    profile.stop(CryptoProfile.Op.KEY_AGREEMENT, t);
    if (!ok) {
      Arrays.fill(out, (byte) 0);
      throw new CryptoException("X25519 agreement with a small-order public key");
    }
    return out;
  }
}
