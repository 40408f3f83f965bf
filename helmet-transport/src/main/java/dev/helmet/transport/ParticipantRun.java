package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.ClientState;
import dev.helmet.secagg.protocol.Messages;
import dev.helmet.secagg.protocol.SecAggParameters;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.GraphSeed;
import dev.helmet.transport.wire.Join;
import dev.helmet.transport.wire.NonceReveal;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.UploadReady;
import io.grpc.stub.StreamObserver;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Locale;

/** The participant's side of one session. */
final class ParticipantRun {
  final SessionConfig config;
  final AlgorithmSpec spec;
  final String session;
  final StreamObserver<ParticipantMessage> out;
  final Signatures.KeyPair identity;
  final byte[] nonce;
  final int points;
  /** Its private state after its preparation (its trained model, its rows). */
  final Local local;
  final long seed;
  final NoiseFactory noise;
  final Participant.Hook hook;
  /** The plan derived from the roster, and this party's side of the run. */
  PublicPlan plan;
  Contributor contributor;
  /** The secret graph nonce (revealed after the roster) and the commitment its Join carried. */
  final byte[] commitment;
  /** Round 0's SecAgg parameters and the graph seed; later rounds differ only in the session id. */
  SecAggParameters firstRound;
  byte[] graphSeed;
  int nextRound;
  /** Over TLS: the CA neighbours' identity bindings must chain to; null over plaintext. */
  final java.security.cert.X509Certificate ca;
  /** Over TLS: SHA-256 of this party's own certificate, which the roster must list for it. */
  byte[] ownCertificateSha256;
  final ParticipantPolicy policy;
  /** The participant's own ledger, or null. */
  final LocalLedger ledger;
  /** What a released round costs this party's data, derived from the plan it checked; null before the roster. */
  PrivacyCharge charge;
  /** Rounds whose masked input this party sent (each is charged, whatever happens next). */
  int roundsSent;
  Roster roster;
  final CryptoProfile profile = new CryptoProfile();
  WireCodec codec;
  ClientState client;
  int party = -1;
  Messages.MaskedInput pendingUpload;
  long bytesSent;
  long bytesReceived;
  /** Its TLS files (null over plaintext), and in a dca session its uploads to the compute nodes. */
  Tls.Files tls;
  /** Where its channels to the compute nodes come from (its settings' transport). */
  Transport transport = Transport.NETTY;
  DcaUploads dca;
  /** The certificate the coordinator presented on this session's stream (null until its headers, or over plaintext). */
  CoordinatorCertificate coordinator;
  /** Told each phase as it begins. */
  ParticipantListener listener = ParticipantListener.NONE;
  /** The plan's setup board (cross-silo SWOR's mixnet), or null when the plan needs none. */
  BoardClient board;

  ParticipantRun(SessionConfig config, AlgorithmSpec spec, String session, StreamObserver<ParticipantMessage> out,
      Signatures.KeyPair identity, byte[] nonce, int points, Local local, long seed, NoiseFactory noise, Participant.Hook hook,
      java.security.cert.X509Certificate ca, ParticipantPolicy policy, LocalLedger ledger) {
    this.policy = policy;
    this.ledger = ledger;
    this.spec = spec;
    this.local = local;
    this.seed = seed;
    this.noise = noise;
    this.hook = hook;
    this.ca = ca;
    this.config = config;
    this.session = session;
    this.out = out;
    this.identity = identity;
    this.nonce = nonce;
    this.commitment = SessionPlan.nonceCommitment(nonce);
    this.points = points;
  }

  void send(ParticipantMessage m) {
    for (ParticipantMessage x : hook.sending(m)) {
      bytesSent += x.getSerializedSize();
      out.onNext(x);
    }
  }

