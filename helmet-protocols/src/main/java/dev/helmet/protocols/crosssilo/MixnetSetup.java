package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupParty;
import dev.helmet.secagg.mixnet.JointSeed;
import dev.helmet.secagg.mixnet.MixnetAbortException;
import dev.helmet.secagg.mixnet.MixnetParty;
import dev.helmet.secagg.mixnet.OnionLayer;
import dev.helmet.secagg.mixnet.Token;
import dev.helmet.secagg.mixnet.TokenList;
import dev.helmet.secagg.mixnet.TokenSampler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Algorithm 2 of the cross-silo paper (Sec. 3.4) and the joint seed as a {@link Setup}: the same
 * steps run in process ({@link dev.helmet.protocols.algorithm.SetupBoard}) and over the network
 * (the coordinator relays the posts, each signed by its sender's identity key). For N parties
 * holding n = sum n_i records, N + 6 steps:
 *
 * <ul>
 *   <li>step 0: every party posts its fresh X25519 mixnet key (32 bytes);
 *   <li>step 1: every party posts its n_i tokens, each wrapped for mixers 0 .. N-1 (it reads every key);
 *   <li>steps 2 .. N+1: mixer k = step - 2 alone reads the list (mixer 0 the parties'
 *       wrapped tokens in party order, mixer k the list mixer k-1 posted), opens its layer on every
 *       element, shuffles, and posts the n elements, one layer thinner; mixer N-1 posts the plain
 *       tokens, the final list;
 *   <li>step N+2: every party reads the final list, checks that all its tokens are in it
 *       (Theorem 1 i) and posts its commitment to a fresh seed share, bound to the list's digest;
 *   <li>step N+3: every party reads every commitment and posts its share;
 *   <li>step N+4: every party reads every share, checks each against its commitment,
 *       and posts the joint seed S it derived under its own view of the board;
 *   <li>step N+5: every party reads every party's seed and goes on only if all equal its own
 *       ({@link JointSeed#agree}); it then posts its confirmation and takes S. Both steps are
 *       unanimous, so an honest runner ends the session at once on two different posts; the
 *       parties' own comparison is what holds against a runner that does not (security review turn
 *       3, T3-10: a coordinator showing two signed commitments of one colluding party to different
 *       honest parties would otherwise leave them on different seeds, each passing its own checks).
 * </ul>
 *
 * <p>Then step t's batch is {@link TokenSampler}'s b tokens for S and t, and a party trains on its
 * records among them. A party's n_i is public (the roster carries it); which tokens are its own is
 * not, as long as one other mixer is honest (Theorem 1 ii). Every failed check throws {@link
 * MixnetAbortException} and the session must end: tokens and seeds are never reused.
 *
 * <p>Size (T3-11): party i's step-1 post is n_i (16 + 48 N) bytes and mixer k's list n (16 + 48
 * (N - k - 1)), so one party's claim costs every mixer memory and work. A networked session is
 * therefore sized for the worst roster it admits, every party claiming max_points ({@link
 * #sizeProblem}), and refused when validated if a post would not fit a board post ({@link
 * Setup#MAX_POST_BYTES}) or a mixer's working memory would exceed {@link #PARTY_MEMORY_BOUND}.
 */
final class MixnetSetup implements Setup {
  /**
   * The most memory a party's side of the setup may need, by {@link #partyBytes}: 8 GiB, public so
   * that the coordinator and every participant refuse the same configurations. (The 10-party,
   * 60,000-token demo of docs/cross-silo.md needs about 0.14 GiB by this estimate.)
   */
  static final long PARTY_MEMORY_BOUND = 8L << 30;
  private final int[] sizes;
  private final int total;
  private final int batch;
  private final byte[] sessionId;

  /**
   * @param sizes n_i per party, in roster order (public)
   * @param batch b, the records per step
   * @param sessionId 16 bytes bound into every onion layer (fresh per session)
   */
  MixnetSetup(int[] sizes, int batch, byte[] sessionId) {
    Checks.require(sizes.length >= 1, "the mixnet needs at least one party");
    OnionLayer.checkSession(sessionId);
    this.sizes = sizes.clone();
    int t = 0;
    for (int s : sizes) {
      t = Math.addExact(t, Checks.nonNegative("records", s));
    }
    this.total = t;
    this.batch = Checks.inRange("batch size b", batch, 1, Math.max(1, t));
    this.sessionId = sessionId.clone();
    for (int step = 0; step < steps(); step++) {
      for (int p : speakers(step)) {
        Checks.require(bytes(step, p) <= MAX_POST_BYTES, "party " + p + "'s post at setup step " + step + " would be "
            + bytes(step, p) + " bytes, beyond the " + MAX_POST_BYTES + " a board post carries");
      }
    }
  }

  /**
   * The longest post of a setup of {@code parties} parties holding {@code total} tokens, one of
   * which holds {@code largest}: a party's wrapped tokens (step 1) or mixer 0's list.
   */
  static long largestPost(int parties, long total, long largest) {
    long wraps = Math.multiplyExact(largest, OnionLayer.size(parties));
    return Math.max(wraps, Math.multiplyExact(total, OnionLayer.size(parties - 1)));
  }

  /**
   * An estimate of the most memory one party's side of the setup holds at once, in bytes: mixer 0
   * at its step holds its input twice (the received posts and the split elements, n (16 + 48 N)
   * bytes each) and its output three times (the opened elements, the concatenated post and its
   * wire chunks, n (16 + 48 (N - 1)) each); later mixers hold less. Java's per-array headers
   * (16 bytes an element) are counted.
   */
  static long partyBytes(int parties, long total) {
    long in = Math.multiplyExact(total, OnionLayer.size(parties) + 16L);
    long out = Math.multiplyExact(total, OnionLayer.size(parties - 1) + 16L);
    return Math.addExact(Math.multiplyExact(2, in), Math.multiplyExact(3, out));
  }

  /**
   * Why a networked setup of {@code parties} parties, each claiming up to {@code maxPoints} tokens,
   * could exceed a board post or {@link #PARTY_MEMORY_BOUND}, naming the limit and the largest
   * max_points that fits; null if every roster the session admits fits.
   */
  static String sizeProblem(int parties, long maxPoints) {
    Checks.positive("parties", parties);
    Checks.require(maxPoints >= 1, "max_points must be at least 1. Provided value: " + maxPoints);
    long total = Math.multiplyExact((long) parties, maxPoints);
    long post = largestPost(parties, total, maxPoints);
    long memory = partyBytes(parties, total);
    if (total <= Integer.MAX_VALUE && post <= MAX_POST_BYTES && memory <= PARTY_MEMORY_BOUND) {
      return null;
    }
    long fits = 0;
    for (long lo = 1, hi = maxPoints; lo <= hi; ) {
      long m = lo + (hi - lo) / 2;
      long t = (long) parties * m;
      if (t <= Integer.MAX_VALUE && largestPost(parties, t, m) <= MAX_POST_BYTES
          && partyBytes(parties, t) <= PARTY_MEMORY_BOUND) {
        fits = m;
        lo = m + 1;
      } else {
        hi = m - 1;
      }
    }
    String why = total > Integer.MAX_VALUE ? "the token list would hold " + total + " tokens, more than "
        + Integer.MAX_VALUE : post > MAX_POST_BYTES ? "its largest post would be " + mib(post) + " MiB, beyond the "
        + mib(MAX_POST_BYTES) + " MiB a board post carries" : "a mixer would need about " + mib(memory) + " MiB of "
        + "memory for its list, beyond the setup's bound of " + mib(PARTY_MEMORY_BOUND) + " MiB per party";
    return "sampling swor over the network runs a token mixnet sized by the parties' claims: with parties = " + parties
        + " each claiming up to max_points = " + maxPoints + " records, " + why + "; "
        + (fits > 0 ? "lower max_points to at most " + fits + " (the most records any one party holds)"
        + " or run fewer parties" : "run fewer parties") + ", or choose sampling poisson";
  }

  private static long mib(long bytes) {
    return (bytes + (1 << 20) - 1) >> 20;
  }

  private int n() {
    return sizes.length;
  }

  @Override
  public int steps() {
    return n() + 6;
  }

  private int[] everyone() {
    int[] all = new int[n()];
    Arrays.setAll(all, i -> i);
    return all;
  }

  private boolean mixing(int step) {
    return step >= 2 && step < n() + 2;
  }

  @Override
  public int[] speakers(int step) {
    Checks.inRange("setup step", step, 0, steps() - 1);
    return mixing(step) ? new int[] {step - 2} : everyone();
  }

  private List<PostId> all(int step) {
    List<PostId> out = new ArrayList<>(n());
    for (int i = 0; i < n(); i++) {
      out.add(new PostId(step, i));
    }
    return out;
  }

  @Override
  public List<PostId> reads(int step, int party) {
    Checks.inRange("setup step", step, 0, steps() - 1);
    if (step == 0) {
      return List.of();
    }
    if (step == 1 || step == 2) {
      return all(step - 1); // the keys, or (mixer 0) every party's wrapped tokens
    }
    if (mixing(step) || step == n() + 2) {
      return List.of(new PostId(step - 1, step - 3)); // the previous mixer's list
    }
    return all(step - 1); // the commitments, the shares, then every party's seed
  }

  @Override
  public long bytes(int step, int party) {
    Checks.inRange("setup step", step, 0, steps() - 1);
    if (step == 1) {
      return (long) sizes[party] * OnionLayer.size(n());
    }
    if (mixing(step)) {
      return (long) total * OnionLayer.size(n() - 1 - (step - 2));
    }
    return JointSeed.BYTES; // a key, a commitment, a share, the seed or its confirmation
  }

  @Override
  public boolean unanimous(int step) {
    return step == n() + 4 || step == n() + 5;
  }

  @Override
  public Party party(int party) {
    Checks.inRange("party", party, 0, n() - 1);
    // A party makes 2 N n_i agreements wrapping and n opening: the batched X25519 is warmed up now,
    // before the parallel work starts (a warm-up that competes with it may not finish in its cap).
    dev.helmet.secagg.crypto.X25519Keys.prepareForMany(2L * n() * sizes[party] + total);
    return new Party(new MixnetParty(party, n(), sizes[party], sessionId));
  }

  @Override
  public String describe() {
    return "token mixnet of " + n() + " parties and " + total + " tokens, joint seed by commit-reveal (" + steps()
        + " board steps)";
  }

  int total() {
    return total;
  }

  /** One party's side: its mixnet secrets, then the final list and the joint seed. */
  final class Party implements SetupParty {
    private final MixnetParty mix;
    private TokenList tokens;
    private byte[] context;
    private JointSeed.Contribution share;
    private List<byte[]> commitments;
    private byte[] seed;
    private TokenSampler sampler;

    private Party(MixnetParty mix) {
      this.mix = mix;
    }

    @Override
    public byte[] post(int step, List<byte[]> read) {
      int i = mix.index();
      Checks.require(Arrays.stream(speakers(step)).anyMatch(p -> p == i), "party " + i + " does not post at step "
          + step);
      if (step == 0) {
        return mix.publicKey();
      }
      if (step == 1) {
        return concat(mix.wrapTokens(read), OnionLayer.size(n()));
      }
      if (mixing(step)) {
        List<byte[]> list = new ArrayList<>(total);
        int size = OnionLayer.size(n() - i);
        for (int p = 0; p < read.size(); p++) {
          list.addAll(split(read.get(p), size, i == 0 ? "party " + p + "'s wrapped tokens" : "mixer " + (i - 1)
              + "'s list"));
        }
        return concat(mix.mix(list, total), OnionLayer.size(n() - i - 1));
      }
      if (step == n() + 2) {
        tokens = TokenList.of(split(read.get(0), Token.BYTES, "the final list"), total);
        mix.verifyFinal(tokens);
        context = JointSeed.context(sessionId, tokens);
        share = JointSeed.Contribution.draw(context, i);
        return share.commitment();
      }
      if (step == n() + 3) {
        commitments = List.copyOf(read);
        return share.reveal();
      }
      if (step == n() + 4) {
        seed = JointSeed.combine(context, commitments, read);
        return seed.clone();
      }
      // Only a seed every party published is taken: the batches exist from here on.
      byte[] agreed = JointSeed.agree(seed, read, i);
      sampler = new TokenSampler(tokens, seed, batch);
      return agreed;
    }

    /** Its records in step {@code step}'s batch, ascending (after the last step). */
    int[] records(int step) {
      return recordsIn(batch(step));
    }

    /** Step {@code step}'s batch of tokens (public once S is). */
    List<Token> batch(int step) {
      Checks.require(sampler != null, "the mixnet setup has not finished");
      return sampler.batch(step);
    }

    /** Its records among {@code chosen}, ascending. */
    int[] recordsIn(List<Token> chosen) {
      int[] r = mix.recordsIn(chosen);
      Arrays.sort(r);
      return r;
    }

    double seconds() {
      return mix.seconds();
    }

    @Override
    public String toString() {
      return "MixnetSetup.Party[" + mix.index() + "]";
    }
  }

  private static byte[] concat(List<byte[]> elements, int size) {
    byte[] out = new byte[Math.multiplyExact(elements.size(), size)];
    for (int e = 0; e < elements.size(); e++) {
      System.arraycopy(elements.get(e), 0, out, e * size, size);
    }
    return out;
  }

  private static List<byte[]> split(byte[] post, int size, String what) {
    if (post.length % size != 0) {
      throw new MixnetAbortException(MixnetAbortException.Reason.MALFORMED_ELEMENT, -1, what + " is " + post.length
          + " bytes, not a whole number of " + size + "-byte elements");
    }
    List<byte[]> out = new ArrayList<>(post.length / size);
    for (int off = 0; off < post.length; off += size) {
      out.add(Arrays.copyOfRange(post, off, off + size));
    }
    return out;
  }
}
