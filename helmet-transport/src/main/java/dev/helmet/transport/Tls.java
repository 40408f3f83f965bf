package dev.helmet.transport;

import io.grpc.ChannelCredentials;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;

import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Mutual TLS for the coordinator and its participants: each side presents a certificate signed by
 * the deployment's CA and accepts only peers whose certificate that CA signed. Plaintext exists only
 * for loopback tests, behind an explicit flag.
 */
public final class Tls {
  private Tls() {}

  /**
   * PEM files of one endpoint.
   *
   * @param certificate its certificate (chain)
   * @param key its private key (PKCS#8)
   * @param ca the CA certificate peers must be signed by
   */
  public record Files(Path certificate, Path key, Path ca) {
    /** Checks that all three files exist and are readable, naming the first that is not. */
    public Files {
      for (Path p : new Path[] {certificate, key, ca}) {
        if (p == null || !java.nio.file.Files.isReadable(p)) {
          throw new IllegalArgumentException("TLS file " + p + " does not exist or cannot be read"
              + " (create a CA and certificates with `helmet certs`)");
        }
      }
    }

    /** The files {@code helmet certs} writes for {@code name} in {@code dir}. */
    public static Files in(Path dir, String name) {
      return new Files(dir.resolve(name + ".pem"), dir.resolve(name + "-key.pem"), dir.resolve("ca.pem"));
    }
  }

  /**
   * Checks that the private key belongs to the certificate (signs a random message with the key and
   * verifies it with the certificate's public key): a mismatch would otherwise surface only as
   * refused handshakes, later, on the other side.
   *
   * @throws IllegalArgumentException naming both files
   */
  static void checkKeyMatchesCertificate(Files f) {
    boolean matches;
    try {
      java.security.cert.X509Certificate cert;
      try (var in = java.nio.file.Files.newInputStream(f.certificate())) {
        cert = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
            .generateCertificate(in);
      }
      String alg = cert.getPublicKey().getAlgorithm();
      java.security.PrivateKey key = privateKey(f.key(), alg);
      String sigAlg = switch (alg) {
        case "EC" -> "SHA256withECDSA";
        case "RSA" -> "SHA256withRSA";
        default -> alg; // Ed25519, Ed448
      };
      byte[] probe = dev.helmet.secagg.crypto.Secrets.bytes(32);
      java.security.Signature s = java.security.Signature.getInstance(sigAlg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      s.initVerify(cert.getPublicKey());
      s.update(probe);
      matches = s.verify(sig);
    } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException("cannot check the key " + f.key() + " against the certificate "
          + f.certificate() + ": " + e.getMessage(), e);
    }
    if (!matches) {
      throw new IllegalArgumentException("the key " + f.key() + " does not belong to the certificate "
          + f.certificate() + " (the certificate holds another public key); use the key written with it");
    }
  }

  /**
   * Checks a participant's TLS files before anything connects: the key belongs to the certificate,
   * and the certificate is valid now, for TLS client authentication, and not a compute node's.
   *
   * @throws IllegalArgumentException naming the file and what to do
   */
  public static void checkParticipantFiles(Files f) {
    checkKeyMatchesCertificate(f);
    checkParticipantCertificate(f, java.time.Instant.now());
  }