  /** Handles one message; returns the outcome when the session has ended. */
  Outcome handle(CoordinatorMessage m) throws Participant.ParticipantException {
    bytesReceived += m.getSerializedSize();
    switch (m.getBodyCase()) {
      case ENROLLED -> {
        Participant.LOG.log(Level.INFO, "session {0}: enrolled ({1} of {2} parties)", session,
            m.getEnrolled().getEnrolled(), m.getEnrolled().getParties());
        listener.event("enrolled", java.util.Map.of("enrolled", m.getEnrolled().getEnrolled(), "parties",
            m.getEnrolled().getParties()));
      }
      case REFUSED -> throw new CoordinatorLink.Refused("the coordinator refused to enrol this participant: "
          + m.getRefused().getReason());
      case ROSTER -> start(m.getRoster());
      case GRAPH_SEED -> seeded(m.getGraphSeed());
      case KEY_ROSTER -> {
        checkBindings(m.getKeyRoster());
        step(() -> codec.decode(m.getKeyRoster()));
      }
      case SHARE_DELIVERY -> step(() -> codec.decode(m.getShareDelivery()));
      case UPLOAD_GRANT -> {
        if (pendingUpload == null || client == null || client instanceof ClientState.Aborted) {
          Participant.LOG.log(Level.WARNING, "session {0}: an upload grant with nothing to upload; ignored", session);
        } else if (m.getUploadGrant().getSecaggSession() != pendingUpload.session()) {
          Participant.LOG.log(Level.WARNING, "session {0}: an upload grant for another summation; ignored", session);
        } else {
          // The contribution leaves now: it is charged first (on disk before it is sent) and never refunded.
          roundsSent++;
          if (ledger != null) {
            ledger.commit(session, charge, roundsSent);
          }
          send(ParticipantMessage.newBuilder().setMaskedInput(codec.encode(pendingUpload)).build());
          pendingUpload = null;
          listener.event("sent", java.util.Map.of("round", roundsSent));
        }
      }
      case CONSISTENCY_CHECK_REQUEST -> step(() -> codec.decode(m.getConsistencyCheckRequest()));
      case UNMASKING_REQUEST -> step(() -> codec.decode(m.getUnmaskingRequest()));
      case ROUND_START -> roundStart(m.getRoundStart());
      case BOARD_CHUNK -> {
        if (board == null) {
          throw new Participant.ParticipantException("a board post in a session whose plan has no setup");
        }
        board.chunk(m.getBoardChunk());
      }
      case BOARD_TURN -> boardTurn(m.getBoardTurn().getStep());
      case OUTCOME -> {
        listener.event("outcome", java.util.Map.of("status", m.getOutcome().getStatus(), "reason",
            m.getOutcome().getReason()));
        return m.getOutcome();
      }
      case BODY_NOT_SET -> Participant.LOG.log(Level.WARNING, "session {0}: an empty message from the coordinator; ignored", session);
    }
    return null;
  }

  private void start(Roster r) throws Participant.ParticipantException {
    if (roster != null) {
      Participant.LOG.log(Level.WARNING, "session {0}: a second roster; ignored", session);
      return;
    }
    try {
      SessionPlan.validateRoster(config, r);
    } catch (IllegalArgumentException e) {
      throw new Participant.ParticipantException("the roster of session " + session + " is invalid: " + e.getMessage(), e);
    }
    for (int i = 0; i < r.getPartiesCount(); i++) {
      if (java.util.Arrays.equals(r.getParties(i).getIdentityKey().toByteArray(), identity.publicKey())) {
        party = i;
      }
    }
    if (party < 0) {
      throw new Participant.ParticipantException("this participant is not in the roster of session " + session);
    }
    if (r.getParties(party).getPoints() != points || !java.util.Arrays.equals(
        r.getParties(party).getNonceCommitment().toByteArray(), commitment)) {
      throw new Participant.ParticipantException("the roster misstates this participant's points or nonce commitment");
    }
    if (ownCertificateSha256 != null && !java.util.Arrays.equals(
        r.getParties(party).getCertificateSha256().toByteArray(), ownCertificateSha256)) {
      throw new Participant.ParticipantException("the roster lists another certificate for this participant");
    }
    checkRosterBindings(r);
    try {
      plan = spec.plan(SessionPlan.sizes(r), (int) config.getMinContributors(), noise.isSecure());
    } catch (IllegalArgumentException e) {
      throw new Participant.ParticipantException("cannot derive the session's plan from the roster: " + e.getMessage(), e);
    }
    // This party's own account of what the session costs its data, from the plan it derived; it
    // never takes the coordinator's number. A plan that costs more than this party accepts or
    // reserved is refused before anything about its data leaves.
    charge = plan.charge();
    double own = charge.epsilon(plan.rounds());
    if (!(own <= policy.maxEpsilon()) || !(own <= config.getPrivacy().getEpsilon() * (1 + 1e-9))) {
      throw new Participant.ParticipantException(String.format(Locale.ROOT, "refusing session %s: by this participant's own "
          + "accounting the plan costs eps = %.6g (%s), above %s", session, own, charge.neighbours(),
          own > policy.maxEpsilon() ? "its limit of " + policy.maxEpsilon() : "the session's stated eps "
              + config.getPrivacy().getEpsilon()));
    }
    String conflict = ledger == null ? null : ledger.relationConflict(charge);
    if (conflict != null) {
      throw new Participant.ParticipantException("refusing session " + session + ": " + conflict);
    }
    roster = r;
    // whom that eps holds against: the released model's audience, from the plan this party derived
    // (its ledger's first guarantee, with any caveat the algorithm adds, as the released model will say)
    against = plan.ledger(plan.minContributors(), config.getProtocol() + " over gRPC",
        SessionPlan.revealsInputs(config)).guarantees().get(0).against();
    listener.event("roster", java.util.Map.of("party", party, "parties", r.getPartiesCount(), "rounds", plan.rounds(),
        "epsilon", own, "neighbours", charge.neighbours(), "against", against));
    contributor = plan.contributor(party, local, noise, seed);
    send(ParticipantMessage.newBuilder().setNonceReveal(NonceReveal.newBuilder().setSender(party)
        .setNonce(ByteString.copyFrom(nonce))).build());
  }

