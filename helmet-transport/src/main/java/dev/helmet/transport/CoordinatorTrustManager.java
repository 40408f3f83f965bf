package dev.helmet.transport;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A participant's check of the coordinator's certificate: the JDK's PKIX check against the
 * deployment's CA (chain, validity, serverAuth, and the dialled host name, as before), then a
 * refusal of any certificate whose subject carries the compute-node marker {@code OU=compute-node}.
 *
 * <p>Why: a node certificate is a server certificate of the same CA, and {@code helmet certs
 * --compute-nodes} used to give it the coordinator's host names, so a node's holder that
 * participants reached under the coordinator's name (DNS, routing, a shared host) passed as the
 * coordinator and could then list itself among the session's nodes (security review turn 3,
 * T3-9). The roles are disjoint by construction: a coordinator certificate never carries the
 * marker ({@link CertificateRequests} refuses to sign one with it), so refusing the marker here
 * loses no honest coordinator. The refusal is thrown inside the handshake, before the participant
 * sends anything, as a {@link NodeCertificate} that {@link CoordinatorLink#tlsProblem} names.
 */
final class CoordinatorTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager ca;

  CoordinatorTrustManager(X509ExtendedTrustManager ca) {
    this.ca = ca;
  }

  /** The coordinator presented a compute node's certificate. */
  static final class NodeCertificate extends CertificateException {
    private static final long serialVersionUID = 1L;

    NodeCertificate(String message) {
      super(message);
    }
  }

  /** Refuses {@code cert} as the coordinator's if it carries the compute-node marker. */
  static void refuseNode(X509Certificate cert, String who) throws NodeCertificate {
    if (cert != null && NodeTls.isComputeNode(cert)) {
      throw new NodeCertificate(who + " presented a compute node's certificate ("
          + cert.getSubjectX500Principal().getName() + ", marked OU=" + NodeTls.ROLE_MARKER + "), not a coordinator's: "
          + "a node's certificate never serves as the coordinator's");
    }
  }

  private static X509Certificate leaf(X509Certificate[] chain) {
    return chain == null || chain.length == 0 ? null : chain[0];
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    ca.checkServerTrusted(chain, authType, engine);
    refuseNode(leaf(chain), "the coordinator");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    ca.checkServerTrusted(chain, authType, socket);
    refuseNode(leaf(chain), "the coordinator");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkServerTrusted(chain, authType);
    refuseNode(leaf(chain), "the coordinator");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    throw new CertificateException("a participant's connection to the coordinator trusts no clients");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    throw new CertificateException("a participant's connection to the coordinator trusts no clients");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    throw new CertificateException("a participant's connection to the coordinator trusts no clients");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return ca.getAcceptedIssuers();
  }
}
