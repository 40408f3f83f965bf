package dev.helmet.secagg.servers;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Summation by J computation servers (Helmet Sec. 5; the cross-silo paper's DCA; SPEC 2.3): each
 * party splits its encoded vector x into J additive shares mod 2^b and sends share j to server j;
 * each server sums what it received; the sum of the servers' sums is the result. Any J - 1
 * colluding servers see only uniformly distributed shares: the result is private if at least one
 * server is honest. Parties need no keys with each other and send one message per server.
 *
 * <p>The J - 1 uniform shares are sent as 32-byte seeds of the mask generator (AES-CTR), which is
 * pseudorandom, instead of d ring elements each; the last share is {@code x - sum_j PRG(seed_j)}. A
 * party sends its seeds to servers 1 .. J-1 first and its last share to server J only after that,
 * so every party in server J's set has its seeds at the other servers, which sum exactly the
 * parties server J names: a party that drops in between is left out by all. The last share goes
 * bit-packed, b bits per element (ceil(d b / 8) bytes, {@link BitPacking}), and server J drops a
 * party whose share is not exactly that. The channels between parties and servers are the
 * transport's (TLS); this class simulates them in-process.
 *
 * <p>Its name is {@code dca} (the paper's Algorithm 1, "distributed computation of additive
 * shares"); {@code compute-servers}, its earlier name, is accepted wherever a name is parsed. The
 * outcome's parameters carry what each node and each party sent, received and spent:
 * {@code nodes} (per node: bytes in and out, seconds) and {@code per_party} (per party: bytes out,
 * seconds to split its input), so the cost is visible per machine and not only in total.
 */
public final class ComputeServerSummation implements SecureSummation {
  private final int servers;
  private final DropoutPlan dropouts;
  private final int threads;

  /**
   * @param servers J >= 2
   * @param dropouts which simulated parties drop (step 0: before the seeds, step 1: before the last
   *     share)
   * @param threads worker threads
   */
  public ComputeServerSummation(int servers, DropoutPlan dropouts, int threads) {
    Checks.require(servers >= 2, "compute nodes must be >= 2. Provided value: " + servers);
    this.servers = servers;
    this.dropouts = Checks.notNull("dropout plan", dropouts);
    this.threads = Checks.positive("threads", threads);
  }

  /** The summation's name. */
  public static final String NAME = "dca";
  /** Its earlier name, accepted wherever a summation is named. */
  public static final String ALIAS = "compute-servers";

  /** Whether {@code name} names this summation (its name or its alias, any case). */
  public static boolean named(String name) {
    return name != null && (name.equalsIgnoreCase(NAME) || name.equalsIgnoreCase(ALIAS));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean revealsInputs() {
    return false;
  }

  @Override
  public SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs, Progress progress) {
    long start = System.nanoTime();
    int n = spec.parties();
    int d = spec.length();
    int bits = spec.encoding().ringBits();
    long packed = spec.packedBytes();
    CryptoProfile profile = new CryptoProfile();
    int header = 8 + 4 + 1;
    // Phase 1: seeds to servers 1 .. J-1. Phase 2: the last share to server J, bit-packed (b bits
    // per element), checked and added into its sum as it arrives.
    byte[][][] seeds = new byte[n][][];
    long[] lastServerSum = new long[d];
    BitSet lastServerSet = new BitSet();
    String[] problems = new String[n];
    long[] partyNanos = new long[n];
    List<SummationOutcome.Drop> dropped = new ArrayList<>();
    long[] lastServerNanos = new long[1];
    // What each party sent: 0 nothing, 1 its seeds, 2 its seeds and its last share.
    int[] sent = new int[n];
    progress.start(name() + ": " + n + " parties, " + servers + " servers", n);
    Parallel.forEach(threads, n, u -> {
      progress.advance(1);
      int when = dropouts.dropsBefore(u, n, 2);
      if (when == 0) {
        return;
      }
      long t0 = System.nanoTime();
      long[] x = when == 1 ? null : inputs.apply(u);
      if (when != 1) {
        problems[u] = inputProblem(x, d, spec.encoding().mask(), bits);
        if (problems[u] != null) {
          partyNanos[u] = System.nanoTime() - t0;
          return; // the party does not take part (recorded below)
        }
      }
      Shares shares = split(x == null ? new long[d] : x, servers, bits, profile);
      seeds[u] = shares.seeds();
      byte[] last = when == 1 ? null : BitPacking.pack(shares.last(), bits);
      partyNanos[u] = System.nanoTime() - t0;
      sent[u] = when == 1 ? 1 : 2;
      if (when == 1) {
        return; // sent its seeds, then left before the last share
      }
      synchronized (lastServerSum) {
        long s0 = System.nanoTime();
        String problem = BitPacking.problem(last, d, bits);
        if (problem == null) {
          BitPacking.addInto(lastServerSum, last, bits);
          lastServerSet.set(u);
        } else {
          problems[u] = "last share: " + problem;
        }
        lastServerNanos[0] += System.nanoTime() - s0;
      }
    });
    progress.finish();
    for (int u = 0; u < n; u++) {
      if (!lastServerSet.get(u)) {
        int when = dropouts.dropsBefore(u, n, 2);
        if (problems[u] != null) {
          dropped.add(new SummationOutcome.Drop(u, "LAST_SHARE", "MALFORMED_INPUT", problems[u]));
        } else {
          dropped.add(new SummationOutcome.Drop(u, when == 0 ? "SEEDS" : "LAST_SHARE", "NO_RESPONSE", "no message"));
        }
      }
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("servers", servers);
    int contributors = lastServerSet.cardinality();
    long seedMessage = header + 32L;
    long nameSet = header + (n + 7) / 8;
    int seedSenders = 0;
    int lastSenders = 0;
    List<Map<String, Object>> partyStats = new ArrayList<>();
    for (int u = 0; u < n; u++) {
      seedSenders += sent[u] >= 1 ? 1 : 0;
      lastSenders += sent[u] == 2 ? 1 : 0;
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("party", u);
      p.put("bytes_out", sent[u] == 0 ? 0 : (servers - 1) * seedMessage + (sent[u] == 2 ? header + packed : 0));
      p.put("seconds", partyNanos[u] / 1e9);
      partyStats.add(p);
    }
    Map<String, Double> prof = profile(profile);
    long partyTotal = 0;
    for (long v : partyNanos) {
      partyTotal += v;
    }
    long perParty = (servers - 1) * (header + 32L) + header + packed;
    long serverBytes = (long) n * (servers - 1) * (header + 32L) + (long) contributors * (header + packed)
        + (long) servers * packed + (long) (servers - 1) * (header + (n + 7) / 8);
    long[] seedNodeNanos = new long[servers - 1];
    params.put("nodes", nodes(servers, seedSenders * seedMessage, lastSenders * (header + packed), nameSet,
        header + packed, seedNodeNanos, lastServerNanos[0], false));
    params.put("per_party", partyStats);
    if (contributors < spec.threshold()) {
      double secs = (System.nanoTime() - start) / 1e9;
      return new SummationOutcome(SummationOutcome.Status.ABORTED, null, List.of(), dropped,
          "TOO_FEW_SURVIVORS: " + contributors + " contributors, " + spec.threshold() + " needed", perParty, serverBytes,
          secs, lastServerNanos[0] / 1e9, partyTotal / 1e9 / n, prof, params);
    }
    // Servers 1 .. J-1 expand the seeds of the parties server J names (in parallel: they are separate
    // machines). The busiest server's time is reported.
    int[] named = lastServerSet.stream().toArray();
    long[][] serverSums = new long[servers - 1][];
    long[] serverNanos = new long[servers - 1];
    for (int j = 0; j < servers - 1; j++) {
      // Each server refuses on its own to sum fewer parties than the threshold: a corrupt server J
      // naming a single party must not get that party's input from the others.
      if (named.length < spec.threshold()) {
        throw new IllegalStateException("server " + (j + 1) + " refuses to sum " + named.length + " parties");
      }
      int jj = j;
      long t0 = System.nanoTime();
      serverSums[j] = Parallel.sumInto(threads, named.length, d, (acc, i) -> MaskPrg.apply(seeds[named[i]][jj], false, acc, bits,
          profile));
      serverNanos[j] = System.nanoTime() - t0;
    }
    long mask = spec.encoding().mask();
    long[] sum = lastServerSum.clone();
    for (long[] s : serverSums) {
      for (int i = 0; i < d; i++) {
        sum[i] = (sum[i] + s[i]) & mask;
      }
    }
    params.put("nodes", nodes(servers, seedSenders * seedMessage, lastSenders * (header + packed), nameSet,
        header + packed, serverNanos, lastServerNanos[0], true));
    long busiest = lastServerNanos[0];
    for (long v : serverNanos) {
      busiest = Math.max(busiest, v);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    List<Integer> who = new ArrayList<>();
    for (int u : named) {
      who.add(u);
    }
    return new SummationOutcome(SummationOutcome.Status.COMPLETED, sum, who, dropped, null, perParty, serverBytes, secs,
        busiest / 1e9, partyTotal / 1e9 / n, profile(profile), params);
  }

  /**
   * Per node, what it received and sent and the time it spent: nodes 1 .. J-1 receive the seeds
   * and the set node J names, and send their sum; node J receives the last shares, sends the named
   * set to the others and its sum.
   *
   * @param summed whether the nodes summed (false: the round aborted before they did)
   */
  private static List<Map<String, Object>> nodes(int servers, long seedBytes, long lastBytes, long nameSet, long sumBytes,
      long[] seedNanos, long lastNanos, boolean summed) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int j = 0; j < servers; j++) {
      boolean last = j == servers - 1;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("node", "node-" + (j + 1));
      m.put("receives", last ? "last shares" : "seeds");
      m.put("bytes_in", last ? lastBytes : seedBytes + nameSet);
      m.put("bytes_out", (summed ? sumBytes : 0) + (last ? (servers - 1) * nameSet : 0));
      m.put("seconds", (last ? lastNanos : seedNanos[j]) / 1e9);
      out.add(m);
    }
    return out;
  }

  /** Why a party's input cannot be split, or null. */
  private static String inputProblem(long[] x, int d, long mask, int bits) {
    if (x == null || x.length != d) {
      return "input of length " + (x == null ? 0 : x.length) + ", expected " + d;
    }
    for (int i = 0; i < d; i++) {
      if ((x[i] & ~mask) != 0) {
        return "input element " + i + " is outside the " + bits + "-bit ring";
      }
    }
    return null;
  }

  /** A party's J shares: J - 1 seeds and the last share {@code x - sum_j PRG(seed_j)}. */
  public record Shares(byte[][] seeds, long[] last) {}

  /** Splits {@code x} (ring elements of {@code bits} bits) into shares for {@code servers} servers. */
  public static Shares split(long[] x, int servers, int bits, CryptoProfile profile) {
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    byte[][] s = new byte[servers - 1][];
    long[] last = new long[x.length];
    for (int i = 0; i < x.length; i++) {
      last[i] = x[i] & mask;
    }
    for (int j = 0; j < servers - 1; j++) {
      s[j] = Secrets.bytes(32);
      MaskPrg.apply(s[j], true, last, bits, profile);
    }
    return new Shares(s, last);
  }

  private static Map<String, Double> profile(CryptoProfile p) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (CryptoProfile.Op op : CryptoProfile.Op.values()) {
      m.put(op.name().toLowerCase(Locale.ROOT), p.seconds(op));
    }
    return m;
  }
}