  /**
   * Every party revealed its nonce: this party checks each against the roster's commitment,
   * derives the graph and the SecAgg parameters itself, compares them with the coordinator's, and
   * then waits for the first round.
   */
  private void seeded(GraphSeed g) throws Participant.ParticipantException {
    if (roster == null || codec != null) {
      throw new Participant.ParticipantException(roster == null ? "a graph seed before the roster" : "a second graph seed");
    }
    List<byte[]> nonces = new java.util.ArrayList<>();
    for (ByteString b : g.getNoncesList()) {
      nonces.add(b.toByteArray());
    }
    if (nonces.size() != roster.getPartiesCount() || !java.util.Arrays.equals(nonces.get(party), nonce)) {
      throw new Participant.ParticipantException("the graph seed leaves out or alters this participant's own nonce");
    }
    SecAggParameters params;
    try {
      params = SessionPlan.secagg(config, roster, nonces, plan.length(), plan.encoding().ringBits());
    } catch (IllegalArgumentException e) {
      throw new Participant.ParticipantException("cannot derive the session's SecAgg parameters: " + e.getMessage(), e);
    }
    if (params.graph().degree() < policy.minNeighbours()) {
      throw new Participant.ParticipantException("refusing session " + session + ": the summation gives each party "
          + params.graph().degree() + " neighbours; this participant needs at least " + policy.minNeighbours());
    }
    if (params.graph().degree() != g.getNeighbours() || params.threshold() != g.getThreshold()
        || params.session() != g.getSecaggSession()) {
      throw new Participant.ParticipantException(String.format("the coordinator's SecAgg parameters (k = %d, t = %d) differ from "
          + "this participant's own derivation (k = %d, t = %d) or the session id does not match", g.getNeighbours(),
          g.getThreshold(), params.graph().degree(), params.threshold()));
    }
    if (SessionPlan.dca(config)) {
      if (tls == null) {
        throw new Participant.ParticipantException("session " + session + " sums through compute nodes (dca), which "
            + "need mutual TLS: give this participant its TLS files");
      }
      java.security.cert.X509Certificate seen = coordinator == null ? null : coordinator.certificate();
      if (seen == null) {
        throw new Participant.ParticipantException("session " + session + " sums through compute nodes (dca), but "
            + "this participant cannot tell which certificate the coordinator presented, against which it checks them");
      }
      dca = new DcaUploads(config, session, tls, seen, hook, listener == null ? (k, f) -> { } : listener, transport);
    }
    codec = new WireCodec(roster.getPartiesCount(), params.length(), params.ringBits());
    firstRound = params;
    graphSeed = SessionPlan.graphSeed(config, roster, nonces);
    byte[] setupSession = Board.setupSession(config, roster, nonces);
    dev.helmet.protocols.algorithm.Setup setup = plan.setup(setupSession);
    if (setup != null) {
      guardSetupAborts();
      board = new BoardClient(config, roster, setup, party, setupSession, identity.secret(), profile);
      Participant.LOG.log(Level.INFO, "session {0}: setup before round 0: {1}", session, setup.describe());
    }
    Participant.LOG.log(Level.INFO, "session {0}: party {1} of {2}; {3}, threshold {4}; {5}, {6} round(s), noise multiplier {7}",
        session, party, roster.getPartiesCount(), params.graph().description(), params.threshold(),
        spec.algorithm().id(), plan.rounds(), String.format(Locale.ROOT, "%.4f", plan.noiseMultiplier()));
  }

