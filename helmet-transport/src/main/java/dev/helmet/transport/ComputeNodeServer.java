package dev.helmet.transport;

import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * One compute node of dca sessions (the cross-silo paper's Algorithm 1), as its own process
 * ({@code helmet compute-node}) or, in tests, in-process: it receives share l of every party's
 * input, and releases one sum per round to the coordinator. It talks to no other node and never
 * sees an input: privacy needs one node that does not collude with the others. It accepts
 * <ul>
 *   <li>{@code Open} only from the coordinator (its certificate allows serverAuth and is not a
 *       node's; with {@code coordinator} set, it must be the very certificate the coordinator at that
 *       address presents, and the configuration the one it publishes), for a dca configuration that
 *       lists this node's certificate, with a roster every entry of which is a distinct certified
 *       participant ({@link RosterCheck});</li>
 *   <li>uploads only from the roster's certificates, each party's own share, once per round;</li>
 *   <li>{@code Release} once per round, for a set of at least min_contributors parties whose shares it
 *       holds.</li>
 * </ul>
 * It holds at most {@code maxSessions} sessions, takes one round's uploads at a time, and erases a
 * session's shares at its last release or once the coordinator leaves it idle beyond its deadlines
 * ({@link NodeService}).
 */
public final class ComputeNodeServer implements AutoCloseable {
  static final System.Logger LOG = System.getLogger(ComputeNodeServer.class.getName());

  /**
   * How a node runs.
   *
   * @param name its name in logs and reports
   * @param host the address to listen on
   * @param port the port (0: any free port)
   * @param tls its certificate (a compute node's: {@code helmet certs --compute-nodes}), key and the CA
   * @param coordinator the coordinator's host:port, to pin its certificate and published session;
   *     null: any coordinator certificate of the CA may control this node
   * @param threads worker threads for the sums
   * @param sessionIdleSeconds how long, beyond what its published deadlines allow, the coordinator
   *     may leave a session without a call before the node ends it and erases its shares
   * @param maxSessions the most sessions the node holds at once; it refuses another Open
   */
  public record Settings(String name, String host, int port, Tls.Files tls, String coordinator, int threads,
      int sessionIdleSeconds, int maxSessions) {
    /** The default of {@code sessionIdleSeconds}: ten minutes of the coordinator's own computing. */
    public static final int DEFAULT_SESSION_IDLE_SECONDS = 600;
    /** The default of {@code maxSessions}. */
    public static final int DEFAULT_MAX_SESSIONS = 16;

    /** With the default idle limit and session cap. */
    public Settings(String name, String host, int port, Tls.Files tls, String coordinator, int threads) {
      this(name, host, port, tls, coordinator, threads, DEFAULT_SESSION_IDLE_SECONDS, DEFAULT_MAX_SESSIONS);
    }

    public Settings {
      if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException("name must be 1 to 64 letters, digits, '.', '_' or '-'. Provided value: " + name);
      }
      if (tls == null) {
        throw new IllegalArgumentException("a compute node needs its TLS files (mutual TLS names every caller)");
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be positive. Provided value: " + threads);
      }
      if (sessionIdleSeconds < 1) {
        throw new IllegalArgumentException("session idle seconds must be positive. Provided value: "
            + sessionIdleSeconds);
      }
      if (maxSessions < 1) {
        throw new IllegalArgumentException("max sessions must be positive. Provided value: " + maxSessions);
      }
    }
  }

  /** How often idle sessions are looked for (an expired session's shares outlive its limit by at most this). */
  static final long SWEEP_SECONDS = 15;

  private final Settings settings;
  private final Server server;
  private final ConnectionGuard connections;
  private final NodeService service;
  private final ScheduledExecutorService sweeper;
  private final byte[] ownFingerprint;
  private final X509Certificate ca;
  /** The coordinator's certificate fingerprint, once fetched (with {@code coordinator} set). */
  private final AtomicReference<byte[]> pinnedCoordinator = new AtomicReference<>();
  /** Totals over every released round. Guarded by this. */
  private long rounds;
  private long bytesIn;
  private long bytesOut;
  private long cpuNanos;

  private ComputeNodeServer(Settings s, LongSupplier clock) throws IOException {
    this.settings = s;
    byte[] cert = IdentityBinding.certificate(s.tls());
    X509Certificate own = NodeTls.parse(cert);
    if (own == null || !NodeTls.isComputeNode(own)) {
      throw new IllegalArgumentException("the certificate " + s.tls().certificate() + " is not a compute node's (its "
          + "subject lacks OU=" + NodeTls.ROLE_MARKER + "; create one with `helmet certs --compute-nodes M` or "
          + "`helmet certs sign --role compute-node`)");
    }
    this.ownFingerprint = IdentityBinding.fingerprint(cert);
    this.ca = IdentityBinding.ca(s.tls());
    this.service = new NodeService(this, s.maxSessions(), clock);
    // The same bounds before TLS as the coordinator's port (security review turn 3, T3-5): a node
    // serves sessions of any size, so the limits are those of a 1,000-party session.
    this.connections = new ConnectionGuard(Coordinator.ConnectionLimits.forParties(1000), "compute node " + s.name());
    this.server = connections.install(NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getByName(s.host()), s.port()), NodeTls.server(s.tls())))
        .addService(ServerInterceptors.intercept(service, new Tls.PeerInterceptor()))
        .maxInboundMessageSize(NodeService.CHUNK_BYTES + (64 << 10) + (64 << 20))
        .maxInboundMetadataSize(16 << 10)
        .handshakeTimeout(Coordinator.HANDSHAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .build();
    this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "helmet-node-sweeper");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts listening. */
  public static ComputeNodeServer start(Settings s) throws IOException {
    return start(s, System::nanoTime);
  }

  /** Starts listening, with the clock of the idle limits (tests pass one they advance). */
  static ComputeNodeServer start(Settings s, LongSupplier clock) throws IOException {
    ComputeNodeServer n = new ComputeNodeServer(s, clock);
    try {
      n.server.start();
    } catch (IOException | RuntimeException e) {
      n.connections.close();
      n.sweeper.shutdownNow();
      throw e;
    }
    n.sweeper.scheduleWithFixedDelay(n.service::expire, SWEEP_SECONDS, SWEEP_SECONDS, TimeUnit.SECONDS);
    LOG.log(Level.INFO, "compute node {0} listening on {1}:{2}", s.name(), s.host(), String.valueOf(n.port()));
    return n;
  }

  public int port() {
    return server.getPort();
  }

  public String name() {
    return settings.name();
  }

  /** SHA-256 of this node's certificate, as a session file's compute_nodes lists it. */
  public byte[] certificateSha256() {
    return ownFingerprint.clone();
  }

  int threads() {
    return settings.threads();
  }

  /** Waits until the server stops. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** The service (for tests: its sessions and shares). */
  NodeService service() {
    return service;
  }

  /** Stops listening; every session ends and its shares are erased. */
  @Override
  public void close() {
    sweeper.shutdownNow();
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    connections.close();
    service.endAll();
  }

  /** What this node received, sent and spent over the rounds it released. */
  public synchronized Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("node", settings.name());
    m.put("rounds_released", rounds);
    m.put("bytes_in", bytesIn);
    m.put("bytes_out", bytesOut);
    m.put("cpu_seconds", cpuNanos / 1e9);
    return m;
  }

  synchronized void record(NodeRound r) {
    rounds++;
    bytesIn += r.bytesIn;
    bytesOut += r.bytesOut;
    cpuNanos += r.cpuNanos;
    Runnable l = listener;
    if (l != null) {
      new Thread(l, "helmet-node-stats").start();
    }
  }

  private volatile Runnable listener;

  /** Runs {@code r} (on its own thread) after every released round, e.g. to write the totals. */
  public void onRelease(Runnable r) {
    listener = r;
  }

  /**
   * Why the caller (its certificate, DER) may not control this node, or null. With a coordinator
   * address set, the first control call of a session ({@code published} non-null, an Open) fetches
   * the coordinator's certificate and published configuration there, and the caller must hold that
   * certificate and send that configuration.
   */
  String controlProblem(byte[] caller, SessionConfig published) {
    String role = NodeTls.coordinatorProblem(caller);
    if (role != null) {
      return "the caller is not the coordinator: " + role;
    }
    if (settings.coordinator() == null) {
      return null;
    }
    if (published != null) {
      String why = fetchCoordinator(published);
      if (why != null) {
        return why;
      }
    }
    byte[] pin = pinnedCoordinator.get();
    if (pin == null) {
      return "no session was opened through the coordinator at " + settings.coordinator();
    }
    if (!MessageDigest.isEqual(pin, IdentityBinding.fingerprint(caller))) {
      return "the caller's certificate is not the one the coordinator at " + settings.coordinator() + " presents";
    }
    return null;
  }

  private String fetchCoordinator(SessionConfig sent) {
    AtomicReference<X509Certificate> seen = new AtomicReference<>();
    ManagedChannel ch = NettyChannelBuilder.forTarget(settings.coordinator(), NodeTls.capturing(settings.tls(), seen::set))
        .maxInboundMessageSize(Participant.MAX_INBOUND_BYTES).build();
    try {
      SessionConfig published = CoordinatorGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
          .getSession(GetSessionRequest.getDefaultInstance());
      if (seen.get() == null) {
        return "the coordinator at " + settings.coordinator() + " presented no certificate";
      }
      if (!published.equals(sent)) {
        return "the configuration differs from the one the coordinator at " + settings.coordinator() + " publishes";
      }
      pinnedCoordinator.set(IdentityBinding.fingerprint(seen.get().getEncoded()));
      return null;
    } catch (StatusRuntimeException | java.security.cert.CertificateEncodingException e) {
      return "cannot reach the coordinator at " + settings.coordinator() + " to check the session: " + e.getMessage();
    } finally {
      ch.shutdownNow();
    }
  }

  /**
   * Checks an Open's configuration and roster and derives what this node needs; the message names
   * the first problem.
   */
  NodeService.Session admit(SessionConfig config, Roster roster) {
    SessionPlan.validate(config);
    if (!SessionPlan.dca(config)) {
      throw new IllegalArgumentException("the session sums through " + config.getProtocol() + ", not dca");
    }
    int node = -1;
    for (int l = 0; l < config.getComputeNodesCount(); l++) {
      if (MessageDigest.isEqual(config.getComputeNodes(l).getCertificateSha256().toByteArray(), ownFingerprint)) {
        node = l;
      }
    }
    if (node < 0) {
      throw new IllegalArgumentException("this node's certificate is not among the session's compute_nodes");
    }
    SessionPlan.validateRoster(config, roster);
    if (roster.getPartiesCount() < config.getMinContributors()) {
      throw new IllegalArgumentException("the roster lists " + roster.getPartiesCount() + " parties, fewer than "
          + "min_contributors = " + config.getMinContributors());
    }
    String why = RosterCheck.problem(config, roster, ca);
    if (why != null) {
      throw new IllegalArgumentException("the roster lists " + why);
    }
    PublicPlan plan = SessionPlan.plan(config, roster);
    return new NodeService.Session(config, roster, node, plan, settings.sessionIdleSeconds());
  }
}
