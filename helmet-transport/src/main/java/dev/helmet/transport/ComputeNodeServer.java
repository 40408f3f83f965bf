package dev.helmet.transport;

import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.Codec;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * ({@link NodeService}). Its port bounds what one caller makes it hold (security review turn 3,
 * T3-5): control calls from a certificate that cannot be the coordinator's are refused before their
 * request is read ({@link ControlGate}), every other request message is held to an upload chunk's
 * size as it is read ({@link MessageBound}), a connection has at most {@link #CALLS_PER_CONNECTION}
 * calls open and is closed after a minute without one, and one certificate holds at most 4
 * connections, the coordinator's one per session more ({@link ConnectionGuard}).
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
   * @param transport where its server builder, and its channel to the coordinator, come from (null:
   *     {@link Transport#NETTY}, the only one outside this package; tests put theirs here through
   *     {@link #withTransport})
   */
  public record Settings(String name, String host, int port, Tls.Files tls, String coordinator, int threads,
      int sessionIdleSeconds, int maxSessions, Transport transport) {
    /** The default of {@code sessionIdleSeconds}: ten minutes of the coordinator's own computing. */
    public static final int DEFAULT_SESSION_IDLE_SECONDS = 600;
    /** The default of {@code maxSessions}. */
    public static final int DEFAULT_MAX_SESSIONS = 16;

    /** With the default idle limit and session cap. */
    public Settings(String name, String host, int port, Tls.Files tls, String coordinator, int threads) {
      this(name, host, port, tls, coordinator, threads, DEFAULT_SESSION_IDLE_SECONDS, DEFAULT_MAX_SESSIONS);
    }

    /** Over TCP ({@link Transport#NETTY}). */
    public Settings(String name, String host, int port, Tls.Files tls, String coordinator, int threads,
        int sessionIdleSeconds, int maxSessions) {
      this(name, host, port, tls, coordinator, threads, sessionIdleSeconds, maxSessions, null);
    }

    /** The same settings over another transport (this package's tests: their in-process network). */
    Settings withTransport(Transport t) {
      return new Settings(name, host, port, tls, coordinator, threads, sessionIdleSeconds, maxSessions, t);
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
      if (transport == null) {
        transport = Transport.NETTY;
      }
    }
  }

  /** How often idle sessions are looked for (an expired session's shares outlive its limit by at most this). */
  static final long SWEEP_SECONDS = 15;

  /**
   * The largest request message of an Open: the configuration and a roster (every party's
   * certificate and identity binding) as large as a participant accepts from the coordinator
   * ({@link Participant#MAX_INBOUND_BYTES}), plus slack. The port's message cap; only the
   * coordinator's certificate gets a message this large read ({@link ControlGate}).
   */
  static final int OPEN_MESSAGE_BYTES = NodeService.CHUNK_BYTES + (64 << 10) + (64 << 20);

  /**
   * The largest request message of every other call: an upload's chunk (at most
   * {@link NodeService#CHUNK_BYTES} of share and a few fields), an Arrivals' or Release's bit set
   * of parties. Enforced as the message is read ({@link MessageBound}).
   */
  static final int CALL_MESSAGE_BYTES = NodeService.CHUNK_BYTES + (64 << 10);

  /** Calls one connection may have open at once, as on the coordinator's port. */
  static final int CALLS_PER_CONNECTION = 4;

  /**
   * The HTTP/2 flow-control window of each connection and stream (fixed, not grown): what a peer
   * may have sent that no call has asked to read yet.
   */
  static final int FLOW_CONTROL_WINDOW = 1 << 20;

  private static final String OPEN = ComputeNodeGrpc.getOpenMethod().getFullMethodName();
  /** The control calls, by full method name: their names in refusals. */
  private static final Map<String, String> CONTROL = Map.of(OPEN, "Open",
      ComputeNodeGrpc.getArrivalsMethod().getFullMethodName(), "Arrivals",
      ComputeNodeGrpc.getReleaseMethod().getFullMethodName(), "Release");

  private final Settings settings;
  private final Server server;
  private final ConnectionGuard connections;
  private final NodeService service;
  private final ScheduledExecutorService sweeper;
  private final byte[] ownFingerprint;
  private final X509Certificate ca;
  /** The coordinator's certificate fingerprint, once fetched (with {@code coordinator} set). */
  private final AtomicReference<byte[]> pinnedCoordinator = new AtomicReference<>();
  /** Control calls refused at their start, before their request was read. */
  private final AtomicLong refusedAtStart = new AtomicLong();
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
    // The same bounds as the coordinator's port (security review turn 3, T3-5): before TLS, those
    // of a 1,000-party session (a node serves sessions of any size); after it, per certificate.
    Coordinator.ConnectionLimits limits = Coordinator.ConnectionLimits.forParties(1000);
    this.connections = new ConnectionGuard(limits, "compute node " + s.name(),
        peer -> connectionsOf(peer, limits.maxConnectionsPerCertificate(), s.maxSessions()));
    this.server = s.transport().server(new InetSocketAddress(InetAddress.getByName(s.host()), s.port()),
            NodeTls.server(s.tls()), tcp -> connections.install(tcp)
                .flowControlWindow(FLOW_CONTROL_WINDOW)
                .permitKeepAliveTime(10, TimeUnit.SECONDS)
                .maxConcurrentCallsPerConnection(CALLS_PER_CONNECTION)
                // HTTP/2 "rapid reset": calls opened and cancelled at once are not counted as open, so
                // their rate is bounded too (200 resets per 10 s per connection, then the connection is closed)
                .maxRstFramesPerWindow(200, 10)
                .handshakeTimeout(Coordinator.HANDSHAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                // A connection with no call open is closed after a minute (a coordinator between rounds,
                // a participant between uploads, a peer that only connects); gRPC clients reconnect.
                .maxConnectionIdle(60, TimeUnit.SECONDS))
        // PeerInterceptor runs first and names the caller's certificate; ControlGate then refuses
        // a control call from a certificate that cannot be the coordinator's, before its request
        // is read.
        .addService(ServerInterceptors.intercept(service, new ControlGate(), new Tls.PeerInterceptor()))
        .addStreamTracerFactory(new MessageBound())
        // A compressed message would be inflated up to the port's cap whatever its wire size:
        // participants and the coordinator send none, so none is accepted.
        .decompressorRegistry(DecompressorRegistry.emptyInstance().with(Codec.Identity.NONE, false))
        .maxInboundMessageSize(OPEN_MESSAGE_BYTES)
        .maxInboundMetadataSize(16 << 10)
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
   * the coordinator's certificate and published configuration there (at the call's start, {@link
   * ControlGate}), and the caller must hold that certificate and send that configuration.
   */
  String controlProblem(byte[] caller, SessionConfig published) {
    String early = callerProblem(caller, published != null);
    if (early != null || settings.coordinator() == null || published == null) {
      return early;
    }
    Presented p = PRESENTED.get();
    if (p == null) {
      p = fetchCoordinator();
    }
    String why = presentedProblem(caller, p);
    if (why != null) {
      return why;
    }
    if (!p.published().equals(published)) {
      return "the configuration differs from the one the coordinator at " + settings.coordinator() + " publishes";
    }
    pinnedCoordinator.set(p.sha256());
    return null;
  }

  /**
   * What the caller's certificate alone says against its control call ({@code opening}: an Open),
   * or null: a certificate that is not a coordinator's never controls this node, and with
   * {@code coordinator} set an Arrivals or Release must come from the certificate pinned at the
   * last Open (an Open is checked against the certificate the coordinator presents now, {@link
   * #presentedProblem}).
   */
  String callerProblem(byte[] caller, boolean opening) {
    String role = NodeTls.coordinatorProblem(caller);
    if (role != null) {
      return "the caller is not the coordinator: " + role;
    }
    return settings.coordinator() == null || opening ? null : pinProblem(caller);
  }

  private String pinProblem(byte[] caller) {
    byte[] pin = pinnedCoordinator.get();
    if (pin == null) {
      return "no session was opened through the coordinator at " + settings.coordinator();
    }
    if (!MessageDigest.isEqual(pin, IdentityBinding.fingerprint(caller))) {
      return "the caller's certificate is not the one the coordinator at " + settings.coordinator() + " presents";
    }
    return null;
  }

  /** Why the caller is not the coordinator that {@code p} describes, or null. */
  private String presentedProblem(byte[] caller, Presented p) {
    if (p.problem() != null) {
      return p.problem();
    }
    if (!MessageDigest.isEqual(p.sha256(), IdentityBinding.fingerprint(caller))) {
      return "the caller's certificate is not the one the coordinator at " + settings.coordinator() + " presents";
    }
    return null;
  }

  /**
   * What the coordinator at {@code coordinator} presents: its certificate's SHA-256 and the
   * configuration it publishes, or why they are not known.
   */
  record Presented(byte[] sha256, SessionConfig published, String problem) {}

  /** The {@link Presented} an Open's call start fetched, for its check in the service. */
  private static final Context.Key<Presented> PRESENTED = Context.key("helmet-node-presented");

  private Presented fetchCoordinator() {
    AtomicReference<X509Certificate> seen = new AtomicReference<>();
    ManagedChannel ch = settings.transport().channel(settings.coordinator(), NodeTls.capturing(settings.tls(), seen::set))
        .maxInboundMessageSize(Participant.MAX_INBOUND_BYTES).build();
    try {
      SessionConfig published = CoordinatorGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
          .getSession(GetSessionRequest.getDefaultInstance());
      if (seen.get() == null) {
        return new Presented(null, null, "the coordinator at " + settings.coordinator() + " presented no certificate");
      }
      return new Presented(IdentityBinding.fingerprint(seen.get().getEncoded()), published, null);
    } catch (StatusRuntimeException | CertificateEncodingException e) {
      return new Presented(null, null, "cannot reach the coordinator at " + settings.coordinator() + " to check the "
          + "session: " + e.getMessage());
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

  /**
   * How many connections {@code cert} may hold open at this node at once: a certificate that may
   * control it (a coordinator's: serverAuth, no node marker) one per session the node can hold plus
   * {@code base}, since side-by-side sessions run from their own coordinator processes, often under
   * one certificate; any other (a participant's, a node's) {@code base}, as at the coordinator.
   */
  private static int connectionsOf(X509Certificate cert, int base, int maxSessions) {
    try {
      return NodeTls.coordinatorProblem(cert.getEncoded()) == null ? maxSessions + base : base;
    } catch (CertificateEncodingException e) {
      return base;
    }
  }

  /** Control calls refused at their start, before their request was read (for tests). */
  long refusedAtStart() {
    return refusedAtStart.get();
  }

  /** The connection guard of the port (for tests). */
  ConnectionGuard connections() {
    return connections;
  }

  /**
   * Refuses Open, Arrivals and Release from a certificate that cannot be the coordinator's when the
   * call starts, before a byte of its request is read (security review turn 3, T3-5, attacker's
   * read: gRPC read and parsed each request, up to the port's 65 MiB cap, before the service's
   * {@link #controlProblem} refused a participant, so 24 Opens on one participant connection took
   * 1.9 GB of the node's heap). Refused: a certificate that is not a coordinator's (a
   * participant's, a node's); with {@code coordinator} set, an Arrivals or Release from another
   * certificate than the pinned one, and an Open from another than the one the coordinator at that
   * address presents, which is fetched here, as the Open's check did after its request before.
   * Until a call asks for its message, what the peer sent waits in the HTTP/2 flow-control window
   * ({@link #FLOW_CONTROL_WINDOW}) and is dropped with the call. The service still checks
   * everything (the published configuration against the Open's too).
   */
  private final class ControlGate implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      String name = CONTROL.get(call.getMethodDescriptor().getFullMethodName());
      if (name == null) {
        return next.startCall(call, headers);
      }
      byte[] caller = Tls.PEER_CERTIFICATE.get();
      boolean opening = name.equals("Open");
      String why = callerProblem(caller, opening);
      Presented p = null;
      if (why == null && opening && settings.coordinator() != null) {
        p = fetchCoordinator();
        why = presentedProblem(caller, p);
      }
      if (why != null) {
        refusedAtStart.incrementAndGet();
        call.close(Status.PERMISSION_DENIED.withDescription(name + " refused: " + why), new Metadata());
        return new ServerCall.Listener<>() { };
      }
      return p == null ? next.startCall(call, headers)
          : Contexts.interceptCall(Context.current().withValue(PRESENTED, p), call, headers, next);
    }
  }

  /**
   * Holds each request message of every call but Open to {@link #CALL_MESSAGE_BYTES} while it is
   * read, not once it is whole: the port's cap must fit an Open's roster, and without this a
   * participant's upload chunk could be that large too. gRPC reports a message's body bytes to its
   * stream's tracers as it buffers them ({@link io.grpc.StreamTracer#inboundWireSize}), and the
   * status this throws there ends the stream as gRPC's own cap does (the stream is cancelled with
   * it, its buffer dropped, and gRPC logs it as it logs its own); so a request being read takes at
   * most this plus one HTTP/2 frame, and the one the service handles as much again. With
   * {@link #CALLS_PER_CONNECTION}, the fixed {@link #FLOW_CONTROL_WINDOW} for what no call asked for
   * (a refused control call's request included) and 4 connections per certificate, what one
   * participant or node certificate can make this node buffer is at most 4 connections x (4 calls
   * x 2 x 1.08 MiB + 1 MiB), under 40 MiB, where one connection took 1.9 GB before. A coordinator's
   * certificate may send Opens up to the port's cap ({@link #OPEN_MESSAGE_BYTES}) on its more
   * connections: it controls the node anyway, and with {@code coordinator} set only the one that
   * coordinator presents gets an Open read.
   */
  private static final class MessageBound extends ServerStreamTracer.Factory {
    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return OPEN.equals(fullMethodName) ? new ServerStreamTracer() { } : new Bounded(fullMethodName);
    }
  }

  /** One call's tracer: the body bytes of its message being read. */
  private static final class Bounded extends ServerStreamTracer {
    private final String method;
    /** Body bytes of the current message so far (the stream's transport thread updates it). */
    private final AtomicLong body = new AtomicLong();

    Bounded(String method) {
      this.method = method;
    }

    @Override
    public void inboundMessage(int seqNo) {
      body.set(0);
    }

    @Override
    public void inboundWireSize(long bytes) {
      if (body.addAndGet(bytes) > CALL_MESSAGE_BYTES) {
        throw Status.RESOURCE_EXHAUSTED.withDescription(method.substring(method.lastIndexOf('/') + 1) + " refused: a "
            + "request message above " + CALL_MESSAGE_BYTES + " bytes (a share travels in chunks of at most "
            + NodeService.CHUNK_BYTES + " bytes)").asRuntimeException();
      }
    }
  }
}
