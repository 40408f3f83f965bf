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
    java.net.InetAddress bound = java.net.InetAddress.getByName(at.host());
    if (bound.isAnyLocalAddress()) {
      err.printf("helmet: status page %s (read-only; metrics at /metrics)%n", reachable(s.url(),
          certificateNames(c), localName()));
    } else {
      err.printf("helmet: status page %s (read-only; metrics at /metrics)%n", s.url());
    }
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

  /**
   * A wildcard address (0.0.0.0, ::) is no address another machine can dial (issue 47, row 19):
   * the printed address names the machine instead, by the first name its certificate gives (a
   * browser checks the page's certificate against it), else by its own host name, and says so.
   *
   * @param names the host names and addresses in the coordinator's certificate (may be empty)
   * @param local this machine's host name, or null if unknown
   */
  static String reachable(String url, java.util.List<String> names, String local) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(https?://)([^/]+):([0-9]+)(/.*)$").matcher(url);
    if (!m.matches()) {
      return url;
    }
    String port = m.group(3);
    java.util.List<String> dialable = names.stream().filter(n -> !isLoopbackName(n)).toList();
    String host = !dialable.isEmpty() ? dialable.get(0) : local != null ? local : "HOST";
    String where = !dialable.isEmpty()
        ? "its certificate names " + String.join(", ", dialable) + "; browsers check the name against it"
        : local != null ? host + " is this machine's name; use any name or address other machines reach it by"
            : "HOST is this machine's name or an address other machines reach it by";
    return m.group(1) + bracketed(host) + ":" + port + m.group(4) + " (listening on all addresses on port " + port
        + ": " + where + ")";
  }

  private static boolean isLoopbackName(String n) {
    String h = n.toLowerCase(java.util.Locale.ROOT);
    return h.equals("localhost") || h.endsWith(".localhost") || h.startsWith("127.") || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1");
  }

  private static String bracketed(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** The DNS names and IP addresses in the coordinator's certificate; empty without TLS or if unreadable. */
  private static java.util.List<String> certificateNames(Coordinator c) {
    if (c.settings().tls() == null) {
      return java.util.List.of();
    }
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(c.settings().tls().certificate())) {
      var cert = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in);
      java.util.List<String> names = new java.util.ArrayList<>();
      if (cert.getSubjectAlternativeNames() != null) {
        for (java.util.List<?> n : cert.getSubjectAlternativeNames()) {
          names.add(String.valueOf(n.get(1)));
        }
      }
      return names;
    } catch (IOException | java.security.GeneralSecurityException e) {
      return java.util.List.of();
    }
  }

  private static String localName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Keeps the page up {@code seconds} more after the session ended, so its final state can still be
   * read (issue 47, row 18: it vanished with the release), and says so; an interrupt ends it early.
   */
  void linger(int seconds, PrintWriter err) {
    if (server == null || seconds <= 0) {
      return;
    }
    err.printf("helmet: the session is over; the status page stays up %d s more to show its final state "
        + "(--status-linger SECONDS; Ctrl-C ends it now, the outcome is already printed and stored)%n", seconds);
    err.flush();
    try {
      Thread.sleep(seconds * 1000L);
    } catch (InterruptedException e) {
      // An interrupt asks for just this, the end of the linger; the page and the coordinator close next.
    }
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
