package dev.helmet.secagg.summation;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Hkdf;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.graph.CommunicationGraph;
import dev.helmet.secagg.ring.BitPacking;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Pairwise-mask summation for a few "fat" parties: the cross-silo paper's Algorithm 4 (Appendix A,
 * after Bonawitz et al. [8]). Parties u and v that are adjacent in the public <em>mask graph</em>
 * share an X25519 secret; in round r each derives the seed HKDF(secret, session, "round" || r) and
 * expands it with {@link MaskPrg}. The smaller id adds the expansion and the larger subtracts it,
 * so k_uv + k_vu = 0 mod 2^b, and party u sends y_u + sum_{v ~ u} k_uv mod 2^b. The masks cancel in
 * the sum of every connected component of the mask graph.
 *
 * <p><b>What it protects, against whom.</b> An honest-but-curious aggregator sees masked vectors
 * that are uniform (pseudorandom) one by one; with the pairwise secrets of a coalition of
 * colluding parties it learns the sum of every connected component of the mask graph with the
 * coalition removed, and nothing else (Appendix A: with the complete graph an input stays hidden
 * while at most N - 2 parties are compromised). There is no integrity against a malicious
 * aggregator, and no dropout recovery: all N parties must send, and a missing party aborts the
 * round ({@code MISSING_GROUP_MEMBER}) with nothing released.
 *
 * <p><b>The two mask graphs.</b>
 *
 * <ul>
 *   <li>{@link Graph#DISJOINT} ({@code groups}): the authors' code ({@code client_comm_funs.py}):
 *       disjoint groups of g consecutive ids, g | N; g = N is full pairwise masking. <b>The
 *       aggregator learns every group's sum, not only the total</b>: the masks cancel inside each
 *       group. So each group sum must be differentially private by itself; the protocol layer must
 *       calibrate the noise per group from {@link #revealedGroups(int)} (design note, doubt 8).
 *   <li>{@link Graph#HARARY} ({@code harary}): the existing random Harary graph H(N, g - 1) of
 *       {@link CommunicationGraph}, (g - 1)-connected, at the same g - 1 keys and masks per party.
 *       Connected, so only the total is revealed, and a coalition of fewer than g - 1 parties
 *       cannot disconnect it. The existing graph needs an even degree: g odd, or g = N.
 * </ul>
 *
 * <p><b>Rounds.</b> The pairwise secrets are agreed once, in the first {@link #run} (the setup
 * phase, whose cost is counted in that run), and every later run is a new round r = 0, 1, 2, ...
 * with fresh masks. The round counter advances on every run, completed or aborted: reusing a
 * round's masks on a second input would reveal the difference of the two inputs. A run with a
 * different number of parties starts a new session with new keys. An instance is one session:
 * runs are serialised.
 */
public final class GroupMaskSummation implements SecureSummation {
  /** Framing bytes per message, as the other summations count them (round, party, type). */
  static final int HEADER = 8 + 4 + 1;

  /** Which parties share pairwise masks. */
  public enum Graph {
    /** Disjoint groups of g consecutive ids (the paper's groups): reveals every group sum. */
    DISJOINT,
    /** A random Harary graph of degree g - 1: reveals only the total. */
    HARARY
  }

  private final int groupSize;
  private final Graph graph;
  private final DropoutPlan dropouts;
  private final int threads;
  private Session session;

  /**
   * @param groupSize g >= 2: the group size (DISJOINT) or one more than the degree (HARARY)
   * @param graph the mask graph
   * @param dropouts which simulated parties fail to send (any aborts the round)
   * @param threads worker threads for the simulated parties
   */
  public GroupMaskSummation(int groupSize, Graph graph, DropoutPlan dropouts, int threads) {
    Checks.require(groupSize >= 2, "group size g must be >= 2. Provided value: " + groupSize);
    this.groupSize = groupSize;
    this.graph = Checks.notNull("mask graph", graph);
    this.dropouts = Checks.notNull("dropout plan", dropouts);
    this.threads = Checks.positive("threads", threads);
  }

  /** No dropouts, one thread. */
  public GroupMaskSummation(int groupSize, Graph graph) {
    this(groupSize, graph, DropoutPlan.NONE, 1);
  }

  @Override
  public String name() {
    return graph == Graph.DISJOINT ? "groups" : "harary";
  }

  @Override
  public boolean revealsInputs() {
    return false;
  }

  public int groupSize() {
    return groupSize;
  }

  public Graph graph() {
    return graph;
  }

  /**
   * Refuses a number of parties this mask graph cannot serve, with the reason: DISJOINT needs g | N;
   * HARARY needs g <= N and an even degree g - 1 >= 2 unless g = N (complete graph).
   *
   * @throws IllegalArgumentException naming g and N
   */
  public void checkParties(int parties) {
    Checks.positive("parties", parties);
    Checks.require(groupSize <= parties, "group size g must be <= the number of parties N. Provided values: g = "
        + groupSize + ", N = " + parties);
    if (graph == Graph.DISJOINT) {
      Checks.require(parties % groupSize == 0, "group size g must divide the number of parties N for disjoint "
          + "groups. Provided values: g = " + groupSize + ", N = " + parties + " (N mod g = " + parties % groupSize
          + ")");
    } else if (groupSize < parties) {
      Checks.require(groupSize >= 3 && (groupSize - 1) % 2 == 0, "a Harary mask graph needs an even degree g - 1 >= 2, "
          + "so an odd group size g >= 3 (or g = N for the complete graph). Provided values: g = " + groupSize
          + ", N = " + parties);
    }
  }

  /**
   * The sets of parties whose sum the aggregator learns, honest parties assumed. <b>DISJOINT: one
   * set per group</b> ({g k, ..., g k + g - 1}), so each group's noisy sum is released and must be
   * DP by itself: a group's noise holds only g parties' shares. HARARY: one set, all parties (a
   * coalition of c < g - 1 parties still cannot split it).
   */
  public List<List<Integer>> revealedGroups(int parties) {
    checkParties(parties);
    int size = graph == Graph.DISJOINT ? groupSize : parties;
    List<List<Integer>> groups = new ArrayList<>();
    for (int start = 0; start < parties; start += size) {
      List<Integer> g = new ArrayList<>();
      for (int u = start; u < start + size; u++) {
        g.add(u);
      }
      groups.add(List.copyOf(g));
    }
    return List.copyOf(groups);
  }

  /**
   * The fewest parties whose noise one released sum holds: g for DISJOINT, N for HARARY. The
   * protocol layer sizes each party's noise so that a sum of this many (less the colluders) is DP.
   */
  @Override
  public int smallestRevealedSum(int parties) {
    return smallestRevealedGroup(parties);
  }

  /** The size of the smallest group whose sum the aggregator learns (g for DISJOINT, N for HARARY). */
  public int smallestRevealedGroup(int parties) {
    return revealedGroups(parties).get(0).size();
  }

  /**
   * The mask neighbours of {@code party} in the current session (public: the graph is), sorted.
   *
   * @throws IllegalStateException before the first run
   */
  public synchronized int[] maskNeighbours(int party) {
    if (session == null) {
      throw new IllegalStateException("no session yet: the mask graph is drawn in the first run");
    }
    return session.neighbours[Checks.inRange("party", party, 0, session.parties - 1)].clone();
  }

  @Override
  public synchronized SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs, Progress progress) {
    long start = System.nanoTime();
    Round round = maskRound(spec, inputs, progress);
    long packed = spec.packedBytes();
    int n = spec.parties();
    long mask = spec.encoding().mask();
    long serverStart = System.nanoTime();
    long[] sum = new long[spec.length()];
    List<Integer> contributors = new ArrayList<>();
    for (int u = 0; u < n; u++) {
      if (round.packed[u] != null) {
        BitPacking.addInto(sum, round.packed[u], spec.encoding().ringBits());
        contributors.add(u);
      }
    }
    for (int i = 0; i < sum.length; i++) {
      sum[i] &= mask;
    }
    double serverSeconds = (System.nanoTime() - serverStart) / 1e9;
    // setup: a party sends its public key and receives its g - 1 neighbours' keys (g <= N checked)
    long setupPerParty = round.setup ? (HEADER + 32L) * groupSize : 0;
    long perParty = HEADER + packed + setupPerParty;
    long serverBytes = (long) contributors.size() * (HEADER + packed) + packed
        + (round.setup ? (long) n * (HEADER + 32L) * groupSize : 0);
    double partySeconds = Arrays.stream(round.partyNanos).sum() / 1e9 / n;
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("graph", graph.name().toLowerCase(Locale.ROOT));
    params.put("group_size", groupSize);
    params.put("groups", revealedGroups(n).size());
    params.put("neighbours", groupSize - 1);
    params.put("revealed_group_size", smallestRevealedGroup(n));
    params.put("round", round.number);
    params.put("setup", round.setup);
    params.put("setup_bytes_per_party", setupPerParty);
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!round.dropped.isEmpty()) {
      return new SummationOutcome(SummationOutcome.Status.ABORTED, null, List.of(), round.dropped, round.abortReason,
          perParty, serverBytes, seconds, serverSeconds, partySeconds, profile(round.profile), params);
    }
    return new SummationOutcome(SummationOutcome.Status.COMPLETED, sum, contributors, List.of(), null, perParty,
        serverBytes, seconds, serverSeconds, partySeconds, profile(round.profile), params);
  }

  /**
   * One round as the aggregator sees it: every party's masked, bit-packed message (null for a
   * party that sent nothing or could not send a well-formed one). Exposed to this package so that
   * tests can look at exactly what the aggregator receives.
   */
  synchronized Round maskRound(SummationSpec spec, IntFunction<long[]> inputs, Progress progress) {
    int n = spec.parties();
    checkParties(n);
    CryptoProfile profile = new CryptoProfile();
    long[] partyNanos = new long[n];
    boolean setup = session == null || session.parties != n;
    if (setup) {
      session = Session.establish(n, neighbours(n), threads, profile, partyNanos);
    }
    long r = session.nextRound++;
    int bits = spec.encoding().ringBits();
    byte[][] packed = new byte[n][];
    String[] problems = new String[n];
    progress.start(name() + ": " + n + " parties, round " + r, n);
    Parallel.forEach(threads, n, u -> {
      progress.advance(1);
      if (dropouts.dropsBefore(u, n, 1) >= 0) {
        return;
      }
      long t0 = System.nanoTime();
      long[] x = inputs.apply(u);
      String problem = PlainSummation.problem(x, spec);
      if (problem != null) {
        problems[u] = problem;
      } else {
        long[] y = x.clone();
        session.addMasks(u, r, y, bits, profile);
        packed[u] = BitPacking.pack(y, bits);
      }
      partyNanos[u] += System.nanoTime() - t0;
    });
    progress.finish();
    List<SummationOutcome.Drop> dropped = new ArrayList<>();
    String reason = null;
    for (int u = 0; u < n; u++) {
      if (packed[u] == null) {
        String who = describeGroup(u, n);
        if (problems[u] == null) {
          dropped.add(new SummationOutcome.Drop(u, "MASKED_INPUT", "MISSING_GROUP_MEMBER", "no message from " + who));
        } else {
          dropped.add(new SummationOutcome.Drop(u, "MASKED_INPUT", "MALFORMED_INPUT", problems[u]));
        }
        if (reason == null) {
          reason = "MISSING_GROUP_MEMBER: " + who + " sent " + (problems[u] == null ? "no masked input"
              : "a malformed input (" + problems[u] + ")") + "; its masks do not cancel without it and group masking "
              + "has no dropout recovery, so the round releases nothing";
        }
      }
    }
    return new Round(r, setup, packed, dropped, reason, partyNanos, profile);
  }

  /** "party 5 (group 1: parties 4..7)" or "party 5 (mask neighbours [1, 3, 6, 9])". */
  private String describeGroup(int u, int n) {
    if (graph == Graph.DISJOINT) {
      int k = u / groupSize;
      int first = k * groupSize;
      return "party " + u + " (group " + k + ": parties " + first + ".." + (first + groupSize - 1) + ")";
    }
    return "party " + u + " (mask neighbours " + Arrays.toString(session.neighbours[u]) + ")";
  }

  /** The mask graph: each party's neighbours, sorted. */
  private int[][] neighbours(int n) {
    int[][] nb = new int[n][];
    if (graph == Graph.DISJOINT) {
      for (int u = 0; u < n; u++) {
        int first = u / groupSize * groupSize;
        nb[u] = new int[groupSize - 1];
        for (int v = first, i = 0; v < first + groupSize; v++) {
          if (v != u) {
            nb[u][i++] = v;
          }
        }
      }
      return nb;
    }
    // The ring order only places the graph; H(N, k) is k-connected whatever the order, so a public
    // seed drawn here (in a deployment: the session's joint seed) is enough.
    CommunicationGraph h = CommunicationGraph.harary(n, groupSize - 1, Secrets.bytes(32));
    for (int u = 0; u < n; u++) {
      nb[u] = h.neighbours(u).clone();
    }
    return nb;
  }

  private static Map<String, Double> profile(CryptoProfile p) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (CryptoProfile.Op op : CryptoProfile.Op.values()) {
      m.put(op.name().toLowerCase(Locale.ROOT), p.seconds(op));
    }
    return m;
  }

  /** What one round produced; {@code packed[u]} is null for a party that did not contribute. */
  record Round(long number, boolean setup, byte[][] packed, List<SummationOutcome.Drop> dropped, String abortReason,
      long[] partyNanos, CryptoProfile profile) {}

  /**
   * The pairwise secrets of one session (the setup phase, simulated in process): every party
   * makes an X25519 key pair, publishes the public key, and agrees a secret with each neighbour.
   * {@code secrets[u][i]} is u's secret with {@code neighbours[u][i]}.
   */
  private static final class Session {
    private static final byte[] LABEL = "helmet group mask v1".getBytes(StandardCharsets.UTF_8);
    final int parties;
    final int[][] neighbours;
    final byte[] sessionId;
    final byte[][][] secrets;
    long nextRound;

    private Session(int parties, int[][] neighbours, byte[] sessionId, byte[][][] secrets) {
      this.parties = parties;
      this.neighbours = neighbours;
      this.sessionId = sessionId;
      this.secrets = secrets;
    }

    static Session establish(int n, int[][] nb, int threads, CryptoProfile profile, long[] partyNanos) {
      X25519Keys.KeyPair[] keys = new X25519Keys.KeyPair[n];
      Parallel.forEach(threads, n, u -> {
        long t0 = System.nanoTime();
        keys[u] = X25519Keys.generate();
        partyNanos[u] += System.nanoTime() - t0;
      });
      byte[][][] secrets = new byte[n][][];
      Parallel.forEach(threads, n, u -> {
        long t0 = System.nanoTime();
        List<byte[]> peers = new ArrayList<>();
        for (int v : nb[u]) {
          peers.add(keys[v].publicKey());
        }
        secrets[u] = X25519Keys.agreeAll(keys[u].secret(), peers, profile).toArray(new byte[0][]);
        Arrays.fill(keys[u].secret(), (byte) 0);
        partyNanos[u] += System.nanoTime() - t0;
      });
      return new Session(n, nb, Secrets.bytes(16), secrets);
    }

    /** Adds u's round-r masks to {@code y}: + PRG(seed_uv) for v > u, - PRG(seed_uv) for v < u. */
    void addMasks(int u, long round, long[] y, int bits, CryptoProfile profile) {
      int[] nb = neighbours[u];
      List<byte[]> seeds = new ArrayList<>(nb.length);
      boolean[] subtract = new boolean[nb.length];
      for (int i = 0; i < nb.length; i++) {
        int v = nb[i];
        byte[] info = ByteBuffer.allocate(LABEL.length + 4 + 4 + 5 + 8).put(LABEL).putInt(Math.min(u, v))
            .putInt(Math.max(u, v)).put("round".getBytes(StandardCharsets.UTF_8)).putLong(round).array();
        seeds.add(Hkdf.derive(secrets[u][i], sessionId, info, 32, profile));
        subtract[i] = v < u;
      }
      MaskPrg.apply(seeds, subtract, y, bits, profile);
      for (byte[] s : seeds) {
        Arrays.fill(s, (byte) 0);
      }
    }
  }
}
