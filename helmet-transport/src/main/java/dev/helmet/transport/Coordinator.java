package dev.helmet.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import dev.helmet.core.util.Version;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.protocol.Messages;
import dev.helmet.secagg.protocol.Round;
import dev.helmet.secagg.protocol.SecAggParameters;
import dev.helmet.secagg.protocol.ServerEvents;
import dev.helmet.secagg.protocol.ServerState;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Enrolled;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.GraphSeed;
import dev.helmet.transport.wire.Join;
import dev.helmet.transport.wire.NonceReveal;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.Refused;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.RosterEntry;
import dev.helmet.transport.wire.RoundStart;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.UploadGrant;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The coordinator of one networked session of any registered algorithm (one summation per round,
 * each opened by the round's public state): it publishes the configuration,
 * enrols participants over mutual TLS, runs the SecAgg/SecAgg+ server state machine (the same one
 * the in-process simulation runs) with a deadline on every round, and releases the decoded
 * model the algorithm's server role computes, recording everything (participants, round outcomes, drops
 * and rejections, the
 * release, the privacy ledger) in its database.
 *
 * <p>Memory stays bounded whatever the number of parties: masked inputs are added to a running sum
 * as they arrive and are uploaded only after an {@code UploadGrant}, at most {@code uploadSlots} at
 * a time; inbound messages are read one at a time per stream (manual flow control); and outbound
 * messages wait for a byte budget that is returned once the participant's stream has drained.
 *
 * <p>Logs name parties, rounds, sizes and reasons, never keys, shares, inputs or data.
 */
public final class Coordinator implements AutoCloseable {
  static final System.Logger LOG = System.getLogger(Coordinator.class.getName());
  /** Outbound bytes queued to participants at any time (returned as their streams drain). */
  static final int OUTBOUND_BUDGET = 16 << 20;

  /**
   * What the coordinator runs.
   *
   * @param config the session configuration to publish; session id and graph-nonce commitment are
   *     filled in at start
   * @param host the address to listen on
   * @param port the port (0: any free port)
   * @param tls the coordinator's TLS files, or null for plaintext (allowed on loopback only)
   * @param databaseUrl JDBC URL of the database (H2 file or PostgreSQL)
   * @param databaseUser database user ("" for H2)
   * @param databasePassword database password ("" for H2)
   * @param budgetEpsilon the data set's total eps budget, or NaN to use the one its data set has in the
   *     database (a data set's budget is set once; later changes go through {@code helmet budget set})
   * @param budgetDelta the data set's total delta budget
   * @param uploadSlots masked inputs uploaded at once
   * @param connections what peers may hold open on the port before showing a certificate (null: the
   *     defaults for the session's parties, {@link ConnectionLimits#forParties})
   * @param transport where the server builder comes from (null: {@link Transport#NETTY}, the only
   *     one outside this package; tests put theirs here through {@link #withTransport})
   */
  public record Settings(
      SessionConfig config,
      String host,
      int port,
      Tls.Files tls,
      String databaseUrl,
      String databaseUser,
      String databasePassword,
      double budgetEpsilon,
      double budgetDelta,
      int uploadSlots,
      ConnectionLimits connections,
      Transport transport) {
    public Settings {
      if (uploadSlots < 1) {
        throw new IllegalArgumentException("upload slots must be positive. Provided value: " + uploadSlots);
      }
      if (!Double.isNaN(budgetEpsilon) && (!(budgetEpsilon > 0) || !(budgetDelta >= 0))) {
        throw new IllegalArgumentException("the privacy budget must have eps > 0 and delta >= 0");
      }
      if (connections == null) {
        connections = ConnectionLimits.forParties(config.getParties());
      }
      if (transport == null) {
        transport = Transport.NETTY;
      }
    }

    /** Settings over TCP ({@link Transport#NETTY}). */
    public Settings(SessionConfig config, String host, int port, Tls.Files tls, String databaseUrl,
        String databaseUser, String databasePassword, double budgetEpsilon, double budgetDelta, int uploadSlots,
        ConnectionLimits connections) {
      this(config, host, port, tls, databaseUrl, databaseUser, databasePassword, budgetEpsilon, budgetDelta,
          uploadSlots, connections, null);
    }

    /** Settings with the default connection limits for the session's parties. */
    public Settings(SessionConfig config, String host, int port, Tls.Files tls, String databaseUrl,
        String databaseUser, String databasePassword, double budgetEpsilon, double budgetDelta, int uploadSlots) {
      this(config, host, port, tls, databaseUrl, databaseUser, databasePassword, budgetEpsilon, budgetDelta,
          uploadSlots, null, null);
    }

    /** The same settings with other connection limits. */
    public Settings withConnections(ConnectionLimits limits) {
      return new Settings(config, host, port, tls, databaseUrl, databaseUser, databasePassword, budgetEpsilon,
          budgetDelta, uploadSlots, limits, transport);
    }

    /** The same settings over another transport (this package's tests: their in-process network). */
    Settings withTransport(Transport t) {
      return new Settings(config, host, port, tls, databaseUrl, databaseUser, databasePassword, budgetEpsilon,
          budgetDelta, uploadSlots, connections, t);
    }
  }

