package dev.helmet.cli;

import dev.helmet.status.StatusServer;
import dev.helmet.transport.Coordinator;
import java.io.IOException;
import java.io.PrintWriter;

/** The CLI's side of a coordinator's status page: {@code --status-listen HOST:PORT|none}. */
final class StatusPage implements AutoCloseable {
  private final StatusServer server;
  /** Where a running coordinator tells local commands its page's address (H2 file databases), or null. */
  private final java.nio.file.Path discovery;

  private StatusPage(StatusServer server, java.nio.file.Path discovery) {
    this.server = server;
    this.discovery = discovery;
  }

  /**
   * The file next to an H2 database file in which its running coordinator leaves its status page's
   * address and token (owner-only), so {@code helmet ledger show} can read the ledger while the
   * coordinator holds the database; null for other databases (PostgreSQL allows a second reader).
   */
  static java.nio.file.Path discoveryFile(String databaseUrl) {
    String prefix = "jdbc:h2:file:";
    if (databaseUrl == null || !databaseUrl.startsWith(prefix)) {
      return null;
    }
    String file = databaseUrl.substring(prefix.length());
    int semicolon = file.indexOf(';');
    return java.nio.file.Path.of((semicolon < 0 ? file : file.substring(0, semicolon)) + ".status.json");
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
      return new StatusPage(null, null);
    }
    StatusServer s = StatusServer.start(c, at.host(), at.port(), token);
    err.printf("helmet: status page %s (read-only; metrics at /metrics)%n", s.url());
    err.flush();
    java.nio.file.Path discovery = discoveryFile(c.settings().databaseUrl());
    if (discovery != null) {
      com.fasterxml.jackson.databind.node.ObjectNode j = Json.object();
      j.put("url", s.url().replaceFirst("[?#].*$", ""));
      j.put("token", s.token());
      if (s.url().startsWith("https://")) {
        j.put("ca", c.settings().tls().ca().toAbsolutePath().toString());
      }
      j.put("session", c.sessionId());
      j.put("pid", ProcessHandle.current().pid());
      java.nio.file.Path tmp = discovery.resolveSibling(discovery.getFileName() + ".tmp");
      java.nio.file.Files.deleteIfExists(tmp);
      java.nio.file.Files.createFile(tmp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
      java.nio.file.Files.writeString(tmp, Json.print(j));
      java.nio.file.Files.move(tmp, discovery, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    return new StatusPage(s, discovery);
  }

  /** The page's address, or null without a page. */
  String url() {
    return server == null ? null : server.url();
  }

  @Override
  public void close() {
    if (discovery != null) {
      try {
        java.nio.file.Files.deleteIfExists(discovery);
      } catch (IOException e) {
        // A stale file only points at a page that no longer answers; `ledger show` says so.
      }
    }
    if (server != null) {
      server.close();
    }
  }
}
