package dev.helmet.secagg.crypto;

import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM with a random 96-bit nonce per message, 128-bit tag. The output is
 * {@code nonce || ciphertext || tag}. Associated data binds a ciphertext to its session, sender
 * and recipient, so it cannot be replayed to another party or session.
 *
 * <p>An instance keeps one JCE {@link Cipher} and re-initialises it per message (each message has
 * its own key and a fresh nonce), which saves the provider lookup of {@link Cipher#getInstance} for
 * a party that seals or opens one message per neighbour. An instance is not thread-safe; the static
 * methods use a fresh one.
 */
public final class Aead {
  /** Nonce length in bytes. */
  public static final int NONCE = 12;
  /** Tag length in bytes. */
  public static final int TAG = 16;

  private final Cipher cipher;
  private final CryptoProfile profile;

  /** An AEAD for a run of messages on one thread, timed in {@code profile}. */
  public Aead(CryptoProfile profile) {
    try {
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is required by the Java platform", e);
    }
    this.profile = profile;
  }

  /** Encrypts {@code plaintext} under the 32-byte {@code key}. */
  public static byte[] encrypt(byte[] key, byte[] aad, byte[] plaintext, CryptoProfile profile) {
    return new Aead(profile).seal(key, aad, plaintext);
  }

  /**
   * Decrypts and authenticates.
   *
   * @throws CryptoException if the ciphertext, its associated data or the key does not match
   */
  public static byte[] decrypt(byte[] key, byte[] aad, byte[] sealed, CryptoProfile profile) {
    return new Aead(profile).open(key, aad, sealed);
  }

  /** Encrypts {@code plaintext} under the 32-byte {@code key} with a fresh random nonce. */
  public byte[] seal(byte[] key, byte[] aad, byte[] plaintext) {
    long t = profile.start();
    try {
      byte[] nonce = Secrets.bytes(NONCE);
      cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG * 8, nonce));
      cipher.updateAAD(aad);
      byte[] out = new byte[NONCE + plaintext.length + TAG];
      System.arraycopy(nonce, 0, out, 0, NONCE);
      cipher.doFinal(plaintext, 0, plaintext.length, out, NONCE);
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
  public byte[] open(byte[] key, byte[] aad, byte[] sealed) {
    long t = profile.start();
    try {
      if (sealed == null || sealed.length < NONCE + TAG) {
        throw new CryptoException("ciphertext too short");
      }
      cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG * 8, sealed, 0, NONCE));
      cipher.updateAAD(aad);
      return cipher.doFinal(sealed, NONCE, sealed.length - NONCE);
    } catch (javax.crypto.AEADBadTagException e) {
      throw new CryptoException("authentication failed: the ciphertext was tampered with or misrouted", e);
    } catch (GeneralSecurityException e) {
      throw new CryptoException("decryption failed: " + e.getMessage(), e);
    } finally {
      profile.stop(CryptoProfile.Op.AEAD, t);
    }
  }
}
