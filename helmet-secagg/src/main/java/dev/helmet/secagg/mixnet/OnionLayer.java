package dev.helmet.secagg.mixnet;

import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Hkdf;
import dev.helmet.secagg.crypto.X25519Keys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One layer of the onion of Algorithm 2 (the cross-silo paper, Sec. 3.4): ECIES/HPKE-shaped public
 * key encryption to mixer i, with a fresh ephemeral X25519 key per element and layer so that the
 * layers of one element cannot be linked to each other by anyone without mixer i's key (Theorem 1's
 * "the encryption is secure"):
 *
 * <pre>
 *   e fresh;  K || nonce = HKDF-SHA256(X25519(e, pk_i), salt = epk || pk_i,
 *                                      info = "helmet mixnet v1" || sessionId || i)   (32 + 12 bytes)
 *   layer = epk || AES-256-GCM_K(nonce, aad = sessionId || i, inner)
 * </pre>
 *
 * Each layer adds {@value #OVERHEAD} bytes (the ephemeral key and the tag; the nonce is derived, as
 * the key is used once). The session id and the layer index are bound into both the key and the
 * associated data, so a layer cannot be replayed into another session or peeled at another step.
 * Layer indices are the 0-based party ids in the public order (the paper's party i + 1); layer 0 is
 * outermost. AES-GCM authenticates, so a flipped byte makes the opening mixer abort.
 */
public final class OnionLayer {
  /** Bytes a layer adds: the ephemeral public key and the GCM tag. */
  public static final int OVERHEAD = X25519Keys.SIZE + 16;
  /** Bytes of a session id (as {@code SessionPlan}'s). */
  public static final int SESSION_ID_BYTES = 16;
  private static final byte[] LABEL = "helmet mixnet v1".getBytes(StandardCharsets.UTF_8);
  private static final int KEY = 32;
  private static final int NONCE = 12;

  private OnionLayer() {}

  /** Bytes of a token wrapped in {@code layers} layers: 16 + 48 layers. */
  public static int size(int layers) {
    return Token.BYTES + OVERHEAD * layers;
  }

  /** Seals {@code inner} for mixer {@code layer} with public key {@code recipient}. */
  public static byte[] seal(byte[] inner, byte[] recipient, byte[] sessionId, int layer, CryptoProfile profile) {
    checkSession(sessionId);
    long t0 = profile.start();
    X25519Keys.KeyPair e = X25519Keys.generate(); // a scalar multiplication: counted with the agreements
    profile.stop(CryptoProfile.Op.KEY_AGREEMENT, t0);
    byte[] shared = X25519Keys.agree(e.secret(), recipient, profile);
    Arrays.fill(e.secret(), (byte) 0);
    return sealShared(inner, e.publicKey(), shared, recipient, sessionId, layer, profile);
  }

  /**
   * As {@link #seal} on each of {@code inners}, each with its own fresh ephemeral key: the key
   * pairs and agreements computed in batches where that is faster (the same bytes as one by one
   * for the same keys). The ephemeral secrets are wiped.
   */
  public static List<byte[]> sealAll(List<byte[]> inners, byte[] recipient, byte[] sessionId, int layer,
      CryptoProfile profile) {
    checkSession(sessionId);
    long t0 = profile.start();
    List<X25519Keys.KeyPair> eph = X25519Keys.generateMany(inners.size());
    profile.stop(CryptoProfile.Op.KEY_AGREEMENT, t0, inners.size());
    List<byte[]> secrets = new java.util.ArrayList<>(eph.size());
    eph.forEach(k -> secrets.add(k.secret()));
    try {
      List<byte[]> shared = X25519Keys.agreeEach(secrets, recipient, profile);
      List<byte[]> out = new java.util.ArrayList<>(inners.size());
      for (int i = 0; i < inners.size(); i++) {
        out.add(sealShared(inners.get(i), eph.get(i).publicKey(), shared.get(i), recipient, sessionId, layer, profile));
      }
      return out;
    } finally {
      secrets.forEach(x -> Arrays.fill(x, (byte) 0));
    }
  }

  private static byte[] sealShared(byte[] inner, byte[] epk, byte[] shared, byte[] recipient, byte[] sessionId,
      int layer, CryptoProfile profile) {
    byte[] okm = derive(shared, epk, recipient, sessionId, layer, profile);
    byte[] out = new byte[X25519Keys.SIZE + inner.length + 16];
    System.arraycopy(epk, 0, out, 0, X25519Keys.SIZE);
    try {
      long t = profile.start();
      Cipher c = gcm(Cipher.ENCRYPT_MODE, okm, sessionId, layer);
      c.doFinal(inner, 0, inner.length, out, X25519Keys.SIZE);
      profile.stop(CryptoProfile.Op.AEAD, t);
    } catch (GeneralSecurityException ex) {
      throw new IllegalStateException("AES-GCM is required by the Java platform", ex);
    }
    return out;
  }

  /**
   * Opens mixer {@code layer}'s layer with its key pair.
   *
   * @throws CryptoException if the element is too short, its ephemeral key is of small order, or it
   *     fails authentication (tampered with, or sealed for another key, session or layer)
   */
  public static byte[] open(byte[] sealed, X25519Keys.KeyPair own, byte[] sessionId, int layer, CryptoProfile profile) {
    checkSession(sessionId);
    if (sealed == null || sealed.length < OVERHEAD) {
      throw new CryptoException("an onion layer is at least " + OVERHEAD + " bytes");
    }
    byte[] epk = Arrays.copyOf(sealed, X25519Keys.SIZE);
    return openShared(sealed, X25519Keys.agree(own.secret(), epk, profile), own.publicKey(), sessionId, layer,
        profile);
  }

  /**
   * As {@link #open}, with the X25519 secret of the mixer's key and the element's ephemeral key
   * already computed (a mixer agrees on a whole list at once: {@link X25519Keys#agreeAll}). The
   * shared secret is wiped.
   */
  static byte[] openShared(byte[] sealed, byte[] shared, byte[] ownPublic, byte[] sessionId, int layer,
      CryptoProfile profile) {
    if (sealed == null || sealed.length < OVERHEAD) {
      throw new CryptoException("an onion layer is at least " + OVERHEAD + " bytes");
    }
    byte[] epk = Arrays.copyOf(sealed, X25519Keys.SIZE);
    byte[] okm = derive(shared, epk, ownPublic, sessionId, layer, profile);
    try {
      long t = profile.start();
      try {
        Cipher c = gcm(Cipher.DECRYPT_MODE, okm, sessionId, layer);
        return c.doFinal(sealed, X25519Keys.SIZE, sealed.length - X25519Keys.SIZE);
      } finally {
        profile.stop(CryptoProfile.Op.AEAD, t);
      }
    } catch (AEADBadTagException ex) {
      throw new CryptoException("authentication failed: the element was tampered with or sealed for another key, "
          + "session or layer", ex);
    } catch (GeneralSecurityException ex) {
      throw new CryptoException("decryption failed: " + ex.getMessage(), ex);
    }
  }

  /**
   * The full onion of {@code token} for mixers 0 .. N-1 with the given public keys: sealed for N-1
   * first, so that layer 0 is outermost and mixer 0 peels first.
   */
  public static byte[] wrap(Token token, List<byte[]> publicKeys, byte[] sessionId, CryptoProfile profile) {
    byte[] c = token.toBytes();
    for (int i = publicKeys.size() - 1; i >= 0; i--) {
      c = seal(c, publicKeys.get(i), sessionId, i, profile);
    }
    return c;
  }

  private static byte[] derive(byte[] shared, byte[] epk, byte[] recipient, byte[] sessionId, int layer,
      CryptoProfile profile) {
    byte[] salt = ByteBuffer.allocate(2 * X25519Keys.SIZE).put(epk).put(recipient).array();
    byte[] info = ByteBuffer.allocate(LABEL.length + SESSION_ID_BYTES + 4).put(LABEL).put(sessionId).putInt(layer)
        .array();
    byte[] okm = Hkdf.derive(shared, salt, info, KEY + NONCE, profile);
    Arrays.fill(shared, (byte) 0);
    return okm;
  }

  private static Cipher gcm(int mode, byte[] okm, byte[] sessionId, int layer) throws GeneralSecurityException {
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, new SecretKeySpec(okm, 0, KEY, "AES"), new GCMParameterSpec(128, okm, KEY, NONCE));
    Arrays.fill(okm, (byte) 0);
    c.updateAAD(ByteBuffer.allocate(SESSION_ID_BYTES + 4).put(sessionId).putInt(layer).array());
    return c;
  }

  public static void checkSession(byte[] sessionId) {
    if (sessionId == null || sessionId.length != SESSION_ID_BYTES) {
      throw new IllegalArgumentException("a session id is " + SESSION_ID_BYTES + " bytes. Provided: "
          + (sessionId == null ? "null" : sessionId.length + " bytes"));
    }
  }
}
