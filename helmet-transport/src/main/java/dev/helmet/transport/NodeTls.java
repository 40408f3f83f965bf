package dev.helmet.transport;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * TLS for the compute nodes of a dca session. A node's certificate is a server certificate of the
 * deployment's CA whose subject carries the role marker {@code OU=compute-node}: participants and
 * the coordinator dial a node only with the certificate digest the session configuration lists for
 * it pinned, and a participant certificate (clientAuth only, no marker) can never act as a node
 * while a node certificate (serverAuth, marker) can never enrol as a participant. A node accepts
 * any certificate of the CA in the handshake and decides by role in each call: uploads only from
 * the roster's participant certificates, control calls only from the coordinator.
 */
public final class NodeTls {
  /** The organisational unit that marks a compute node's certificate. */
  public static final String ROLE_MARKER = "compute-node";

  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  private NodeTls() {}

  /**
   * A node's server credentials: its certificate; clients must present a certificate the CA
   * signed (checked without regard to extended key usage, so the coordinator's server certificate
   * can call; the role is checked per call).
   */
  static ServerCredentials server(Tls.Files f) {
    X509Certificate ca = IdentityBinding.ca(f);
    try {
      return TlsServerCredentials.newBuilder()
          .keyManager(f.certificate().toFile(), f.key().toFile())
          .trustManager(new AnyRoleOfCa(ca))
          .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
          .build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + f.certificate() + ", " + f.key() + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Credentials to dial one compute node: this endpoint's own certificate, the CA, and the node's
   * certificate pinned by its SHA-256; a node that presents any other certificate, or one without
   * the role marker, fails the handshake.
   */
  static ChannelCredentials pinned(Tls.Files f, byte[] sha256, String node) {
    return pinned(f, sha256, node, cert -> { });
  }

  /**
   * As {@link #pinned(Tls.Files, byte[], String)}, then {@code also} on the node's certificate,
   * inside the handshake: a {@link CertificateException} it throws fails the handshake, so nothing is
   * sent to that node.
   */
  static ChannelCredentials pinned(Tls.Files f, byte[] sha256, String node, ServerCheck also) {
    X509TrustManager ca = caTrust(f);
    X509TrustManager pin = new Checking(ca, cert -> {
      if (!MessageDigest.isEqual(IdentityBinding.fingerprint(encoded(cert)), sha256)) {
        throw new CertificateException("compute node " + node + " presented a certificate with SHA-256 "
            + HexFormat.of().formatHex(IdentityBinding.fingerprint(encoded(cert))) + ", not the pinned "
            + HexFormat.of().formatHex(sha256));
      }
      if (!isComputeNode(cert)) {
        throw new CertificateException("compute node " + node + " presented a certificate without the role marker "
            + "OU=" + ROLE_MARKER + " (" + cert.getSubjectX500Principal().getName() + ")");
      }
      also.check(cert);
    });
    return clientWith(f, pin);
  }

  /**
   * Credentials that trust the CA and report the server's certificate to {@code seen} (a node
   * learning the coordinator's certificate from its own handshake). A server presenting a compute
   * node's certificate fails the handshake, as it does for participants ({@link
   * CoordinatorTrustManager}; security review turn 3, T3-9): a node's certificate is never the
   * coordinator's, so this node never takes it as the one to obey.
   */
  static ChannelCredentials capturing(Tls.Files f, Consumer<X509Certificate> seen) {
    return clientWith(f, new Checking(caTrust(f), cert -> {
      CoordinatorTrustManager.refuseNode(cert, "the coordinator");
      seen.accept(cert);
    }));
  }

  private static ChannelCredentials clientWith(Tls.Files f, X509TrustManager trust) {
    try {
      return TlsChannelCredentials.newBuilder().keyManager(f.certificate().toFile(), f.key().toFile())
          .trustManager(trust).build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + f.certificate() + ", " + f.key() + ": "
          + e.getMessage(), e);
    }
  }

  /** Whether the certificate's subject carries {@code OU=compute-node}. */
  static boolean isComputeNode(X509Certificate cert) {
    try {
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("OU") && ROLE_MARKER.equalsIgnoreCase(String.valueOf(rdn.getValue()))) {
          return true;
        }
      }
      return false;
    } catch (javax.naming.InvalidNameException e) {
      return false;
    }
  }

  /** Why the certificate (DER) may not control a node as the coordinator, or null. */
  static String coordinatorProblem(byte[] der) {
    if (der == null) {
      return "no client certificate";
    }
    X509Certificate cert = parse(der);
    if (cert == null) {
      return "the client certificate does not parse";
    }
    if (isComputeNode(cert)) {
      return "a compute node's certificate (" + cert.getSubjectX500Principal().getName() + ")";
    }
    try {
      List<String> usages = cert.getExtendedKeyUsage();
      if (cert.getBasicConstraints() >= 0 || usages == null || !usages.contains(SERVER_AUTH)) {
        return "not the coordinator's certificate (" + cert.getSubjectX500Principal().getName()
            + ": a coordinator's allows serverAuth)";
      }
    } catch (java.security.cert.CertificateParsingException e) {
      return "its extended key usage does not parse";
    }
    return null;
  }

  static X509Certificate parse(byte[] der) {
    try {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
    } catch (GeneralSecurityException | RuntimeException e) {
      return null;
    }
  }

  static byte[] encoded(X509Certificate cert) throws CertificateException {
    return cert.getEncoded();
  }

  private static X509TrustManager caTrust(Tls.Files f) {
    try {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry("ca", IdentityBinding.ca(f));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      for (var tm : tmf.getTrustManagers()) {
        if (tm instanceof X509TrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("no X.509 trust manager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot use the CA " + f.ca() + ": " + e.getMessage(), e);
    }
  }

  /** A check on the server's certificate after the CA's own. */
  interface ServerCheck {
    void check(X509Certificate cert) throws CertificateException;
  }

  /** The CA's checks, then one more on the server's certificate. */
  private static final class Checking implements X509TrustManager {
    private final X509TrustManager ca;
    private final ServerCheck extra;

    Checking(X509TrustManager ca, ServerCheck extra) {
      this.ca = ca;
      this.extra = extra;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      ca.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      ca.checkServerTrusted(chain, authType);
      extra.check(chain[0]);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return ca.getAcceptedIssuers();
    }
  }

  /** Accepts a client whose certificate chains to the CA (PKIX, validity checked), whatever its key usage. */
  private static final class AnyRoleOfCa implements X509TrustManager {
    private final X509Certificate ca;

    AnyRoleOfCa(X509Certificate ca) {
      this.ca = ca;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      if (chain == null || chain.length == 0) {
        throw new CertificateException("no client certificate");
      }
      try {
        PKIXParameters p = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        p.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509")
            .generateCertPath(List.of(chain)), p);
      } catch (GeneralSecurityException e) {
        throw new CertificateException("the client certificate is not one of this deployment's CA: " + e.getMessage(), e);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("a compute node's server trusts no servers");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[] {ca};
    }
  }
}
