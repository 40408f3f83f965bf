package dev.helmet.secagg.mixnet;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.mixnet.MixnetAbortException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The joint seed S that selects every step's batch from the token list (design note 1.3, doubt
 * 10), by commit-reveal among the N parties:
 *
 * <pre>
 *   context = SHA-256("helmet joint seed v1" || sessionId || digest of the final sorted token list)
 *   party i: s_i (32 bytes, SecureRandom);  commits c_i = SHA-256(context || i || s_i)
 *   after all commitments are public, each reveals s_i;  everyone checks c_i
 *   S = SHA-256(context || s_1 || ... || s_N)
 * </pre>
 *
 * <p>What it protects against: a party (or the last mixer) that would like to keep chosen tokens
 * out of the batches. S is uniform as long as one party is honest, and it is bound to the final
 * list: the context contains the list's digest, so a party can only commit for a list that is
 * already public, and nobody can choose tokens or the list order after seeing S (selection uses
 * the canonical sorted order, {@link TokenSampler}). <b>Order matters (doubt 10):</b> draw the seed
 * only after the final list is fixed and every party has run {@link MixnetParty#verifyFinal}.
 *
 * <p>Agreement: each party computes S under its own view of the board. A relay that shows
 * different parties different commitments of one equivocating (colluding) party, each validly
 * signed, leaves every party's own checks passing with different seeds; so every party publishes
 * its S, reads every other party's, and goes on only if all equal its own ({@link #agree}, security
 * review turn 3, T3-10). By collision resistance of SHA-256, equal seeds mean equal contexts (the
 * same final list) and equal shares, hence equal commitments.
 *
 * <p>Limits: commitments must all be received before any reveal (the transport's job). The last
 * revealer can still abort instead of revealing (selective abort) and so reject one seed; an abort
 * ends the session and its tokens are never reused, so it buys no second draw within the session.
 * A coordinator that restarts the session runs a fresh setup, a new draw: bounding how many
 * aborted setups one data holder joins is the participant's matter, not this class's. A reveal that
 * does not match its commitment aborts with BAD_REVEAL naming the party.
 */
public final class JointSeed {
  /** Bytes of a share, a commitment, the context and the seed. */
  public static final int BYTES = 32;
  private static final byte[] LABEL = "helmet joint seed v1".getBytes(StandardCharsets.UTF_8);
  private static final byte[] AGREED = "helmet joint seed agreed v1".getBytes(StandardCharsets.UTF_8);

  private JointSeed() {}

  /** The context every commitment and the seed are bound to: the session and its final list. */
  public static byte[] context(byte[] sessionId, TokenList finalList) {
    OnionLayer.checkSession(sessionId);
    return sha256(LABEL, sessionId, finalList.digest());
  }

  /** Party i's share of the seed: a secret until it reveals it. {@code toString} hides it. */
  public static final class Contribution {
    private final int party;
    private final byte[] share;
    private final byte[] commitment;

    private Contribution(int party, byte[] share, byte[] context) {
      this.party = party;
      this.share = share;
      this.commitment = JointSeed.commitment(context, party, share);
    }

    /** A fresh share for {@code party} from SecureRandom, committed to under {@code context}. */
    public static Contribution draw(byte[] context, int party) {
      checkContext(context);
      Checks.nonNegative("party", party);
      return new Contribution(party, Secrets.bytes(BYTES), context);
    }

    public int party() {
      return party;
    }

    /** The commitment, published first. */
    public byte[] commitment() {
      return commitment.clone();
    }

    /** The share, published only after every party's commitment is public. */
    public byte[] reveal() {
      return share.clone();
    }

    @Override
    public String toString() {
      return "JointSeed.Contribution[party " + party + "]";
    }
  }

  /** c_i = SHA-256(context || i || s_i). */
  public static byte[] commitment(byte[] context, int party, byte[] share) {
    checkContext(context);
    return sha256(context, ByteBuffer.allocate(4).putInt(party).array(), share);
  }

  /**
   * S from every party's commitment and reveal, in party order.
   *
   * @throws MixnetAbortException BAD_REVEAL naming the first party whose reveal is not 32 bytes or
   *     does not match its commitment
   * @throws IllegalArgumentException if the lists differ in length or are empty
   */
  public static byte[] combine(byte[] context, List<byte[]> commitments, List<byte[]> reveals) {
    checkContext(context);
    Checks.require(!commitments.isEmpty() && commitments.size() == reveals.size(), "one commitment and one reveal "
        + "per party are needed. Provided: " + commitments.size() + " commitments, " + reveals.size() + " reveals");
    byte[][] parts = new byte[reveals.size() + 1][];
    parts[0] = context;
    for (int i = 0; i < reveals.size(); i++) {
      byte[] s = reveals.get(i);
      if (s == null || s.length != BYTES) {
        throw new MixnetAbortException(Reason.BAD_REVEAL, i, "party " + i + " revealed "
            + (s == null ? "nothing" : s.length + " bytes") + ", a seed share is " + BYTES);
      }
      if (!MessageDigest.isEqual(commitment(context, i, s), commitments.get(i))) {
        throw new MixnetAbortException(Reason.BAD_REVEAL, i, "party " + i + "'s revealed share does not match its "
            + "commitment");
      }
      parts[i + 1] = s;
    }
    return sha256(parts);
  }

  /**
   * Checks that every party's published seed, in party order, equals {@code own}, and returns this
   * party's confirmation SHA-256("helmet joint seed agreed v1" || S), which it publishes next.
   *
   * @param self this party's index (named in the error as the party that detected the mismatch)
   * @throws MixnetAbortException SEED_MISMATCH naming the first party whose seed differs (the
   *     session must end: the parties did not all see the same board)
   */
  public static byte[] agree(byte[] own, List<byte[]> published, int self) {
    Checks.require(own != null && own.length == BYTES, "a joint seed is " + BYTES + " bytes");
    for (int j = 0; j < published.size(); j++) {
      if (!MessageDigest.isEqual(own, published.get(j))) {
        throw new MixnetAbortException(Reason.SEED_MISMATCH, self, "party " + j + "'s published joint seed differs "
            + "from this party's: the parties did not all see the same final list, commitments and shares (a relay "
            + "that showed them different posts of an equivocating party); the session must end");
      }
    }
    return sha256(AGREED, own);
  }

  private static void checkContext(byte[] context) {
    if (context == null || context.length != BYTES) {
      throw new IllegalArgumentException("a joint-seed context is " + BYTES + " bytes (JointSeed.context). Provided: "
          + (context == null ? "null" : context.length + " bytes"));
    }
  }

  private static byte[] sha256(byte[]... parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) {
        md.update(p);
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }
}