  /** The extended key usage of TLS client authentication (RFC 5280, 4.2.1.12). */
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  /** The extended key usage of TLS server authentication. */
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  /**
   * Checks a participant's own certificate before it is presented: valid at {@code now}, allowed
   * for TLS client authentication, and not a compute node's. The coordinator refuses such a
   * certificate anyway, but its reason reaches the participant only as a bare TLS alert
   * (SSLV3_ALERT_CERTIFICATE_EXPIRED, or an internal error for a wrong role: issue 47 item 7), so
   * the participant says it here, naming the file and the way to a new one.
   *
   * @throws IllegalArgumentException naming the file, its subject and what to do
   */
  static void checkParticipantCertificate(Files f, java.time.Instant now) {
    X509Certificate cert;
    java.util.List<String> usages;
    try (var in = java.nio.file.Files.newInputStream(f.certificate())) {
      cert = (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
      usages = cert.getExtendedKeyUsage();
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the certificate " + f.certificate() + ": " + e.getMessage(), e);
    }
    String who = f.certificate() + " (" + cert.getSubjectX500Principal().getName() + ")";
    String renew = "; ask the deployment's CA for a new one (helmet certs request on this machine, then helmet certs "
        + "sign --role participant at the CA) and put it in place of " + f.certificate().getFileName();
    if (now.isAfter(cert.getNotAfter().toInstant())) {
      throw new IllegalArgumentException("this participant's certificate " + who + " expired at "
          + cert.getNotAfter().toInstant() + renew);
    }
    if (now.isBefore(cert.getNotBefore().toInstant())) {
      throw new IllegalArgumentException("this participant's certificate " + who + " is valid only from "
          + cert.getNotBefore().toInstant() + " and this machine's clock says " + now + ": check the clock");
    }
    if (NodeTls.isComputeNode(cert)) {
      throw new IllegalArgumentException(who + " is a compute node's certificate (OU=" + NodeTls.ROLE_MARKER + "), "
          + "not a participant's" + renew);
    }
    if (usages != null && !usages.contains(CLIENT_AUTH)) {
      String which = usages.equals(java.util.List.of(SERVER_AUTH)) ? "serverAuth only: a coordinator's certificate"
          : String.join(", ", usages);
      throw new IllegalArgumentException(who + " does not allow TLS client authentication (extended key usage "
          + which + "), so it cannot be a participant's" + renew);
    }
  }

  /**
   * The PKCS#8 private key in the PEM file {@code key} ({@code helmet certs} writes them), for the
   * algorithm of its certificate's public key ("EC", "RSA", "Ed25519").
   */
  public static java.security.PrivateKey privateKey(Path key, String algorithm)
      throws IOException, java.security.GeneralSecurityException {
    String pem = java.nio.file.Files.readString(key, java.nio.charset.StandardCharsets.US_ASCII);
    byte[] der = java.util.Base64.getDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    return java.security.KeyFactory.getInstance(algorithm).generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
  }

  /** Server credentials requiring a client certificate from the CA. */
  public static ServerCredentials server(Files f) {
    return server(f, engine -> null, (source, why) -> { });
  }

  /**
   * Server credentials requiring a client certificate from the CA; every client certificate the
   * CA check refuses is told to {@code refused} in words (who, from where, and why) before the
   * handshake fails. {@code peerOf} names the peer of a handshake's engine ("host:port", or null).
   */
  static ServerCredentials server(Files f, java.util.function.Function<javax.net.ssl.SSLEngine, String> peerOf,
      RefusalReportingTrustManager.Refusals refused) {
    checkKeyMatchesCertificate(f);
    try {
      return TlsServerCredentials.newBuilder()
          .keyManager(f.certificate().toFile(), f.key().toFile())
          .trustManager(new RefusalReportingTrustManager(caTrustManager(f.ca()), peerOf, refused))
          .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
          .build();
    } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + f.certificate() + ", " + f.key() + ", " + f.ca()
          + ": " + e.getMessage(), e);
    }
  }

  /** The JDK's PKIX trust manager over the CA certificates in {@code caFile} (PEM). */
  private static javax.net.ssl.X509ExtendedTrustManager caTrustManager(Path caFile)
      throws IOException, java.security.GeneralSecurityException {
    java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
    store.load(null, null);
    try (var in = java.nio.file.Files.newInputStream(caFile)) {
      int i = 0;
      for (Certificate c : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      if (i == 0) {
        throw new IOException("no certificate in " + caFile);
      }
    }
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
    tmf.init(store);
    for (javax.net.ssl.TrustManager tm : tmf.getTrustManagers()) {
      if (tm instanceof javax.net.ssl.X509ExtendedTrustManager x) {
        return x;
      }
    }
    throw new java.security.GeneralSecurityException("no X.509 trust manager for " + caFile);
  }

  /**
   * Client credentials presenting the participant's certificate and trusting only the CA, and of
   * its certificates only a coordinator's: one carrying the compute-node marker fails the handshake
   * ({@link CoordinatorTrustManager}; security review turn 3, T3-9).
   */
  public static ChannelCredentials client(Files f) {
    checkParticipantFiles(f);
    try {
      return TlsChannelCredentials.newBuilder()
          .keyManager(f.certificate().toFile(), f.key().toFile())
          .trustManager(new CoordinatorTrustManager(caTrustManager(f.ca())))
          .build();
    } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + f.certificate() + ", " + f.key() + ", " + f.ca()
          + ": " + e.getMessage(), e);
    }
  }

  /** Plaintext server credentials (loopback tests only). */
  public static ServerCredentials plaintextServer() {
    return InsecureServerCredentials.create();
  }

  /** Plaintext channel credentials (loopback tests only). */
  public static ChannelCredentials plaintextClient() {
    return InsecureChannelCredentials.create();
  }

  /** The TLS peer's certificate subject for the current call, or "" over plaintext. */
  static final Context.Key<String> PEER = Context.key("helmet-peer-subject");
  /** The TLS peer's certificate (DER) for the current call, or null over plaintext. */
  static final Context.Key<byte[]> PEER_CERTIFICATE = Context.key("helmet-peer-certificate");

  /** Puts the client certificate's subject into the call's context as {@link #PEER}. */
  static final class PeerInterceptor implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      SSLSession ssl = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
      String subject = "";
      byte[] der = null;
      if (ssl != null) {
        try {
          Certificate[] chain = ssl.getPeerCertificates();
          if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
            // cleaned of control and invisible characters (a certificate another CA tool signed
            // could hold them): the subject reaches logs and events
            subject = PeerText.clean(x.getSubjectX500Principal().getName());
            der = x.getEncoded();
          }
        } catch (SSLPeerUnverifiedException | java.security.cert.CertificateEncodingException e) {
          subject = "";
        }
      }
      return Contexts.interceptCall(Context.current().withValue(PEER, subject).withValue(PEER_CERTIFICATE, der), call,
          headers, next);
    }
  }

}
