package dev.helmet.secagg.crypto;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Ed25519 signatures (RFC 8032), BouncyCastle's implementation: the parties' long-term identity
 * keys, whose public halves everyone knows in advance (a PKI, or the session's certificates).
 */
public final class Signatures {
  /** Signature length in bytes. */
  public static final int SIZE = Ed25519.SIGNATURE_SIZE;

  private Signatures() {}

  /** An identity key pair; {@link #toString()} never shows the secret. */
  public record KeyPair(byte[] secret, byte[] publicKey) {
    @Override
    public String toString() {
      return "Ed25519KeyPair[public " + java.util.HexFormat.of().formatHex(publicKey) + "]";
    }
  }

  /** A fresh identity key pair. */
  public static KeyPair generate() {
    byte[] sk = new byte[Ed25519.SECRET_KEY_SIZE];
    Ed25519.generatePrivateKey(Secrets.random(), sk);
    byte[] pk = new byte[Ed25519.PUBLIC_KEY_SIZE];
    Ed25519.generatePublicKey(sk, 0, pk, 0);
    return new KeyPair(sk, pk);
  }

  /** Signs {@code message}. */
  public static byte[] sign(byte[] secret, byte[] message, CryptoProfile profile) {
    long t = profile.start();
    byte[] sig = new byte[SIZE];
    Ed25519.sign(secret, 0, message, 0, message.length, sig, 0);
    profile.stop(CryptoProfile.Op.SIGNATURE, t);
    return sig;
  }

  /** Whether {@code signature} is a valid signature of {@code message} under {@code publicKey}. */
  public static boolean verify(byte[] publicKey, byte[] message, byte[] signature, CryptoProfile profile) {
    if (publicKey == null || publicKey.length != Ed25519.PUBLIC_KEY_SIZE || signature == null
        || signature.length != SIZE) {
      return false;
    }
    long t = profile.start();
    try {
      return Ed25519.verify(signature, 0, publicKey, 0, message, 0, message.length);
    } finally {
      profile.stop(CryptoProfile.Op.SIGNATURE, t);
    }
  }
}
