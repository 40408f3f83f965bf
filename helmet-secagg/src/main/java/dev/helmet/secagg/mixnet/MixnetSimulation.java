package dev.helmet.secagg.mixnet;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.secagg.crypto.CryptoProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Algorithm 2 (the cross-silo paper, Sec. 3.4) with every party in this process: publish keys,
 * wrap, mix in the public order 0 .. N-1, check the final list, let every party find its tokens.
 * The messages go over a simulated public board (a party's step reads the previous list and
 * publishes its own); their sizes are counted as a broadcast channel would carry them, payload
 * only, no framing. The security properties are those of {@link MixnetParty}; this class only
 * drives the parties and measures. Any failed check throws {@link MixnetAbortException} and ends
 * the session.
 */
public final class MixnetSimulation {
  private MixnetSimulation() {}

  /**
   * What a run produced and cost.
   *
   * @param tokens the final list, canonical order
   * @param parties the parties, each knowing its own tokens and records
   * @param bytesSent per party: its public key, its onions and the list it publishes at its step
   * @param bytesReceived per party: the others' public keys, the list it mixes, and the final list
   *     (unless it published that itself)
   * @param partySeconds per party: time on its own work (sequential steps; waiting not counted)
   * @param seconds wall time of the whole run
   * @param profile seconds per primitive, all parties together
   */
  public record Result(TokenList tokens, List<MixnetParty> parties, long[] bytesSent, long[] bytesReceived,
      double[] partySeconds, double seconds, Map<String, Double> profile) {
    public Result {
      parties = List.copyOf(parties);
      bytesSent = bytesSent.clone();
      bytesReceived = bytesReceived.clone();
      partySeconds = partySeconds.clone();
      profile = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(profile));
    }

    /** Mean bytes a party sent and received. */
    public long bytesPerParty() {
      long total = 0;
      for (int i = 0; i < bytesSent.length; i++) {
        total += bytesSent[i] + bytesReceived[i];
      }
      return total / bytesSent.length;
    }
  }

  /**
   * The public board between the steps, for tests: sees every list as published (step -1 for the
   * initial list, i after mixer i) and returns the list the next reader gets. The honest board
   * returns its argument; a test plays a corrupted mixer or an observer with it.
   */
  interface Board {
    List<byte[]> publish(int step, List<byte[]> list);
  }

  /**
   * Runs the mixnet for parties holding {@code records[i]} records each, with fresh keys and
   * tokens.
   *
   * @param sessionId the session's 16-byte id
   * @param threads worker threads for wrapping (the parties' first step runs in parallel)
   */
  public static Result run(int[] records, byte[] sessionId, int threads) {
    Checks.require(records.length >= 1, "the mixnet needs at least one party");
    List<MixnetParty> parties = new ArrayList<>();
    for (int i = 0; i < records.length; i++) {
      parties.add(new MixnetParty(i, records.length, records[i], sessionId));
    }
    return run(parties, threads, (step, list) -> list);
  }

  /** Runs the mixnet for the given parties (indices 0 .. N-1 in order). */
  public static Result run(List<MixnetParty> parties, int threads) {
    return run(parties, threads, (step, list) -> list);
  }

  static Result run(List<MixnetParty> parties, int threads, Board board) {
    long start = System.nanoTime();
    int n = parties.size();
    for (int i = 0; i < n; i++) {
      Checks.require(parties.get(i).index() == i && parties.get(i).parties() == n, "party " + i
          + " of the list must have index " + i + " of " + n + ". Provided: " + parties.get(i));
    }
    List<byte[]> keys = new ArrayList<>();
    int total = 0;
    for (MixnetParty p : parties) {
      keys.add(p.publicKey());
      total += p.records();
    }
    List<List<byte[]>> wrapped = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      wrapped.add(null);
    }
    Parallel.forEach(threads, n, i -> wrapped.set(i, parties.get(i).wrapTokens(keys)));
    List<byte[]> list = new ArrayList<>();
    for (List<byte[]> w : wrapped) {
      list.addAll(w);
    }
    list = board.publish(-1, list);
    for (int i = 0; i < n; i++) {
      list = board.publish(i, parties.get(i).mix(list, total));
    }
    TokenList tokens = TokenList.of(list, total);
    for (MixnetParty p : parties) {
      p.verifyFinal(tokens);
    }
    long[] sent = new long[n];
    long[] received = new long[n];
    double[] seconds = new double[n];
    Map<String, Double> profile = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      MixnetParty p = parties.get(i);
      sent[i] = 32 + (long) p.records() * OnionLayer.size(n) + (long) total * OnionLayer.size(n - 1 - i);
      received[i] = 32L * (n - 1) + (long) total * OnionLayer.size(n - i)
          + (i < n - 1 ? (long) total * Token.BYTES : 0);
      seconds[i] = p.seconds();
      for (CryptoProfile.Op op : CryptoProfile.Op.values()) {
        profile.merge(op.name().toLowerCase(Locale.ROOT), p.profile().seconds(op), Double::sum);
      }
    }
    return new Result(tokens, parties, sent, received, seconds, (System.nanoTime() - start) / 1e9, profile);
  }
}
