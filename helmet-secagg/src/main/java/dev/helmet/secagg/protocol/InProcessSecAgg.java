package dev.helmet.secagg.protocol;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.graph.CommunicationGraph;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

/**
 * SecAgg or SecAgg+ with every party and the server in this process: the real protocol (the
 * same state machines a networked deployment runs), messages passed by reference, parties computed
 * in parallel. Masked inputs are bit-packed as on the wire, so the byte counts and the server's
 * checks are those of a networked run. Simulated dropouts follow a {@link DropoutPlan}: a party
 * that drops before step r sends nothing from round r on. Identity keys are generated here and
 * play the PKI.
 */
public final class InProcessSecAgg implements SecureSummation {
  private final Variant variant;
  private final double colluding;
  private final double maxDropout;
  private final DropoutPlan dropouts;
  private final int threads;

  /** The protocol variant. */
  public enum Variant {
    /** Every pair of parties shares keys (Bonawitz et al. 2017). */
    SECAGG("secagg"),
    /** Each party shares keys with k random neighbours on a Harary graph (Bell et al. 2020). */
    SECAGG_PLUS("secagg+");

    private final String id;

    Variant(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }
  }

  /**
   * A {@code maxDropout} that sizes the protocol for exactly the dropouts the summation tolerates:
   * (n - m) / n for n parties of which at least m must contribute. More would not help (the
   * summation aborts below m contributors anyway) and costs neighbours.
   */
  public static final double DROPOUTS_FROM_THRESHOLD = -1;

  /** Sized for a curious server alone (no colluding parties). */
  public InProcessSecAgg(Variant variant, double maxDropout, DropoutPlan dropouts, int threads) {
    this(variant, 0, maxDropout, dropouts, threads);
  }

  /**
   * @param variant SecAgg or SecAgg+
   * @param colluding the fraction of parties that may collude with the server ({@link SecAggSizing})
   * @param maxDropout the fraction of parties the protocol is sized to lose, or {@link
   *     #DROPOUTS_FROM_THRESHOLD}
   * @param dropouts which simulated parties drop
   * @param threads worker threads for the parties' computations
   */
  public InProcessSecAgg(Variant variant, double colluding, double maxDropout, DropoutPlan dropouts, int threads) {
    this.variant = Checks.notNull("variant", variant);
    Checks.require(maxDropout == DROPOUTS_FROM_THRESHOLD || maxDropout >= 0 && maxDropout < 0.5,
        "max dropout must be in [0, 0.5). Provided value: " + maxDropout);
    Checks.require(colluding >= 0 && colluding < 1, "colluding fraction must be in [0, 1). Provided value: " + colluding);
    this.colluding = colluding;
    this.maxDropout = maxDropout;
    this.dropouts = Checks.notNull("dropout plan", dropouts);
    this.threads = Checks.positive("threads", threads);
  }

  @Override
  public String name() {
    return variant.id();
  }

  @Override
  public boolean revealsInputs() {
    return false;
  }

  /** The public parameters this driver would use for {@code spec}. */
  public SecAggParameters parameters(SummationSpec spec, List<byte[]> identityKeys) {
    int n = spec.parties();
    SecAggSizing.Choice c = SecAggSizing.choose(variant == Variant.SECAGG_PLUS, n, colluding, sizedDropout(spec),
        spec.threshold());
    CommunicationGraph graph = c.complete()
        ? CommunicationGraph.complete(n)
        : CommunicationGraph.harary(n, c.neighbours(), Secrets.random().nextLong());
    return new SecAggParameters(Secrets.random().nextLong(), Secrets.bytes(32), spec.length(), spec.encoding().ringBits(), graph,
        c.threshold(), spec.threshold(), identityKeys);
  }

  /**
   * Why no parameters secure {@code parties} inputs of which at least {@code threshold} must
   * contribute (the colluders and dropouts this driver is sized for), or null: checkable before
   * anyone trains.
   */
  public String sizingProblem(int parties, int threshold) {
    if (parties < 2 || threshold < 1 || threshold > parties) {
      return null; // said elsewhere, in the caller's terms
    }
    try {
      SecAggSizing.choose(variant == Variant.SECAGG_PLUS, parties, colluding, maxDropout == DROPOUTS_FROM_THRESHOLD
          ? (double) (parties - threshold) / parties : maxDropout, threshold);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private double sizedDropout(SummationSpec spec) {
    return maxDropout == DROPOUTS_FROM_THRESHOLD
        ? (double) (spec.parties() - spec.threshold()) / spec.parties()
        : maxDropout;
  }

  @Override
  public SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs, Progress progress) {
    return run(spec, inputs, p -> { }, progress);
  }

  /** As {@link #run(SummationSpec, IntFunction)}, showing {@code observer} the chosen parameters. */
  public SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs,
      java.util.function.Consumer<SecAggParameters> observer) {
    return run(spec, inputs, observer, Progress.NONE);
  }

