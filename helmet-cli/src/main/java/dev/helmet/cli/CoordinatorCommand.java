package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.SessionPlan;
import dev.helmet.transport.SessionFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet coordinator}: runs one networked session from a session file. */
@Command(
    name = "coordinator",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Publishes the session in CONFIG, enrols participants over mutual TLS, runs the session's algorithm through "
          + "SecAgg+ (or the summation the file names: secagg, or dca through the compute nodes it lists, "
          + "compute-servers being dca's old name) with a deadline on every round, and releases the model. Sessions, participants, "
          + "round outcomes, the released model and the privacy ledger are kept in the database the file names "
          + "(an H2 file next to it by default). A session that would take the data set past its privacy budget "
          + "is refused. See docs/deployment.md."
    })
final class CoordinatorCommand implements Callable<Integer> {
  @Option(names = "--config", paramLabel = "SESSION.yaml", required = true, description = "The session file.")
  Path config;

  @Option(names = {"-o", "--model-out"}, paramLabel = "FILE",
      description = "Also write the released model here (it is always stored in the database).")
  Path modelOut;

  @Option(names = "--algorithm", paramLabel = "NAME",
      description = "The algorithm the session runs, when the session file has no `algorithm:` (a file naming "
          + "another is refused). Default: the file's, else helmet.")
  String algorithm;

  @Option(names = "--json", description = "Print one JSON object when the session ends.")
  boolean json;

  /** --status-listen's default; the option itself stays null unless given (a given address lingers). */
  static final String STATUS_LISTEN = "127.0.0.1:0";

  @Option(names = "--status-listen", paramLabel = "HOST:PORT|none",
      description = "Serve the read-only status page (/), its JSON (/api/status) and Prometheus metrics (/metrics) "
          + "here while the session runs; the address is printed at start, with its access token after '#'. Every "
          + "data request needs the token in the header Authorization: Bearer TOKEN, on loopback too (a ?token= in "
          + "the address, read before, is no longer read). Off loopback the page is served only over HTTPS, with the "
          + "coordinator's certificate (the session file's tls; clients trust the deployment's ca.pem); its events never show "
          + "certificate subjects (the log does). On 0.0.0.0 or :: the printed address names this machine by its "
          + "certificate's first host name. none: no page. Default: " + STATUS_LISTEN + " (any free port).")
  String statusListen;

  @Option(names = "--status-linger", paramLabel = "SECONDS",
      description = "Keep the status page up SECONDS more after the session ends (the outcome is printed first), so "
          + "its final state can still be read; Ctrl-C ends it early. In [0, 3600]. Default: 60 with --status-listen "
          + "given, else 0.")
  Integer statusLinger;

  @Option(names = "--status-snapshot", paramLabel = "PREFIX|none",
      description = "When the session ends, write the status page's final state to PREFIX.html (the page, no "
          + "script) and PREFIX.json (its /api/status): what the page shows, no certificate subjects, no token. "
          + "Default: next to --model-out (model.json: model-status.html, model-status.json); none without it.")
  String statusSnapshot;

  @Option(names = "--status-token", paramLabel = "TOKEN",
      description = "The status page's access token (default: a fresh random one, on loopback too). A command "
          + "line is visible to every local user (ps): prefer --status-token-file.")
  String statusToken;

  @Option(names = "--status-token-file", paramLabel = "FILE",
      description = "Read the status page's access token from FILE (its first line; keep it owner-only), e.g. the "
          + "one a Prometheus scrape sends.")
  java.nio.file.Path statusTokenFile;

  @Option(names = "--max-connections", paramLabel = "N",
      description = "Connections open at once on the coordinator's port; one more is closed as soon as it is "
          + "accepted, before TLS (a flood of connections cannot exhaust memory or file descriptors). Default: four "
          + "per party plus 256, at least 1024.")
  Integer maxConnections;

  @Option(names = "--max-handshakes-per-address", paramLabel = "N",
      description = "Connections one remote address may hold open before completing the TLS handshake; one more is "
          + "closed as soon as it is accepted (a certified party's connection stops counting once its handshake "
          + "succeeds). Default: the session's parties, at least 64.")
  Integer maxHandshakesPerAddress;

