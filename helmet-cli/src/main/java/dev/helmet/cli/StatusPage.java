package dev.helmet.cli;

import dev.helmet.status.StatusServer;
import dev.helmet.transport.Coordinator;
import java.io.IOException;
import java.io.PrintWriter;

/** The CLI's side of a coordinator's status page: {@code --status-listen HOST:PORT|none}. */
final class StatusPage implements AutoCloseable {
  private final StatusServer server;

  private StatusPage(StatusServer server) {
    this.server = server;
  }

  /** Where to listen: a host and port, or null for none. */
  record Address(String host, int port) {}

  /**
   * Reads {@code --status-listen} (before the coordinator starts, so a typo costs nothing).
   *
   * @throws IllegalArgumentException if {@code listen} is neither HOST:PORT nor none
   */
  static Address parse(String listen) {
    if (listen == null || listen.equalsIgnoreCase("none")) {
      return null;
    }
    int colon = listen.lastIndexOf(':');
    if (colon <= 0 || colon == listen.length() - 1) {
      throw new IllegalArgumentException("--status-listen must be HOST:PORT (e.g. 127.0.0.1:8080, [::1]:0) or none. "
          + "Provided value: " + listen);
    }
    String host = listen.substring(0, colon).replaceAll("^\\[|\\]$", "");
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--status-listen's port must be a number. Provided value: " + listen, e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--status-listen's port must be in [0, 65535]. Provided value: " + port);
    }
    return new Address(host, port);
  }

  /** Starts the page at {@code at} (nothing for null) and prints its address. */
  static StatusPage start(Coordinator c, Address at, String token, PrintWriter err) throws IOException {
    if (at == null) {
      return new StatusPage(null);
    }
    StatusServer s = StatusServer.start(c, at.host(), at.port(), token);
    err.printf("helmet: status page %s (read-only; metrics at /metrics)%n", s.url());
    err.flush();
    return new StatusPage(s);
  }

  /** The page's address, or null without a page. */
  String url() {
    return server == null ? null : server.url();
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
  }
}