  /**
   * Round r opens with its public state. The party answers only the next round it expects and
   * never more rounds than its own plan accounted for, checks the round's SecAgg session against
   * its own derivation, and computes its input (its own training, clipping and noise) itself,
   * while the summation's first messages go out.
   */
  private void roundStart(dev.helmet.transport.wire.RoundStart rs) throws Participant.ParticipantException {
    if (plan == null || firstRound == null) {
      throw new Participant.ParticipantException("a round start before the roster and the graph seed");
    }
    if (board != null && !board.done()) {
      throw new Participant.ParticipantException("the coordinator opened round " + rs.getRound() + " before this party "
          + "finished the setup");
    }
    int rounds = plan.rounds();
    if (rs.getRound() != nextRound || nextRound >= rounds) {
      throw new Participant.ParticipantException("the coordinator opened round " + rs.getRound() + "; this participant expects "
          + (nextRound >= rounds ? "no further round (all " + rounds + " accounted rounds have run)"
          : "round " + nextRound) + ", so it stops");
    }
    SecAggParameters params = nextRound == 0 ? firstRound
        : SessionPlan.forRound(config, firstRound, graphSeed, nextRound);
    if (params.session() != rs.getSecaggSession()) {
      throw new Participant.ParticipantException("round " + nextRound + "'s SecAgg session id differs from this participant's "
          + "own derivation");
    }
    listener.event("round", java.util.Map.of("round", nextRound + 1, "rounds", rounds));
    java.util.function.Supplier<long[]> work;
    try {
      work = contributor.open(nextRound, rs.getState().toByteArray());
    } catch (IllegalArgumentException e) {
      throw new Participant.ParticipantException("round " + nextRound + ": the coordinator's round state is malformed: "
          + e.getMessage(), e);
    }
    if (dca != null) {
      uploadShares(nextRound++, work, params.ringBits());
      return;
    }
    java.util.concurrent.CompletableFuture<long[]> input = inBackground(work);
    nextRound++;
    pendingUpload = null;
    advance(ClientState.start(new ClientState.Context(params, party, identity.secret(), input::join, profile)));
  }

  /** Setups of this data that may abort before this party refuses another: see {@link #guardSetupAborts}. */
  static final int MAX_ABORTED_SETUPS = 3;
  static final java.time.Duration SETUP_ABORT_WINDOW = java.time.Duration.ofHours(24);

  /**
   * A setup that aborts after the coordinator saw every reveal costs it nothing and lets it restart
   * for another joint seed, i.e. choose among draws of the batches (security review turn 3, T3-10).
   * The ledger records each setup this data starts and finishes; with {@link #MAX_ABORTED_SETUPS}
   * aborted within {@link #SETUP_ABORT_WINDOW}, the party refuses another, so a coordinator chooses
   * among at most four draws a day (best of R shifts a batch's honest count by about sqrt(2 ln R)
   * standard deviations: 1.7 for R = 4). Without a ledger nothing is remembered across runs, and
   * the count is this run's only (the warning says so).
   */
  private void guardSetupAborts() throws Participant.ParticipantException {
    if (ledger == null) {
      return;
    }
    List<String> aborted = ledger.abortedSetups(SETUP_ABORT_WINDOW, session);
    String refusal = setupAbortRefusal(session, aborted);
    if (refusal != null) {
      throw new Participant.ParticipantException(refusal);
    }
    if (!aborted.isEmpty()) {
      Participant.LOG.log(Level.WARNING, "session {0}: {1} earlier setup(s) of this data aborted in the last {2} h: {3}",
          session, aborted.size(), SETUP_ABORT_WINDOW.toHours(), aborted);
      listener.event("setup_aborts", java.util.Map.of("count", aborted.size(), "sessions", aborted.toString()));
    }
    ledger.markSetup(session, false);
  }