  private SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs,
      java.util.function.Consumer<SecAggParameters> observer, Progress progress) {
    long start = System.nanoTime();
    int n = spec.parties();
    if (n < 2) {
      throw new IllegalArgumentException("secure aggregation needs at least 2 parties. Provided value: " + n);
    }
    List<Signatures.KeyPair> identities = new ArrayList<>(n);
    List<byte[]> publicKeys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Signatures.KeyPair kp = Signatures.generate();
      identities.add(kp);
      publicKeys.add(kp.publicKey());
    }
    SecAggParameters params = parameters(spec, publicKeys);
    // Every party agrees twice with each neighbour: many thousands of agreements in one JVM.
    dev.helmet.secagg.crypto.X25519Keys.prepareForMany(2L * n * params.graph().degree());
    observer.accept(params);
    Map<String, Object> chosen = new LinkedHashMap<>();
    chosen.put("graph", params.graph().description());
    chosen.put("neighbours", params.graph().degree());
    chosen.put("threshold", params.threshold());
    chosen.put("max_dropout", sizedDropout(spec));
    chosen.put("colluding_fraction", colluding);
    CryptoProfile profile = new CryptoProfile();
    int steps = Round.values().length;
    ClientState[] clients = new ClientState[n];
    BitSet gone = new BitSet();
    AtomicLongArray partyNanos = new AtomicLongArray(n);
    AtomicLongArray partyBytes = new AtomicLongArray(n);
    long[] serverNanos = new long[1];
    long[] serverBytes = new long[1];
    ServerState[] server = {ServerState.start(params, profile)};
    // A party's reply goes to the server as soon as it is computed (as over a network), so at most
    // one masked input per worker thread is in memory at a time.
    java.util.function.BiConsumer<Integer, ClientMessage> send = (i, reply) -> {
      if (reply == null) {
        return;
      }
      int size = reply.wireSize();
      partyBytes.addAndGet(i, size);
      synchronized (server) {
        long t0 = System.nanoTime();
        serverBytes[0] += size;
        server[0].receive(reply);
        serverNanos[0] += System.nanoTime() - t0;
      }
    };
    // Progress counts party-rounds: every party once per round, answered or not.
    progress.start(name() + ": " + n + " parties, " + params.graph().degree() + " neighbours",
        (long) n * steps);
    Parallel.forEach(threads, n, i -> {
      progress.advance(1);
      if (dropouts.dropsBefore(i, n, steps) == 0) {
        return;
      }
      long t0 = System.nanoTime();
      ClientState.Context ctx = new ClientState.Context(params, i, identities.get(i).secret(),
          () -> inputs.apply(i), profile);
      ClientState.Step step = ClientState.start(ctx);
      clients[i] = step.next();
      partyNanos.addAndGet(i, System.nanoTime() - t0);
      send.accept(i, step.reply());
    });
    for (int i = 0; i < n; i++) {
      if (clients[i] == null) {
        gone.set(i);
      }
    }
    for (int round = 0; round < steps && !server[0].isFinal(); round++) {
      long t0 = System.nanoTime();
      ServerState.Transition tr = server[0].close();
      serverNanos[0] += System.nanoTime() - t0;
      server[0] = tr.next();
      if (server[0].isFinal()) {
        break;
      }
      Map<Integer, ServerMessage> out = tr.outgoing();
      int nextStep = round + 1;
      for (Map.Entry<Integer, ServerMessage> e : out.entrySet()) {
        int size = e.getValue().wireSize();
        serverBytes[0] += size;
        if (!gone.get(e.getKey())) {
          partyBytes.addAndGet(e.getKey(), size);
        }
      }
      Parallel.forEach(threads, n, i -> {
        progress.advance(1);
        ServerMessage m = out.get(i);
        if (m == null || clients[i] == null || gone.get(i) || clients[i].isFinal()) {
          return;
        }
        if (dropouts.dropsBefore(i, n, steps) == nextStep) {
          return; // drops now: never answers this round or any later one
        }
        long c0 = System.nanoTime();
        ClientState.Step step = clients[i].handle(m);
        clients[i] = step.next();
        partyNanos.addAndGet(i, System.nanoTime() - c0);
        send.accept(i, step.reply());
      });
      for (int i = 0; i < n; i++) {
        if (out.containsKey(i) && dropouts.dropsBefore(i, n, steps) == nextStep) {
          gone.set(i);
        }
      }
    }
    progress.finish();
    List<SummationOutcome.Drop> dropped = new ArrayList<>();
    ServerState last = server[0];
    for (ServerEvents.Drop d : last.drops()) {
      String detail = d.detail();
      if (clients[d.party()] instanceof ClientState.Aborted a) {
        detail += " (the party aborted: " + a.reason() + ", " + a.detail() + ")";
      }
      dropped.add(new SummationOutcome.Drop(d.party(), d.round().name(), d.reason().name(), detail));
    }
    long totalPartyNanos = 0;
    long totalPartyBytes = 0;
    for (int i = 0; i < n; i++) {
      totalPartyNanos += partyNanos.get(i);
      totalPartyBytes += partyBytes.get(i);
    }
    Map<String, Double> prof = new LinkedHashMap<>();
    for (CryptoProfile.Op op : CryptoProfile.Op.values()) {
      prof.put(op.name().toLowerCase(java.util.Locale.ROOT), profile.seconds(op));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (last instanceof ServerState.Completed c) {
      List<Integer> contributors = c.contributors().stream().boxed().toList();
      return new SummationOutcome(SummationOutcome.Status.COMPLETED, c.sum(), contributors, dropped, null,
          totalPartyBytes / n, serverBytes[0], seconds, serverNanos[0] / 1e9, totalPartyNanos / 1e9 / n, prof, chosen);
    }
    String reason = last instanceof ServerState.Aborted a ? a.reason() + ": " + a.detail() : "did not finish";
    return new SummationOutcome(SummationOutcome.Status.ABORTED, null, List.of(), dropped, reason,
        totalPartyBytes / n, serverBytes[0], seconds, serverNanos[0] / 1e9, totalPartyNanos / 1e9 / n, prof, chosen);
  }
}
