package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.ClientState;
import dev.helmet.secagg.protocol.Messages;
import dev.helmet.secagg.protocol.SecAggParameters;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.GraphSeed;
import dev.helmet.transport.wire.Join;
import dev.helmet.transport.wire.NonceReveal;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.UploadReady;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.lang.System.Logger.Level;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
  private static final Object END = new Object();

  /**
   * The largest message accepted from the coordinator (a roster of 100,000 parties, or a key roster
   * of 10,000 neighbours, is a few MB; a model of a million parameters 8 MB).
   */
  static final int MAX_INBOUND_BYTES = 64 << 20;

  /** The largest released model accepted, decompressed. */
  static final long MAX_MODEL_JSON_BYTES = 256L << 20;

  private Participant() {}

  /** Whether host:port names the loopback interface. */
  static boolean isLoopback(String target) {
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
   * What a participant accepts: a bound or a set for every privacy-relevant parameter a coordinator
   * publishes, so a coordinator cannot weaken the guarantee by choosing them (a larger delta, a
   * smaller honest fraction, fewer colluders, a weaker protection unit, floating-point noise).
   *
   * @param maxEpsilon the largest eps it lets a session spend on its data
   * @param minContributors the fewest parties whose sum it lets be released (compared with the
   *     session's min_contributors)
   * @param learners learner kinds it accepts (empty: any)
   * @param maxHonestFraction the largest honest fraction t it accepts: its own belief about how many
   *     parties add their noise honestly. A session that counts on more honest parties adds less
   *     noise, and one whose secure aggregation withstands fewer than {@code 1 - t} colluders can be
   *     unmasked by them; both are refused
   * @param maxDelta the largest delta it accepts
   * @param protections protection units it accepts (record, group, user; empty: any)
   * @param noiseSplits noise splits it accepts (honest, all-trusted, sqrt-w-penalty; empty: any)
   * @param requireExactNoise refuse noise drawn in floating point
   * @param minNeighbours the fewest SecAgg+ neighbours it accepts (the roster's degree)
   * @param maxPoints the most points it lets any one party claim (the session's max_points)
   * @param algorithms the algorithms it takes part in (empty: any registered one)
   */
  public record Policy(double maxEpsilon, int minContributors, Set<String> learners, double maxHonestFraction,
      double maxDelta, Set<String> protections, Set<String> noiseSplits, boolean requireExactNoise, int minNeighbours,
      long maxPoints, Set<String> algorithms, Set<String> features) {
    /** The default for a deployment: delta at most 1e-5, exact noise, any unit, the honest noise split. */
    public static final double DEFAULT_MAX_DELTA = 1e-5;

    public Policy {
      learners = Set.copyOf(learners);
      protections = Set.copyOf(protections);
      noiseSplits = Set.copyOf(noiseSplits);
      algorithms = Set.copyOf(algorithms);
      features = Set.copyOf(features);
    }

    /** Any feature stage. */
    public Policy(double maxEpsilon, int minContributors, Set<String> learners, double maxHonestFraction,
        double maxDelta, Set<String> protections, Set<String> noiseSplits, boolean requireExactNoise, int minNeighbours,
        long maxPoints, Set<String> algorithms) {
      this(maxEpsilon, minContributors, learners, maxHonestFraction, maxDelta, protections, noiseSplits,
          requireExactNoise, minNeighbours, maxPoints, algorithms, Set.of());
    }

    /** Any algorithm. */
    public Policy(double maxEpsilon, int minContributors, Set<String> learners, double maxHonestFraction,
        double maxDelta, Set<String> protections, Set<String> noiseSplits, boolean requireExactNoise, int minNeighbours,
        long maxPoints) {
      this(maxEpsilon, minContributors, learners, maxHonestFraction, maxDelta, protections, noiseSplits,
          requireExactNoise, minNeighbours, maxPoints, Set.of());
    }

    /** The safe defaults for everything but eps, min contributors, learners and t. */
    public Policy(double maxEpsilon, int minContributors, Set<String> learners, double maxHonestFraction) {
      this(maxEpsilon, minContributors, learners, maxHonestFraction, DEFAULT_MAX_DELTA, Set.of(), Set.of("honest"),
          true, 1, SessionFile.DEFAULT_MAX_POINTS);
    }

    /**
     * A permissive policy for tests and demos: any learner and unit, eps up to {@code maxEpsilon},
     * delta up to 1e-5, floating-point noise allowed.
     */
    public static Policy upTo(double maxEpsilon) {
      return new Policy(maxEpsilon, 2, Set.of(), 1, DEFAULT_MAX_DELTA, Set.of(), Set.of(), false, 1,
          Integer.MAX_VALUE);
    }

    /** This policy with {@code maxDelta} and the other new bounds replaced. */
    public Policy with(double maxDelta, boolean requireExactNoise, int minNeighbours, long maxPoints) {
      return new Policy(maxEpsilon, minContributors, learners, maxHonestFraction, maxDelta, protections, noiseSplits,
          requireExactNoise, minNeighbours, maxPoints, algorithms, features);
    }

    /** This policy, accepting only sessions whose feature stage is one of {@code ids} (empty: any). */
    public Policy withFeatures(Set<String> ids) {
      return new Policy(maxEpsilon, minContributors, learners, maxHonestFraction, maxDelta, protections, noiseSplits,
          requireExactNoise, minNeighbours, maxPoints, algorithms, ids);
    }

    /** Why the configuration is refused (naming the parameter), or null if it is acceptable. */
    public String check(SessionConfig c) {
      String algorithm = c.getAlgorithm().isEmpty() ? Algorithms.DEFAULT : c.getAlgorithm();
      if (!algorithms.isEmpty() && !algorithms.contains(algorithm)) {
        return "algorithm: the session runs " + algorithm + "; this participant takes part in " + algorithms;
      }
      if (!features.isEmpty()) {
        String stage;
        try {
          stage = SessionPlan.featureStage(c).id();
        } catch (IllegalArgumentException e) {
          return "feature_stage: " + e.getMessage();
        }
        if (!features.contains(stage)) {
          return "feature_stage: the session computes " + stage + " features; this participant takes part with "
              + new java.util.TreeSet<>(features);
        }
      }
      var p = c.getPrivacy();
      if (!(p.getEpsilon() <= maxEpsilon)) {
        return "privacy.epsilon: the session spends eps = " + p.getEpsilon() + "; this participant accepts at most "
            + maxEpsilon;
      }
      if (!(p.getDelta() <= maxDelta)) {
        return "privacy.delta: the session's delta = " + p.getDelta() + "; this participant accepts at most " + maxDelta
            + " (a larger delta buys less noise)";
      }
      if (c.getMinContributors() < minContributors) {
        return "min_contributors: the session may release a sum of " + c.getMinContributors()
            + " parties; this participant needs at least " + minContributors;
      }
      if (!(p.getHonestFraction() <= maxHonestFraction + 1e-12)) {
        return "privacy.honest_fraction: the session counts on an honest fraction of " + p.getHonestFraction()
            + " (the noise is sized for that many honest parties); this participant assumes at most "
            + maxHonestFraction + " are honest";
      }
      // The summation must withstand as many colluders as this participant believes may be
      // dishonest, whatever the session's own honest fraction says (1e-9 absorbs decimal rounding).
      if (c.getColludingFraction() < 1 - maxHonestFraction - 1e-9) {
        return "colluding_fraction: the session's secure aggregation withstands " + c.getColludingFraction()
            + " of the parties colluding with the coordinator; this participant assumes up to "
            + (1 - maxHonestFraction) + " may be dishonest";
      }
      String unit = p.getProtection().isEmpty() ? "record" : p.getProtection().toLowerCase(Locale.ROOT);
      if (!protections.isEmpty() && !protections.contains(unit)) {
        return "privacy.protection: the session protects a " + unit + "; this participant allows " + protections;
      }
      Terms terms = SessionPlan.spec(c).terms();
      if (!learners.isEmpty() && !learners.contains(terms.learner().toLowerCase(Locale.ROOT))) {
        return "learner: the session trains " + terms.learner() + "; this participant allows " + learners;
      }
      if (!noiseSplits.isEmpty() && !noiseSplits.contains(terms.noiseSplit())) {
        return "noise_split: the session (" + c.getAlgorithm() + ") splits the noise as " + terms.noiseSplit()
            + "; this participant allows " + noiseSplits + " (any other split assumes more honest parties than the "
            + "honest fraction)";
      }
      if (requireExactNoise && !terms.exactNoise()) {
        return "noise: the session (" + c.getAlgorithm() + ") draws its noise in floating point; this participant "
            + "requires exact (discrete Gaussian) noise (allow floating-point noise to join)";
      }
      if (c.getMaxPoints() > maxPoints) {
        return "max_points: the session lets a party claim up to " + c.getMaxPoints() + " points; this participant "
            + "accepts at most " + maxPoints + " (one party's weight in the average)";
      }
      return null;
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
   */
  public record Settings(String target, Tls.Files tls, Policy policy, Dataset data, Long trainingSeed,
      long timeoutSeconds, LocalLedger ledger, NoiseFactory noise) {
    public Settings {
      noise = noise == null ? NoiseFactory.secure() : noise;
    }

    /** With secure noise. */
    public Settings(String target, Tls.Files tls, Policy policy, Dataset data, Long trainingSeed, long timeoutSeconds,
        LocalLedger ledger) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, ledger, NoiseFactory.secure());
    }

    /** Without a local ledger. */
    public Settings(String target, Tls.Files tls, Policy policy, Dataset data, Long trainingSeed, long timeoutSeconds) {
      this(target, tls, policy, data, trainingSeed, timeoutSeconds, null);
    }
  }

  /**
   * How it ended for this participant.
   *
   * @param epsilon what the session cost this party's data by its own accounting: the eps of the
   *     rounds it sent (0 if it sent none), at the session's delta, never a number the coordinator sent
   * @param neighbours the neighbouring relation and unit of {@code epsilon} ("" before any plan)
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
      String neighbours) {}

  /** The session was refused (by the participant's policy or by the coordinator), or failed. */
  public static final class ParticipantException extends Exception {
    private static final long serialVersionUID = 1L;

    public ParticipantException(String message) {
      super(message);
    }

    public ParticipantException(String message, Throwable cause) {
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

  static Result run(Settings s, Hook hook) throws ParticipantException, InterruptedException {
    if (s.tls() == null && !isLoopback(s.target())) {
      throw new ParticipantException("plaintext is for loopback tests only; " + s.target() + " is not a loopback "
          + "address (without TLS nothing checks the coordinator or the other parties' identities)");
    }
    ChannelCredentials creds = s.tls() == null ? Tls.plaintextClient() : Tls.client(s.tls());
    ManagedChannel channel = NettyChannelBuilder.forTarget(s.target(), creds)
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .build();
    try {
      return run(s, channel, hook);
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Result run(Settings s, ManagedChannel channel, Hook hook)
      throws ParticipantException, InterruptedException {
    long start = System.nanoTime();
    SessionConfig config = null;
    // A coordinator under load (or still starting) may not answer at once: retry for about a
    // minute, then give up saying why.
    for (int attempt = 1; config == null; attempt++) {
      try {
        config = CoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .getSession(GetSessionRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        boolean transientFailure = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
        if (!transientFailure || attempt >= 4) {
          throw new ParticipantException("cannot reach the coordinator at " + s.target() + ": " + describe(e), e);
        }
        LOG.log(Level.INFO, "the coordinator at {0} did not answer ({1}); trying again", s.target(), code);
        Thread.sleep(2_000L * attempt);
      }
    }
    String session = HexFormat.of().formatHex(config.getSessionId().toByteArray());
    try {
      SessionPlan.validate(config);
    } catch (IllegalArgumentException e) {
      throw new ParticipantException("the published configuration of session " + session + " is invalid: "
          + e.getMessage(), e);
    }
    String refusal = s.policy().check(config);
    if (refusal != null) {
      throw new ParticipantException("refusing to join session " + session + ": " + refusal);
    }
    Dataset data;
    try {
      data = SessionPlan.regression(config) ? s.data().withNumericTargets() : s.data().withLabelSet(SessionPlan.labels(config));
    } catch (dev.helmet.core.data.DataFormatException e) {
      throw new ParticipantException("the local data does not fit session " + session + ": " + e.getMessage(), e);
    }
    FeatureStage stage = SessionPlan.featureStage(config);
    if (!stage.isRaw()) {
      if (data.dimension() != stage.transform().input().pixels()) {
        throw new ParticipantException("the local data has " + data.dimension() + " values per row; session " + session
            + " computes " + stage.id() + " features of " + stage.transform().input() + " images ("
            + stage.transform().input().pixels() + " pixels)");
      }
      // The published, data-independent transform, applied here to this party's own raw rows.
      LOG.log(Level.INFO, "session {0}: computing {1} features of {2} rows", session, stage.describe(), data.size());
      data = stage.apply(data, Runtime.getRuntime().availableProcessors(), dev.helmet.core.util.Progress.NONE, null);
    }
    if (data.dimension() != config.getFeatures()) {
      throw new ParticipantException("the local data has " + data.dimension() + " features; session " + session
          + " expects " + config.getFeatures());
    }
    if (data.size() < 1) {
      throw new ParticipantException("the local data set is empty");
    }
    AlgorithmSpec spec = SessionPlan.spec(config);
    DesignMatrix design = spec.preprocessing().design(data);
    // Its own preparation on its own data (e.g. its local training), before it joins.
    long seed = s.trainingSeed() != null ? s.trainingSeed() : Secrets.random().nextLong();
    Local local = spec.prepare(design, seed);
    LOG.log(Level.INFO, "session {0}: prepared {1} on {2} points", session, spec.algorithm().id(), data.size());

    // Charged before anything about the data leaves this machine (the join and its protocol messages).
    if (s.ledger() != null) {
      String why = s.ledger().reserve(session, config.getPrivacy().getEpsilon(), config.getPrivacy().getDelta());
      if (why != null) {
        throw new ParticipantException("refusing to join session " + session + ": " + why);
      }
    }
    Signatures.KeyPair identity = Signatures.generate();
    byte[] nonce = Secrets.bytes(32);
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    StreamObserver<ParticipantMessage> out = CoordinatorGrpc.newStub(channel).participate(new StreamObserver<>() {
      @Override
      public void onNext(CoordinatorMessage m) {
        inbox.add(m);
      }

      @Override
      public void onError(Throwable t) {
        inbox.add(t);
      }

      @Override
      public void onCompleted() {
        inbox.add(END);
      }
    });
    ParticipantRun run = new ParticipantRun(config, spec, session, out, identity, nonce, data.size(), local, seed, s.noise(), hook,
        s.tls() == null ? null : IdentityBinding.ca(s.tls()), s.policy(), s.ledger());
    if (s.tls() != null) {
      run.ownCertificateSha256 = IdentityBinding.fingerprint(IdentityBinding.certificate(s.tls()));
    }
    run.tls = s.tls();
    Result result = null;
    try {
      Join.Builder join = Join.newBuilder().setSessionId(config.getSessionId())
          .setConfigDigest(ByteString.copyFrom(SessionPlan.digest(config))).setPoints(data.size())
          .setIdentityKey(ByteString.copyFrom(identity.publicKey()))
          .setNonceCommitment(ByteString.copyFrom(run.commitment));
      if (s.tls() != null) {
        join.setCertificate(ByteString.copyFrom(IdentityBinding.certificate(s.tls())))
            .setIdentityBinding(ByteString.copyFrom(IdentityBinding.sign(s.tls(), SessionPlan.digest(config),
                identity.publicKey(), run.commitment)));
      }
      run.send(ParticipantMessage.newBuilder().setJoin(join).build());
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
          throw new ParticipantException("the coordinator ended the connection: " + describe(t), t);
        }
        if (next == END) {
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
      if (s.ledger() != null) {
        double eps = s.ledger().settle(session);
        LOG.log(Level.INFO, "session {0}: the local ledger charged eps = {1} for {2} round(s) sent", session, eps,
            run.roundsSent);
      }
    }
  }


  private static String describe(Throwable t) {
    Status s = Status.fromThrowable(t);
    return s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")")
        + (s.getCause() != null && s.getDescription() == null ? " " + s.getCause().getMessage() : "");
  }
}
