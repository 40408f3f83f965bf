package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Hkdf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;

/**
 * The byte strings that are signed, authenticated or fed to key derivation. Each starts with a
 * distinct label, the session context (32 bytes: in a networked session the digest of the full
 * configuration and roster) and the session id, so nothing signed or derived for one purpose or
 * session can be used for another, and parties that were shown different sessions cannot verify
 * one another's signatures or agree on a key.
 */
final class Transcripts {
  static final String ADVERTISE = "helmet-secagg/v1/advertise";
  static final String CONSISTENCY = "helmet-secagg/v1/consistency";
  static final String SHARES = "helmet-secagg/v1/shares";
  static final String SHARE_KEY = "helmet-secagg/v1/share-key";
  static final String PAIRWISE_MASK = "helmet-secagg/v1/pairwise-mask";
  static final String SELF_MASK = "helmet-secagg/v1/self-mask";
  static final String SELF_MASK_COMMITMENT = "helmet-secagg/v1/self-mask-commitment";

  /** Plaintext of one encrypted share: from, to, mask-key share, self-mask share. */
  static final int SHARE_PLAINTEXT = 4 + 4 + 2 * 5 * 8;

  private Transcripts() {}

  private static ByteBuffer labelled(String label, SecAggParameters p, int extra) {
    byte[] l = label.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer b = ByteBuffer.allocate(l.length + 32 + 8 + extra);
    b.put(l).put(p.context()).putLong(p.session());
    return b;
  }

  static byte[] advertise(SecAggParameters p, int sender, byte[] encryptionKey, byte[] maskKey) {
    return labelled(ADVERTISE, p, 4 + 64).putInt(sender).put(encryptionKey).put(maskKey).array();
  }

  static byte[] consistency(SecAggParameters p, BitSet survivors, int parties) {
    byte[] bits = new byte[(parties + 7) / 8];
    for (int i = survivors.nextSetBit(0); i >= 0; i = survivors.nextSetBit(i + 1)) {
      bits[i / 8] |= (byte) (1 << (i % 8));
    }
    return labelled(CONSISTENCY, p, 4 + bits.length).putInt(parties).put(bits).array();
  }

  /**
   * A party's commitment to its self-mask seed: SHA-256 of label, context, session, party and the
   * 32-byte seed. Hiding (the seed is 256 random bits) and binding, so the server can check the seed
   * it rebuilds from shares and a bad share cannot silently corrupt the sum.
   */
  static byte[] selfMaskCommitment(SecAggParameters p, int party, byte[] seed) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(
          labelled(SELF_MASK_COMMITMENT, p, 4 + seed.length).putInt(party).put(seed).array());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  static byte[] shareAad(SecAggParameters p, int from, int to) {
    return labelled(SHARES, p, 8).putInt(from).putInt(to).array();
  }

  static byte[] encodeShares(int from, int to, long[] maskKeyShare, long[] selfMaskShare) {
    ByteBuffer b = ByteBuffer.allocate(SHARE_PLAINTEXT).putInt(from).putInt(to);
    for (long v : maskKeyShare) {
      b.putLong(v);
    }
    for (long v : selfMaskShare) {
      b.putLong(v);
    }
    return b.array();
  }

  /** The two shares of a decrypted plaintext, after checking its sender and recipient fields. */
  static long[][] decodeShares(byte[] plaintext, int from, int to) {
    if (plaintext.length != SHARE_PLAINTEXT) {
      throw new IllegalArgumentException("share plaintext has " + plaintext.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(plaintext);
    if (b.getInt() != from || b.getInt() != to) {
      throw new IllegalArgumentException("share plaintext names the wrong parties");
    }
    long[][] s = new long[2][5];
    for (int k = 0; k < 2; k++) {
      for (int c = 0; c < 5; c++) {
        s[k][c] = b.getLong();
      }
    }
    return s;
  }

  static byte[] derive(byte[] ikm, SecAggParameters p, String purpose, CryptoProfile profile) {
    return Hkdf.derive(ikm, ByteBuffer.allocate(40).put(p.context()).putLong(p.session()).array(), purpose, 32,
        profile);
  }

  /** +1 if u adds the pairwise mask with v, -1 if it subtracts it (Bonawitz: u < v adds). */
  static boolean subtracts(int u, int v) {
    return u > v;
  }
}
