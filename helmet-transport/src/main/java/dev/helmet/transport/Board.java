package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.transport.wire.BoardChunk;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The wire side of a plan's setup board (see {@code BoardChunk} in helmet.proto): the setup's
 * session id, chunking a post, and the sender's signature over it. The coordinator ({@link
 * BoardRelay}) and each participant use the same code, so both check a post alike.
 */
final class Board {
  /** The largest chunk of a post on the wire. */
  static final int CHUNK_BYTES = 1 << 20;
  private static final byte[] LABEL = "helmet board post v1".getBytes(StandardCharsets.US_ASCII);

  private Board() {}

  /**
   * The 16 bytes a setup binds its messages to: fresh for every session (the graph seed mixes every
   * party's revealed nonce and the coordinator's), derived alike by each party and the coordinator.
   */
  static byte[] setupSession(SessionConfig c, Roster r, List<byte[]> nonces) {
    MessageDigest d = SessionPlan.sha256();
    d.update("helmet setup session v1".getBytes(StandardCharsets.US_ASCII));
    d.update(SessionPlan.graphSeed(c, r, nonces));
    return Arrays.copyOf(d.digest(), 16);
  }

  /** What the sender signs: the session, the setup session, the post's place and its digest. */
  private static byte[] signed(SessionConfig c, byte[] setupSession, int step, int sender, byte[] post) {
    MessageDigest d = SessionPlan.sha256();
    byte[] digest = d.digest(post);
    byte[] session = c.getSessionId().toByteArray();
    return ByteBuffer.allocate(LABEL.length + session.length + setupSession.length + 8 + digest.length).put(LABEL)
        .put(session).put(setupSession).putInt(step).putInt(sender).put(digest).array();
  }

  /** The sender's chunks of its post, the last one signed with its identity key. */
  static List<BoardChunk> chunks(SessionConfig c, byte[] setupSession, int step, int sender, byte[] post,
      byte[] identitySecret, CryptoProfile profile) {
    byte[] signature = Signatures.sign(identitySecret, signed(c, setupSession, step, sender, post), profile);
    return chunks(step, sender, post, signature);
  }

  /** A post (already signed) as chunks, as the coordinator relays it. */
  static List<BoardChunk> chunks(int step, int sender, byte[] post, byte[] signature) {
    List<BoardChunk> out = new ArrayList<>();
    int off = 0;
    do {
      int len = Math.min(CHUNK_BYTES, post.length - off);
      BoardChunk.Builder b = BoardChunk.newBuilder().setStep(step).setSender(sender).setTotalBytes(post.length)
          .setOffset(off).setData(ByteString.copyFrom(post, off, len));
      if (off + len == post.length) {
        b.setSignature(ByteString.copyFrom(signature));
      }
      out.add(b.build());
      off += len;
    } while (off < post.length);
    return out;
  }

  /** Whether {@code signature} is {@code sender}'s identity signature of this post. */
  static boolean verify(SessionConfig c, byte[] setupSession, int step, int sender, byte[] post, byte[] signature,
      byte[] identityKey, CryptoProfile profile) {
    return Signatures.verify(identityKey, signed(c, setupSession, step, sender, post), signature, profile);
  }

  /**
   * One post arriving in chunks: in order, each continuing where the last ended, the total the
   * schedule's length; complete when the last byte and the signature have come.
   *
   * <p>Memory: the buffer starts at one chunk and grows with the bytes received (doubling, never
   * past the schedule's length), so a sender that announces a long post and stops after its first
   * chunk costs the reader about what it sent, not the announced length (security review turn 3,
   * T3-11).
   */
  static final class Assembly {
    /** The first buffer: one wire chunk. */
    private static final int FIRST = CHUNK_BYTES;
    final int step;
    final int sender;
    private final int expected;
    private byte[] post;
    private int filled;
    private byte[] signature;

    Assembly(int step, int sender, long expected) {
      if (expected < 0 || expected > Setup.MAX_POST_BYTES) {
        throw new IllegalArgumentException("a post of " + expected + " bytes is beyond what a board carries ("
            + Setup.MAX_POST_BYTES + ")");
      }
      this.step = step;
      this.sender = sender;
      this.expected = (int) expected;
      this.post = new byte[Math.min(this.expected, FIRST)];
    }

    /**
     * Adds a chunk; returns null if it fits, else what is wrong with it (the post is then void).
     */
    String add(BoardChunk ch) {
      if (ch.getTotalBytes() != expected) {
        return "its post at step " + step + " announces " + ch.getTotalBytes() + " bytes; the schedule says "
            + expected;
      }
      if (ch.getOffset() != filled || ch.getData().size() > expected - filled
          || (ch.getData().isEmpty() && expected > 0)) {
        return "a chunk of its post at step " + step + " at offset " + ch.getOffset() + " with " + ch.getData().size()
            + " bytes does not continue the " + filled + " bytes received";
      }
      int need = filled + ch.getData().size();
      if (need > post.length) {
        post = Arrays.copyOf(post, (int) Math.min(expected, Math.max(need, 2L * post.length)));
      }
      ch.getData().copyTo(post, filled);
      filled = need;
      boolean last = filled == expected;
      if (last != !ch.getSignature().isEmpty()) {
        return last ? "the last chunk of its post at step " + step + " carries no signature"
            : "a chunk before the end of its post at step " + step + " carries a signature";
      }
      if (last) {
        signature = ch.getSignature().toByteArray();
      }
      return null;
    }

    /** Bytes of buffer held now: at most the larger of one chunk and twice the bytes received. */
    int held() {
      return post.length;
    }

    boolean complete() {
      return signature != null;
    }

    byte[] post() {
      return post;
    }

    byte[] signature() {
      return signature.clone();
    }
  }
}
