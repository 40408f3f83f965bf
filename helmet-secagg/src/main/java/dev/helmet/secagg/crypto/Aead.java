package dev.helmet.secagg.crypto;

import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM with a random 96-bit nonce per message, 128-bit tag. The output is
 * {@code nonce || ciphertext || tag}. Associated data binds a ciphertext to its session, sender
 * and recipient, so it cannot be replayed to another party or session.
 */
public final class Aead {
  /** Nonce length in bytes. */
  public static final int NONCE = 12;
  /** Tag length in bytes. */
  public static final int TAG = 16;

  private Aead() {}

  /** Encrypts {@code plaintext} under the 32-byte {@code key}. */
  public static byte[] encrypt(byte[] key, byte[] aad, byte[] plaintext, CryptoProfile profile) {
    long t = profile.start();
    try {
      byte[] nonce = Secrets.bytes(NONCE);
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG * 8, nonce));
      c.updateAAD(aad);
      byte[] out = new byte[NONCE + plaintext.length + TAG];
      System.arraycopy(nonce, 0, out, 0, NONCE);
      c.doFinal(plaintext, 0, plaintext.length, out, NONCE);
      return out;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is required by the Java platform", e);
    } finally {
      profile.stop(CryptoProfile.Op.AEAD, t);
    }
  }

  /**
   * Decrypts and authenticates.
   *
   * @throws CryptoException if the ciphertext, its associated data or the key does not match
   */
  public static byte[] decrypt(byte[] key, byte[] aad, byte[] sealed, CryptoProfile profile) {
    long t = profile.start();
    try {
      if (sealed == null || sealed.length < NONCE + TAG) {
        throw new CryptoException("ciphertext too short");
      }
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG * 8, sealed, 0, NONCE));
      c.updateAAD(aad);
      return c.doFinal(sealed, NONCE, sealed.length - NONCE);
    } catch (javax.crypto.AEADBadTagException e) {
      throw new CryptoException("authentication failed: the ciphertext was tampered with or misrouted", e);
    } catch (GeneralSecurityException e) {
      throw new CryptoException("decryption failed: " + e.getMessage(), e);
    } finally {
      profile.stop(CryptoProfile.Op.AEAD, t);
    }
  }
}
