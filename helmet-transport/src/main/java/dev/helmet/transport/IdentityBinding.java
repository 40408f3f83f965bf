package dev.helmet.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * Binds a party's Ed25519 identity key (SecAgg's signing key) to its TLS certificate: the
 * certificate's key signs {@code "helmet-identity-v1" || session_id || identity_key ||
 * graph_nonce}. A neighbour that checks the signature and the certificate's chain to the
 * deployment's CA knows the identity key belongs to a certified participant, so a malicious
 * coordinator cannot substitute keys and sit in the middle of the pairwise key agreements.
 */
public final class IdentityBinding {
  private static final byte[] LABEL = "helmet-identity-v1".getBytes(StandardCharsets.US_ASCII);

  private IdentityBinding() {}

  static byte[] message(byte[] sessionId, byte[] identityKey, byte[] nonce) {
    byte[] m = new byte[LABEL.length + sessionId.length + identityKey.length + nonce.length];
    int o = 0;
    for (byte[] part : List.of(LABEL, sessionId, identityKey, nonce)) {
      System.arraycopy(part, 0, m, o, part.length);
      o += part.length;
    }
    return m;
  }

  /** Signs the binding with the private key of {@code files} (PKCS#8 PEM, EC). */
  static byte[] sign(Tls.Files files, byte[] sessionId, byte[] identityKey, byte[] nonce) {
    try {
      String pem = Files.readString(files.key(), StandardCharsets.US_ASCII);
      String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder()
          .decode(b64)));
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initSign(key);
      s.update(message(sessionId, identityKey, nonce));
      return s.sign();
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot sign the identity binding with " + files.key()
          + " (an EC private key in PKCS#8 PEM is needed): " + e.getMessage(), e);
    }
  }

  /** The DER bytes of the first certificate in {@code files}' certificate file. */
  static byte[] certificate(Tls.Files files) {
    try (var in = Files.newInputStream(files.certificate())) {
      return CertificateFactory.getInstance("X.509").generateCertificate(in).getEncoded();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the certificate " + files.certificate() + ": " + e.getMessage(), e);
    }
  }

  /** The CA certificate of {@code files}. */
  static X509Certificate ca(Tls.Files files) {
    try (var in = Files.newInputStream(files.ca())) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the CA certificate " + files.ca() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Why the binding fails, or null if {@code certificate} (DER) is signed by {@code ca}, currently
   * valid, and its key signed this identity key and nonce for this session.
   */
  static String check(byte[] certificate, byte[] signature, X509Certificate ca, byte[] sessionId, byte[] identityKey,
      byte[] nonce) {
    try {
      X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(certificate));
      cert.checkValidity();
      cert.verify(ca.getPublicKey());
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initVerify(cert.getPublicKey());
      s.update(message(sessionId, identityKey, nonce));
      if (!s.verify(signature)) {
        return "the identity binding's signature does not verify under " + cert.getSubjectX500Principal().getName();
      }
      return null;
    } catch (GeneralSecurityException | RuntimeException e) {
      return "the certificate of the identity binding is not valid for this deployment's CA: " + e.getMessage();
    }
  }
}