  /**
   * What peers may hold open on the coordinator's port, before they have shown a certificate and
   * under each certificate after (security review turn 3, T3-5; enforced by {@link ConnectionGuard}).
   * Honest parties keep one connection each (a second while reconnecting), each under its own
   * certificate, and finish their TLS handshake within milliseconds of connecting, so the defaults
   * do not refuse them, on loopback runs of thousands of parties either (a participant turned away
   * sees UNAVAILABLE and tries again).
   *
   * @param maxConnections connections open at once; one more is closed as soon as it is accepted
   * @param maxHandshakesPerAddress connections of one remote address open at once without a
   *     completed TLS handshake; one more is closed as soon as it is accepted
   * @param handshakeStartSeconds a connection that sends nothing (no TLS ClientHello) for this long
   *     is closed; one that has started has {@link #HANDSHAKE_TIMEOUT_SECONDS} to finish
   * @param maxConnectionsPerCertificate connections open at once under one client certificate
   *     (security review turn 3, T3-5, attacker's read): one more is closed right after its TLS
   *     handshake, so one certificate of the CA cannot take the slots of the total from everyone
   *     else; an honest party uses one, two while it reconnects
   */
  public record ConnectionLimits(int maxConnections, int maxHandshakesPerAddress, int handshakeStartSeconds,
      int maxConnectionsPerCertificate) {
    /**
     * The default of {@code maxConnectionsPerCertificate}: a party's connection, a second while it
     * reconnects after a drop and the old one is still closing, and slack for a retry.
     */
    public static final int DEFAULT_CONNECTIONS_PER_CERTIFICATE = 4;

    /** With the default {@code maxConnectionsPerCertificate}. */
    public ConnectionLimits(int maxConnections, int maxHandshakesPerAddress, int handshakeStartSeconds) {
      this(maxConnections, maxHandshakesPerAddress, handshakeStartSeconds, DEFAULT_CONNECTIONS_PER_CERTIFICATE);
    }

    public ConnectionLimits {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("the connection cap must be at least 1. Provided value: " + maxConnections);
      }
      if (maxHandshakesPerAddress < 1) {
        throw new IllegalArgumentException("the cap on handshakes per address must be at least 1. Provided value: "
            + maxHandshakesPerAddress);
      }
      if (handshakeStartSeconds < 1 || handshakeStartSeconds > HANDSHAKE_TIMEOUT_SECONDS) {
        throw new IllegalArgumentException("the seconds a connection may stay silent must be in [1, "
            + HANDSHAKE_TIMEOUT_SECONDS + "] (the TLS handshake's timeout). Provided value: " + handshakeStartSeconds);
      }
      if (maxConnectionsPerCertificate < 1) {
        throw new IllegalArgumentException("the cap on connections per certificate must be at least 1. Provided value: "
            + maxConnectionsPerCertificate);
      }
    }

