package dev.helmet.secagg.mixnet;

import dev.helmet.secagg.mixnet.MixnetAbortException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The final, public token list of Algorithm 2 in its canonical order (tokens sorted as unsigned
 * 16-byte strings), with the checks every party makes on it (Theorem 1 i): the list has the public
 * size n = sum n_i, and no token appears twice. Selection works on positions in this sorted order,
 * never in the order the last mixer published: that order is the last mixer's choice (doubt 10).
 * Immutable.
 */
public final class TokenList {
  private static final byte[] LABEL = "helmet token list v1".getBytes(StandardCharsets.UTF_8);
  private final Token[] sorted;

  private TokenList(Token[] sorted) {
    this.sorted = sorted;
  }

  /**
   * The canonical list of the last mixer's output (16-byte plaintext tokens).
   *
   * @throws MixnetAbortException WRONG_LIST_SIZE if there are not {@code expectedSize} elements,
   *     MALFORMED_ELEMENT if one is not 16 bytes, DUPLICATE_TOKEN if a token repeats
   */
  public static TokenList of(List<byte[]> published, int expectedSize) {
    checkSize(published.size(), expectedSize);
    Token[] t = new Token[published.size()];
    for (int i = 0; i < t.length; i++) {
      byte[] b = published.get(i);
      if (b == null || b.length != Token.BYTES) {
        throw new MixnetAbortException(Reason.MALFORMED_ELEMENT, -1, "element " + i + " of the final list is "
            + (b == null ? "missing" : b.length + " bytes") + ", a token is " + Token.BYTES);
      }
      t[i] = Token.of(b);
    }
    return sorted(t);
  }

  /** As {@link #of(List, int)} for tokens already parsed. */
  public static TokenList ofTokens(Collection<Token> tokens, int expectedSize) {
    checkSize(tokens.size(), expectedSize);
    return sorted(tokens.toArray(new Token[0]));
  }

  private static void checkSize(int size, int expected) {
    if (size != expected) {
      throw new MixnetAbortException(Reason.WRONG_LIST_SIZE, -1, "the final list has " + size
          + " tokens, the parties announced " + expected);
    }
  }

  private static TokenList sorted(Token[] t) {
    Arrays.sort(t);
    for (int i = 1; i < t.length; i++) {
      if (t[i].equals(t[i - 1])) {
        throw new MixnetAbortException(Reason.DUPLICATE_TOKEN, -1, "the token at sorted positions " + (i - 1)
            + " and " + i + " of the final list appears twice");
      }
    }
    return new TokenList(t);
  }

  /** n, the number of tokens (records of all parties). */
  public int size() {
    return sorted.length;
  }

  /** The token at a canonical position. */
  public Token get(int position) {
    return sorted[position];
  }

  /** The canonical position of {@code token}, or -1 if it is not in the list. */
  public int positionOf(Token token) {
    int p = Arrays.binarySearch(sorted, token);
    return p >= 0 ? p : -1;
  }

  public boolean contains(Token token) {
    return positionOf(token) >= 0;
  }

  /** The tokens in canonical order. */
  public List<Token> tokens() {
    return List.of(sorted);
  }

  /**
   * SHA-256("helmet token list v1" || n || tokens in canonical order): what {@link JointSeed}
   * binds the seed to, so that a seed can only be drawn for a list that is already fixed.
   */
  public byte[] digest() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(LABEL);
      md.update(ByteBuffer.allocate(4).putInt(sorted.length).array());
      for (Token t : sorted) {
        md.update(t.toBytes());
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }
}
