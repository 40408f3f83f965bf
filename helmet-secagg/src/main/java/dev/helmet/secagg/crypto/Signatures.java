package dev.helmet.secagg.crypto;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.List;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Ed25519 signatures (RFC 8032), BouncyCastle's implementation: the parties' long-term identity
 * keys, whose public halves everyone knows in advance (a PKI, or the session's certificates).
 *
 * <p>A party that checks many signatures at once (its neighbours' key advertisements, their
 * consistency signatures) uses {@link #firstInvalid}: one randomised batch equation for all of
 * them (Bernstein, Duif, Lange, Schwabe and Yang 2012, section 5), about three times cheaper per
 * signature than one verification each, with each neighbour's key decoded once per session
 * ({@link PublicKey}).
 */
public final class Signatures {
  /** Signature length in bytes. */
  public static final int SIZE = Ed25519.SIGNATURE_SIZE;
  /** NAF width for the signers' keys (a table of 8 odd multiples, built once per key). */
  private static final int KEY_WIDTH = 5;
  /** NAF width for the signatures' R (used once each). */
  private static final int R_WIDTH = 5;
  /** NAF width for the base point (a table of 64 odd multiples, built once). */
  private static final int BASE_WIDTH = 8;
  /**
   * Fewest signatures checked as a batch: it pays 253 doublings once (about 60 us) and saves about
   * 45 us per signature, so two signatures are checked one at a time.
   */
  static final int MIN_BATCH = 3;

  private Signatures() {}

  /** An identity key pair; {@link #toString()} never shows the secret. */
  public record KeyPair(byte[] secret, byte[] publicKey) {
    @Override
    public String toString() {
      return "Ed25519KeyPair[public " + java.util.HexFormat.of().formatHex(publicKey) + "]";
    }
  }

  /**
   * A public key kept for verifying many signatures under it. On first use in a batch it is decoded
   * to the point A, rejected (as {@link #verify} rejects it) if its encoding is not canonical or A
   * has small order, and the odd multiples of -A are tabulated for every later batch.
   */
  public static final class PublicKey {
    private final byte[] encoded;
    private boolean decoded;
    private Edwards25519.Cached[] negatedMultiples;

    private PublicKey(byte[] encoded) {
      this.encoded = encoded;
    }

    /** The key with the 32-byte encoding {@code encoded} (checked on first use). */
    public static PublicKey of(byte[] encoded) {
      return new PublicKey(encoded == null ? null : encoded.clone());
    }

    /** Whether the key decodes to a point of large order (else no signature verifies under it). */
    public boolean valid() {
      return negatedMultiples() != null;
    }

    /** The 32-byte encoding. */
    public byte[] encoded() {
      return encoded == null ? null : encoded.clone();
    }

    private synchronized Edwards25519.Cached[] negatedMultiples() {
      if (!decoded) {
        Edwards25519.Point a = encoded == null ? null : Edwards25519.decode(encoded);
        if (a != null && !Edwards25519.smallOrder(a)) {
          negatedMultiples = Edwards25519.oddMultiples(a.negate(), KEY_WIDTH);
        }
        decoded = true;
      }
      return negatedMultiples;
    }
  }

  /** The base point's odd multiples, built on first use. */
  private static final class BaseTable {
    static final Edwards25519.Cached[] MULTIPLES = Edwards25519.oddMultiples(Edwards25519.base(), BASE_WIDTH);
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

  /**
   * The index of the first signature that does not verify, or -1 if all do: signature i signs
   * {@code messages.get(i)} under {@code keys.get(i)}.
   *
   * <p>All are first checked together: with fresh 128-bit random z_i, [8]([sum z_i S_i] B - sum [z_i]
   * R_i - sum [z_i k_i] A_i) must be the identity, k_i = SHA-512(R_i || A_i || M_i). Every
   * signature that {@link #verify} accepts passes; if some signature fails the cofactored equation
   * of RFC 8032 (section 5.1.7), the batch passes with probability at most 2^-128 (z_i is then fixed
   * modulo the prime order L by the others; strictly, at most 1/(2^128 - 1), as z_i is never 0). A
   * failed batch, or a malformed (or null) key or signature, falls back to {@link #verify} one at a
   * time to name the first bad one.
   *
   * <p>The batch decides as {@link #verify} does: BouncyCastle's verify (since 1.73) checks this same
   * cofactored equation with the same encoding rules (R and A canonical, S below L, A not of small
   * order), so a signature with a small-order component in R or A (which only the key's holder can
   * make) is accepted by both, and no party's decision depends on how many signatures it checks.
   * BouncyCastle 1.72 and earlier verified cofactorless; {@code BatchVerificationTest} pins this.
   *
   * <p>The multi-scalar multiplication runs in time that depends on the z_i. That is harmless: they
   * only need to be unpredictable until the signatures are fixed, and are drawn afresh each call.
   */
  public static int firstInvalid(List<PublicKey> keys, List<byte[]> messages, List<byte[]> signatures,
      CryptoProfile profile) {
    int n = keys.size();
    if (messages.size() != n || signatures.size() != n) {
      throw new IllegalArgumentException(n + " keys, " + messages.size() + " messages and " + signatures.size()
          + " signatures");
    }
    if (n == 0) {
      return -1;
    }
    if (n < MIN_BATCH) {
      return firstInvalidOneByOne(keys, messages, signatures, profile);
    }
    long t = profile.start();
    boolean batchPasses;
    try {
      batchPasses = batch(keys, messages, signatures);
    } finally {
      profile.stop(CryptoProfile.Op.SIGNATURE, t, n);
    }
    return batchPasses ? -1 : firstInvalidOneByOne(keys, messages, signatures, profile);
  }

  private static int firstInvalidOneByOne(List<PublicKey> keys, List<byte[]> messages, List<byte[]> signatures,
      CryptoProfile profile) {
    for (int i = 0; i < keys.size(); i++) {
      PublicKey key = keys.get(i);
      if (key == null || !verify(key.encoded, messages.get(i), signatures.get(i), profile)) {
        return i;
      }
    }
    return -1;
  }

  /** Whether the batch equation holds; false also if any key, R or S is malformed. */
  static boolean batch(List<PublicKey> keys, List<byte[]> messages, List<byte[]> signatures) {
    int n = keys.size();
    MessageDigest sha512;
    try {
      sha512 = MessageDigest.getInstance("SHA-512");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is required by the Java platform", e);
    }
    SecureRandom random = Secrets.random();
    Edwards25519.Cached[][] tables = new Edwards25519.Cached[2 * n + 1][];
    byte[][] digits = new byte[2 * n + 1][];
    BigInteger baseScalar = BigInteger.ZERO;
    byte[] zBytes = new byte[16];
    for (int i = 0; i < n; i++) {
      PublicKey key = keys.get(i);
      byte[] sig = signatures.get(i);
      if (key == null || !key.valid() || sig == null || sig.length != SIZE) {
        return false;
      }
      BigInteger s = littleEndian(sig, 32, 32);
      if (s.compareTo(Edwards25519.L) >= 0) {
        return false;
      }
      byte[] encodedR = java.util.Arrays.copyOfRange(sig, 0, 32);
      Edwards25519.Point r = Edwards25519.decode(encodedR);
      if (r == null) {
        return false;
      }
      sha512.update(encodedR);
      sha512.update(key.encoded);
      sha512.update(messages.get(i));
      BigInteger k = littleEndian(sha512.digest(), 0, 64).mod(Edwards25519.L);
      BigInteger z;
      do {
        random.nextBytes(zBytes);
        z = littleEndian(zBytes, 0, 16);
      } while (z.signum() == 0);
      baseScalar = baseScalar.add(z.multiply(s));
      tables[2 * i] = Edwards25519.oddMultiples(r.negate(), R_WIDTH);
      digits[2 * i] = Edwards25519.wnaf(z, R_WIDTH);
      tables[2 * i + 1] = key.negatedMultiples();
      digits[2 * i + 1] = Edwards25519.wnaf(z.multiply(k).mod(Edwards25519.L), KEY_WIDTH);
    }
    tables[2 * n] = BaseTable.MULTIPLES;
    digits[2 * n] = Edwards25519.wnaf(baseScalar.mod(Edwards25519.L), BASE_WIDTH);
    return Edwards25519.sumTimesCofactorIsIdentity(tables, digits);
  }

  private static BigInteger littleEndian(byte[] b, int off, int len) {
    byte[] be = new byte[len + 1];
    for (int i = 0; i < len; i++) {
      be[len - i] = b[off + i];
    }
    return new BigInteger(be);
  }
}