    /**
     * The defaults for a session of {@code parties}: four connections per party plus 256 (compute
     * nodes, reconnections, status probes), at least 1,024; as many handshakes per address as
     * there are parties, at least 64 (every party of a study behind one address or NAT, or a
     * loopback benchmark, connects at once), so one address takes at most a quarter of the total;
     * 5 s to start the handshake; {@link #DEFAULT_CONNECTIONS_PER_CERTIFICATE} per certificate.
     */
    public static ConnectionLimits forParties(int parties) {
      long total = Math.max(1024L, 4L * parties + 256);
      return new ConnectionLimits((int) Math.min(Integer.MAX_VALUE, total), Math.max(64, parties), 5);
    }
  }

  /**
   * Seconds a connection has to complete its TLS handshake: gRPC closes it after, and so does
   * Netty's TLS handler, whose own default is the same 10 s.
   */
  static final int HANDSHAKE_TIMEOUT_SECONDS = 10;

  /** How the session ended. */
  public record Result(
      String sessionId,
      boolean completed,
      String reason,
      ReleasedModel model,
      double epsilon,
      double delta,
      int enrolled,
      List<Integer> contributors,
      List<SummationOutcome.Drop> dropped,
      long serverBytes,
      long bytesPerParticipant,
      double seconds,
      Map<String, Object> parameters) {}

  enum Phase { ENROLLING, RUNNING, DONE }

  final Settings settings;
  final SessionConfig config;
  final byte[] configDigest;
  /**
   * Whether the algorithm is accounted under add-or-remove neighbours: then every party's size is
   * private, and a Join must claim max_points (the roster and the database hold only that bound).
   */
  final boolean countsPrivate;
  final String sessionHex;
  final byte[] coordinatorNonce;
  final Store store;
  final Server server;
  final Thread runner;
  final CompletableFuture<Result> result = new CompletableFuture<>();
  final Semaphore outbound = new Semaphore(OUTBOUND_BUDGET);
  /** The deployment's CA, over TLS (identity bindings are checked against it), else null. */
  final java.security.cert.X509Certificate ca;
  /** Bounds what peers hold open on the port before they show a certificate. */
  final ConnectionGuard connections;

  final ReentrantLock lock = new ReentrantLock();
  final Condition changed = lock.newCondition();
  // Guarded by lock:
  Phase phase = Phase.ENROLLING;
  final List<Peer> enrolled = new ArrayList<>();
  final List<Peer> streams = new ArrayList<>();
  /** Certificate subjects that declined this session (one stored refusal each). Lock held. */
  final java.util.Set<String> declined = new java.util.HashSet<>();
  ServerState state;
  WireCodec codec;
  final BitSet gone = new BitSet();
  final ArrayDeque<Peer> uploadQueue = new ArrayDeque<>();
  int activeUploads;
  int reportedDrops;
  long bytesInThisRound;
  int reportedRejections;
  volatile boolean closing;
  /** Set by the first {@link #close}. Guarded by this. */
  private boolean closed;
  /** Rejected messages this session (stored up to {@link #MAX_STORED_REJECTIONS}). */
  long rejections;
  /** Between the roster and the graph seed: nonce reveals are expected. */
  boolean revealing;
  /** Writes rejection events to the store in order, outside the session lock. */
  final java.util.concurrent.ExecutorService eventWriter = java.util.concurrent.Executors
      .newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "helmet-coordinator-events");
        t.setDaemon(true);
        return t;
      });

  /**
   * Rejection events of enrolled parties (and certified peers) stored per session; later ones are
   * counted only. Refused handshakes have their own budget, {@link #MAX_STORED_HANDSHAKE_REFUSALS}.
   */
  static final int MAX_STORED_REJECTIONS = 2000;
  /** Refused TLS handshakes (peers without this deployment's certificate) stored per session. */
  static final int MAX_STORED_HANDSHAKE_REFUSALS = 200;
  /** Refused TLS handshakes stored per session from one source address. */
  static final int MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE = 10;
  /** Refused TLS handshakes this session, all counted. Guarded by lock. */
  long handshakeRefusals;
  /** Of those, the ones stored, in all and per source address (no more entries than stored ones). Guarded by lock. */
  int storedHandshakeRefusals;
  final Map<String, Integer> storedRefusalsBySource = new java.util.HashMap<>();
  /** When the next log line about refused handshakes that were not stored may be written. Guarded by lock. */
  long nextRefusalReport = System.nanoTime();
  /** Rejected messages after which a peer is disconnected. */
  static final int MAX_REJECTIONS_PER_PEER = 1000;
  /** Open streams per client certificate (a participant and one reconnection). */
  static final int MAX_STREAMS_PER_CERTIFICATE = 2;


  /** The round driver, what participants send, what goes out, and the event record. */
  final RoundDriver driver = new RoundDriver(this);
  final Inbound inbound = new Inbound(this);
  final Outbound out = new Outbound(this);
  final EventLog events = new EventLog(this);

  private Coordinator(Settings s, Store store) throws IOException {
    this.settings = s;
    this.store = store;
    this.coordinatorNonce = Secrets.bytes(32);
    byte[] sessionId = Secrets.bytes(16);
    this.config = s.config().toBuilder()
        .setSessionId(ByteString.copyFrom(sessionId))
        .setGraphNonceCommitment(ByteString.copyFrom(SessionPlan.sha256(coordinatorNonce)))
        .build();
    SessionPlan.validate(config);
    if (SessionPlan.dca(config) && s.tls() == null) {
      throw new IllegalArgumentException("protocol dca needs mutual TLS (the compute nodes know the parties and the "
          + "coordinator by their certificates); give tls files");
    }
    this.configDigest = SessionPlan.digest(config);
    this.countsPrivate = SessionPlan.spec(config).sizesPrivate();
    this.sessionHex = HexFormat.of().formatHex(sessionId);
    this.ca = s.tls() == null ? null : IdentityBinding.ca(s.tls());
    InetAddress address = InetAddress.getByName(s.host());
    ServerCredentials creds;
    if (s.tls() == null) {
      if (!address.isLoopbackAddress()) {
        throw new IllegalArgumentException("plaintext is allowed on a loopback address only; " + s.host()
            + " is not one (give TLS files, e.g. from `helmet certs`)");
      }
      creds = Tls.plaintextServer();
    } else {
      creds = Tls.server(s.tls(), this::peerOf, this::handshakeRefused);
    }
    int maxMessage = maxInboundBytes(config);
    this.connections = new ConnectionGuard(s.connections(), "session " + sessionHex);
    this.server = s.transport().server(new InetSocketAddress(address, s.port()), creds, tcp -> connections.install(tcp)
            .flowControlWindow(64 << 10)
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            // Bounds on what one client can hold open: calls per connection, header size, and a
            // handshake that must finish promptly (the number of connections: ConnectionGuard).
            .maxConcurrentCallsPerConnection(4)
            // HTTP/2 "rapid reset": calls opened and cancelled at once are not counted as open, so their
            // rate is bounded too (200 resets per 10 s per connection, then the connection is closed)
            .maxRstFramesPerWindow(200, 10)
            .handshakeTimeout(HANDSHAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            // A connection with no call open (a participant training between GetSession and its
            // stream, or a peer that only connects) is closed after a minute; gRPC clients reconnect.
            .maxConnectionIdle(60, TimeUnit.SECONDS))
        .addService(ServerInterceptors.intercept(new CoordinatorService(this), new Tls.PeerInterceptor()))
        .maxInboundMessageSize(maxMessage)
        .maxInboundMetadataSize(16 << 10)
        .build();
    this.runner = new Thread(driver::runSession, "helmet-coordinator-" + sessionHex.substring(0, 8));
    this.runner.setDaemon(true);
  }

  /**
   * Opens the database (finishing any session a previous coordinator left unfinished), reserves
   * the session's privacy budget, starts listening and opens enrolment.
   *
   * @throws dev.helmet.transport.store.BudgetExceededException if the session would take the data
   *     set past its budget (nothing is started)
   */
  public static Coordinator start(Settings s) throws IOException {
    Store store = Store.open(s.databaseUrl(), s.databaseUser(), s.databasePassword());
    Coordinator c = null;
    try {
      for (String line : store.recover()) {
        LOG.log(Level.WARNING, line);
      }
      c = new Coordinator(s, store);
      var p = c.config.getPrivacy();
      store.createSession(c.sessionHex, c.config.getName(), c.config.getDataset(),
          HexFormat.of().formatHex(c.configDigest), TextFormat.printer().printToString(c.config));
      try {
        store.reserve(c.sessionHex, c.config.getDataset(), p.getEpsilon(), p.getDelta(), s.budgetEpsilon(),
            s.budgetDelta());
      } catch (RuntimeException e) {
        store.abort(c.sessionHex, e.getMessage());
        throw e;
      }
      try {
        c.server.start();
      } catch (IOException e) {
        // Nothing ran: the reservation goes back before the database closes.
        store.abort(c.sessionHex, "could not listen on " + s.host() + ":" + s.port() + ": " + e.getMessage());
        throw new IOException("cannot listen on " + s.host() + ":" + s.port() + " (" + e.getMessage()
            + "); is another coordinator running there? The session was not started and its budget was not "
            + "charged", e);
      }
      c.runner.start();
      LOG.log(Level.INFO, "session {0} ({1}): enrolment open on port {2} for {3} parties, {4} s",
          c.sessionHex, c.config.getName(), String.valueOf(c.server.getPort()), c.config.getParties(),
          c.config.getDeadlines().getEnrolmentSeconds());
      return c;
    } catch (IOException | RuntimeException e) {
      if (c != null) {
        c.connections.close();
      }
      store.close();
      throw e;
    }
  }

  /** The peer of a TLS handshake in progress on this port, "host:port", or null if unknown. */
  private String peerOf(javax.net.ssl.SSLEngine engine) {
    InetSocketAddress a = connections.peerOf(engine);
    return a == null ? null : a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /**
   * A client certificate the CA check refused during a TLS handshake: logged and recorded under
   * the session's budget for unauthenticated refusals, apart from the rejections of enrolled
   * parties (security review turn 3, T3-8: a stranger's handshakes cannot use those up).
   */
  private void handshakeRefused(String source, String why) {
    lock.lock();
    try {
      events.handshakeRefused(source, why);
    } finally {
      lock.unlock();
    }
  }

  /** What it was started with. */
  public Settings settings() {
    return settings;
  }

  /** The published configuration (with its session id). */
  public SessionConfig config() {
    return config;
  }

  /** The session id, hex. */
  public String sessionId() {
    return sessionHex;
  }

  /** The port the coordinator listens on. */
  public int port() {
    return server.getPort();
  }

  /** The database. */
  public Store store() {
    return store;
  }

  /** Waits for the session to end. */
  public Result await(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
    try {
      return result.get(timeout, unit);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the session failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  /** Stops listening; a session still running is aborted and releases nothing. */
  @Override
  public synchronized void close() {
    // Once: a shutdown hook and the owner's try-with-resources both close on Ctrl-C; the second
    // waits for the first and returns (closing the database twice traced an H2 error).
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    runner.interrupt();
    try {
      runner.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lock.lock();
    try {
      for (Peer p : streams) {
        p.finish(Status.UNAVAILABLE.withDescription("the coordinator is shutting down"));
      }
    } finally {
      lock.unlock();
    }
    // Graceful first: finished streams still flush their last messages (the outcome) to the wire.
    server.shutdown();
    try {
      if (!server.awaitTermination(15, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    connections.close();
    events.flushEvents();
    eventWriter.shutdown();
    store.close();
  }












  long deadlineAfterRound() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(config.getDeadlines().getRoundSeconds());
  }

  /** Waits on {@link #changed} until the deadline; returns false once it has passed. */
  boolean waitUntil(long deadline) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      return false;
    }
    changed.awaitNanos(left);
    if (closing) {
      throw new InterruptedException("closing");
    }
    return true;
  }

  BitSet awaitingLive() {
    BitSet a = state.awaiting();
    a.andNot(gone);
    return a;
  }














  String stage() {
    if (setupStage != null) {
      return setupStage;
    }
    if (dcaStage != null) {
      return stagePrefix + dcaStage;
    }
    if (state == null) {
      return "ENROLMENT";
    }
    if (state.isFinal()) {
      return phase == Phase.DONE ? "FINISHED" : stagePrefix + "BETWEEN_ROUNDS";
    }
    return stage(state);
  }

  String stage(ServerState s) {
    return stagePrefix + s.round().name();
  }







  /** Summations whose sum the server computed (each is charged). Guarded by lock. */
  int releasedRounds;
  /** The SecAgg session id, once the roster is fixed. Guarded by lock. */
  long secaggSession;
  /** Prefixes recorded stage names: the round ("R3/") when a run has several, else "". Guarded by lock. */
  String stagePrefix = "";
  /** The parties gone before the current summation began whose drop an earlier one recorded. Guarded by lock. */
  BitSet absentAtStart = new BitSet();
  /** The neighbouring relation and unit of the session's charge, once the plan is known. */
  volatile String relation = "";
  /** The parties with a recorded drop. Guarded by lock. */
  final BitSet dropRecorded = new BitSet();
  /** A dca session's stage within the current round ("DCA_UPLOAD", "DCA_RELEASE"), else null. Guarded by lock. */
  String dcaStage;
  /** For the status page, guarded by lock: enrolment's deadline, the round, the stage's deadline and counts. */
  long enrolmentDeadline = System.nanoTime();
  int round = -1;
  int rounds;
  long stageDeadline;
  int stageExpected;
  int stageAnswered;
  /** Told about stages, events and the end, for metrics. */
  volatile CoordinatorListener listener = CoordinatorListener.NONE;
  /** The setup board's current step ("SETUP_3") while a plan's setup runs, else null. Guarded by lock. */
  String setupStage;
  /** The setup board while a plan's setup runs, else null. */
  volatile BoardRelay board;
  /** A dca session's drops of the current round. Guarded by lock. */
  List<SummationOutcome.Drop> dcaDrops = List.of();
  /** A dca session's rounds (the compute nodes' channels), once opened; closed when the session ends. */
  volatile DcaRounds dca;




  /** Reports stages, events and the end of the session to {@code l} (one listener; for metrics). */
  public void listen(CoordinatorListener l) {
    listener = l == null ? CoordinatorListener.NONE : l;
  }

  /** The session as it is now, for a status page. */
  public CoordinatorStatus.Live live() {
    return CoordinatorStatus.of(this);
  }

  /** The largest inbound message the configuration allows: a masked input of 64-bit elements, plus slack. */
  static int maxInboundBytes(SessionConfig c) {
    long d = SessionPlan.spec(c).length();
    long bytes = d * 8 + (1 << 20);
    return (int) Math.min(Integer.MAX_VALUE, Math.max(4L << 20, bytes));
  }
}
