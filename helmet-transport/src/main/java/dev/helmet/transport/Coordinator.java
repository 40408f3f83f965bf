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
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
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
 * The coordinator of one networked session, blind averaging (one summation) or DP-FL (one
 * summation per SGD round, each opened by the current model): it publishes the configuration,
 * enrols participants over mutual TLS, runs the SecAgg/SecAgg+ server state machine (the same one
 * the in-process simulation runs) with a deadline on every round, and releases the decoded
 * model (the noisy average, or the last DP-SGD iterate), recording everything (participants, round outcomes, drops and rejections, the
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
  private static final System.Logger LOG = System.getLogger(Coordinator.class.getName());
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
      int uploadSlots) {
    public Settings {
      if (uploadSlots < 1) {
        throw new IllegalArgumentException("upload slots must be positive. Provided value: " + uploadSlots);
      }
      if (!Double.isNaN(budgetEpsilon) && (!(budgetEpsilon > 0) || !(budgetDelta >= 0))) {
        throw new IllegalArgumentException("the privacy budget must have eps > 0 and delta >= 0");
      }
    }
  }

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

  private enum Phase { ENROLLING, RUNNING, DONE }

  private final Settings settings;
  private final SessionConfig config;
  private final byte[] configDigest;
  private final String sessionHex;
  private final byte[] coordinatorNonce;
  private final Store store;
  private final Server server;
  private final Thread runner;
  private final CompletableFuture<Result> result = new CompletableFuture<>();
  private final Semaphore outbound = new Semaphore(OUTBOUND_BUDGET);
  /** The deployment's CA, over TLS (identity bindings are checked against it), else null. */
  private final java.security.cert.X509Certificate ca;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Guarded by lock:
  private Phase phase = Phase.ENROLLING;
  private final List<Peer> enrolled = new ArrayList<>();
  private final List<Peer> streams = new ArrayList<>();
  private ServerState state;
  private WireCodec codec;
  private final BitSet gone = new BitSet();
  private final ArrayDeque<Peer> uploadQueue = new ArrayDeque<>();
  private int activeUploads;
  private int reportedDrops;
  private long bytesInThisRound;
  private int reportedRejections;
  private volatile boolean closing;
  /** Rejected messages this session (stored up to {@link #MAX_STORED_REJECTIONS}). */
  private long rejections;
  /** Between the roster and the graph seed: nonce reveals are expected. */
  private boolean revealing;
  /** Writes rejection events to the store in order, outside the session lock. */
  private final java.util.concurrent.ExecutorService eventWriter = java.util.concurrent.Executors
      .newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "helmet-coordinator-events");
        t.setDaemon(true);
        return t;
      });

  /** Rejection events stored per session; later ones are logged only. */
  static final int MAX_STORED_REJECTIONS = 2000;
  /** Rejected messages after which a peer is disconnected. */
  static final int MAX_REJECTIONS_PER_PEER = 1000;
  /** Open streams per client certificate (a participant and one reconnection). */
  static final int MAX_STREAMS_PER_CERTIFICATE = 2;

  /** One participant's stream. */
  private final class Peer {
    final ServerCallStreamObserver<CoordinatorMessage> out;
    final String subject;
    int party = -1;
    boolean joined;
    /** Over TLS: the certificate of the handshake (DER) and the identity binding from the Join. */
    final byte[] tlsCertificate;
    byte[] binding;
    int points;
    byte[] identityKey;
    /** The commitment its Join made to its graph nonce, and the nonce once revealed. */
    byte[] commitment;
    byte[] revealed;
    boolean granted;
    boolean closed;
    long pendingPermits;
    /** Messages of this peer rejected so far. */
    int rejections;
    long bytesIn;
    long bytesOut;

    Peer(ServerCallStreamObserver<CoordinatorMessage> out, String subject, byte[] tlsCertificate) {
      this.out = out;
      this.subject = subject;
      this.tlsCertificate = tlsCertificate;
    }

    String name() {
      return party >= 0 ? "party " + party + " (" + subjectOrPlain() + ")"
          : (joined ? "enrolled peer " : "unenrolled peer ") + subjectOrPlain();
    }

    String subjectOrPlain() {
      return subject.isEmpty() ? "plaintext" : subject;
    }

    /** Sends a control message (small; not counted against the outbound budget). */
    synchronized void sendSmall(CoordinatorMessage m) {
      if (closed) {
        return;
      }
      bytesOut += m.getSerializedSize();
      try {
        out.onNext(m);
      } catch (RuntimeException e) {
        closed = true;
      }
    }

    /** Sends a message holding {@code permits} of the outbound budget until the stream drains. */
    void sendCounted(CoordinatorMessage m, int permits) {
      synchronized (this) {
        if (closed) {
          outbound.release(permits);
          return;
        }
        bytesOut += m.getSerializedSize();
        try {
          out.onNext(m);
        } catch (RuntimeException e) {
          closed = true;
          outbound.release(permits);
          return;
        }
        pendingPermits += permits;
      }
      drained();
    }

    /** Returns this stream's permits once gRPC has passed its queued bytes to the network. */
    synchronized void drained() {
      if (pendingPermits > 0 && (closed || out.isReady())) {
        outbound.release((int) pendingPermits);
        pendingPermits = 0;
      }
    }

    synchronized void finish(Status status) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (status.isOk()) {
          out.onCompleted();
        } else {
          out.onError(status.asRuntimeException());
        }
      } catch (RuntimeException e) {
        // the stream is already gone
      }
      if (pendingPermits > 0) {
        outbound.release((int) pendingPermits);
        pendingPermits = 0;
      }
    }
  }

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
    this.configDigest = SessionPlan.digest(config);
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
      creds = Tls.server(s.tls());
    }
    int maxMessage = maxInboundBytes(config);
    this.server = NettyServerBuilder.forAddress(new InetSocketAddress(address, s.port()), creds)
        .addService(ServerInterceptors.intercept(new Service(), new Tls.PeerInterceptor()))
        .maxInboundMessageSize(maxMessage)
        .flowControlWindow(64 << 10)
        .permitKeepAliveTime(10, TimeUnit.SECONDS)
        // Bounds on what one client can hold open: calls per connection, header size, and a
        // handshake that must finish promptly.
        .maxConcurrentCallsPerConnection(4)
        .maxInboundMetadataSize(16 << 10)
        .handshakeTimeout(20, TimeUnit.SECONDS)
        .build();
    this.runner = new Thread(this::runSession, "helmet-coordinator-" + sessionHex.substring(0, 8));
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
    try {
      for (String line : store.recover()) {
        LOG.log(Level.WARNING, line);
      }
      Coordinator c = new Coordinator(s, store);
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
      c.server.start();
      c.runner.start();
      LOG.log(Level.INFO, "session {0} ({1}): enrolment open on port {2} for {3} parties, {4} s",
          c.sessionHex, c.config.getName(), String.valueOf(c.server.getPort()), c.config.getParties(),
          c.config.getDeadlines().getEnrolmentSeconds());
      return c;
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
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
  public void close() {
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
    flushEvents();
    eventWriter.shutdown();
    store.close();
  }

  // ----- the session -----

  /** Thrown inside the runner to end the session without a release. */
  private static final class Abort extends Exception {
    private static final long serialVersionUID = 1L;

    Abort(String reason) {
      super(reason, null, false, false);
    }
  }

  private void runSession() {
    long start = System.nanoTime();
    try {
      Result r = runRounds(start);
      flushEvents();
      result.complete(r);
    } catch (Abort a) {
      finishAborted(a.getMessage(), start);
    } catch (InterruptedException e) {
      finishAborted("the coordinator was stopped", start);
    } catch (RuntimeException | Error e) {
      // Whatever happens, the session ends with a recorded abort and nothing released.
      LOG.log(Level.ERROR, "session " + sessionHex + " failed", e);
      finishAborted("internal error: " + e, start);
    }
  }

  private Result runRounds(long start) throws Abort, InterruptedException {
    // Enrolment.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.getDeadlines().getEnrolmentSeconds());
    int n;
    lock.lock();
    try {
      while (enrolled.size() < config.getParties() && waitUntil(deadline)) {
        // woken by a join
      }
      phase = Phase.RUNNING;
      n = enrolled.size();
      for (int i = 0; i < n; i++) {
        enrolled.get(i).party = i;
      }
    } finally {
      lock.unlock();
    }
    if (n < config.getMinContributors()) {
      throw new Abort("only " + n + " of " + config.getParties() + " parties joined before the enrolment deadline; "
          + config.getMinContributors() + " are needed");
    }
    Roster.Builder roster = Roster.newBuilder().setCoordinatorNonce(ByteString.copyFrom(coordinatorNonce));
    for (Peer p : enrolled) {
      store.participant(sessionHex, p.party, p.subject, p.points);
      roster.addParties(RosterEntry.newBuilder().setParty(p.party).setPoints(p.points)
          .setIdentityKey(ByteString.copyFrom(p.identityKey)).setNonceCommitment(ByteString.copyFrom(p.commitment))
          .setSubject(p.subject).setCertificateSha256(p.tlsCertificate == null ? ByteString.EMPTY
              : ByteString.copyFrom(IdentityBinding.fingerprint(p.tlsCertificate))));
    }
    AlgorithmSpec spec = SessionPlan.spec(config);
    PublicPlan plan;
    Roster built = roster.build();
    try {
      plan = spec.plan(SessionPlan.sizes(built), (int) config.getMinContributors());
      SessionPlan.validateRoster(config, built);
    } catch (IllegalArgumentException e) {
      throw new Abort("the enrolled parties admit no plan: " + e.getMessage());
    }
    // What each released round will cost, stored before any can be released (so an abort or a
    // restart charges exactly the released rounds).
    store.charge(sessionHex, plan.charge());
    CoordinatorMessage rosterMessage = CoordinatorMessage.newBuilder().setRoster(built).build();
    lock.lock();
    try {
      revealing = true; // before the roster goes out: a party answers it with its reveal at once
    } finally {
      lock.unlock();
    }
    for (Peer p : enrolled) {
      sendCounted(p, rosterMessage, deadlineAfterRound());
    }
    List<byte[]> nonces = awaitReveals(n);
    SecAggParameters params;
    try {
      params = SessionPlan.secagg(config, built, nonces, plan.length(), plan.encoding().ringBits());
    } catch (IllegalArgumentException e) {
      throw new Abort("the enrolled parties admit no SecAgg parameters: " + e.getMessage());
    }
    CryptoProfile profile = new CryptoProfile();
    int rounds = plan.rounds();
    LOG.log(Level.INFO, "session {0}: {1} parties enrolled; {2}, threshold {3}; {4} values per input, {5}-bit ring; "
        + "{6}, {7} round(s)", sessionHex, n, params.graph().description(), params.threshold(), params.length(),
        params.ringBits(), spec.algorithm().id(), rounds);
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("graph", params.graph().description());
    parameters.put("neighbours", params.graph().degree());
    parameters.put("threshold", params.threshold());
    parameters.put("min_contributors", params.minSurvivors());
    parameters.put("colluding_fraction", config.getColludingFraction());
    GraphSeed.Builder seed = GraphSeed.newBuilder().setNeighbours(params.graph().degree())
        .setThreshold(params.threshold()).setSecaggSession(params.session());
    for (byte[] nonce : nonces) {
      seed.addNonces(ByteString.copyFrom(nonce));
    }
    CoordinatorMessage seedMessage = CoordinatorMessage.newBuilder().setGraphSeed(seed).build();
    for (Peer p : enrolled) {
      if (!gone.get(p.party)) {
        sendCounted(p, seedMessage, deadlineAfterRound());
      }
    }

    // Every round: the public state, one summation on the same streams, the server's step.
    List<SummationOutcome.Drop> drops = new ArrayList<>();
    ServerRole server = plan.server();
    byte[] graphSeed = SessionPlan.graphSeed(config, built, nonces);
    ServerState.Completed done = null;
    int fewest = n;
    for (int r = 0; r < rounds; r++) {
      SecAggParameters pr = r == 0 ? params : SessionPlan.forRound(config, params, graphSeed, r);
      CoordinatorMessage opening = CoordinatorMessage.newBuilder().setRoundStart(RoundStart.newBuilder().setRound(r)
          .setSecaggSession(pr.session()).setState(ByteString.copyFrom(server.state(r)))).build();
      String prefix = rounds > 1 ? "R" + r + "/" : "";
      done = summation(pr, profile, prefix, opening);
      for (SummationOutcome.Drop d : drops(done)) {
        if (!absentAtStart.get(d.party())) {
          drops.add(new SummationOutcome.Drop(d.party(), prefix + d.round(), d.reason(), d.detail()));
        }
      }
      int[] contributors = done.contributors().stream().toArray();
      fewest = Math.min(fewest, contributors.length);
      server.step(r, plan.encoding().decode(done.sum()), contributors);
      if (rounds > 1) {
        LOG.log(Level.INFO, "session {0}: round {1} of {2} summed {3} contributors", sessionHex, r + 1, rounds,
            contributors.length);
      }
    }
    String protocolName = config.getProtocol() + " over gRPC";
    dev.helmet.core.learn.LinearModel weights = server.model();
    dev.helmet.privacy.ledger.PrivacyLedger ledger = plan.ledger(fewest, protocolName, false);
    List<Integer> contributors = done.contributors().stream().boxed().toList();
    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", Version.get());
    provenance.put("created", Instant.now().toString());
    provenance.put("session", sessionHex);
    provenance.put("session_name", config.getName());
    provenance.put("dataset", config.getDataset());
    provenance.put("parties", n);
    provenance.put("contributors", contributors.size());
    provenance.put("protocol", protocolName);
    provenance.put("algorithm", spec.algorithm().id());
    provenance.put("rounds", rounds);
    ReleasedModel model = new ReleasedModel(weights, spec.preprocessing(), SessionPlan.labels(config),
        (int) config.getFeatures(), spec.learner(), ledger, provenance);
    String json = ModelFile.toJson(model).toString();
    double eps = ledger.epsilon();
    double delta = ledger.delta();
    // The release and the ledger's charge are one transaction: either both are recorded or neither.
    store.release(sessionHex, json, contributors.size(), eps, delta);
    lock.lock();
    try {
      phase = Phase.DONE;
    } finally {
      lock.unlock();
    }
    LOG.log(Level.INFO, "session {0}: released the model of {1} contributors, eps = {2}, delta = {3}", sessionHex,
        contributors.size(), eps, delta);
    Outcome o = Outcome.newBuilder().setStatus("completed").setModelGzip(ByteString.copyFrom(gzip(json)))
        .addAllContributors(contributors).setRounds(SessionPlan.rounds(config))
        .setEpsilon(eps).setDelta(delta).build();
    broadcastOutcome(o);
    long total = 0;
    for (Peer p : enrolled) {
      total += p.bytesIn + p.bytesOut;
    }
    return new Result(sessionHex, true, "", model, eps, delta, n, contributors, drops, total, total / n,
        (System.nanoTime() - start) / 1e9, parameters);
  }

  /**
   * Runs one secure summation (SecAgg rounds 0 to 4) with the deadlines of the configuration.
   *
   * @param stagePrefix prefixes the stage names recorded (DP-FL: the round, "R3/")
   * @param opening sent to every connected party once the summation's state exists, so no answer
   *     can arrive before it (DP-FL's RoundStart), or null
   * @return the completed state, with the sum
   * @throws Abort if the summation aborted (nothing of it is released)
   */
  private ServerState.Completed summation(SecAggParameters params, CryptoProfile profile, String stagePrefix,
      CoordinatorMessage opening) throws Abort, InterruptedException {
    List<Peer> live = new ArrayList<>();
    lock.lock();
    try {
      codec = new WireCodec(params.graph().parties(), params.length(), params.ringBits());
      secaggSession = params.session();
      state = ServerState.start(params, profile);
      reportedDrops = 0;
      reportedRejections = 0;
      this.stagePrefix = stagePrefix;
      // A party that left is dropped again by every later summation; its drop is recorded once. A
      // party that left before its first drop was recorded (e.g. between the roster and round 0)
      // is recorded here as usual.
      absentAtStart = (BitSet) gone.clone();
      absentAtStart.and(dropRecorded);
      for (Peer p : enrolled) {
        if (!gone.get(p.party)) {
          live.add(p);
        }
      }
    } finally {
      lock.unlock();
    }
    if (opening != null) {
      long sendBy = deadlineAfterRound();
      for (Peer p : live) {
        sendCounted(p, opening, sendBy);
      }
    }
    ServerState current;
    while (true) {
      lock.lock();
      try {
        current = state;
        if (current.isFinal()) {
          break;
        }
        store.stage(sessionHex, Store.Status.RUNNING, stagePrefix + current.round().name());
        int expected = current.awaiting().cardinality();
        long roundDeadline = deadlineAfterRound();
        while (!awaitingLive().isEmpty() && waitUntil(roundDeadline)) {
          // woken by a message or a departure
        }
        int answered = expected - current.awaiting().cardinality();
        boolean unmasking = current.round() == Round.UNMASKING;
        if (unmasking) {
          // Closing the unmasking round computes the sum: charge the round first (a crash in
          // between over-charges, which is safe), and take the charge back only if it aborts.
          store.roundsReleased(sessionHex, releasedRounds + 1);
        }
        ServerState.Transition tr = current.close();
        state = tr.next();
        if (unmasking) {
          if (state instanceof ServerState.Completed) {
            releasedRounds++;
          } else {
            store.roundsReleased(sessionHex, releasedRounds);
          }
        }
        recordEvents(stage(current));
        store.roundOutcome(sessionHex, stage(current), expected, answered);
        LOG.log(Level.INFO, "session {0}: {1}{2} closed, {3} of {4} answered, {5} B received", sessionHex, stagePrefix,
            current.round(), answered, expected, bytesInThisRound);
        bytesInThisRound = 0;
        if (state.isFinal()) {
          current = state;
          break;
        }
        uploadQueue.clear();
        activeUploads = 0;
        for (Peer p : enrolled) {
          p.granted = false;
        }
        sendRound(tr.outgoing());
      } finally {
        if (lock.isHeldByCurrentThread()) {
          lock.unlock();
        }
      }
    }
    if (current instanceof ServerState.Aborted a) {
      throw new Abort((stagePrefix.isEmpty() ? "" : "round " + stagePrefix.substring(1, stagePrefix.length() - 1)
          + ": ") + "secure aggregation aborted: " + a.reason() + ": " + a.detail());
    }
    return (ServerState.Completed) current;
  }

  private void finishAborted(String why, long start) {
    int released;
    lock.lock();
    try {
      released = releasedRounds;
    } finally {
      lock.unlock();
    }
    String reason = why;
    double charged = 0;
    try {
      charged = store.abort(sessionHex, why + (released == 0 ? "; nothing was released"
          : "; " + released + " round(s) were released and are charged"));
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "could not record the abort of session " + sessionHex, e);
    }
    reason = why + (released == 0 ? "; nothing was released and the reservation is refunded"
        : String.format(java.util.Locale.ROOT, "; %d of %d rounds were released before it and are charged "
            + "(eps = %.4g)", released, SessionPlan.rounds(config), charged));
    LOG.log(Level.WARNING, "session {0} aborted: {1}", sessionHex, reason);
    List<SummationOutcome.Drop> drops;
    lock.lock();
    try {
      phase = Phase.DONE;
      drops = state == null ? List.of() : drops(state);
    } finally {
      lock.unlock();
    }
    if (!closing) {
      broadcastOutcome(Outcome.newBuilder().setStatus("aborted").setReason(reason).build());
    }
    long bytes = 0;
    int n;
    lock.lock();
    try {
      n = enrolled.size();
      for (Peer p : enrolled) {
        bytes += p.bytesIn + p.bytesOut;
      }
    } finally {
      lock.unlock();
    }
    flushEvents();
    // An aborted session's epsilon is what its released rounds cost (0: nothing was released).
    result.complete(new Result(sessionHex, false, reason, null, charged, released == 0 ? 0 : config.getPrivacy()
        .getDelta(), n, List.of(), drops, bytes,
        n == 0 ? 0 : bytes / n, (System.nanoTime() - start) / 1e9, Map.of()));
  }

  private static List<SummationOutcome.Drop> drops(ServerState s) {
    List<SummationOutcome.Drop> out = new ArrayList<>();
    for (ServerEvents.Drop d : s.drops()) {
      out.add(new SummationOutcome.Drop(d.party(), d.round().name(), d.reason().name(), d.detail()));
    }
    return out;
  }

  private void broadcastOutcome(Outcome o) {
    CoordinatorMessage m = CoordinatorMessage.newBuilder().setOutcome(o).build();
    List<Peer> all;
    lock.lock();
    try {
      all = new ArrayList<>(streams);
    } finally {
      lock.unlock();
    }
    long deadline = deadlineAfterRound();
    for (Peer p : all) {
      if (p.party >= 0) {
        sendCounted(p, m, deadline);
      }
      p.finish(Status.OK);
    }
  }

  /**
   * Waits (one round deadline) for every connected party's nonce reveal; returns them in roster
   * order, empty for a party that did not reveal (it is then treated as gone: over the complete
   * graph, which does not depend on the nonces, that is an ordinary dropout; SecAgg+ refuses it in
   * {@link SessionPlan#secagg}, since withholding reveals would let parties choose among graphs).
   */
  private List<byte[]> awaitReveals(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.getDeadlines().getRoundSeconds());
    lock.lock();
    try {
      while (!liveRevealed() && waitUntil(deadline)) {
        // woken by a reveal or a departure
      }
      revealing = false;
      List<byte[]> nonces = new ArrayList<>(n);
      for (Peer p : enrolled) {
        if (p.revealed == null) {
          gone.set(p.party);
          LOG.log(Level.INFO, "session {0}: {1} did not reveal its graph nonce", sessionHex, p.name());
        }
        nonces.add(p.revealed == null ? new byte[0] : p.revealed);
      }
      return nonces;
    } finally {
      lock.unlock();
    }
  }

  /** Whether every party still connected has revealed its nonce (lock held). */
  private boolean liveRevealed() {
    for (Peer p : enrolled) {
      if (p.revealed == null && !gone.get(p.party)) {
        return false;
      }
    }
    return true;
  }

  /** A party's nonce reveal (lock held). */
  private void reveal(Peer peer, NonceReveal r) {
    if (!revealing || peer.party < 0) {
      reject(peer, stage(), "WRONG_ROUND", "a nonce reveal from " + peer.name() + " that is not expected now");
    } else if (peer.revealed != null) {
      reject(peer, stage(), "REPLAYED", "a second nonce reveal from " + peer.name());
    } else if (r.getSender() != peer.party) {
      reject(peer, stage(), "IMPERSONATION", "a nonce reveal claiming to be from party " + r.getSender()
          + " on the stream of " + peer.name());
    } else if (!java.security.MessageDigest.isEqual(SessionPlan.nonceCommitment(r.getNonce().toByteArray()),
        peer.commitment)) {
      reject(peer, stage(), "MALFORMED", "the nonce revealed by " + peer.name() + " does not match its commitment");
    } else {
      peer.revealed = r.getNonce().toByteArray();
      if (liveRevealed()) {
        changed.signalAll();
      }
    }
  }

  private long deadlineAfterRound() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(config.getDeadlines().getRoundSeconds());
  }

  /** Waits on {@link #changed} until the deadline; returns false once it has passed. */
  private boolean waitUntil(long deadline) throws InterruptedException {
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

  private BitSet awaitingLive() {
    BitSet a = state.awaiting();
    a.andNot(gone);
    return a;
  }

  /** Sends the round's messages (with the lock released while waiting for outbound budget). */
  private void sendRound(Map<Integer, Messages.ServerMessage> outgoing) {
    List<Map.Entry<Peer, CoordinatorMessage>> batch = new ArrayList<>();
    for (Map.Entry<Integer, Messages.ServerMessage> e : outgoing.entrySet()) {
      Peer p = enrolled.get(e.getKey());
      if (!gone.get(p.party)) {
        batch.add(Map.entry(p, encode(e.getValue())));
      }
    }
    lock.unlock();
    long deadline = deadlineAfterRound();
    long bytes = 0;
    for (Map.Entry<Peer, CoordinatorMessage> e : batch) {
      bytes += e.getValue().getSerializedSize();
      sendCounted(e.getKey(), e.getValue(), deadline);
    }
    LOG.log(Level.INFO, "session {0}: sent {1} messages, {2} B", sessionHex, batch.size(), bytes);
  }

  private CoordinatorMessage encode(Messages.ServerMessage m) {
    CoordinatorMessage.Builder b = CoordinatorMessage.newBuilder();
    if (m instanceof Messages.KeyRoster k) {
      var kr = codec.encode(k).toBuilder();
      if (ca != null) {
        for (int v : k.neighbours().keySet()) {
          Peer n = enrolled.get(v);
          kr.addBindings(dev.helmet.transport.wire.IdentityBinding.newBuilder().setParty(v)
              .setCertificate(ByteString.copyFrom(n.tlsCertificate)).setSignature(ByteString.copyFrom(n.binding)));
        }
      }
      b.setKeyRoster(kr);
    } else if (m instanceof Messages.ShareDelivery s) {
      b.setShareDelivery(codec.encode(s));
    } else if (m instanceof Messages.ConsistencyCheckRequest c) {
      b.setConsistencyCheckRequest(codec.encode(c));
    } else if (m instanceof Messages.UnmaskingRequest u) {
      b.setUnmaskingRequest(codec.encode(u));
    } else {
      throw new IllegalStateException("no encoding for " + m.getClass().getSimpleName());
    }
    return b.build();
  }

  /**
   * Sends through the outbound budget. A participant whose stream does not drain before the
   * deadline while the budget is exhausted is cut off, so one stalled reader cannot stall everyone.
   */
  private void sendCounted(Peer p, CoordinatorMessage m, long deadline) {
    int permits = Math.min(m.getSerializedSize(), OUTBOUND_BUDGET);
    try {
      while (!outbound.tryAcquire(permits, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        if (System.nanoTime() - deadline >= 0) {
          cutOffStalledReaders();
          deadline = deadlineAfterRound();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    p.sendCounted(m, permits);
  }

  private void cutOffStalledReaders() {
    List<Peer> all;
    lock.lock();
    try {
      all = new ArrayList<>(streams);
    } finally {
      lock.unlock();
    }
    for (Peer p : all) {
      boolean stalled;
      synchronized (p) {
        stalled = p.pendingPermits > 0 && !p.out.isReady();
      }
      if (stalled) {
        LOG.log(Level.WARNING, "session {0}: {1} does not read its messages; disconnecting it", sessionHex, p.name());
        departed(p, "did not read its messages before the deadline");
        p.finish(Status.DEADLINE_EXCEEDED.withDescription("messages not read before the deadline"));
      }
    }
  }

  /** Records the drops and rejections the state machine logged since the last call. */
  private void recordEvents(String stage) {
    List<ServerEvents.Drop> drops = state.drops();
    for (int i = reportedDrops; i < drops.size(); i++) {
      ServerEvents.Drop d = drops.get(i);
      if (absentAtStart.get(d.party())) {
        continue;
      }
      dropRecorded.set(d.party());
      store.event(sessionHex, d.round().name(), d.party(), "DROP", d.reason().name(), d.detail());
      LOG.log(Level.INFO, "session {0}: dropped party {1} in {2}: {3} ({4})", sessionHex, d.party(), d.round(),
          d.reason(), d.detail());
    }
    reportedDrops = drops.size();
    List<ServerEvents.Rejection> rejections = state.rejections();
    for (int i = reportedRejections; i < rejections.size(); i++) {
      ServerEvents.Rejection r = rejections.get(i);
      reject(stage, r.claimedSender(), r.reason().name(), r.detail());
    }
    reportedRejections = rejections.size();
  }

  /**
   * Records a rejected message: written by the event writer thread, outside the session lock, and
   * only the first {@link #MAX_STORED_REJECTIONS} of a session (later ones are counted), so a flood
   * of junk neither stalls the honest parties' rounds nor fills the database. Called with the lock held.
   */
  private void reject(String stage, Integer party, String reason, String detail) {
    capped(stage, party, "REJECT", reason, detail);
  }

  /** Stores an event of {@code kind} through the capped writer (lock held). */
  private void capped(String stage, Integer party, String kind, String reason, String detail) {
    rejections++;
    if (rejections <= MAX_STORED_REJECTIONS) {
      String d = detail.length() > 500 ? detail.substring(0, 500) + "..." : detail;
      boolean last = rejections == MAX_STORED_REJECTIONS;
      eventWriter.execute(() -> {
        store.event(sessionHex, stage, party, kind, reason, d);
        if (last) {
          store.event(sessionHex, stage, null, "REJECT", "CAPPED", MAX_STORED_REJECTIONS
              + " rejections stored; later ones are counted in the log only");
        }
      });
      LOG.log(Level.WARNING, "session {0}: {1}{2}: {3} ({4})", sessionHex, kind.equals("REJECT")
          ? "rejected a message" : kind.toLowerCase(java.util.Locale.ROOT), party == null ? "" : " from party " + party,
          reason, d);
    }
  }

  /**
   * A rejection charged to the peer that sent it: past {@link #MAX_REJECTIONS_PER_PEER} the peer is
   * disconnected (a party that sends that much junk is not following the protocol). Lock held.
   */
  private void reject(Peer peer, String stage, String reason, String detail) {
    reject(stage, peer.party < 0 ? null : peer.party, reason, detail);
    charge(peer);
  }

  private void charge(Peer peer) {
    if (++peer.rejections == MAX_REJECTIONS_PER_PEER) {
      LOG.log(Level.WARNING, "session {0}: disconnecting {1} after {2} rejected messages", sessionHex, peer.name(),
          MAX_REJECTIONS_PER_PEER);
      peer.finish(Status.RESOURCE_EXHAUSTED.withDescription(MAX_REJECTIONS_PER_PEER + " rejected messages"));
    }
  }

  /** Waits until every event handed to the writer is stored. */
  private void flushEvents() {
    try {
      eventWriter.submit(() -> { }).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
      LOG.log(Level.WARNING, "session {0}: the event writer did not drain: {1}", sessionHex, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ----- messages from participants (gRPC threads) -----

  private void onMessage(Peer peer, ParticipantMessage m) {
    boolean requestNext = true;
    lock.lock();
    try {
      peer.bytesIn += m.getSerializedSize();
      bytesInThisRound += m.getSerializedSize();
      switch (m.getBodyCase()) {
        case JOIN -> join(peer, m.getJoin());
        case ADVERTISE_KEYS -> deliver(peer, () -> codec.decode(m.getAdvertiseKeys()));
        case SHARE_KEYS -> deliver(peer, () -> codec.decode(m.getShareKeys()));
        case UPLOAD_READY -> requestNext = uploadReady(peer);
        case MASKED_INPUT -> {
          if (!peer.granted) {
            reject(peer, stage(), "NO_UPLOAD_GRANT",
                "masked input from " + peer.name() + " without an upload grant");
          } else {
            peer.granted = false;
            activeUploads--;
            deliver(peer, () -> codec.decode(m.getMaskedInput()), true);
            grantUploads();
          }
        }
        case CONSISTENCY_SIGNATURE -> deliver(peer, () -> codec.decode(m.getConsistencySignature()));
        case UNMASKING_SHARES -> deliver(peer, () -> codec.decode(m.getUnmaskingShares()));
        case NONCE_REVEAL -> reveal(peer, m.getNonceReveal());
        case BODY_NOT_SET -> reject(peer, stage(), "MALFORMED", "an empty message from "
            + peer.name());
      }
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "session " + sessionHex + ": handling a message from " + peer.name(), e);
    } finally {
      lock.unlock();
    }
    if (requestNext) {
      requestNext(peer);
    }
  }

  private static void requestNext(Peer peer) {
    synchronized (peer) {
      if (!peer.closed) {
        peer.out.request(1);
      }
    }
  }

  private String stage() {
    if (state == null) {
      return "ENROLMENT";
    }
    if (state.isFinal()) {
      return phase == Phase.DONE ? "FINISHED" : stagePrefix + "BETWEEN_ROUNDS";
    }
    return stage(state);
  }

  private String stage(ServerState s) {
    return stagePrefix + s.round().name();
  }

  private void join(Peer peer, Join j) {
    if (peer.joined) {
      reject(peer, stage(), "REPLAYED", "a second Join from " + peer.name());
      return;
    }
    String why = null;
    String bindingProblem;
    if (phase != Phase.ENROLLING) {
      why = "enrolment for session " + sessionHex + " is closed";
    } else if (!j.getSessionId().equals(config.getSessionId())) {
      why = "unknown session " + HexFormat.of().formatHex(j.getSessionId().toByteArray())
          + "; this coordinator runs session " + sessionHex;
    } else if (!java.security.MessageDigest.isEqual(j.getConfigDigest().toByteArray(), configDigest)) {
      why = "configuration mismatch: the participant agreed to configuration digest "
          + HexFormat.of().formatHex(j.getConfigDigest().toByteArray()) + " but the session's is "
          + HexFormat.of().formatHex(configDigest);
    } else if (j.getPoints() < 1 || j.getPoints() > config.getMaxPoints()) {
      why = "a participant claims between 1 and max_points = " + config.getMaxPoints() + " training points; this one "
          + "claimed " + j.getPoints();
    } else if (j.getIdentityKey().size() != 32 || j.getNonceCommitment().size() != 32) {
      why = "identity_key and nonce_commitment must be 32 bytes each";
    } else if (ca != null && (peer.tlsCertificate == null
        || !java.util.Arrays.equals(peer.tlsCertificate, j.getCertificate().toByteArray()))) {
      why = "the certificate in the Join is not the one presented in the TLS handshake";
    } else if (ca != null && (bindingProblem = IdentityBinding.check(j.getCertificate().toByteArray(),
        j.getIdentityBinding().toByteArray(), ca, configDigest, j.getIdentityKey().toByteArray(),
        j.getNonceCommitment().toByteArray())) != null) {
      why = bindingProblem;
    } else if (enrolled.size() >= config.getParties()) {
      why = "the session already has its " + config.getParties() + " parties";
    } else {
      for (Peer other : enrolled) {
        // One enrolment per certificate: one certificate holder enrolling many times would make up
        // more of the parties than the honest fraction the noise was sized for allows.
        if (ca != null && java.util.Arrays.equals(other.tlsCertificate, peer.tlsCertificate)) {
          why = "this certificate is already enrolled in session " + sessionHex + " (one enrolment per certificate)";
          break;
        }
        if (java.util.Arrays.equals(other.identityKey, j.getIdentityKey().toByteArray())
            || java.util.Arrays.equals(other.commitment, j.getNonceCommitment().toByteArray())) {
          why = "the identity key or nonce commitment is already enrolled (" + other.subjectOrPlain() + ")";
          break;
        }
      }
    }
    if (why != null) {
      reject("ENROLMENT", null, "REFUSED", why + " (" + peer.subjectOrPlain() + ")");
      peer.sendSmall(CoordinatorMessage.newBuilder().setRefused(Refused.newBuilder().setReason(why)).build());
      peer.finish(Status.OK);
      return;
    }
    peer.joined = true;
    peer.binding = j.getIdentityBinding().toByteArray();
    peer.points = j.getPoints();
    peer.identityKey = j.getIdentityKey().toByteArray();
    peer.commitment = j.getNonceCommitment().toByteArray();
    enrolled.add(peer);
    LOG.log(Level.INFO, "session {0}: enrolled {1}, {2} points; {3} of {4}", sessionHex, peer.subjectOrPlain(),
        peer.points, enrolled.size(), config.getParties());
    peer.sendSmall(CoordinatorMessage.newBuilder().setEnrolled(Enrolled.newBuilder().setEnrolled(enrolled.size())
        .setParties(config.getParties())).build());
    changed.signalAll();
  }

  private interface Decoder {
    Messages.ClientMessage decode();
  }

  private void deliver(Peer peer, Decoder decoder) {
    deliver(peer, decoder, false);
  }

  /** @param uploading whether this is the masked input its upload grant was for */
  private void deliver(Peer peer, Decoder decoder, boolean uploading) {
    String stage = stage();
    if (phase != Phase.RUNNING || state == null || state.isFinal()) {
      reject(peer, stage, "WRONG_ROUND", "no round is open (" + peer.name() + ")");
      return;
    }
    if (peer.party < 0) {
      reject(peer, stage, "UNKNOWN_PARTY", "a protocol message from a peer that has not joined ("
          + peer.subjectOrPlain() + ")");
      return;
    }
    if (gone.get(peer.party)) {
      reject(peer, stage, "UNKNOWN_PARTY", peer.name() + " was disconnected");
      return;
    }
    Messages.ClientMessage msg;
    try {
      msg = decoder.decode();
    } catch (WireFormatException e) {
      reject(peer, stage, "MALFORMED", e.getMessage() + " (" + peer.name() + ")");
      if (uploading) {
        // Its one upload grant is spent: it cannot contribute any more, so the round need not wait.
        gone.set(peer.party);
        if (awaitingLive().isEmpty()) {
          changed.signalAll();
        }
      }
      return;
    }
    if (msg.sender() != peer.party) {
      reject(peer, stage, "IMPERSONATION", "a message claiming to be from party " + msg.sender() + " on the stream of "
          + peer.name());
      return;
    }
    int rejectedBefore = state.rejections().size();
    state.receive(msg);
    recordEvents(stage);
    if (state.rejections().size() > rejectedBefore) {
      charge(peer);
    }
    if (awaitingLive().isEmpty()) {
      changed.signalAll();
    }
  }

  /** Queues the party for an upload grant; its next message is read only once granted. */
  private boolean uploadReady(Peer peer) {
    if (phase != Phase.RUNNING || state == null || state.round() != Round.MASKED_INPUT || peer.party < 0
        || !state.awaiting().get(peer.party) || peer.granted || uploadQueue.contains(peer)) {
      reject(peer, stage(), "WRONG_ROUND", "an upload request from " + peer.name()
          + " that is not expected now");
      return true;
    }
    uploadQueue.add(peer);
    grantUploads();
    return false;
  }

  private void grantUploads() {
    while (activeUploads < settings.uploadSlots() && !uploadQueue.isEmpty()) {
      Peer p = uploadQueue.poll();
      if (gone.get(p.party)) {
        continue;
      }
      p.granted = true;
      activeUploads++;
      p.sendSmall(CoordinatorMessage.newBuilder()
          .setUploadGrant(UploadGrant.newBuilder().setSecaggSession(secaggSession)).build());
      requestNext(p);
    }
  }

  /** Summations whose sum the server computed (each is charged). Guarded by lock. */
  private int releasedRounds;
  /** The SecAgg session id, once the roster is fixed. Guarded by lock. */
  private long secaggSession;
  /** Prefixes recorded stage names: the DP-FL round ("R3/"), or "" for blind averaging. Guarded by lock. */
  private String stagePrefix = "";
  /** The parties gone before the current summation began whose drop an earlier one recorded. Guarded by lock. */
  private BitSet absentAtStart = new BitSet();
  /** The parties with a recorded drop. Guarded by lock. */
  private final BitSet dropRecorded = new BitSet();

  private void departed(Peer peer, String why) {
    lock.lock();
    try {
      if (peer.joined && peer.party < 0 && phase == Phase.ENROLLING) {
        // A party that leaves before the roster is fixed is simply not enrolled.
        enrolled.remove(peer);
        // Written by the event writer under the same cap as rejections: join-and-leave loops can
        // neither stall enrolment nor fill the database.
        capped("ENROLMENT", null, "LEFT", "DISCONNECTED", peer.subjectOrPlain() + ": " + why);
        LOG.log(Level.INFO, "session {0}: {1} left during enrolment: {2}", sessionHex, peer.name(), why);
        changed.signalAll();
      } else if (peer.party >= 0 && !gone.get(peer.party)) {
        gone.set(peer.party);
        LOG.log(Level.INFO, "session {0}: {1} left: {2}", sessionHex, peer.name(), why);
        if (peer.granted) {
          peer.granted = false;
          activeUploads--;
          grantUploads();
        }
        uploadQueue.remove(peer);
        changed.signalAll();
      }
      streams.remove(peer);
    } finally {
      lock.unlock();
    }
    synchronized (peer) {
      peer.closed = true;
      peer.drained();
    }
  }

  private final class Service extends CoordinatorGrpc.CoordinatorImplBase {
    @Override
    public void getSession(GetSessionRequest request, StreamObserver<SessionConfig> response) {
      response.onNext(config);
      response.onCompleted();
    }

    @Override
    public StreamObserver<ParticipantMessage> participate(StreamObserver<CoordinatorMessage> response) {
      ServerCallStreamObserver<CoordinatorMessage> out = (ServerCallStreamObserver<CoordinatorMessage>) response;
      out.disableAutoRequest();
      Peer peer = new Peer(out, Tls.PEER.get() == null ? "" : Tls.PEER.get(), Tls.PEER_CERTIFICATE.get());
      lock.lock();
      try {
        if (phase == Phase.DONE || closing) {
          out.onError(Status.FAILED_PRECONDITION.withDescription("session " + sessionHex + " has ended")
              .asRuntimeException());
          return new StreamObserver<>() {
            @Override
            public void onNext(ParticipantMessage value) {}

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
          };
        }
        String refusal = null;
        if (peer.tlsCertificate != null) {
          int same = 0;
          for (Peer other : streams) {
            same += java.util.Arrays.equals(other.tlsCertificate, peer.tlsCertificate) ? 1 : 0;
          }
          if (same >= MAX_STREAMS_PER_CERTIFICATE) {
            refusal = "this certificate already has " + same + " open streams";
          }
        }
        if (refusal == null && streams.size() >= 4L * config.getParties() + 64) {
          refusal = "too many open streams";
        }
        if (refusal != null) {
          reject("ENROLMENT", null, "TOO_MANY_STREAMS", refusal + " (" + peer.subjectOrPlain() + ")");
          out.onError(Status.RESOURCE_EXHAUSTED.withDescription(refusal).asRuntimeException());
          return new StreamObserver<>() {
            @Override
            public void onNext(ParticipantMessage value) {}

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
          };
        }
        streams.add(peer);
      } finally {
        lock.unlock();
      }
      out.setOnCancelHandler(() -> departed(peer, "the connection was cancelled"));
      // A stream the coordinator ends itself (a refused join, a peer cut off for junk) is gone too:
      // it no longer counts against its certificate's streams, and rounds do not wait for it.
      out.setOnCloseHandler(() -> departed(peer, "the coordinator closed its stream"));
      out.setOnReadyHandler(peer::drained);
      out.request(1);
      return new StreamObserver<>() {
        @Override
        public void onNext(ParticipantMessage m) {
          onMessage(peer, m);
        }

        @Override
        public void onError(Throwable t) {
          departed(peer, "the connection failed: " + Status.fromThrowable(t).getCode());
        }

        @Override
        public void onCompleted() {
          departed(peer, "it closed its stream");
          peer.finish(Status.OK);
        }
      };
    }
  }

  private static byte[] gzip(String text) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(bytes)) {
      z.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** The largest inbound message the configuration allows: a masked input of 64-bit elements, plus slack. */
  static int maxInboundBytes(SessionConfig c) {
    long d = SessionPlan.spec(c).length();
    long bytes = d * 8 + (1 << 20);
    return (int) Math.min(Integer.MAX_VALUE, Math.max(4L << 20, bytes));
  }
}
