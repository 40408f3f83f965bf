package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.core.util.Version;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.protocol.Round;
import dev.helmet.secagg.protocol.SecAggParameters;
import dev.helmet.secagg.protocol.ServerEvents;
import dev.helmet.secagg.protocol.ServerState;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.GraphSeed;
import dev.helmet.transport.wire.Outcome;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.RosterEntry;
import dev.helmet.transport.wire.RoundStart;
import io.grpc.Status;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's round driver: enrolment, the roster, the nonce reveals, then every round of the
 * algorithm (its public state, one SecAgg/SecAgg+ summation with the configuration's deadlines,
 * the server's step), and the release or the abort with exactly the released rounds charged. It
 * knows no algorithm: everything specific comes from the published configuration's
 * {@link dev.helmet.protocols.algorithm.PublicPlan}.
 */
final class RoundDriver {
  private final Coordinator c;

  RoundDriver(Coordinator c) {
    this.c = c;
  }

  /** Thrown inside the runner to end the session without a release. */
  static final class Abort extends Exception {
    static final long serialVersionUID = 1L;

    Abort(String reason) {
      super(reason, null, false, false);
    }
  }

  void runSession() {
    long start = System.nanoTime();
    try (AutoCloseable nodes = () -> {
      if (c.dca != null) {
        c.dca.close();
      }
    }) {
      Coordinator.Result r = runRounds(start);
      c.listener.finished(true, r.epsilon(), r.bytesPerParticipant());
      c.events.flushEvents();
      c.result.complete(r);
    } catch (Abort a) {
      finishAborted(a.getMessage(), start);
    } catch (InterruptedException e) {
      finishAborted("the coordinator was stopped", start);
    } catch (Exception | Error e) {
      // Whatever happens, the session ends with a recorded abort and nothing released.
      Coordinator.LOG.log(Level.ERROR, "session " + c.sessionHex + " failed", e);
      finishAborted("internal error: " + e, start);
    }
  }

  Coordinator.Result runRounds(long start) throws Abort, InterruptedException {
    // Enrolment.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(c.config.getDeadlines().getEnrolmentSeconds());
    int n;
    c.lock.lock();
    try {
      c.enrolmentDeadline = deadline;
      while (c.enrolled.size() < c.config.getParties() && c.waitUntil(deadline)) {
        // woken by a join
      }
      c.phase = Coordinator.Phase.RUNNING;
      n = c.enrolled.size();
      for (int i = 0; i < n; i++) {
        c.enrolled.get(i).party = i;
      }
    } finally {
      c.lock.unlock();
    }
    if (n < c.config.getMinContributors()) {
      throw new Abort("only " + n + " of " + c.config.getParties() + " parties joined before the enrolment deadline; "
          + c.config.getMinContributors() + " are needed");
    }
    Roster.Builder roster = Roster.newBuilder().setCoordinatorNonce(ByteString.copyFrom(c.coordinatorNonce));
    for (Peer p : c.enrolled) {
      c.store.participant(c.sessionHex, p.party, p.subject, p.points);
      roster.addParties(RosterEntry.newBuilder().setParty(p.party).setPoints(p.points)
          .setIdentityKey(ByteString.copyFrom(p.identityKey)).setNonceCommitment(ByteString.copyFrom(p.commitment))
          .setSubject(p.subject).setCertificateSha256(p.tlsCertificate == null ? ByteString.EMPTY
              : ByteString.copyFrom(IdentityBinding.fingerprint(p.tlsCertificate)))
          .setCertificate(p.tlsCertificate == null ? ByteString.EMPTY : ByteString.copyFrom(p.tlsCertificate))
          .setIdentityBinding(p.binding == null ? ByteString.EMPTY : ByteString.copyFrom(p.binding)));
    }
    AlgorithmSpec spec = SessionPlan.spec(c.config);
    PublicPlan plan;
    Roster built = roster.build();
    try {
      plan = spec.plan(SessionPlan.sizes(built), (int) c.config.getMinContributors());
      SessionPlan.validateRoster(c.config, built);
    } catch (IllegalArgumentException e) {
      throw new Abort("the enrolled parties admit no plan: " + e.getMessage());
    }
    // What each released round will cost, stored before any can be released (so an abort or a
    // restart charges exactly the released rounds).
    String conflict = c.store.relationConflict(c.sessionHex, c.config.getDataset(), plan.charge());
    if (conflict != null) {
      throw new Abort(conflict);
    }
    c.store.charge(c.sessionHex, plan.charge());
    c.relation = plan.charge().relation();
    CoordinatorMessage rosterMessage = CoordinatorMessage.newBuilder().setRoster(built).build();
    c.lock.lock();
    try {
      c.revealing = true; // before the roster goes out: a party answers it with its reveal at once
    } finally {
      c.lock.unlock();
    }
    for (Peer p : c.enrolled) {
      c.out.sendCounted(p, rosterMessage, c.deadlineAfterRound());
    }
    List<byte[]> nonces = awaitReveals(n);
    SecAggParameters params;
    try {
      params = SessionPlan.secagg(c.config, built, nonces, plan.length(), plan.encoding().ringBits());
    } catch (IllegalArgumentException e) {
      throw new Abort("the enrolled parties admit no SecAgg parameters: " + e.getMessage());
    }
    CryptoProfile profile = new CryptoProfile();
    int rounds = plan.rounds();
    Coordinator.LOG.log(Level.INFO, "session {0}: {1} parties enrolled; {2}, threshold {3}; {4} values per input, {5}-bit ring; "
        + "{6}, {7} round(s)", c.sessionHex, n, params.graph().description(), params.threshold(), params.length(),
        params.ringBits(), spec.algorithm().id(), rounds);
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("graph", params.graph().description());
    parameters.put("neighbours", params.graph().degree());
    parameters.put("threshold", params.threshold());
    parameters.put("min_contributors", params.minSurvivors());
    parameters.put("colluding_fraction", c.config.getColludingFraction());
    GraphSeed.Builder seed = GraphSeed.newBuilder().setNeighbours(params.graph().degree())
        .setThreshold(params.threshold()).setSecaggSession(params.session());
    for (byte[] nonce : nonces) {
      seed.addNonces(ByteString.copyFrom(nonce));
    }
    CoordinatorMessage seedMessage = CoordinatorMessage.newBuilder().setGraphSeed(seed).build();
    for (Peer p : c.enrolled) {
      if (!c.gone.get(p.party)) {
        c.out.sendCounted(p, seedMessage, c.deadlineAfterRound());
      }
    }
    if (SessionPlan.dca(c.config)) {
      // The compute nodes learn the roster (whose certificates may upload) before any round opens.
      c.dca = DcaRounds.open(c, built, plan);
    }

    // A plan's setup (cross-silo SWOR's mixnet and joint seed) runs on the board before round 0.
    byte[] setupSession = Board.setupSession(c.config, built, nonces);
    dev.helmet.protocols.algorithm.Setup setup = plan.setup(setupSession);
    Map<String, Object> setupFigures = new LinkedHashMap<>();
    if (setup != null) {
      BoardRelay relay = new BoardRelay(c, setup, setupSession, profile);
      long s0 = System.nanoTime();
      c.board = relay;
      try {
        relay.run();
      } finally {
        c.board = null;
      }
      setupFigures.put("setup", setup.describe());
      setupFigures.put("setup_seconds", (System.nanoTime() - s0) / 1e9);
    }

    // Every round: the public state, one summation on the same streams, the server's step.
    List<SummationOutcome.Drop> drops = new ArrayList<>();
    ServerRole role = plan.server();
    byte[] graphSeed = SessionPlan.graphSeed(c.config, built, nonces);
    int[] contributors = new int[0];
    int fewest = n;
    for (int r = 0; r < rounds; r++) {
      c.lock.lock();
      try {
        c.round = r;
        c.rounds = rounds;
      } finally {
        c.lock.unlock();
      }
      SecAggParameters pr = r == 0 ? params : SessionPlan.forRound(c.config, params, graphSeed, r);
      CoordinatorMessage opening = CoordinatorMessage.newBuilder().setRoundStart(RoundStart.newBuilder().setRound(r)
          .setSecaggSession(pr.session()).setState(ByteString.copyFrom(role.state(r)))).build();
      String prefix = rounds > 1 ? "R" + r + "/" : "";
      long[] sum;
      if (c.dca != null) {
        DcaRounds.Summed summed = c.dca.round(r, opening, prefix);
        drops.addAll(summed.drops());
        sum = summed.sum();
        contributors = summed.contributors();
      } else {
        ServerState.Completed done = summation(pr, profile, prefix, opening);
        for (SummationOutcome.Drop d : drops(done)) {
          if (!c.absentAtStart.get(d.party())) {
            drops.add(new SummationOutcome.Drop(d.party(), prefix + d.round(), d.reason(), d.detail()));
          }
        }
        sum = done.sum();
        contributors = done.contributors().stream().toArray();
      }
      fewest = Math.min(fewest, contributors.length);
      role.step(r, plan.encoding().decode(sum), contributors);
      if (rounds > 1) {
        Coordinator.LOG.log(Level.INFO, "session {0}: round {1} of {2} summed {3} contributors", c.sessionHex, r + 1, rounds,
            contributors.length);
      }
    }
    String protocolName = c.config.getProtocol() + " over gRPC";
    dev.helmet.core.learn.Model weights = role.model();
    dev.helmet.privacy.ledger.PrivacyLedger ledger = plan.ledger(fewest, protocolName, SessionPlan.revealsInputs(c.config));
    List<Integer> released = java.util.Arrays.stream(contributors).boxed().toList();
    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", Version.get());
    provenance.put("created", Instant.now().toString());
    provenance.put("session", c.sessionHex);
    provenance.put("session_name", c.config.getName());
    provenance.put("dataset", c.config.getDataset());
    provenance.put("parties", n);
    provenance.put("contributors", released.size());
    provenance.put("protocol", protocolName);
    provenance.put("algorithm", spec.algorithm().id());
    provenance.put("rounds", rounds);
    ReleasedModel model = ReleasedModel.of(spec, weights, SessionPlan.labels(c.config), (int) c.config.getFeatures(),
        ledger, provenance, SessionPlan.featureStage(c.config));
    String json = ModelFile.toJson(model).toString();
    double eps = ledger.epsilon();
    double delta = ledger.delta();
    // The release and the ledger's charge are one transaction: either both are recorded or neither.
    c.store.release(c.sessionHex, json, released.size(), eps, delta);
    c.lock.lock();
    try {
      c.phase = Coordinator.Phase.DONE;
    } finally {
      c.lock.unlock();
    }
    // Formatted here, not by MessageFormat (which prints delta = 1e-5 as "0"): the same numbers
    // as the summary and --json.
    // One line per guarantee, each the text the summaries print (Guarantee.describe).
    List<String> guarantees = ledger.guarantees().isEmpty() ? List.of("eps = " + eps + ", delta = " + delta)
        : ledger.guarantees().stream().map(g -> g.describe()).toList();
    for (String g : guarantees) {
      Coordinator.LOG.log(Level.INFO, String.format(java.util.Locale.ROOT, "session %s: released the model of %d "
          + "contributors; %s", c.sessionHex, released.size(), g));
    }
    Outcome o = Outcome.newBuilder().setStatus("completed").setModelGzip(ByteString.copyFrom(gzip(json)))
        .addAllContributors(released).setRounds(SessionPlan.rounds(c.config))
        .setEpsilon(eps).setDelta(delta).build();
    c.out.broadcastOutcome(o);
    long total = 0;
    for (Peer p : c.enrolled) {
      total += p.bytesIn + p.bytesOut;
    }
    if (c.dca != null) {
      // A participant's traffic is its stream and its uploads to the nodes.
      parameters = new LinkedHashMap<>(c.dca.parameters());
      parameters.putAll(setupFigures);
      return new Coordinator.Result(c.sessionHex, true, "", model, eps, delta, n, released, drops, total,
          (total + c.dca.uploadBytes()) / n, (System.nanoTime() - start) / 1e9, parameters);
    }
    parameters.putAll(setupFigures);
    return new Coordinator.Result(c.sessionHex, true, "", model, eps, delta, n, released, drops, total, total / n,
        (System.nanoTime() - start) / 1e9, parameters);
  }

  /**
   * Runs one secure summation (SecAgg rounds 0 to 4) with the deadlines of the configuration.
   *
   * @param prefix prefixes the stage names recorded (with several rounds: the round, "R3/")
   * @param opening sent to every connected party once the summation's state exists, so no answer
   *     can arrive before it (the RoundStart), or null
   * @return the completed state, with the sum
   * @throws Abort if the summation aborted (nothing of it is released)
   */
  ServerState.Completed summation(SecAggParameters params, CryptoProfile profile, String prefix,
      CoordinatorMessage opening) throws Abort, InterruptedException {
    List<Peer> live = new ArrayList<>();
    c.lock.lock();
    try {
      c.codec = new WireCodec(params.graph().parties(), params.length(), params.ringBits());
      c.secaggSession = params.session();
      c.state = ServerState.start(params, profile);
      c.reportedDrops = 0;
      c.reportedRejections = 0;
      c.stagePrefix = prefix;
      // A party that left is dropped again by every later summation; its drop is recorded once. A
      // party that left before its first drop was recorded (e.g. between the roster and round 0)
      // is recorded here as usual.
      c.absentAtStart = (BitSet) c.gone.clone();
      c.absentAtStart.and(c.dropRecorded);
      for (Peer p : c.enrolled) {
        if (!c.gone.get(p.party)) {
          live.add(p);
        }
      }
      // The first stage is visible (status page, database row) with its deadline and the parties it
      // waits for before any party is sent its opening, not only once the loop below waits on it.
      c.store.stage(c.sessionHex, Store.Status.RUNNING, prefix + c.state.round().name());
      c.stageDeadline = c.deadlineAfterRound();
      c.stageExpected = c.state.awaiting().cardinality();
    } finally {
      c.lock.unlock();
    }
    if (opening != null) {
      long sendBy = c.deadlineAfterRound();
      for (Peer p : live) {
        c.out.sendCounted(p, opening, sendBy);
      }
    }
    ServerState current;
    while (true) {
      c.lock.lock();
      try {
        current = c.state;
        if (current.isFinal()) {
          break;
        }
        c.store.stage(c.sessionHex, Store.Status.RUNNING, c.stagePrefix + current.round().name());
        // The parties this stage waits for, counted when the stage began (before its opening went
        // out), not now: answers that came in since would make the count race-dependent.
        int expected = c.stageExpected;
        long roundDeadline = c.deadlineAfterRound();
        long stageStart = System.nanoTime();
        c.stageDeadline = roundDeadline;
        c.stageExpected = expected;
        while (!c.awaitingLive().isEmpty() && c.waitUntil(roundDeadline)) {
          // woken by a message or a departure
        }
        int answered = expected - current.awaiting().cardinality();
        boolean unmasking = current.round() == Round.UNMASKING;
        if (unmasking) {
          // Closing the unmasking round computes the sum: charge the round first (a crash in
          // between over-charges, which is safe), and take the charge back only if it aborts.
          c.store.roundsReleased(c.sessionHex, c.releasedRounds + 1);
        }
        ServerState.Transition tr = current.close();
        c.state = tr.next();
        if (!c.state.isFinal()) {
          // Counted under the lock, before the next stage's messages are sent below.
          c.stageExpected = c.state.awaiting().cardinality();
        }
        if (unmasking) {
          if (c.state instanceof ServerState.Completed) {
            c.releasedRounds++;
          } else {
            c.store.roundsReleased(c.sessionHex, c.releasedRounds);
          }
        }
        c.events.recordEvents(c.stage(current));
        c.store.roundOutcome(c.sessionHex, c.stage(current), expected, answered);
        c.listener.stageClosed(c.stage(current), (System.nanoTime() - stageStart) / 1e9, expected, answered,
            c.bytesInThisRound);
        Coordinator.LOG.log(Level.INFO, "session {0}: {1}{2} closed, {3} of {4} answered, {5} B received", c.sessionHex, c.stagePrefix,
            current.round(), answered, expected, c.bytesInThisRound);
        c.bytesInThisRound = 0;
        if (c.state.isFinal()) {
          current = c.state;
          break;
        }
        c.uploadQueue.clear();
        c.activeUploads = 0;
        for (Peer p : c.enrolled) {
          p.granted = false;
        }
        c.out.sendRound(tr.outgoing());
      } finally {
        if (c.lock.isHeldByCurrentThread()) {
          c.lock.unlock();
        }
      }
    }
    if (current instanceof ServerState.Aborted a) {
      throw new Abort((c.stagePrefix.isEmpty() ? "" : "round " + c.stagePrefix.substring(1, c.stagePrefix.length() - 1)
          + ": ") + "secure aggregation aborted: " + a.reason() + ": " + a.detail());
    }
    return (ServerState.Completed) current;
  }

  void finishAborted(String why, long start) {
    int released;
    c.lock.lock();
    try {
      released = c.releasedRounds;
    } finally {
      c.lock.unlock();
    }
    String reason = why;
    double charged = 0;
    try {
      charged = c.store.abort(c.sessionHex, why + (released == 0 ? "; nothing was released"
          : "; " + released + " round(s) were released and are charged"));
    } catch (RuntimeException e) {
      Coordinator.LOG.log(Level.ERROR, "could not record the abort of session " + c.sessionHex, e);
    }
    reason = why + (released == 0 ? "; nothing was released and the reservation is refunded"
        : String.format(java.util.Locale.ROOT, "; %d of %d rounds were released before it and are charged "
            + "(eps = %.4g; neighbours: %s)", released, SessionPlan.rounds(c.config), charged, c.relation));
    Coordinator.LOG.log(Level.WARNING, "session {0} aborted: {1}", c.sessionHex, reason);
    List<SummationOutcome.Drop> drops;
    c.lock.lock();
    try {
      c.phase = Coordinator.Phase.DONE;
      drops = c.state == null ? c.dcaDrops : drops(c.state);
    } finally {
      c.lock.unlock();
    }
    if (!c.closing) {
      c.out.broadcastOutcome(Outcome.newBuilder().setStatus("aborted").setReason(reason).build());
    }
    long bytes = 0;
    int n;
    c.lock.lock();
    try {
      n = c.enrolled.size();
      for (Peer p : c.enrolled) {
        bytes += p.bytesIn + p.bytesOut;
      }
    } finally {
      c.lock.unlock();
    }
    c.events.flushEvents();
    c.listener.finished(false, charged, n == 0 ? 0 : bytes / n);
    // An aborted session's epsilon is what its released rounds cost (0: nothing was released).
    c.result.complete(new Coordinator.Result(c.sessionHex, false, reason, null, charged, released == 0 ? 0 : c.config.getPrivacy()
        .getDelta(), n, List.of(), drops, bytes,
        n == 0 ? 0 : bytes / n, (System.nanoTime() - start) / 1e9, Map.of()));
  }

  static List<SummationOutcome.Drop> drops(ServerState s) {
    List<SummationOutcome.Drop> out = new ArrayList<>();
    for (ServerEvents.Drop d : s.drops()) {
      out.add(new SummationOutcome.Drop(d.party(), d.round().name(), d.reason().name(), d.detail()));
    }
    return out;
  }

  /**
   * Waits (one round deadline) for every connected party's nonce reveal; returns them in roster
   * order, empty for a party that did not reveal (it is then treated as gone: over the complete
   * graph, which does not depend on the nonces, that is an ordinary dropout; SecAgg+ refuses it in
   * {@link SessionPlan#secagg}, since withholding reveals would let parties choose among graphs).
   */
  List<byte[]> awaitReveals(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(c.config.getDeadlines().getRoundSeconds());
    c.lock.lock();
    try {
      while (!liveRevealed() && c.waitUntil(deadline)) {
        // woken by a reveal or a departure
      }
      c.revealing = false;
      List<byte[]> nonces = new ArrayList<>(n);
      for (Peer p : c.enrolled) {
        if (p.revealed == null) {
          c.gone.set(p.party);
          Coordinator.LOG.log(Level.INFO, "session {0}: {1} did not reveal its graph nonce", c.sessionHex, p.name());
        }
        nonces.add(p.revealed == null ? new byte[0] : p.revealed);
      }
      return nonces;
    } finally {
      c.lock.unlock();
    }
  }

  /** Whether every party still connected has revealed its nonce (lock held). */
  boolean liveRevealed() {
    for (Peer p : c.enrolled) {
      if (p.revealed == null && !c.gone.get(p.party)) {
        return false;
      }
    }
    return true;
  }

  static byte[] gzip(String text) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(bytes)) {
      z.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
