package dev.helmet.secagg.crypto;

/** A cryptographic check failed: a bad key, signature, or authentication tag. */
public class CryptoException extends RuntimeException {
  public CryptoException(String message) {
    super(message);
  }

  public CryptoException(String message, Throwable cause) {
    super(message, cause);
  }
}