  /** Why a session's setup is refused after {@code aborted} setups of this data aborted, or null. */
  static String setupAbortRefusal(String session, List<String> aborted) {
    if (aborted.size() < MAX_ABORTED_SETUPS) {
      return null;
    }
    return "refusing session " + session + ": " + aborted.size() + " setups of this data were aborted in the last "
        + SETUP_ABORT_WINDOW.toHours() + " h (sessions " + aborted + ", in the ledger); a coordinator that aborts "
        + "setups after seeing the reveals can choose among joint seeds, so this participant takes part in no further "
        + "setup until the oldest is a day old; ask the coordinator's operator why they aborted";
  }

  /**
   * Its turn on the setup board: it posts, signed; after its last step the plan's contributor takes
   * its side of the setup (its tokens and the joint seed).
   */
  private void boardTurn(int step) throws Participant.ParticipantException {
    if (board == null) {
      throw new Participant.ParticipantException("a setup turn in a session whose plan has no setup");
    }
    listener.event("setup", java.util.Map.of("step", step + 1, "steps", board.steps()));
    for (dev.helmet.transport.wire.BoardChunk ch : board.turn(step)) {
      send(ParticipantMessage.newBuilder().setBoardChunk(ch).build());
    }
    if (board.done()) {
      // The ledger counts the setup finished only when round 0's input leaves (LocalLedger.commit).
      contributor = plan.contributor(party, local, noise, seed, board.side());
    }
  }

