package dev.helmet.transport;

import dev.helmet.core.util.Parallel;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.ring.BitPacking;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One round at one compute node: the shares that arrived (whole and well-formed), the parties it
 * refused and why, its traffic, and whether its arrivals were reported and its sum released. The
 * round is a state machine: OPEN (uploads accepted) -> CLOSED (arrivals reported; uploads refused)
 * -> RELEASED (its sum sent; nothing more). Guarded by the session's lock.
 */
final class NodeRound {
  enum State { OPEN, CLOSED, RELEASED }

  final int round;
  State state = State.OPEN;
  /** Each arrived party's share: a 32-byte seed, or the bit-packed last share. */
  final Map<Integer, byte[]> shares = new TreeMap<>();
  /** Parties whose upload was refused, with the reason. */
  final Map<Integer, String> refused = new TreeMap<>();
  /** Parties uploading now (a second upload at once is refused). */
  final BitSet uploading = new BitSet();
  /** Per party: bytes received and nanoseconds from its first chunk to its last. */
  final Map<Integer, long[]> traffic = new LinkedHashMap<>();
  long bytesIn;
  long bytesOut;
  long cpuNanos;
  /** When the first upload of the round began (0: none yet). */
  long firstNanos;

  NodeRound(int round) {
    this.round = round;
  }

  /** Whether the party's share is in, refused, or on its way. */
  boolean seen(int party) {
    return shares.containsKey(party) || refused.containsKey(party) || uploading.get(party);
  }

  /** Whether every expected party has a share in or was refused. */
  boolean complete(BitSet expected) {
    for (int p = expected.nextSetBit(0); p >= 0; p = expected.nextSetBit(p + 1)) {
      if (!shares.containsKey(p) && !refused.containsKey(p)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Overwrites every share this round holds with zeros and forgets them: after its release, or when
   * its session ends without one. A share alone is uniformly random, but a node compromised later
   * together with the other nodes would rebuild every input from what they still hold; a share no
   * sum needs any more is erased rather than left for the garbage collector to reclaim some day.
   */
  void erase() {
    for (byte[] share : shares.values()) {
      Arrays.fill(share, (byte) 0);
    }
    shares.clear();
  }

  BitSet arrived() {
    BitSet b = new BitSet();
    shares.keySet().forEach(b::set);
    return b;
  }

  /** The shares of {@code contributors}, in their order (taken under the lock, summed outside it). */
  byte[][] sharesOf(int[] contributors) {
    byte[][] out = new byte[contributors.length][];
    for (int i = 0; i < contributors.length; i++) {
      out[i] = shares.get(contributors[i]);
    }
    return out;
  }

  /**
   * The sum of {@code shares} (one per contributor, {@link #sharesOf}) mod 2^bits: seeds expanded
   * through the mask generator (nodes 1 .. M-1), or the last shares added (node M).
   */
  static long[] sum(byte[][] shares, boolean seeds, int length, int bits, int threads) {
    CryptoProfile profile = new CryptoProfile();
    long[] acc = Parallel.sumInto(threads, shares.length, length, (a, i) -> {
      byte[] share = shares[i];
      if (seeds) {
        MaskPrg.apply(share, false, a, bits, profile);
      } else {
        BitPacking.addInto(a, share, bits);
      }
    });
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    for (int i = 0; i < acc.length; i++) {
      acc[i] &= mask;
    }
    return acc;
  }
}
