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
 * certificate's key signs {@code "helmet-identity-v2" || SHA-256(config) || identity_key ||
 * graph_nonce}. A neighbour that checks the signature, the certificate's chain to the deployment's
 * CA, and that the certificate is a participant's (CA=false, extended key usage clientAuth and not
 * serverAuth, so never the coordinator's own) knows the identity key belongs to a certified
 * participant that agreed to this very configuration. With each neighbour's certificate distinct
 * (checked by every party against the roster's fingerprints) a malicious coordinator cannot
 * substitute keys and sit in the middle of the pairwise key agreements without holding as many
 * participant certificates as the victim has neighbours.
 */
public final class IdentityBinding {
  private static final byte[] LABEL = "helmet-identity-v2".getBytes(StandardCharsets.US_ASCII);

  private IdentityBinding() {}

  static byte[] message(byte[] configDigest, byte[] identityKey, byte[] nonce) {
    byte[] m = new byte[LABEL.length + configDigest.length + identityKey.length + nonce.length];
    int o = 0;
    for (byte[] part : List.of(LABEL, configDigest, identityKey, nonce)) {
      System.arraycopy(part, 0, m, o, part.length);
      o += part.length;
    }
    return m;
  }

  /** Signs the binding with the private key of {@code files} (PKCS#8 PEM, EC). */
  static byte[] sign(Tls.Files files, byte[] configDigest, byte[] identityKey, byte[] nonce) {
    try {
      String pem = Files.readString(files.key(), StandardCharsets.US_ASCII);
      String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder()
          .decode(b64)));
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initSign(key);
      s.update(message(configDigest, identityKey, nonce));
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

  /** The SHA-256 fingerprint of a DER certificate (what the roster lists for each party). */
  static byte[] fingerprint(byte[] certificate) {
    return SessionPlan.sha256(certificate);
  }

  /**
   * Who holds a certificate (DER): its subject and its public key (encoded), or null if it does not
   * parse. Two certificates with the same subject or the same key are one holder: one enrolment.
   */
  static Holder holder(byte[] certificate) {
    try {
      X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(certificate));
      return new Holder(cert.getSubjectX500Principal().getName(), cert.getPublicKey().getEncoded());
    } catch (GeneralSecurityException | RuntimeException e) {
      return null;
    }
  }

  /** A certificate's holder: its subject and its public key. */
  record Holder(String subject, byte[] publicKey) {
    boolean same(Holder other) {
      return other != null && (subject.equals(other.subject) || java.util.Arrays.equals(publicKey, other.publicKey));
    }
  }

  /**
   * Why the binding fails, or null if {@code certificate} (DER) is a participant certificate
   * (CA=false, extended key usage clientAuth, not serverAuth) signed by {@code ca}, currently valid,
   * and its key signed this identity key and nonce for the configuration with this digest.
   */
  static String check(byte[] certificate, byte[] signature, X509Certificate ca, byte[] configDigest, byte[] identityKey,
      byte[] nonce) {
    X509Certificate cert;
    try {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(certificate));
      cert.checkValidity();
      cert.verify(ca.getPublicKey());
    } catch (GeneralSecurityException | RuntimeException e) {
      return "the certificate of the identity binding is not valid for this deployment's CA: " + e.getMessage();
    }
    String name = cert.getSubjectX500Principal().getName();
    String usage = participantUsage(cert);
    if (usage != null) {
      return "the certificate " + name + " is not a participant certificate: " + usage;
    }
    try {
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initVerify(cert.getPublicKey());
      s.update(message(configDigest, identityKey, nonce));
      if (!s.verify(signature)) {
        return "the identity binding's signature does not verify under " + name;
      }
      return null;
    } catch (GeneralSecurityException | RuntimeException e) {
      return "the identity binding's signature does not verify under " + name + ": " + e.getMessage();
    }
  }

  /** Why {@code cert} may not act as a participant, or null: a CA or a server certificate may not. */
  static String participantUsage(X509Certificate cert) {
    if (cert.getBasicConstraints() >= 0) {
      return "it is a CA certificate";
    }
    if (NodeTls.isComputeNode(cert)) {
      return "it is a compute node's certificate (OU=" + NodeTls.ROLE_MARKER + ")";
    }
    List<String> usages;
    try {
      usages = cert.getExtendedKeyUsage();
    } catch (java.security.cert.CertificateParsingException e) {
      return "its extended key usage does not parse";
    }
    if (usages == null || !usages.contains(CLIENT_AUTH)) {
      return "its extended key usage lacks clientAuth";
    }
    if (usages.contains(SERVER_AUTH) || usages.contains(ANY_USAGE)) {
      return "its extended key usage allows serverAuth (a coordinator's certificate)";
    }
    return null;
  }

  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String ANY_USAGE = "2.5.29.37.0";
}