  /**
   * A dca round: this party computes its input, charges the round on its own ledger (the shares
   * leave now, and a released round is never refunded), and uploads its shares to the nodes.
   */
  private void uploadShares(int round, java.util.function.Supplier<long[]> work, int bits)
      throws Participant.ParticipantException {
    long[] x;
    try {
      x = work.get();
    } catch (RuntimeException e) {
      throw new Participant.ParticipantException("round " + round + ": this party's input failed: " + e.getMessage(), e);
    }
    roundsSent++;
    if (ledger != null) {
      ledger.commit(session, charge, roundsSent);
    }
    try {
      dca.upload(round, party, x, bits, profile);
      listener.event("sent", java.util.Map.of("round", round + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Participant.ParticipantException("interrupted while uploading round " + round + "'s shares", e);
    }
  }

  /**
   * Over TLS, every roster entry must be a distinct certified participant: its certificate the one
   * whose fingerprint the entry lists, a participant certificate of this deployment's CA, whose key
   * signed the entry's identity key and nonce commitment for this configuration, and no two entries
   * of one holder (subject or key). An entry the coordinator made up would count as a party whose
   * noise the plan expects; this party stops before it reveals anything.
   */
  private void checkRosterBindings(Roster r) throws Participant.ParticipantException {
    if (ca == null) {
      return;
    }
    String why = RosterCheck.problem(config, r, ca);
    if (why != null) {
      throw new Participant.ParticipantException("the roster of session " + session + " lists " + why
          + "; the coordinator may have added parties, so this party stops");
    }
  }

  /** Over TLS, the neighbours' keys must come with the roster's bindings ({@link RosterCheck#keyRosterProblem}). */
  private void checkBindings(dev.helmet.transport.wire.KeyRoster kr) throws Participant.ParticipantException {
    if (ca == null || roster == null) {
      return;
    }
    String why = RosterCheck.keyRosterProblem(roster, party, kr);
    if (why != null) {
      throw new Participant.ParticipantException(why);
    }
  }

  private interface Decoder {
    Messages.ServerMessage decode();
  }

  private void step(Decoder d) throws Participant.ParticipantException {
    if (client == null) {
      throw new Participant.ParticipantException("a protocol message before the roster");
    }
    if (client.isFinal()) {
      return; // this party has stopped; it only waits for the outcome
    }
    Messages.ServerMessage msg;
    try {
      msg = d.decode();
    } catch (WireFormatException e) {
      Participant.LOG.log(Level.WARNING, "session {0}: a malformed message from the coordinator ({1}); this party stops",
          session, e.getMessage());
      client = null;
      throw new Participant.ParticipantException("malformed message from the coordinator: " + e.getMessage(), e);
    }
    advance(client.handle(msg));
  }

  private void advance(ClientState.Step step) {
    client = step.next();
    if (client instanceof ClientState.Aborted a) {
      Participant.LOG.log(Level.WARNING, "session {0}: party {1} stops: {2} ({3})", session, party, a.reason(), a.detail());
    }
    Messages.ClientMessage reply = step.reply();
    if (reply == null) {
      return;
    }
    ParticipantMessage.Builder b = ParticipantMessage.newBuilder();
    if (reply instanceof Messages.AdvertiseKeys a) {
      b.setAdvertiseKeys(codec.encode(a));
    } else if (reply instanceof Messages.ShareKeys k) {
      b.setShareKeys(codec.encode(k));
    } else if (reply instanceof Messages.MaskedInput mi) {
      // Flow control: announce the upload and send it when granted.
      pendingUpload = mi;
      b.setUploadReady(UploadReady.newBuilder().setSecaggSession(mi.session()).setSender(party));
    } else if (reply instanceof Messages.ConsistencySignature c) {
      b.setConsistencySignature(codec.encode(c));
    } else if (reply instanceof Messages.UnmaskingShares u) {
      b.setUnmaskingShares(codec.encode(u));
    }
    send(b.build());
  }

  /** Runs {@code task} on a daemon thread (a party computes one input at a time). */
  private static java.util.concurrent.CompletableFuture<long[]> inBackground(
      java.util.function.Supplier<long[]> task) {
    java.util.concurrent.CompletableFuture<long[]> f = new java.util.concurrent.CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(task.get());
      } catch (RuntimeException | Error e) {
        f.completeExceptionally(e);
      }
    }, "helmet-participant-input");
    t.setDaemon(true);
    t.start();
    return f;
  }

  /** The relation and unit of this party's own eps, in words ("" before it derived a plan). */
  /** Whom this party's eps holds against, set with its plan at enrolment (null before). */
  private String against;

  String relation() {
    return charge == null ? "" : charge.relation();
  }

  /** This party's own eps for the rounds it sent (0 if none). */
  double ownEpsilon() {
    return charge == null || roundsSent == 0 ? 0 : charge.epsilon(roundsSent);
  }

  /** Bytes it sent: to the coordinator, and in a dca session to the compute nodes. */
  long sent() {
    return bytesSent + (dca == null ? 0 : dca.bytesSent);
  }

  Participant.Result result(Outcome o, double seconds) {
    boolean completed = o.getStatus().equals("completed");
    ReleasedModel released = null;
    // Without a plan (no roster) this party took no part in any summation: nothing to read.
    if (completed && plan != null) {
      try {
        // Bounded by this party's own algorithm and the published configuration (T3-7).
        ReleasedModel sent = OutcomeModel.read(o.getModelGzip(), OutcomeModel.Limits.of(spec, config),
            "the coordinator's released model");
        // The weights are the coordinator's (the released sum); everything said about them is
        // this party's own: its preprocessing, algorithm settings and the ledger of the plan it derived,
        // never the coordinator's numbers.
        released = ReleasedModel.of(spec, sent.weights(), SessionPlan.labels(config), (int) config.getFeatures(),
            plan.ledger(o.getContributorsCount(), config.getProtocol() + " over gRPC",
                SessionPlan.revealsInputs(config)), sent.provenance(),
            SessionPlan.featureStage(config));
      } catch (RuntimeException e) {
        String why = e instanceof dev.helmet.protocols.model.ModelFormatException ? e.getMessage()
            : "the coordinator's released model does not fit this participant's session: " + e.getMessage();
        return new Participant.Result(false, why, null, ownEpsilon(), party,
            o.getContributorsList(), sent(), bytesReceived, seconds, relation(), against == null ? "" : against);
      }
    }
    double own = ownEpsilon();
    Participant.LOG.log(Level.INFO, "session {0}: {1}{2}; by its own accounting this party''s data spent eps = {3} ({4} round(s) "
        + "sent; {5}); sent {6} B, received {7} B", session, o.getStatus(), completed ? "" : ": " + o.getReason(),
        own, roundsSent, charge == null ? "no plan" : charge.neighbours(), sent(), bytesReceived);
    return new Participant.Result(completed && released != null, o.getReason(), released, own, party, o.getContributorsList(),
        sent(), bytesReceived, seconds, relation(), against == null ? "" : against);
  }
}
