package dev.helmet.secagg.crypto;

import java.util.Arrays;
import java.util.List;
import org.bouncycastle.math.ec.rfc7748.X25519;

/**
 * X25519 key pairs and key agreement (RFC 7748), BouncyCastle's constant-time implementation, and
 * batches of agreements with one secret ({@link #agreeAll}), which may run on a vectorised ladder
 * (see {@code X25519Dispatch}; system property {@code helmet.x25519=bc|vector|auto}) with the
 * same results bit for bit. Secret keys come from {@link Secrets}.
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
    checkSecret(secret);
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

  /** The same error for one agreement and for many: a secret key is 32 bytes. */
  private static void checkSecret(byte[] secret) {
    if (secret == null || secret.length != SIZE) {
      throw new CryptoException("an X25519 secret key is " + SIZE + " bytes");
    }
  }

  /**
   * Tells the key agreement that this JVM is about to make about {@code agreements} of them (an
   * in-process simulation of many parties): from 20,000 on, the vectorised X25519 is warmed up now
   * and used if it is then faster (same results either way). See {@code X25519Dispatch}.
   */
  public static void prepareForMany(long agreements) {
    X25519Dispatch.prepare(agreements);
  }

  /**
   * The shared secrets of {@code secret} and each of {@code peerPublics}, in order: the same
   * results, checks and exceptions as calling {@link #agree} on each in turn (the first failure in
   * that order is thrown, and no result is returned then).
   *
   * @throws CryptoException if a peer key is malformed or of small order (all-zero result)
   */
  public static List<byte[]> agreeAll(byte[] secret, List<byte[]> peerPublics, CryptoProfile profile) {
    checkSecret(secret);
    int valid = 0;
    while (valid < peerPublics.size() && peerPublics.get(valid) != null
        && peerPublics.get(valid).length == SIZE) {
      valid++;
    }
    List<byte[]> keys = peerPublics.subList(0, valid);
    byte[][] out = new byte[valid][];
    boolean[] ok = new boolean[valid];
    long t = profile.start();
    X25519Dispatch.agreeAll(secret, keys, out, ok);
    profile.stop(CryptoProfile.Op.KEY_AGREEMENT, t, valid);
    int bad = -1;
    for (int i = 0; i < valid && bad < 0; i++) {
      if (!ok[i]) {
        bad = i;
      }
    }
    if (bad >= 0 || valid < peerPublics.size()) {
      for (byte[] o : out) {
        Arrays.fill(o, (byte) 0);
      }
      if (bad >= 0) {
        throw new CryptoException("X25519 agreement with a small-order public key");
      }
      throw new CryptoException("an X25519 public key is " + SIZE + " bytes");
    }
    return Arrays.asList(out);
  }

  /**
   * Fresh key pairs for many one-time senders at once (the ephemeral keys of an onion layer sealed
   * for many elements): secrets from SecureRandom, public keys X25519(k, 9), computed in batches
   * where that is faster (the same bytes as {@link #generate}).
   */
  public static List<KeyPair> generateMany(int count) {
    List<byte[]> secrets = new java.util.ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] sk = new byte[X25519.SCALAR_SIZE];
      X25519.generatePrivateKey(Secrets.random(), sk);
      secrets.add(sk);
    }
    byte[][] pk = new byte[count][];
    if (X25519Dispatch.useVector(count)) {
      byte[] base = new byte[SIZE];
      base[0] = 9;
      X25519Dispatch.agreeEach(secrets, base, pk, new boolean[count]);
    } else {
      for (int i = 0; i < count; i++) {
        pk[i] = publicKey(secrets.get(i));
      }
    }
    List<KeyPair> out = new java.util.ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(new KeyPair(secrets.get(i), pk[i]));
    }
    return out;
  }

  /**
   * The shared secrets of each of {@code secrets} with the one {@code peerPublic}, in order: the
   * same results and checks as {@link #agree} on each.
   *
   * @throws CryptoException if the peer key is malformed or of small order, or a secret is not 32 bytes
   */
  public static List<byte[]> agreeEach(List<byte[]> secrets, byte[] peerPublic, CryptoProfile profile) {
    for (byte[] s : secrets) {
      checkSecret(s);
    }
    if (peerPublic == null || peerPublic.length != SIZE) {
      throw new CryptoException("an X25519 public key is " + SIZE + " bytes");
    }
    byte[][] out = new byte[secrets.size()][];
    boolean[] ok = new boolean[secrets.size()];
    long t = profile.start();
    X25519Dispatch.agreeEach(secrets, peerPublic, out, ok);
    profile.stop(CryptoProfile.Op.KEY_AGREEMENT, t, secrets.size());
    for (boolean b : ok) {
      if (!b) {
        for (byte[] o : out) {
          Arrays.fill(o, (byte) 0);
        }
        throw new CryptoException("X25519 agreement with a small-order public key");
      }
    }
    return Arrays.asList(out);
  }
}
