package dev.helmet.status;

import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.transport.Coordinator;
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
 * otherwise. {@code /} is the page (it polls the JSON once a second), {@code /api/status} the JSON
 * ({@link StatusJson}), {@code /metrics} Prometheus text ({@link Metrics}). Off loopback every
 * request needs the access token printed at start (header {@code Authorization: Bearer TOKEN} or
 * {@code ?token=TOKEN}); nothing is writable and nothing a released artifact may not show is shown.
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
   * @param token the access token, or null: none on loopback, a fresh random one otherwise
   * @throws IOException if the address cannot be resolved or the port is taken
   */
  public static StatusServer start(Coordinator c, String host, int port, String token) throws IOException {
    InetAddress address = InetAddress.getByName(host);
    String need = token != null ? token : address.isLoopbackAddress() ? null : HexFormat.of().formatHex(Secrets.bytes(16));
    Metrics metrics = new Metrics(c);
    byte[] page = resource("index.html");
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.jetty.host = address.getHostAddress();
      config.jetty.port = port;
      config.routes.before(ctx -> authorise(ctx, need));
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
      throw new IOException("cannot serve the status page on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    c.listen(metrics);
    String h = address.getHostAddress().contains(":") ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
    String u = "http://" + h + ":" + app.port() + "/" + (need == null ? "" : "?token=" + need);
    return new StatusServer(app, u, need);
  }

  private static void authorise(Context ctx, String need) {
    if (need == null) {
      return;
    }
    String given = ctx.queryParam("token");
    String header = ctx.header("Authorization");
    if (given == null && header != null && header.startsWith("Bearer ")) {
      given = header.substring(7).trim();
    }
    if (given == null || !MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
        need.getBytes(StandardCharsets.UTF_8))) {
      throw new UnauthorizedResponse("this status page needs the access token printed when the coordinator started");
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

  /** The page's address, with the token when one is needed. */
  public String url() {
    return url;
  }

  /** The access token, or null on loopback without one. */
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
