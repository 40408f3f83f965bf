package dev.helmet.status;

import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.transport.Coordinator;
import com.google.common.net.InetAddresses;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.UnauthorizedResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * A coordinator's status page: read-only, served by Javalin (Jetty), on 127.0.0.1 unless told
 * otherwise. {@code /} is the page (static: it holds no data, and polls the JSON once a second),
 * {@code /api/status} the JSON ({@link StatusJson}), {@code /api/ledger} the ledger, {@code
 * /metrics} Prometheus text ({@link Metrics}). Every data request needs the access token, on
 * loopback too (any local user could read a port there: security review turn 3, T3-4), and only in
 * the header {@code Authorization: Bearer TOKEN}: the printed address carries it after {@code #},
 * which the browser keeps to itself, so it reaches no server log. On a loopback address a request
 * whose Host is not that address or localhost is refused (DNS rebinding); off loopback the page is
 * served only over HTTPS, with the coordinator's certificate. Nothing is writable and nothing a
 * released artifact may not show is shown; events show no certificate subjects ({@link Subjects}).
 */
public final class StatusServer implements AutoCloseable {
  private final Javalin app;
  private final String url;
  private final String token;

  private StatusServer(Javalin app, String url, String token) {
    this.app = app;
    this.url = url;
    this.token = token;
  }

  /**
   * Starts the page for {@code c} and registers its metrics as the coordinator's listener.
   *
   * @param host the address to listen on
   * @param port the port, 0 for any free one
   * @param token the access token, or null for a fresh random one
   * @throws IOException if the address cannot be resolved or the port is taken
   * @throws IllegalArgumentException off loopback, for a coordinator without TLS files
   */
  public static StatusServer start(Coordinator c, String host, int port, String token) throws IOException {
    InetAddress address = InetAddress.getByName(host);
    return start(c, address, port, token, address.isLoopbackAddress() ? null : httpsFiles(c, host));
  }

  /**
   * Off loopback the page is served only over HTTPS (security review turn 3, T3-4: in plain HTTP its
   * token and data cross the network in clear), with the coordinator's own certificate and key, which
   * participants already trust through the deployment's CA.
   */
  private static dev.helmet.transport.Tls.Files httpsFiles(Coordinator c, String host) {
    dev.helmet.transport.Tls.Files tls = c.settings().tls();
    if (tls == null) {
      throw new IllegalArgumentException("--status-listen " + host + " is not a loopback address, and off loopback the "
          + "status page is served only over HTTPS with the coordinator's certificate; this coordinator runs without "
          + "TLS files. Listen on 127.0.0.1 and reach the page through an SSH tunnel (ssh -L PORT:127.0.0.1:PORT), "
          + "or give the coordinator its certificate");
    }
    return tls;
  }

  /**
   * Starts the page, over HTTPS with {@code https}'s certificate and key when it is not null (tests
   * use this on loopback; the CLI only off loopback).
   */
  public static StatusServer start(Coordinator c, InetAddress address, int port, String token,
      dev.helmet.transport.Tls.Files https) throws IOException {
    String need = token != null ? token : HexFormat.of().formatHex(Secrets.bytes(16));
    boolean loopback = address.isLoopbackAddress();
    // IPv6 in its compressed form, as browsers send it in Host ([::1], not [0:0:0:0:0:0:0:1])
    String literal = address instanceof java.net.Inet6Address ? "[" + compressed(address) + "]"
        : address.getHostAddress();
    Metrics metrics = new Metrics(c);
    byte[] page = resource("index.html");
    int[] bound = new int[1];
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.jetty.host = address.getHostAddress();
      config.jetty.port = port;
      if (https != null) {
        config.jetty.addConnector((server, http) -> HttpsConnector.of(server, http, https, address, port));
      }
      config.routes.before(ctx -> {
        if (loopback) {
          checkHost(ctx, address, literal, bound[0]);
        }
        if (!ctx.path().equals("/")) {
          authorise(ctx, need);
        }
      });
      config.routes.get("/", ctx -> ctx.contentType("text/html; charset=utf-8").result(page));
      config.routes.get("/api/status", ctx -> ctx.contentType("application/json")
          .result(StatusJson.MAPPER.writeValueAsString(StatusJson.of(c))));
      config.routes.get("/api/ledger", ctx -> ctx.contentType("application/json")
          .result(StatusJson.MAPPER.writeValueAsString(dev.helmet.transport.store.LedgerReport.of(c.store(),
              c.config().getDataset()))));
      config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
          .result(metrics.registry.scrape()));
    });
    try {
      app.start();
    } catch (RuntimeException e) {
      throw new IOException("cannot serve the status page on " + literal + ":" + port + ": " + e.getMessage(), e);
    }
    bound[0] = app.port();
    c.listen(metrics);
    String u = (https != null ? "https://" : "http://") + literal + ":" + app.port() + "/#token=" + need;
    return new StatusServer(app, u, need);
  }

  /**
   * A page on a loopback address answers only requests addressed to it: Host must be the bound
   * literal or localhost, with the bound port. A web page that rebinds its own name to 127.0.0.1
   * sends its own name, and is refused.
   */
  private static void checkHost(Context ctx, InetAddress bound, String literal, int port) {
    String host = ctx.header("Host");
    if (host == null || !addressedTo(host, bound, port)) {
      throw new io.javalin.http.ForbiddenResponse("this status page answers requests to " + literal + ":" + port
          + " or localhost:" + port + " only (Host was " + host + "); behind a tunnel or proxy, keep the port "
          + "(ssh -L " + port + ":" + literal + ":" + port + ") or have the proxy send that Host");
    }
  }

  /**
   * Whether a Host header names the bound address (any spelling of the IP literal, parsed by
   * Guava's {@code InetAddresses}, which does no name lookups) or localhost, with its port.
   */
  static boolean addressedTo(String host, InetAddress bound, int port) {
    String h = host.trim().toLowerCase(java.util.Locale.ROOT);
    int colon = h.lastIndexOf(':');
    if (colon <= 0 || h.endsWith("]") || !h.substring(colon + 1).equals(String.valueOf(port))) {
      return false;
    }
    String name = h.substring(0, colon);
    if (name.equals("localhost")) {
      return true;
    }
    return InetAddresses.isUriInetAddress(name) && InetAddresses.forUriString(name).equals(bound);
  }

  /** An IPv6 address in RFC 5952's compressed form, as browsers send it in Host ([::1]). */
  static String compressed(InetAddress a) {
    return InetAddresses.toAddrString(a);
  }

  private static void authorise(Context ctx, String need) {
    String header = ctx.header("Authorization");
    String given = header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
    if (given == null || !MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
        need.getBytes(StandardCharsets.UTF_8))) {
      throw new UnauthorizedResponse("this status page needs the access token printed when the coordinator started, "
          + "in the header Authorization: Bearer TOKEN (the page's printed address carries it after '#'; a ?token= "
          + "in the address is no longer read, since addresses reach logs and histories)");
    }
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = StatusServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("the status page's " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    }
  }

  /** The page's address, with the token after '#'. */
  public String url() {
    return url;
  }

  /** The access token (every data request needs it). */
  public String token() {
    return token;
  }

  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }
}
