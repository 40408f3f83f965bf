package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.crypto.Shamir;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.UnmaskingRequest;
import dev.helmet.secagg.protocol.Messages.UnmaskingShares;
import dev.helmet.secagg.protocol.ServerEvents.AbortReason;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Round 4: collect the revealed shares, reconstruct every survivor's self-mask seed and every
 * dropout's mask key (checked against the key it advertised), remove the self masks and the
 * dropouts' unmatched pairwise masks from the running sum, and finish with the sum of U3's inputs.
 * The unmasking work runs in parallel; a party's secret that fewer than t neighbours can help
 * recover aborts the session.
 */
public final class ServerR4Unmasking extends ServerState {
  private final BitSet u2;
  private final BitSet u3;
  private final BitSet u4;
  private final Map<Integer, AdvertiseKeys> keys;
  private final long[] sum;
  private final Map<Integer, ServerMessage> requests;
  /** For each party: the x-coordinates and shares revealed for its self-mask seed or mask key. */
  private final Map<Integer, List<long[]>> selfShares = new ConcurrentHashMap<>();
  private final Map<Integer, List<Integer>> selfXs = new ConcurrentHashMap<>();
  private final Map<Integer, List<long[]>> keyShares = new ConcurrentHashMap<>();
  private final Map<Integer, List<Integer>> keyXs = new ConcurrentHashMap<>();

  ServerR4Unmasking(Session session, BitSet u2, BitSet u3, BitSet u4, Map<Integer, AdvertiseKeys> keys, long[] sum,
      Map<Integer, ServerMessage> requests) {
    super(session);
    this.u2 = u2;
    this.u3 = u3;
    this.u4 = u4;
    this.keys = keys;
    this.sum = sum;
    this.requests = requests;
  }

  @Override
  public Round round() {
    return Round.UNMASKING;
  }

  @Override
  BitSet expected() {
    return u4;
  }

  @Override
  Drop take(ClientMessage m) {
    UnmaskingShares s = (UnmaskingShares) m;
    int w = s.sender();
    UnmaskingRequest req = (UnmaskingRequest) requests.get(w);
    if (!sameKeys(s.selfMaskShares(), req.revealSelfMask()) || !sameKeys(s.maskKeyShares(), req.revealMaskKey())) {
      return new Drop(w, round(), DropReason.MALFORMED_MESSAGE, "shares for other parties than requested");
    }
    for (long[] share : s.selfMaskShares().values()) {
      if (!wellFormed(share)) {
        return new Drop(w, round(), DropReason.MALFORMED_MESSAGE, "a share outside the field");
      }
    }
    for (long[] share : s.maskKeyShares().values()) {
      if (!wellFormed(share)) {
        return new Drop(w, round(), DropReason.MALFORMED_MESSAGE, "a share outside the field");
      }
    }
    s.selfMaskShares().forEach((u, share) -> add(selfShares, selfXs, u, w, share));
    s.maskKeyShares().forEach((u, share) -> add(keyShares, keyXs, u, w, share));
    return null;
  }

  private static boolean sameKeys(Map<Integer, long[]> got, int[] wanted) {
    if (got.size() != wanted.length) {
      return false;
    }
    for (int u : wanted) {
      if (!got.containsKey(u)) {
        return false;
      }
    }
    return true;
  }

  private static boolean wellFormed(long[] share) {
    if (share == null || share.length != Shamir.CHUNKS) {
      return false;
    }
    for (long v : share) {
      if (v < 0 || v >= Shamir.P) {
        return false;
      }
    }
    return true;
  }

  private static void add(Map<Integer, List<long[]>> shares, Map<Integer, List<Integer>> xs, int u, int w,
      long[] share) {
    shares.computeIfAbsent(u, k -> new ArrayList<>()).add(share);
    xs.computeIfAbsent(u, k -> new ArrayList<>()).add(w + 1);
  }

