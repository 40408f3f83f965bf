package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.SetupBoard;
import dev.helmet.secagg.mixnet.Token;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Each step's batch under sampling without replacement (paper Sec. 3.4, Algorithm 2), in process:
 * every party draws a random 128-bit token per record, the onion mixnet shuffles the tokens so that
 * only an owner knows which are its own, the parties draw a joint seed by commit-reveal after the
 * final list is public, and step t's batch is the uniform subset of b tokens the seed selects
 * ({@link TokenSampler}). A party trains on its records among them.
 *
 * <p>The ideal form ({@code idealMixnet}) draws the same distribution of batches without the
 * cryptography: a uniform b-subset of all records from SecureRandom each step, for experiments
 * where the mixnet's cost would dominate (the ledger says which ran). The real form runs {@link
 * MixnetSetup}, the same steps a networked session runs through its coordinator; the ideal form
 * exists only in process.
 */
public final class SworBatches {
  private final int[] offsets;
  private final int batch;
  private final List<MixnetSetup.Party> parties;
  private final SecureRandom random;
  private final double mixnetSeconds;
  private final long mixnetBytesPerParty;
  private long cachedStep = -1;
  private int[][] cached;

  private SworBatches(int[] sizes, int batch, List<MixnetSetup.Party> parties, double seconds,
      long bytes) {
    this.offsets = new int[sizes.length + 1];
    for (int i = 0; i < sizes.length; i++) {
      offsets[i + 1] = Math.addExact(offsets[i], sizes[i]);
    }
    Checks.require(batch <= offsets[sizes.length], "the batch of " + batch + " exceeds the " + offsets[sizes.length]
        + " records of all parties");
    this.batch = batch;
    this.parties = parties;
    this.random = parties == null ? new SecureRandom() : null;
    this.mixnetSeconds = seconds;
    this.mixnetBytesPerParty = bytes;
  }

  /** The ideal sampler: uniform b-subsets from SecureRandom, no mixnet. */
  static SworBatches ideal(int[] sizes, int batch) {
    return new SworBatches(sizes, batch, null, 0, 0);
  }

  /** Runs the token mixnet and the joint seed among the parties of {@code sizes}, in process. */
  static SworBatches mixnet(int[] sizes, int batch, int threads) {
    SetupBoard.Result r = runMixnet(sizes, batch, threads);
    List<MixnetSetup.Party> parties = new ArrayList<>();
    r.parties().forEach(p -> parties.add((MixnetSetup.Party) p));
    return new SworBatches(sizes, batch, parties, r.seconds(), r.bytesPerParty());
  }

  /**
   * Runs the token mixnet and joint seed for parties holding {@code sizes} records in process, as a
   * benchmark ({@code helmet bench mixnet}): the wall time and the mean payload bytes per party.
   */
  public static double[] benchmark(int[] sizes, int batch, int threads) {
    SetupBoard.Result r = runMixnet(sizes, batch, threads);
    return new double[] {r.seconds(), r.bytesPerParty()};
  }

  /** The mixnet setup among all parties of {@code sizes} on the in-process board, with a fresh session id. */
  private static SetupBoard.Result runMixnet(int[] sizes, int batch, int threads) {
    return SetupBoard.run(new MixnetSetup(sizes, batch, dev.helmet.secagg.crypto.Secrets.bytes(16)), sizes.length,
        threads);
  }

  /** Party {@code party}'s records (indices into its rows, ascending) in step {@code step}'s batch. */
  synchronized int[] records(int party, int step) {
    if (cachedStep != step) {
      cached = draw(step);
      cachedStep = step;
    }
    return cached[party].clone();
  }

  private int[][] draw(int step) {
    int n = offsets.length - 1;
    int[][] out = new int[n][];
    if (parties != null) {
      List<Token> chosen = parties.get(0).batch(step); // every party derives the same batch from S
      for (int i = 0; i < n; i++) {
        out[i] = parties.get(i).recordsIn(chosen);
      }
      return out;
    }
    // Floyd's algorithm: a uniform b-subset of [0, N) in b draws.
    int total = offsets[n];
    java.util.HashSet<Integer> set = new java.util.HashSet<>();
    for (int j = total - batch; j < total; j++) {
      int t = random.nextInt(j + 1);
      set.add(set.contains(t) ? j : t);
    }
    List<List<Integer>> per = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      per.add(new ArrayList<>());
    }
    for (int g : set) {
      int i = Arrays.binarySearch(offsets, g);
      int party = i >= 0 ? i : -i - 2; // the last offset <= g (every party has a record)
      per.get(party).add(g - offsets[party]);
    }
    for (int i = 0; i < n; i++) {
      out[i] = per.get(i).stream().mapToInt(Integer::intValue).sorted().toArray();
    }
    return out;
  }

  boolean ideal() {
    return parties == null;
  }

  double mixnetSeconds() {
    return mixnetSeconds;
  }

  long mixnetBytesPerParty() {
    return mixnetBytesPerParty;
  }
}