  @Option(names = "--handshake-start-seconds", paramLabel = "S",
      description = "Close a connection that sends nothing (no TLS ClientHello) for S seconds after it is accepted; "
          + "one that has started its handshake has 10 s to finish it. In [1, 10]. Default: 5.")
  Integer handshakeStartSeconds;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Logging.configure(json);
    Coordinator.Settings s = connectionLimits(SessionFile.read(config, algorithm));
    StatusPage.Address status = StatusPage.parse(statusListen == null ? STATUS_LISTEN : statusListen);
    int linger = linger(status);
    Path snapshot = snapshotPrefix();
    String token = token(); // before anything starts: a bad token option loses nothing
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (Coordinator c = Coordinator.start(s)) {
      err.printf("helmet: coordinator for session %s listening on %s:%d (%s); waiting for %d participants%n",
          c.sessionId(), s.host(), c.port(), s.tls() == null ? "PLAINTEXT, loopback only" : "mutual TLS",
          s.config().getParties());
      err.flush();
      Runtime.getRuntime().addShutdownHook(new Thread(c::close));
      try (StatusPage page = StatusPage.start(c, status, token, err)) {
        int code = run(c, s, out);
        if (snapshot != null) {
          List<Path> written = dev.helmet.status.StatusSnapshot.write(c, snapshot);
          err.printf("helmet: the status page's final state is in %s (and %s)%n", written.get(1), written.get(0));
          err.flush();
        }
        page.linger(linger, err);
        return code;
      }
    }
  }

  private int run(Coordinator c, Coordinator.Settings s, PrintWriter out) throws Exception {
    {
      long limit = s.config().getDeadlines().getEnrolmentSeconds() + 10L * s.config().getDeadlines().getRoundSeconds()
          + 60;
      Coordinator.Result r = c.await(limit, TimeUnit.SECONDS);
      if (r.completed() && modelOut != null) {
        Trainer.write(r.model(), modelOut);
      }
      report(r, s, out);
      return r.completed() ? Main.OK : Main.SESSION_FAILED;
    }
  }

  /** A dca session's cost per compute node and per party (summation_parameters in --json). */
  @SuppressWarnings("unchecked")
  static void printNodes(java.util.Map<String, Object> p, PrintWriter out) {
    if (!(p.get("nodes") instanceof java.util.List<?> nodes)) {
      return;
    }
    for (Object o : nodes) {
      var m = (java.util.Map<String, Object>) o;
      out.printf(java.util.Locale.ROOT, "  node     %s (%s): %s B in, %s B out, %.3f s CPU, %.3f s wall%n", m.get("node"),
          m.get("receives"), m.get("bytes_in"), m.get("bytes_out"), ((Number) m.get("cpu_seconds")).doubleValue(),
          ((Number) m.get("wall_seconds")).doubleValue());
    }
    if (p.get("per_party") instanceof java.util.List<?> parties) {
      for (Object o : parties) {
        var m = (java.util.Map<String, Object>) o;
        out.printf(java.util.Locale.ROOT, "  party    %s: %s B with the coordinator, %s B to the nodes, slowest upload "
            + "%.3f s%n", m.get("party"), m.get("bytes_coordinator"), m.get("bytes_nodes"),
            ((Number) m.get("upload_seconds")).doubleValue());
      }
    }
  }

  private void report(Coordinator.Result r, Coordinator.Settings s, PrintWriter out) {
    if (json) {
      ObjectNode j = Json.object();
      j.put("session", r.sessionId());
      j.put("status", r.completed() ? "completed" : "aborted");
      j.put("reason", r.reason());
      j.put("algorithm", SessionPlan.algorithm(s.config()).id());
      j.put("rounds", SessionPlan.rounds(s.config()));
      j.put("enrolled", r.enrolled());
      j.put("contributors", r.contributors().size());
      j.put("dropped", r.dropped().size());
      // Completed: the released model's guarantee; aborted: what the released rounds cost (0 if none).
      Json.put(j, "epsilon", r.epsilon());
      Json.put(j, "delta", r.delta());
      if (r.completed()) { // the released model's audience (privacy.guarantees has every guarantee)
        j.put("against", r.model().privacy().guarantees().get(0).against());
      }
      j.put("server_bytes", r.serverBytes());
      j.put("bytes_per_participant", r.bytesPerParticipant());
      j.put("wall_seconds", r.seconds());
      j.set("summation_parameters", Json.MAPPER.valueToTree(r.parameters()));
      if (r.completed()) {
        j.set("privacy", ModelFile.ledgerToJson(r.model().privacy()));
      }
      out.println(Json.print(j));
    } else if (r.completed()) {
      out.printf("session %s completed (%s, %d summation%s): %d of %d enrolled parties contributed; %d B per "
          + "participant; %.1f s%s%n", r.sessionId(),
          SessionPlan.algorithm(s.config()).id(), SessionPlan.rounds(s.config()),
          SessionPlan.rounds(s.config()) == 1 ? "" : "s", r.contributors().size(), r.enrolled(),
          r.bytesPerParticipant(), r.seconds(), modelOut == null ? "" : "; model written to " + modelOut);
      for (var g : r.model().privacy().guarantees()) {
        out.printf("  privacy  %s%n", g.describe());
      }
      printNodes(r.parameters(), out);
    } else {
      // The reason says whether anything was released and what it cost.
      out.printf("session %s aborted: %s%n", r.sessionId(), r.reason());
    }
    out.flush();
  }

  /** --status-linger, checked; its default is 60 s for a page at an address the user gave, else none. */
  private int linger(StatusPage.Address status) {
    if (statusLinger != null && (statusLinger < 0 || statusLinger > 3600)) {
      throw new IllegalArgumentException("--status-linger must be in [0, 3600] seconds. Provided value: "
          + statusLinger);
    }
    return statusLinger != null ? statusLinger : status != null && statusListen != null ? 60 : 0;
  }

  /** Where the final status goes: --status-snapshot, else next to --model-out, else nowhere (null). */
  private Path snapshotPrefix() {
    if (statusSnapshot != null) {
      return statusSnapshot.equalsIgnoreCase("none") ? null : Path.of(statusSnapshot);
    }
    if (modelOut == null) {
      return null;
    }
    String name = modelOut.getFileName().toString();
    return modelOut.resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5) : name)
        + "-status");
  }

  /** The file's settings with the connection limits the options give (the others stay the defaults). */
  private Coordinator.Settings connectionLimits(Coordinator.Settings s) {
    Coordinator.ConnectionLimits d = s.connections();
    if (maxConnections == null && maxHandshakesPerAddress == null && handshakeStartSeconds == null) {
      return s;
    }
    if (maxConnections != null && maxConnections < 1) {
      throw new IllegalArgumentException("--max-connections must be at least 1. Provided value: " + maxConnections);
    }
    if (maxHandshakesPerAddress != null && maxHandshakesPerAddress < 1) {
      throw new IllegalArgumentException("--max-handshakes-per-address must be at least 1. Provided value: "
          + maxHandshakesPerAddress);
    }
    if (handshakeStartSeconds != null && (handshakeStartSeconds < 1 || handshakeStartSeconds > 10)) {
      throw new IllegalArgumentException("--handshake-start-seconds must be in [1, 10]. Provided value: "
          + handshakeStartSeconds);
    }
    return s.withConnections(new Coordinator.ConnectionLimits(
        maxConnections == null ? d.maxConnections() : maxConnections,
        maxHandshakesPerAddress == null ? d.maxHandshakesPerAddress() : maxHandshakesPerAddress,
        handshakeStartSeconds == null ? d.handshakeStartSeconds() : handshakeStartSeconds));
  }

  /** The status page's token: --status-token, or the first line of --status-token-file, or null (a fresh one). */
  private String token() throws java.io.IOException {
    if (statusToken != null && statusTokenFile != null) {
      throw new IllegalArgumentException("give --status-token or --status-token-file, not both");
    }
    if (statusTokenFile == null) {
      return statusToken;
    }
    String t = java.nio.file.Files.readAllLines(statusTokenFile).stream().findFirst().orElse("").trim();
    if (t.isEmpty()) {
      throw new IllegalArgumentException("--status-token-file " + statusTokenFile + " holds no token on its first line");
    }
    return t;
  }
}