  @Override
  public Transition close() {
    BitSet answered = survivorsOfRound();
    SecAggParameters p = session.params;
    int t = p.threshold();
    // In the user's terms first: how many of the parties that sent inputs answered, and what a mask needs.
    String whoAnswered = answered.cardinality() + " of the " + u3.cardinality() + " parties that sent their inputs "
        + "answered the unmasking round; each party's mask is rebuilt from " + t + " of its neighbours' shares";
    // Feasibility first: abort before any reconstruction if some secret cannot be recovered.
    int[] survivors = u3.stream().toArray();
    BitSet droppedAfterSharing = (BitSet) u2.clone();
    droppedAfterSharing.andNot(u3);
    int[] dropouts = droppedAfterSharing.stream().toArray();
    for (int u : survivors) {
      int have = selfXs.getOrDefault(u, List.of()).size();
      if (have < t) {
        return abort(AbortReason.RECONSTRUCTION_FAILED, whoAnswered + ", and only " + have + " arrived for party " + u
            + ", so the sum cannot be unmasked");
      }
    }
    for (int u : dropouts) {
      int have = keyXs.getOrDefault(u, List.of()).size();
      if (have < t) {
        return abort(AbortReason.RECONSTRUCTION_FAILED, whoAnswered + ", and only " + have + " arrived for the "
            + "mask key of party " + u + ", which left after sharing its keys, so the sum cannot be unmasked");
      }
    }
    // Recover and check every dropout's mask key before any survivor's self-mask seed is rebuilt, so
    // an abort for inconsistent shares happens before the server learns any self mask. A bad share
    // (from a faulty or malicious holder) is worked around when enough good ones arrived, and the
    // holder that sent it is named.
    byte[][] maskKeys = new byte[dropouts.length][];
    for (int i = 0; i < dropouts.length; i++) {
      int u = dropouts[i];
      byte[] advertised = keys.get(u).maskKey();
      maskKeys[i] = robust(u, keyXs.get(u), keyShares.get(u), t,
          k -> Arrays.equals(X25519Keys.publicKey(k), advertised), "mask key");
      if (maskKeys[i] == null) {
        return abort(AbortReason.INCONSISTENT_SHARES,
            "no " + t + " of the mask-key shares of party " + u + " rebuild its advertised key");
      }
    }
    // Self-mask seeds: each checked against the commitment its owner sent with its shares (a bad
    // share would otherwise corrupt the sum silently).
    byte[][] seeds = new byte[survivors.length][];
    for (int i = 0; i < survivors.length; i++) {
      int u = survivors[i];
      byte[] commitment = session.selfMaskCommitments.get(u);
      seeds[i] = robust(u, selfXs.get(u), selfShares.get(u), t,
          sd -> commitment != null && Arrays.equals(Transcripts.selfMaskCommitment(p, u, sd), commitment),
          "self-mask seed");
      if (seeds[i] == null) {
        return abort(AbortReason.INCONSISTENT_SHARES,
            "no " + t + " of the self-mask shares of party " + u + " rebuild the seed it committed to");
      }
    }
    int length = p.length();
    long ringMask = p.mask();
    // Each task adds what must be removed from the sum into its own accumulator; accumulators are
    // merged at the end. Tasks: one per SELF_MASK_BATCH survivors (their self masks) and one per
    // dropout (its pairwise masks with its surviving neighbours); each expands its masks in one pass.
    int selfTasks = (survivors.length + SELF_MASK_BATCH - 1) / SELF_MASK_BATCH;
    int tasks = selfTasks + dropouts.length;
    String[] failure = new String[1];
    long[] correction = IntStream.range(0, tasks).parallel().collect(() -> new long[length], (acc, i) -> {
      List<byte[]> masks = new ArrayList<>();
      List<Boolean> signs = new ArrayList<>();
      if (i < selfTasks) {
        for (int j = i * SELF_MASK_BATCH; j < Math.min(survivors.length, (i + 1) * SELF_MASK_BATCH); j++) {
          masks.add(Transcripts.derive(seeds[j], p, Transcripts.SELF_MASK, session.profile));
          signs.add(false);
        }
      } else {
        int u = dropouts[i - selfTasks];
        byte[] maskKey = maskKeys[i - selfTasks];
        for (int v : p.graph().neighbours(u)) {
          if (u3.get(v)) {
            try {
              byte[] agreed = X25519Keys.agree(maskKey, keys.get(v).maskKey(), session.profile);
              masks.add(Transcripts.derive(agreed, p, Transcripts.PAIRWISE_MASK, session.profile));
              java.util.Arrays.fill(agreed, (byte) 0); // not needed past the KDF
              // v applied +-PRG(s_vu) (subtracting iff v > u); add the same here and subtract below.
              signs.add(Transcripts.subtracts(v, u));
            } catch (CryptoException e) {
              synchronized (failure) {
                failure[0] = "pairwise key of parties " + u + " and " + v + ": " + e.getMessage();
              }
            }
          }
        }
      }
      boolean[] subtract = new boolean[signs.size()];
      for (int j = 0; j < subtract.length; j++) {
        subtract[j] = signs.get(j);
      }
      MaskPrg.apply(masks, subtract, acc, p.ringBits(), session.profile);
    }, (a, b) -> {
      for (int i = 0; i < length; i++) {
        a[i] += b[i];
      }
    });
    if (failure[0] != null) {
      return abort(AbortReason.INCONSISTENT_SHARES, failure[0]);
    }
    long[] result = new long[length];
    for (int i = 0; i < length; i++) {
      result[i] = (sum[i] - correction[i]) & ringMask;
    }
    return new Transition(new Completed(session, result, u3), Map.of());
  }

