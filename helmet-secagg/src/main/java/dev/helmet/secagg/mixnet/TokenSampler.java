package dev.helmet.secagg.mixnet;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Hkdf;
import dev.helmet.secagg.crypto.KeystreamRandom;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sampling without replacement from the token list (the cross-silo paper, Sec. 3.4.1; design note
 * 1.3): step t's batch is a uniform b-subset of the positions of the canonically sorted {@link
 * TokenList}, drawn by Floyd's algorithm from {@code KeystreamRandom(HKDF(S, info = "swor" || t))}
 * with S the {@link JointSeed}. Every party computes the same batch; each recognises its own
 * tokens ({@link MixnetParty#recordsIn}) and trains on those records. Everyone knows which tokens
 * are in a batch; only their owners know whose records they are.
 *
 * <p>What it protects: the uniformity of the batch against any party, given that S is uniform
 * and was drawn after the list was fixed (doubt 10). Selecting on sorted positions, not the last
 * mixer's order, keeps the last mixer from steering which tokens are selected.
 */
public final class TokenSampler {
  private static final byte[] INFO = "swor".getBytes(StandardCharsets.UTF_8);
  private final TokenList tokens;
  private final byte[] seed;
  private final int batchSize;

  /**
   * @param tokens the final list
   * @param jointSeed S, 32 bytes, from {@link JointSeed#combine}
   * @param batchSize b, 1 <= b <= n
   */
  public TokenSampler(TokenList tokens, byte[] jointSeed, int batchSize) {
    this.tokens = Checks.notNull("token list", tokens);
    Checks.require(jointSeed != null && jointSeed.length == JointSeed.BYTES, "the joint seed is " + JointSeed.BYTES
        + " bytes. Provided: " + (jointSeed == null ? "null" : jointSeed.length + " bytes"));
    this.seed = jointSeed.clone();
    this.batchSize = Checks.inRange("batch size b", batchSize, 1, tokens.size());
  }

  public int batchSize() {
    return batchSize;
  }

  /** Step t's batch: b distinct positions in the sorted list, ascending. Deterministic given S, t. */
  public int[] positions(long step) {
    Checks.require(step >= 0, "step must be >= 0. Provided value: " + step);
    byte[] info = ByteBuffer.allocate(INFO.length + 8).put(INFO).putLong(step).array();
    KeystreamRandom r = new KeystreamRandom(Hkdf.derive(seed, null, info, 32, CryptoProfile.NONE));
    // Floyd: for j = n - b .. n - 1, add a uniform r in [0, j], or j if r is taken. Every b-subset
    // comes out with probability 1 / C(n, b) (Bentley and Floyd, CACM 1987).
    int n = tokens.size();
    Set<Integer> chosen = new HashSet<>(2 * batchSize);
    for (int j = n - batchSize; j < n; j++) {
      int x = r.nextInt(j + 1);
      chosen.add(chosen.contains(x) ? j : x);
    }
    int[] out = chosen.stream().mapToInt(Integer::intValue).toArray();
    Arrays.sort(out);
    return out;
  }

  /** Step t's batch as tokens, in sorted order. */
  public List<Token> batch(long step) {
    List<Token> b = new ArrayList<>(batchSize);
    for (int p : positions(step)) {
      b.add(tokens.get(p));
    }
    return b;
  }
}
