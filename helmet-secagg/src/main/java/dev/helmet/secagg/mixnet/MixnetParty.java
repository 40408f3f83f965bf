package dev.helmet.secagg.mixnet;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.mixnet.MixnetAbortException.Reason;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One party of Algorithm 2 (the cross-silo paper, Sec. 3.4; design note 1.3): it draws n_i unique
 * random 128-bit tokens, maps them to its records by a secret random bijection, wraps each in N
 * onion layers ({@link OnionLayer}, layer 0 outermost), peels its own layer off every element of
 * the list at its step and permutes the list uniformly, and at the end checks that each of its
 * tokens is in the final list (Theorem 1 i).
 *
 * <p>What it protects: the link between its tokens (hence its records' batch memberships) and
 * itself, against every other party and the aggregator, as long as one other mixer shuffles
 * honestly (Theorem 1 ii); its own honest shuffle likewise hides the other parties' tokens. What
 * it detects: an element that fails authentication, a list of the wrong length, a copied element,
 * and (at the end) a dropped or replaced token of its own. Each raises {@link
 * MixnetAbortException}; the session must then end (doubt 11). Tokens, the bijection and the
 * shuffles come from SecureRandom; nothing secret is logged or shown by {@code toString}.
 */
public final class MixnetParty {
  private final int index;
  private final int parties;
  private final byte[] sessionId;
  private final X25519Keys.KeyPair keys;
  private final SecureRandom random;
  private final Token[] tokens;
  private final Map<Token, Integer> recordOf;
  private final CryptoProfile profile = new CryptoProfile();
  private long nanos;

  /**
   * A party with fresh keys and tokens, all from SecureRandom.
   *
   * @param index this party's place in the public order, 0 .. parties - 1 (its layer and step)
   * @param parties N
   * @param records n_i >= 0, this party's number of records
   * @param sessionId the session's 16-byte id, bound into every layer
   */
  public MixnetParty(int index, int parties, int records, byte[] sessionId) {
    this(index, parties, records, sessionId, X25519Keys.generate(), null);
  }

  /**
   * For tests only: a given key pair and a given source for tokens, bijection and shuffles (null:
   * the thread's SecureRandom). Production code uses the public constructor.
   */
  MixnetParty(int index, int parties, int records, byte[] sessionId, X25519Keys.KeyPair keys, SecureRandom random) {
    Checks.positive("parties", parties);
    Checks.inRange("party index", index, 0, parties - 1);
    Checks.nonNegative("records", records);
    OnionLayer.checkSession(sessionId);
    this.index = index;
    this.parties = parties;
    this.sessionId = sessionId.clone();
    this.keys = Checks.notNull("key pair", keys);
    this.random = random;
    long t0 = System.nanoTime();
    Set<Token> seen = new HashSet<>();
    tokens = new Token[records];
    for (int j = 0; j < records; j++) {
      Token t;
      do {
        t = Token.random(rng()); // a repeat has probability < n_i^2 / 2^129; redraw rather than abort
      } while (!seen.add(t));
      tokens[j] = t;
    }
    int[] bijection = permutation(records);
    recordOf = new HashMap<>(2 * records);
    for (int j = 0; j < records; j++) {
      recordOf.put(tokens[j], bijection[j]);
    }
    nanos += System.nanoTime() - t0;
  }

  private SecureRandom rng() {
    return random != null ? random : Secrets.random();
  }

  /** A uniform permutation of 0 .. n-1 (Fisher-Yates with SecureRandom's unbiased nextInt). */
  private int[] permutation(int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    SecureRandom r = rng();
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  public int index() {
    return index;
  }

  public int parties() {
    return parties;
  }

  /** n_i, the number of this party's records and tokens (public). */
  public int records() {
    return tokens.length;
  }

  /** The X25519 public key mixers seal this party's layer to (bound to its identity elsewhere). */
  public byte[] publicKey() {
    return keys.publicKey().clone();
  }

  /**
   * Step 1 of Algorithm 2: this party's tokens, each wrapped for mixers 0 .. N-1 with {@code
   * publicKeys} (in the public order), ready to be published; {@value OnionLayer#OVERHEAD} N + 16
   * bytes each.
   */
  public List<byte[]> wrapTokens(List<byte[]> publicKeys) {
    Checks.require(publicKeys.size() == parties, "the mixnet needs one public key per party: " + parties
        + " parties. Provided keys: " + publicKeys.size());
    long t0 = System.nanoTime();
    // Layer by layer (N-1 first, so layer 0 is outermost), each layer's seals in blocks on every core
    // of this party's machine, each block's key pairs and agreements batched (X25519Keys).
    X25519Keys.prepareForMany(2L * tokens.length * parties);
    List<byte[]> out = new ArrayList<>(tokens.length);
    for (Token t : tokens) {
      out.add(t.toBytes());
    }
    int block = 256;
    int blocks = (out.size() + block - 1) / block;
    for (int i = parties - 1; i >= 0; i--) {
      byte[] key = publicKeys.get(i);
      int layer = i;
      List<byte[]> in = out;
      byte[][] sealed = new byte[in.size()][];
      Parallel.forEach(Runtime.getRuntime().availableProcessors(), blocks, b -> {
        int from = b * block;
        int to = Math.min(in.size(), from + block);
        List<byte[]> s = OnionLayer.sealAll(in.subList(from, to), key, sessionId, layer, profile);
        for (int e = from; e < to; e++) {
          sealed[e] = s.get(e - from);
        }
      });
      out = new ArrayList<>(Arrays.asList(sealed));
    }
    nanos += System.nanoTime() - t0;
    return out;
  }

  /**
   * Step 4 of Algorithm 2 for mixer {@link #index()}: checks the list, opens this party's layer on
   * every element, and returns the elements in a uniformly random order (SecureRandom).
   *
   * @param list the list as published by the previous mixer (or the initial list, for mixer 0)
   * @param expectedSize n, the public number of tokens
   * @throws MixnetAbortException WRONG_LIST_SIZE, MALFORMED_ELEMENT, DUPLICATE_ELEMENT, or
   *     AEAD_FAILURE naming the first bad element's position in {@code list}
   */
  public List<byte[]> mix(List<byte[]> list, int expectedSize) {
    long t0 = System.nanoTime();
    try {
      if (list.size() != expectedSize) {
        throw new MixnetAbortException(Reason.WRONG_LIST_SIZE, index, "the list for step " + index + " has "
            + list.size() + " elements, the parties announced " + expectedSize);
      }
      int size = OnionLayer.size(parties - index);
      Set<ByteBuffer> distinct = new HashSet<>(2 * list.size());
      for (int e = 0; e < list.size(); e++) {
        byte[] c = list.get(e);
        if (c == null || c.length != size) {
          throw new MixnetAbortException(Reason.MALFORMED_ELEMENT, index, "element " + e + " of the list for step "
              + index + " is " + (c == null ? "missing" : c.length + " bytes") + ", expected " + size);
        }
        if (!distinct.add(ByteBuffer.wrap(c))) {
          throw new MixnetAbortException(Reason.DUPLICATE_ELEMENT, index, "element " + e + " of the list for step "
              + index + " repeats an earlier element");
        }
      }
      // The elements open independently: on every core of this party's machine (the mixers run one
      // after another, so a mixer's step is the setup's critical path), and each block's key
      // agreements at once (one secret, many public keys: the batched X25519 where it is faster,
      // the same bytes either way). The first bad element by position is reported, whatever the
      // threads' order; a block with a small-order key is opened one by one to find it.
      byte[][] opened = new byte[list.size()][];
      java.util.concurrent.atomic.AtomicInteger firstBad = new java.util.concurrent.atomic.AtomicInteger(-1);
      java.util.Map<Integer, String> why = new java.util.concurrent.ConcurrentHashMap<>();
      X25519Keys.prepareForMany(opened.length);
      int block = 256;
      int blocks = (opened.length + block - 1) / block;
      Parallel.forEach(Runtime.getRuntime().availableProcessors(), blocks, b -> {
        int from = b * block;
        int to = Math.min(opened.length, from + block);
        List<byte[]> epks = new ArrayList<>(to - from);
        for (int e = from; e < to; e++) {
          epks.add(Arrays.copyOf(list.get(e), X25519Keys.SIZE));
        }
        List<byte[]> shared;
        try {
          shared = X25519Keys.agreeAll(keys.secret(), epks, profile);
        } catch (CryptoException ex) {
          shared = null;
        }
        for (int e = from; e < to; e++) {
          try {
            opened[e] = shared == null ? OnionLayer.open(list.get(e), keys, sessionId, index, profile)
                : OnionLayer.openShared(list.get(e), shared.get(e - from), keys.publicKey(), sessionId, index,
                    profile);
          } catch (CryptoException ex) {
            int at = e;
            why.put(at, ex.getMessage());
            firstBad.accumulateAndGet(at, (x, y) -> x < 0 ? y : Math.min(x, y));
          }
        }
      });
      int bad = firstBad.get();
      if (bad >= 0) {
        throw new MixnetAbortException(Reason.AEAD_FAILURE, index, "element " + bad + " of the list for step " + index
            + " does not open: " + why.get(bad));
      }
      int[] order = permutation(opened.length);
      List<byte[]> out = new ArrayList<>(opened.length);
      for (int p : order) {
        out.add(opened[p]);
      }
      return out;
    } finally {
      nanos += System.nanoTime() - t0;
    }
  }

  /**
   * The end of Algorithm 2: every one of this party's tokens is in the final list (which {@link
   * TokenList} has checked for size and duplicates, so each is there exactly once).
   *
   * @throws MixnetAbortException MISSING_OWN_TOKEN with the count only (which tokens are missing
   *     would tell others which were this party's)
   */
  public void verifyFinal(TokenList list) {
    long t0 = System.nanoTime();
    int missing = 0;
    for (Token t : tokens) {
      if (!list.contains(t)) {
        missing++;
      }
    }
    nanos += System.nanoTime() - t0;
    if (missing > 0) {
      throw new MixnetAbortException(Reason.MISSING_OWN_TOKEN, index, missing + " of party " + index + "'s "
          + tokens.length + " tokens are missing from the final list");
    }
  }

  /** Whether {@code token} is one of this party's (only this party can tell). */
  public boolean owns(Token token) {
    return recordOf.containsKey(token);
  }

  /**
   * This party's records among {@code batch} (a step's selected tokens), ascending: the secret
   * bijection applied to the tokens it owns, others ignored.
   */
  public int[] recordsIn(Collection<Token> batch) {
    return batch.stream().map(recordOf::get).filter(r -> r != null).mapToInt(Integer::intValue).sorted().toArray();
  }

  /** Seconds this party has spent on its own work (tokens, wrapping, mixing, checking). */
  public double seconds() {
    return nanos / 1e9;
  }

  /** Where this party's time went, per primitive. */
  public CryptoProfile profile() {
    return profile;
  }

  /** For tests only: the secret key pair (to play a corrupted mixer with this party's key). */
  X25519Keys.KeyPair keysForTest() {
    return keys;
  }

  @Override
  public String toString() {
    return "MixnetParty[" + index + " of " + parties + ", " + tokens.length + " tokens, public key "
        + java.util.HexFormat.of().formatHex(keys.publicKey()) + "]";
  }

  /** For tests only: this party's tokens in drawing order. */
  List<Token> tokensForTest() {
    return Arrays.asList(tokens.clone());
  }
}
