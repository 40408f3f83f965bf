package dev.helmet.secagg.graph;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Who shares keys and masks with whom. SecAgg uses the complete graph; SecAgg+ (Bell et al.
 * 2020) a random k-regular Harary graph: parties are placed on a ring in a random order and each is
 * joined to the k/2 nearest on either side, so every party talks to k others instead of all n - 1.
 * The graph is public (derived from a seed the session publishes).
 */
public final class CommunicationGraph {
  private final int parties;
  private final int[][] neighbours;
  private final String description;

  private CommunicationGraph(int parties, int[][] neighbours, String description) {
    this.parties = parties;
    this.neighbours = neighbours;
    this.description = description;
  }

  /** Every party is a neighbour of every other (SecAgg). */
  public static CommunicationGraph complete(int parties) {
    int[][] nb = new int[parties][];
    for (int u = 0; u < parties; u++) {
      nb[u] = new int[parties - 1];
      for (int v = 0, i = 0; v < parties; v++) {
        if (v != u) {
          nb[u][i++] = v;
        }
      }
    }
    return new CommunicationGraph(parties, nb, "complete graph (SecAgg)");
  }

  /**
   * A random Harary graph H(n, k) from {@code seed}: k even, k <= n - 1; k >= n - 1 gives the
   * complete graph.
   */
  public static CommunicationGraph harary(int parties, int k, long seed) {
    if (k >= parties - 1) {
      return complete(parties);
    }
    checkDegree(k);
    return harary(parties, k, dev.helmet.core.util.Shuffle.permutation(parties, new SplittableRandom(seed)));
  }

  /**
   * A random Harary graph H(n, k) whose ring order is drawn from the AES-CTR keystream of a 32-byte
   * seed ({@link dev.helmet.secagg.crypto.KeystreamRandom}): what a networked session uses, with the
   * seed a digest of every party's committed-then-revealed nonce, so no one can grind it.
   */
  public static CommunicationGraph harary(int parties, int k, byte[] seed) {
    if (k >= parties - 1) {
      return complete(parties);
    }
    checkDegree(k);
    return harary(parties, k, new dev.helmet.secagg.crypto.KeystreamRandom(seed).permutation(parties));
  }

  private static void checkDegree(int k) {
    if (k < 2 || k % 2 != 0) {
      throw new IllegalArgumentException("neighbours k must be even and >= 2. Provided value: " + k);
    }
  }

  private static CommunicationGraph harary(int parties, int k, int[] ring) {
    int[] position = new int[parties];
    for (int i = 0; i < parties; i++) {
      position[ring[i]] = i;
    }
    int[][] nb = new int[parties][k];
    for (int u = 0; u < parties; u++) {
      int p = position[u];
      int i = 0;
      for (int off = 1; off <= k / 2; off++) {
        nb[u][i++] = ring[(p + off) % parties];
        nb[u][i++] = ring[(p - off + parties) % parties];
      }
      Arrays.sort(nb[u]);
    }
    return new CommunicationGraph(parties, nb, "random Harary graph, " + k + " neighbours (SecAgg+)");
  }

  public int parties() {
    return parties;
  }

  /** The neighbours of {@code u}, sorted (never u itself). */
  public int[] neighbours(int u) {
    return neighbours[u];
  }

  /** Whether u and v share keys. */
  public boolean adjacent(int u, int v) {
    return u != v && Arrays.binarySearch(neighbours[u], v) >= 0;
  }

  /** The largest number of neighbours. */
  public int degree() {
    int d = 0;
    for (int[] n : neighbours) {
      d = Math.max(d, n.length);
    }
    return d;
  }

  public String description() {
    return description;
  }
}
