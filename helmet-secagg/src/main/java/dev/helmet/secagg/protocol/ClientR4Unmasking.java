package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.UnmaskingRequest;
import dev.helmet.secagg.protocol.Messages.UnmaskingShares;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Round 4 (Unmasking): after checking that at least t neighbours signed the same survivor set as
 * this party, reveal the self-mask shares of survivors and the mask-key shares of parties that
 * dropped after sharing keys. The party refuses, and reveals nothing, if asked for both shares of
 * one party, for a share it does not hold, or for anything that contradicts the signed set.
 */
public final class ClientR4Unmasking extends ClientState {
  private final SortedMap<Integer, long[][]> received;
  private final BitSet survivors;
  private final Map<Integer, Signatures.PublicKey> identities;

  ClientR4Unmasking(Context ctx, SortedMap<Integer, long[][]> received, BitSet survivors,
      Map<Integer, Signatures.PublicKey> identities) {
    super(ctx);
    this.received = received;
    this.survivors = survivors;
    this.identities = identities;
  }

  @Override
  public Round expects() {
    return Round.UNMASKING;
  }

  @Override
  public Step handle(ServerMessage message) {
    Step reject = rejectUnexpected(message, UnmaskingRequest.class);
    if (reject != null) {
      return reject;
    }
    SecAggParameters p = ctx.params();
    int me = ctx.id();
    UnmaskingRequest req = (UnmaskingRequest) message;
    if (!req.survivors().equals(survivors)) {
      return abort(ClientAbortReason.INCONSISTENT_REQUEST, "the survivor set differs from the one this party signed");
    }
    byte[] transcript = Transcripts.consistency(p, survivors, p.parties());
    // As in round 1: the first bad entry decides the abort; the signatures before it are verified together.
    List<Integer> signers = new ArrayList<>();
    List<Signatures.PublicKey> keys = new ArrayList<>();
    List<byte[]> signatures = new ArrayList<>();
    String stranger = null;
    for (Map.Entry<Integer, byte[]> e : req.signatures().entrySet()) {
      int v = e.getKey();
      if (v < 0 || v >= p.parties() || !p.graph().adjacent(me, v) || !survivors.get(v)) {
        stranger = "a signature from party " + v + ", which is not a surviving neighbour";
        break;
      }
      Signatures.PublicKey key = identities.get(v);
      signers.add(v);
      keys.add(key != null ? key : p.identityVerifier(v));
      signatures.add(e.getValue());
    }
    int bad = Signatures.firstInvalid(keys, java.util.Collections.nCopies(keys.size(), transcript), signatures,
        ctx.profile());
    if (bad >= 0) {
      return abort(ClientAbortReason.INVALID_SIGNATURE, "party " + signers.get(bad) + " did not sign this survivor set");
    }
    if (stranger != null) {
      return abort(ClientAbortReason.INCONSISTENT_REQUEST, stranger);
    }
    int valid = signers.size();
    if (valid < p.threshold()) {
      return abort(ClientAbortReason.TOO_FEW_NEIGHBOURS,
          valid + " neighbours confirmed the survivor set, the threshold is " + p.threshold());
    }
    Set<Integer> selfMask = new HashSet<>();
    for (int u : req.revealSelfMask()) {
      selfMask.add(u);
    }
    TreeMap<Integer, long[]> maskKeyOut = new TreeMap<>();
    TreeMap<Integer, long[]> selfMaskOut = new TreeMap<>();
    for (int u : req.revealMaskKey()) {
      if (selfMask.contains(u)) {
        return abort(ClientAbortReason.BOTH_SECRETS_REQUESTED,
            "asked for both the self-mask share and the mask-key share of party " + u);
      }
      if (survivors.get(u)) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "asked for the mask key of party " + u + ", a survivor");
      }
      long[][] s = received.get(u);
      if (s == null) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "asked for a share of party " + u + ", never received");
      }
      maskKeyOut.put(u, s[0].clone());
    }
    for (int u : req.revealSelfMask()) {
      if (!survivors.get(u)) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "asked for the self mask of party " + u
            + ", not a survivor");
      }
      long[][] s = received.get(u);
      if (s == null) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "asked for a share of party " + u + ", never received");
      }
      selfMaskOut.put(u, s[1].clone());
    }
    return new Step(new Completed(ctx), new UnmaskingShares(p.session(), me, selfMaskOut, maskKeyOut));
  }
}
