package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.Join;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.lang.System.Logger.Level;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One participant of a networked session: it reads the published configuration, checks it against
 * its own policy, and runs the SecAgg client state machine (the same one the in-process simulation
 * runs) over one stream to the coordinator. It prepares on its own data before it joins (blind
 * averaging: trains its local model), and every round turns the round's public state into its
 * summation input, noised by itself with {@link NoiseFactory#secure()}; the algorithm, named by
 * the configuration, says how. Its data never leave it; only protocol messages do. It derives the noise plan and the SecAgg
 * parameters itself and refuses a roster that disagrees.
 */
public final class Participant {
  static final System.Logger LOG = System.getLogger(Participant.class.getName());

  /**
   * The largest message accepted from the coordinator (a roster of 100,000 parties, or a key roster
   * of 10,000 neighbours, is a few MB; a model of a million parameters 8 MB).
   */
  static final int MAX_INBOUND_BYTES = 64 << 20;

  private Participant() {}

  /** Whether host:port names the loopback interface, the only place plaintext is allowed. */
  public static boolean isLoopback(String target) {
    String host = target;
    if (host.startsWith("[")) {
      host = host.substring(1, Math.max(1, host.indexOf(']')));
    } else if (host.indexOf(':') == host.lastIndexOf(':') && host.indexOf(':') >= 0) {
      host = host.substring(0, host.indexOf(':'));
    }
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      // Only literal addresses: a name other than localhost is never resolved here.
      if (!host.matches("[0-9.]+|[0-9a-fA-F:]+")) {
        return false;
      }
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }


  /**
   * How to run.
   *
   * @param target the coordinator, host:port
   * @param tls the participant's TLS files, or null for plaintext (loopback tests)
   * @param policy what it accepts
   * @param data its training data (labels named as in the session's configuration)
   * @param trainingSeed seeds the local shuffle (null: fresh); the noise is always fresh
   * @param timeoutSeconds the longest it waits for any message (0: derived from the deadlines)
   * @param ledger its own privacy ledger for this data, or null
   * @param noise its noise: {@link NoiseFactory#secure()} (null means that); tests that compare a
   *     networked run with an in-process one seed it, and the ledger then says so
   * @param waitSeconds how long it waits for the coordinator to answer, at start and after losing it
   *     (a restart: it then joins the restarted coordinator's session if its policy accepts it); 0:
   *     it does not wait (three quick tries at start, and a lost coordinator ends its run)
   * @param transport where its channels (to the coordinator, to compute nodes) come from (null:
   *     {@link Transport#NETTY}, the only one outside this package; tests put theirs here through
   *     {@link #withTransport})
   */
  public record Settings(String target, Tls.Files tls, ParticipantPolicy policy, Dataset data, Long trainingSeed,
      long timeoutSeconds, LocalLedger ledger, NoiseFactory noise, long waitSeconds, Transport transport) {
    public Settings {
      noise = noise == null ? NoiseFactory.secure() : noise;
      if (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
        throw new IllegalArgumentException("the wait for the coordinator must be 0 to " + MAX_WAIT_SECONDS
            + " seconds. Provided value: " + waitSeconds);
      }
      if (transport == null) {
        transport = Transport.NETTY;
      }
    }

    /** Over TCP ({@link Transport#NETTY}). */
    public Settings(String target, Tls.Files tls, ParticipantPolicy policy, Dataset data, Long trainingSeed,
        long timeoutSeconds, LocalLedger ledger, NoiseFactory noise, long waitSeconds) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, noise, waitSeconds, null);
    }

    /** Not waiting for the coordinator. */
    public Settings(String target, Tls.Files tls, ParticipantPolicy policy, Dataset data, Long trainingSeed, long timeoutSeconds,
        LocalLedger ledger, NoiseFactory noise) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, noise, 0);
    }

    /** With secure noise. */
    public Settings(String target, Tls.Files tls, ParticipantPolicy policy, Dataset data, Long trainingSeed, long timeoutSeconds,
        LocalLedger ledger) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, NoiseFactory.secure());
    }

    /** Without a local ledger. */
    public Settings(String target, Tls.Files tls, ParticipantPolicy policy, Dataset data, Long trainingSeed, long timeoutSeconds) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, null);
    }

    /** The same, waiting up to {@code seconds} for the coordinator. */
    public Settings waiting(long seconds) {
      return new Settings(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, noise, seconds, transport);
    }

    /** The same over another transport (this package's tests: their in-process network). */
    Settings withTransport(Transport t) {
      return new Settings(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, noise, waitSeconds, t);
    }
  }

  /** The default wait for the coordinator on the command line: long enough for an operator's restart. */
  public static final long DEFAULT_WAIT_SECONDS = 300;
  /** The longest wait accepted (a day). */
  public static final long MAX_WAIT_SECONDS = 86_400;

  /**
   * How it ended for this participant.
   *
   * @param epsilon what the session cost this party's data by its own accounting: the eps of the
   *     rounds it sent (0 if it sent none), at the session's delta, never a number the coordinator sent
   * @param neighbours the neighbouring relation and unit of {@code epsilon} ("" before any plan)
   * @param against whom {@code epsilon} holds against: the released model's audience, from this
   *     party's own plan ("" before any plan)
   */
  public record Result(
      boolean completed,
      String reason,
      ReleasedModel model,
      double epsilon,
      int party,
      List<Integer> contributors,
      long bytesSent,
      long bytesReceived,
      double seconds,
      String neighbours,
      String against,
      double runEpsilon,
      int sessionsWithInputs) {

    /** One session's result, before the run's totals are known: they start as this session's own. */
    Result(boolean completed, String reason, ReleasedModel model, double epsilon, int party, List<Integer> contributors,
        long bytesSent, long bytesReceived, double seconds, String neighbours, String against) {
      this(completed, reason, model, epsilon, party, contributors, bytesSent, bytesReceived, seconds, neighbours,
          against, epsilon, epsilon > 0 ? 1 : 0);
    }

    /** This session's result with the totals of the whole run (every session this run sent input in). */
    Result withRun(RunTally tally) {
      return new Result(completed, reason, model, epsilon, party, contributors, bytesSent, bytesReceived, seconds,
          neighbours, against, tally.epsilon(), tally.sessionsWithInputs());
    }
  }

  /**
   * What one run of a participant has spent across the sessions it joined (a restarted
   * coordinator's included): each session in which it sent input adds its own eps for the rounds it
   * sent (basic composition, as the ledger adds them). Without a ledger this is the only record, so
   * such a run joins no further session once it has sent input (security review turn 3, T3-1).
   */
  static final class RunTally {
    private double epsilon;
    private int sessions;

    synchronized void add(int roundsSent, double eps) {
      if (roundsSent > 0) {
        // Rounded up so that the total never understates the sum of the sessions' eps.
        epsilon = Math.nextUp(epsilon + eps);
        sessions++;
      }
    }

    synchronized double epsilon() {
      return epsilon;
    }

    synchronized int sessionsWithInputs() {
      return sessions;
    }
  }

  /** The session was refused (by the participant's policy or by the coordinator), or failed. */
  public static class ParticipantException extends Exception {
    private static final long serialVersionUID = 1L;

    public ParticipantException(String message) {
      super(message);
    }

    public ParticipantException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * This participant's own input does not fit: its data does not match the published session
   * (features, labels, rows), or its settings cannot work (plaintext off loopback). Nothing about
   * the data was sent, and the fix is on this side, so a command line reports it as invalid input
   * rather than as a refused session.
   */
  public static final class InvalidInputException extends ParticipantException {
    private static final long serialVersionUID = 1L;

    public InvalidInputException(String message) {
      super(message);
    }

    public InvalidInputException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Fault injection for tests: sees every message the participant receives before it is handled
   * (and may throw to make the participant stop there), and may replace every message it sends.
   */
  interface Hook {
    Hook NONE = new Hook() {};

    default void received(CoordinatorMessage m, ManagedChannel channel) throws ParticipantException {}

    /** May replace a received message before it is handled (a misbehaving coordinator). */
    default CoordinatorMessage rewrite(CoordinatorMessage m) {
      return m;
    }

    default List<ParticipantMessage> sending(ParticipantMessage m) {
      return List.of(m);
    }

    /** May replace a dca share before it goes to compute node {@code node} (a misbehaving party). */
    default byte[] share(int node, byte[] share) {
      return share;
    }
  }

  /** Joins the session the coordinator at {@code s.target()} runs, and takes part until it ends. */
  public static Result run(Settings s) throws ParticipantException, InterruptedException {
    return run(s, Hook.NONE);
  }

  /** As {@link #run(Settings)}, telling {@code listener} each phase as it begins. */
  public static Result run(Settings s, ParticipantListener listener) throws ParticipantException, InterruptedException {
    return run(s, Hook.NONE, listener);
  }

  static Result run(Settings s, Hook hook) throws ParticipantException, InterruptedException {
    return run(s, hook, ParticipantListener.NONE);
  }

  static Result run(Settings s, Hook hook, ParticipantListener listener) throws ParticipantException,
      InterruptedException {
    if (s.tls() == null && !isLoopback(s.target())) {
      throw new InvalidInputException("plaintext is for loopback tests only; " + s.target() + " is not a loopback "
          + "address (without TLS nothing checks the coordinator or the other parties' identities)");
    }
    ChannelCredentials creds = s.tls() == null ? Tls.plaintextClient() : Tls.client(s.tls());
    ManagedChannel channel = s.transport().channel(s.target(), creds)
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .build();
    try {
      return run(s, channel, hook, listener);
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Result run(Settings s, ManagedChannel channel, Hook hook, ParticipantListener listener)
      throws ParticipantException, InterruptedException {
    long start = System.nanoTime();
    listener.event("connecting", Map.of("coordinator", s.target()));
    Prepared prepared = null;
    String previous = null;
    RunTally tally = new RunTally();
    while (true) {
      SessionConfig config = CoordinatorLink.session(s.target(), channel, s.waitSeconds(), previous, listener);
      String session = HexFormat.of().formatHex(config.getSessionId().toByteArray());
      prepared = prepare(s, channel, config, session, prepared, listener);
      try {
        return join(s, channel, hook, listener, config, session, prepared, start, tally).withRun(tally);
      } catch (CoordinatorLink.Lost e) {
        if (s.waitSeconds() <= 0) {
          throw e;
        }
        refuseToRejoinWithoutLedger(s, tally, session, "was lost (" + e.getMessage() + ")", e);
        // Its ledger has settled the lost session (charged the rounds it sent, else refunded). A
        // restarted coordinator opens a new session, which this party joins if its policy accepts it.
        LOG.log(Level.WARNING, "session {0}: {1}; waiting up to {2} s for the coordinator''s next session", session,
            e.getMessage(), s.waitSeconds());
        listener.event("lost", Map.of("session", session, "reason", e.getMessage(), "wait_seconds", s.waitSeconds()));
        previous = session;
      } catch (CoordinatorLink.Refused e) {
        String now = s.waitSeconds() <= 0 ? null : CoordinatorLink.replacedBy(channel, session);
        if (now == null) {
          throw e;
        }
        // Restarted between its GetSession and its Join (nothing was sent, and the ledger refunded it),
        // or a coordinator that took the sum and answers with a refusal instead of the Outcome (the
        // rounds sent stay charged; without a ledger the run stops here, as after a loss).
        String why = "the coordinator was restarted and runs session " + now + " now";
        refuseToRejoinWithoutLedger(s, tally, session, "was refused (" + e.getMessage() + "; " + why + ")", e);
        LOG.log(Level.WARNING, "session {0}: {1}", session, why);
        listener.event("lost", Map.of("session", session, "reason", why, "wait_seconds", s.waitSeconds()));
        previous = session;
      }
    }
  }

  /**
   * A run without a ledger that has sent input joins no further session: joining again would
   * release the same data again, and nothing would bound or record it (a coordinator that drops
   * every stream, or answers with a refusal, after taking the sum collects a release per session:
   * security review turn 3, T3-1, and its attacker's read).
   */
  private static void refuseToRejoinWithoutLedger(Settings s, RunTally tally, String session, String what,
      Exception cause) throws ParticipantException {
    if (s.ledger() == null && tally.sessionsWithInputs() > 0) {
      throw new ParticipantException("session " + session + " " + what + "; this run has sent input in "
          + tally.sessionsWithInputs() + " session(s), eps = " + tally.epsilon() + " by its own accounting, and runs "
          + "without a ledger, so it joins no further session: rejoin with a ledger (the default; --ledger FILE), "
          + "which charges every session and refuses one past the budget", cause);
    }
  }

  /**
   * What a party computed on its own data for a session's published settings; a later session
   * with the same settings (a restarted coordinator's) reuses it instead of training again.
   */
  private record Prepared(String settingsDigest, Dataset data, AlgorithmSpec spec, Local local, long seed) {}

  /** The published settings without the fields that are fresh in every run of a session. */
  private static String settingsDigest(SessionConfig config) {
    return HexFormat.of().formatHex(SessionPlan.digest(config.toBuilder().clearSessionId()
        .clearGraphNonceCommitment().build()));
  }

  private static Prepared prepare(Settings s, ManagedChannel channel, SessionConfig config, String session,
      Prepared earlier, ParticipantListener listener) throws ParticipantException {
    try {
      SessionPlan.validate(config);
    } catch (IllegalArgumentException e) {
      throw new ParticipantException("the published configuration of session " + session + " is invalid: "
          + e.getMessage(), e);
    }
    listener.event("session", Map.of("session", session, "algorithm", config.getAlgorithm(), "rounds",
        SessionPlan.rounds(config), "parties", config.getParties(), "epsilon", config.getPrivacy().getEpsilon(),
        "delta", config.getPrivacy().getDelta()));
    String refusal = s.policy().check(config);
    if (refusal != null) {
      CoordinatorLink.decline(channel, config, refusal);
      throw new ParticipantException("refusing to join session " + session + ": " + refusal);
    }
    String digest = settingsDigest(config);
    if (earlier != null && earlier.settingsDigest().equals(digest)) {
      listener.event("prepared", Map.of("seconds", 0.0, "reused", true));
      return earlier;
    }
    Dataset data;
    try {
      data = SessionPlan.regression(config) ? s.data().withNumericTargets() : s.data().withLabelSet(SessionPlan.labels(config));
    } catch (dev.helmet.core.data.DataFormatException e) {
      throw misfit(channel, config, "the local data does not fit session " + session + ": " + e.getMessage(), e);
    }
    FeatureStage stage = SessionPlan.featureStage(config);
    if (!stage.isRaw()) {
      if (data.dimension() != stage.transform().input().pixels()) {
        throw misfit(channel, config, "the local data has " + data.dimension() + " values per row; session " + session
            + " computes " + stage.id() + " features of " + stage.transform().input() + " images ("
            + stage.transform().input().pixels() + " pixels)", null);
      }
      // The published, data-independent transform, applied here to this party's own raw rows.
      LOG.log(Level.INFO, "session {0}: computing {1} features of {2} rows", session, stage.describe(), data.size());
      listener.event("features", Map.of("stage", stage.describe(), "rows", data.size()));
      data = stage.apply(data, Runtime.getRuntime().availableProcessors(), dev.helmet.core.util.Progress.NONE, null);
    }
    if (data.dimension() != config.getFeatures()) {
      throw misfit(channel, config, "the local data has " + data.dimension() + " features; session " + session
          + " expects " + config.getFeatures(), null);
    }
    if (data.size() < 1) {
      throw misfit(channel, config, "the local data set is empty", null);
    }
    AlgorithmSpec spec = SessionPlan.spec(config);
    if (spec.sizesPrivate() && data.size() > config.getMaxPoints()) {
      // It will claim max_points in place of its private size, and the plan's bounds (a party's
      // clipped sum is at most its points times the clip) rest on that claim bounding the size.
      throw new ParticipantException("the local data has " + data.size() + " points, more than session " + session
          + "'s max_points = " + config.getMaxPoints() + ": under add-or-remove neighbours a participant claims "
          + "max_points in place of its size, so its size must not exceed it; use at most " + config.getMaxPoints()
          + " points, or a session with a larger max_points");
    }
    DesignMatrix design = spec.preprocessing().design(data);
    // Its own preparation on its own data (e.g. its local training), before it joins.
    long seed = s.trainingSeed() != null ? s.trainingSeed() : Secrets.random().nextLong();
    listener.event("preparing", Map.of("algorithm", spec.algorithm().id(), "points", data.size()));
    long prepStart = System.nanoTime();
    Local local = spec.prepare(design, seed, new PhaseProgress(listener));
    listener.event("prepared", Map.of("seconds", (System.nanoTime() - prepStart) / 1e9));
    LOG.log(Level.INFO, "session {0}: prepared {1} on {2} points", session, spec.algorithm().id(), data.size());
    return new Prepared(digest, data, spec, local, seed);
  }

  /**
   * Local data that does not fit the session: the coordinator is told that much, and nothing more
   * about the data (not which features or labels), so its log shows why this party does not join.
   */
  private static InvalidInputException misfit(ManagedChannel channel, SessionConfig config, String message,
      Exception cause) {
    CoordinatorLink.decline(channel, config, "data: this participant's data does not fit the session's features, "
        + "labels or image shape");
    return new InvalidInputException(message, cause);
  }

  /** Takes part in {@code session} until it ends (or the coordinator is lost: {@link CoordinatorLink.Lost}). */
  private static Result join(Settings s, ManagedChannel channel, Hook hook, ParticipantListener listener,
      SessionConfig config, String session, Prepared prepared, long start, RunTally tally)
      throws ParticipantException, InterruptedException {
    Dataset data = prepared.data();
    AlgorithmSpec spec = prepared.spec();
    Local local = prepared.local();
    long seed = prepared.seed();
    // Charged before anything about the data leaves this machine (the join and its protocol messages).
    if (s.ledger() != null) {
      String why = s.ledger().reserve(session, config.getPrivacy().getEpsilon(), config.getPrivacy().getDelta());
      if (why != null) {
        // The coordinator learns that, not what this data spent elsewhere.
        CoordinatorLink.decline(channel, config, "budget: the participant's own privacy budget has no room for this "
            + "session's eps = " + config.getPrivacy().getEpsilon());
        throw new ParticipantException("refusing to join session " + session + ": " + why);
      }
    }
    Signatures.KeyPair identity = Signatures.generate();
    byte[] nonce = Secrets.bytes(32);
    // At most CoordinatorInbox.CAPACITY messages wait for this thread; the rest stay with the coordinator (T3-7).
    CoordinatorInbox inbox = new CoordinatorInbox();
    // The coordinator's certificate on this very stream, against which a dca party checks the nodes (T3-2).
    CoordinatorCertificate coordinator = new CoordinatorCertificate();
    StreamObserver<ParticipantMessage> out = CoordinatorGrpc.newStub(channel).withInterceptors(coordinator)
        .participate(inbox);
    // Under add-or-remove neighbours this party's size is private: it claims the public max_points.
    int claimed = SessionPlan.claimedPoints(spec, config, data.size());
    ParticipantRun run = new ParticipantRun(config, spec, session, out, identity, nonce, claimed, local, seed, s.noise(), hook,
        s.tls() == null ? null : IdentityBinding.ca(s.tls()), s.policy(), s.ledger());
    if (s.tls() != null) {
      run.ownCertificateSha256 = IdentityBinding.fingerprint(IdentityBinding.certificate(s.tls()));
    }
    run.tls = s.tls();
    run.transport = s.transport();
    run.coordinator = coordinator;
    run.listener = listener;
    Result result = null;
    try {
      Join.Builder join = Join.newBuilder().setSessionId(config.getSessionId())
          .setConfigDigest(ByteString.copyFrom(SessionPlan.digest(config))).setPoints(claimed)
          .setIdentityKey(ByteString.copyFrom(identity.publicKey()))
          .setNonceCommitment(ByteString.copyFrom(run.commitment));
      if (s.tls() != null) {
        join.setCertificate(ByteString.copyFrom(IdentityBinding.certificate(s.tls())))
            .setIdentityBinding(ByteString.copyFrom(IdentityBinding.sign(s.tls(), SessionPlan.digest(config),
                identity.publicKey(), run.commitment)));
      }
      run.send(ParticipantMessage.newBuilder().setJoin(join).build());
      listener.event("joined", Map.of());
      // One round: at most two round deadlines pass between messages to a live party; several: a
      // party dropped from one summation waits for the others' five SecAgg rounds until the next.
      long timeout = s.timeoutSeconds() > 0 ? s.timeoutSeconds()
          : config.getDeadlines().getEnrolmentSeconds() + (spec.rounds() > 1 ? 6L : 2L)
              * config.getDeadlines().getRoundSeconds() + 30;
      while (result == null) {
        Object next = inbox.poll(timeout, TimeUnit.SECONDS);
        if (next == null) {
          throw new ParticipantException("no message from the coordinator for " + timeout + " s");
        }
        if (next instanceof Throwable t) {
          if (CoordinatorLink.lost(t)) {
            throw new CoordinatorLink.Lost("lost the coordinator (" + CoordinatorLink.describe(t) + ") "
                + (run.roundsSent == 0 ? "before this party sent any input" : "after this party sent "
                + run.roundsSent + " round(s) of input"), t);
          }
          throw new ParticipantException("the coordinator ended the connection: " + CoordinatorLink.describe(t), t);
        }
        if (next == CoordinatorInbox.END) {
          throw new ParticipantException("the coordinator closed the stream before the session ended");
        }
        hook.received((CoordinatorMessage) next, channel);
        CoordinatorMessage message = hook.rewrite((CoordinatorMessage) next);
        Outcome o = run.handle(message);
        if (o != null) {
          result = run.result(o, (System.nanoTime() - start) / 1e9);
        }
      }
      return result;
    } finally {
      try {
        out.onCompleted();
      } catch (RuntimeException e) {
        // already closed
      }
      if (run.dca != null) {
        run.dca.close();
      }
      // Whatever the outcome, this party takes no further part: its data is charged exactly the
      // rounds it sent, by its own accountant (or refunded if it sent none).
      double eps = run.ownEpsilon();
      if (s.ledger() != null) {
        eps = s.ledger().settle(session);
        LOG.log(Level.INFO, "session {0}: the local ledger charged eps = {1} for {2} round(s) sent", session, eps,
            run.roundsSent);
      }
      tally.add(run.roundsSent, eps);
    }
  }


  /**
   * Its local work's progress as {@code training} events (task, done, total, seconds_left), at most
   * one a second and the last one always: a time left that is an estimate from the pace so far.
   */
  private static final class PhaseProgress implements dev.helmet.core.util.Progress {
    private final ParticipantListener listener;
    private String task = "";
    private long total;
    private long done;
    private long start;
    private long last;

    PhaseProgress(ParticipantListener listener) {
      this.listener = listener;
    }

    @Override
    public synchronized void start(String task, long total) {
      this.task = task;
      this.total = total;
      this.done = 0;
      this.start = System.nanoTime();
      this.last = start;
    }

    @Override
    public synchronized void advance(long steps) {
      done += steps;
      long now = System.nanoTime();
      if (now - last >= 1_000_000_000L || done >= total) {
        last = now;
        double left = done == 0 ? Double.NaN : (now - start) / 1e9 / done * Math.max(0, total - done);
        listener.event("training", Map.of("task", task, "done", done, "total", total, "seconds_left", left));
      }
    }

    @Override
    public void finish() {}
  }
}