  /** Self masks expanded together by one task (one pass over its accumulator). */
  static final int SELF_MASK_BATCH = 64;

  /** Subsets tried before robust reconstruction gives up (each costs one Lagrange interpolation). */
  static final int MAX_SUBSETS = 256;

  /**
   * The secret of party {@code owner} from the shares that arrived: the first t if they rebuild a
   * secret that {@code verifies}, else other t-subsets (each share left out in turn, then random
   * subsets, at most {@link #MAX_SUBSETS}). Once a subset verifies, every share off its polynomial
   * is attributed to its holder as a rejection. Null if no subset tried verifies.
   */
  private byte[] robust(int owner, List<Integer> xsList, List<long[]> sharesList, int t,
      java.util.function.Predicate<byte[]> verifies, String what) {
    int m = xsList.size();
    int[] xs = xsList.stream().mapToInt(Integer::intValue).toArray();
    long[][] shares = sharesList.toArray(long[][]::new);
    java.util.SplittableRandom order = new java.util.SplittableRandom(owner);
    for (int attempt = 0; attempt < MAX_SUBSETS; attempt++) {
      int[] pick = subset(attempt, m, t, order);
      if (pick == null) {
        break;
      }
      int[] x = new int[t];
      long[][] s = new long[t][];
      for (int j = 0; j < t; j++) {
        x[j] = xs[pick[j]];
        s[j] = shares[pick[j]];
      }
      byte[] secret = Shamir.reconstruct(x, s, t, session.profile);
      if (verifies.test(secret)) {
        if (attempt > 0) {
          for (int j = 0; j < m; j++) {
            if (!Arrays.equals(Shamir.evaluate(x, s, t, xs[j]), shares[j])) {
              synchronized (session) {
                session.rejections.add(new ServerEvents.Rejection(xs[j] - 1, round(),
                    ServerEvents.RejectReason.BAD_SHARE, "its share of party " + owner + "'s " + what
                        + " is not on the polynomial of the others"));
              }
            }
          }
        }
        return secret;
      }
    }
    return null;
  }

  /** The attempt-th subset: the first t, then each of the first t + 1 left out, then random. */
  private static int[] subset(int attempt, int m, int t, java.util.SplittableRandom random) {
    if (attempt == 0) {
      return IntStream.range(0, t).toArray();
    }
    if (m == t) {
      return null; // no other subset exists
    }
    if (attempt <= t + 1) {
      int skip = attempt - 1;
      return IntStream.range(0, t + 1).filter(j -> j != skip).toArray();
    }
    int[] all = dev.helmet.core.util.Shuffle.permutation(m, random);
    int[] pick = Arrays.copyOf(all, t);
    Arrays.sort(pick);
    return pick;
  }

  private Transition abort(AbortReason reason, String detail) {
    return new Transition(new Aborted(session, reason, detail), Map.of());
  }
}
