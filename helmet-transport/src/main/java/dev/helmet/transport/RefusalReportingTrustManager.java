package dev.helmet.transport;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The coordinator's check of client certificates (the JDK's PKIX check against the deployment's
 * CA), reporting every refusal in words: which peer, which certificate, and why (not signed by the
 * CA, expired, not yet valid; the peer's address where the TLS engine or the coordinator's
 * connection guard knows it). Without it a refused handshake leaves no trace on the coordinator.
 * Certificates are public; nothing secret is reported.
 */
final class RefusalReportingTrustManager extends X509ExtendedTrustManager {
  /** Told of every refusal. */
  interface Refusals {
    /**
     * @param source the peer's address ("host:port") where known, else null
     * @param why the refusal in words ({@link #describe})
     */
    void refused(String source, String why);
  }

  private final X509ExtendedTrustManager ca;
  private final Function<SSLEngine, String> peerOf;
  private final Refusals refused;

  /**
   * @param ca the JDK's check
   * @param peerOf the peer of a handshake's engine ("host:port"), or null where unknown: gRPC's
   *     server engines carry no peer address, the coordinator's connection guard knows it
   * @param refused told of every refusal
   */
  RefusalReportingTrustManager(X509ExtendedTrustManager ca, Function<SSLEngine, String> peerOf, Refusals refused) {
    this.ca = ca;
    this.peerOf = peerOf;
    this.refused = refused;
  }

  /**
   * A stranger's name, which it chose itself, for the log and the status page: at most 200
   * characters, no control or invisible characters, in double quotes with quotes and backslashes
   * escaped, so it cannot forge a log line, rewrite a terminal or pass its own words off as the
   * coordinator's (the attacker's read of T3-8: a CN holding a newline and "rejected a message from
   * party 1: IMPERSONATION"); the status page withholds the quoted name whole.
   */
  static String quoted(String name) {
    return "\"" + PeerText.printable(name, 200).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** A refusal in words, naming the peer, the certificate's subject and issuer, and the check. */
  static String describe(X509Certificate[] chain, CertificateException e, String peer) {
    String who = chain == null || chain.length == 0 ? "no certificate"
        : "certificate " + quoted(chain[0].getSubjectX500Principal().getName()) + " (issued by "
            + quoted(chain[0].getIssuerX500Principal().getName()) + ")";
    String why;
    Throwable expired = e;
    while (expired != null && !(expired instanceof java.security.cert.CertificateExpiredException)
        && !(expired instanceof java.security.cert.CertificateNotYetValidException)) {
      expired = expired.getCause();
    }
    if (expired instanceof java.security.cert.CertificateExpiredException) {
      why = "it has expired (valid until " + chain[0].getNotAfter().toInstant() + "); the participant needs a new one";
    } else if (expired != null) {
      why = "it is not valid yet (from " + chain[0].getNotBefore().toInstant() + ")";
    } else if (String.valueOf(e.getMessage()).contains("PKIX path")) {
      why = "it is not signed by this deployment's CA (the participant uses another CA's files)";
    } else {
      why = String.valueOf(e.getMessage());
    }
    return "refused a TLS handshake" + (peer == null ? "" : " from " + peer) + ": " + who + ": " + why;
  }

  private CertificateException report(X509Certificate[] chain, CertificateException e, String peer) {
    try {
      refused.refused(peer, describe(chain, e, peer));
    } catch (RuntimeException ignored) {
      // Reporting never changes the outcome: the handshake is refused either way.
    }
    return e;
  }

  private String peer(SSLEngine engine) {
    if (engine != null && engine.getPeerHost() != null) {
      return engine.getPeerHost() + ":" + engine.getPeerPort();
    }
    // gRPC's server engines carry no peer address; the connection guard's record, else only the
    // certificate's subject, names the peer then.
    try {
      return engine == null ? null : peerOf.apply(engine);
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    try {
      ca.checkClientTrusted(chain, authType, engine);
    } catch (CertificateException e) {
      throw report(chain, e, peer(engine));
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    try {
      ca.checkClientTrusted(chain, authType, socket);
    } catch (CertificateException e) {
      throw report(chain, e, socket == null ? null : String.valueOf(socket.getRemoteSocketAddress()));
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    try {
      ca.checkClientTrusted(chain, authType);
    } catch (CertificateException e) {
      throw report(chain, e, null);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    ca.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    ca.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkServerTrusted(chain, authType);
  }

  @Override
  /**
   * None named: the TLS server then asks for a client certificate without naming CAs, so a
   * participant holding another CA's certificate still presents it and is refused here in words,
   * with a record, instead of sending none and failing with a bare "certificate required" on both
   * sides (every CA has its own name now, and clients send only a certificate whose issuer the
   * server names). The check itself is {@code ca}'s, unchanged: the list is only a hint to clients.
   */
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
