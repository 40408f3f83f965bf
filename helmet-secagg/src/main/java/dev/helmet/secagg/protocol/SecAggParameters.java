package dev.helmet.secagg.protocol;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.graph.CommunicationGraph;
import dev.helmet.secagg.ring.BitPacking;
import java.util.List;

/**
 * The public parameters of one secure-aggregation session, known to the server and every party
 * before round 0.
 *
 * @param session the session id (routes messages); bound into every signature, key derivation and
 *     AEAD tag
 * @param context 32 bytes that every party and the server derive from everything public about the
 *     session (a networked session: the digest of its full configuration and roster); bound with the
 *     session id into every signature, key derivation and AEAD tag, so that parties shown different
 *     configurations, rosters or keys cannot complete one aggregation together
 * @param length the vector length d
 * @param ringBits b, 2 to 64: inputs and sums live in Z_{2^b}; masked inputs travel bit-packed,
 *     b bits per element ({@link BitPacking})
 * @param graph who shares keys with whom (complete for SecAgg, Harary for SecAgg+)
 * @param threshold t: the Shamir threshold in every neighbourhood; above half of it, and above (k +
 *     colluding neighbours) / 2 when parties may collude with the server, so that no two disjoint
 *     groups of neighbours can both reach it (see {@link SecAggSizing})
 * @param minSurvivors the fewest parties whose inputs may be summed; fewer at any round aborts
 * @param identityKeys each party's Ed25519 public key (the PKI)
 */
public record SecAggParameters(
    long session,
    byte[] context,
    int length,
    int ringBits,
    CommunicationGraph graph,
    int threshold,
    int minSurvivors,
    List<byte[]> identityKeys) {

  public SecAggParameters {
    Checks.require(context != null && context.length == 32, "the session context must be 32 bytes");
    context = context.clone();
    Checks.positive("vector length", length);
    Checks.inRange("ring bits", ringBits, BitPacking.MIN_BITS, BitPacking.MAX_BITS);
    Checks.notNull("graph", graph);
    int n = graph.parties();
    Checks.require(n >= 2, "secure aggregation needs at least 2 parties. Provided value: " + n);
    int minDegree = Integer.MAX_VALUE;
    for (int u = 0; u < n; u++) {
      minDegree = Math.min(minDegree, graph.neighbours(u).length);
    }
    Checks.inRange("threshold", threshold, 1, minDegree);
    Checks.inRange("min survivors", minSurvivors, 1, n);
    identityKeys = IdentityKeys.of(identityKeys);
    Checks.require(identityKeys.size() == n, identityKeys.size() + " identity keys for " + n + " parties");
  }

  /** The session context (a copy). */
  @Override
  public byte[] context() {
    return context.clone();
  }

  /** Party {@code v}'s signature verifier, decoded once per session and shared. */
  public dev.helmet.secagg.crypto.Signatures.PublicKey identityVerifier(int v) {
    return ((IdentityKeys) identityKeys).verifier(v);
  }

  /** Number of parties n. */
  public int parties() {
    return graph.parties();
  }

  /** The default threshold for a neighbourhood of {@code degree}: a strict majority. */
  public static int majority(int degree) {
    return degree / 2 + 1;
  }

  /** Ring element mask. */
  public long mask() {
    return ringBits == 64 ? -1L : (1L << ringBits) - 1;
  }

  /**
   * Bytes of one ring element stored on its own, {@code ceil(b/8)}. A masked input travels
   * bit-packed, in {@link #packedBytes} bytes.
   */
  public int bytesPerValue() {
    return (ringBits + 7) / 8;
  }

  /** Bytes of a packed masked input: {@code ceil(length b / 8)}. */
  public int packedBytes() {
    return (int) BitPacking.packedBytes(length, ringBits);
  }
}
