package dev.helmet.status;

import dev.helmet.transport.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The status page's HTTPS listener: Jetty with the coordinator's certificate chain and PKCS#8 key
 * (the files {@code helmet certs} writes), TLS 1.3 only, as the coordinator's gRPC port.
 */
final class HttpsConnector {
  private HttpsConnector() {}

  static ServerConnector of(Server server, HttpConfiguration http, Tls.Files files, InetAddress address, int port) {
    SslContextFactory.Server ssl = new SslContextFactory.Server();
    char[] password = new char[0];
    ssl.setKeyStore(keyStore(files, password));
    ssl.setKeyStorePassword("");
    ssl.setIncludeProtocols("TLSv1.3");
    // The page is reached by IP literal as often as by name; SNI is not required
    ssl.setSniRequired(false);
    ServerConnector c = new ServerConnector(server, new SslConnectionFactory(ssl, "http/1.1"),
        new HttpConnectionFactory(http));
    c.setHost(address.getHostAddress());
    c.setPort(port);
    return c;
  }

  /** The certificate chain and key as an in-memory PKCS#12 store (nothing is written to disk). */
  private static KeyStore keyStore(Tls.Files files, char[] password) {
    try {
      Certificate[] chain;
      try (InputStream in = Files.newInputStream(files.certificate())) {
        chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(Certificate[]::new);
      }
      if (chain.length == 0) {
        throw new IllegalArgumentException(files.certificate() + " holds no certificate");
      }
      PrivateKey key = Tls.privateKey(files.key(), chain[0].getPublicKey().getAlgorithm());
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, password);
      ks.setKeyEntry("coordinator", key, password, chain);
      return ks;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the coordinator's certificate or key for the status page", e);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot serve the status page over HTTPS with " + files.certificate()
          + " and " + files.key() + ": " + e.getMessage(), e);
    }
  }
}
