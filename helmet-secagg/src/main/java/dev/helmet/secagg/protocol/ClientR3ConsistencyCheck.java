package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.Messages.ConsistencyCheckRequest;
import dev.helmet.secagg.protocol.Messages.ConsistencySignature;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import java.util.BitSet;
import java.util.Map;
import java.util.SortedMap;

/**
 * Round 3 (ConsistencyCheck): sign U3, the set of parties whose masked inputs the server says it
 * holds. The signatures let every party check in round 4 that its neighbours were told the same
 * set, so the server cannot claim a party both survived and dropped.
 *
 * <p>A party signs only a U3 that contains itself (it sent its masked input; Bonawitz et al. 2017,
 * Fig. 4) and whose members among its neighbours all shared keys with it in round 2. Otherwise the
 * server could give a party only the shares of t chosen neighbours S, so that it masks with S
 * alone, then declare S dropped while alive: S would reveal the party's self-mask seed and S's
 * other neighbours S's mask keys, unmasking the party's input.
 */
public final class ClientR3ConsistencyCheck extends ClientState {
  private final SortedMap<Integer, long[][]> received;
  private final Map<Integer, Signatures.PublicKey> identities;

  ClientR3ConsistencyCheck(Context ctx, SortedMap<Integer, long[][]> received,
      Map<Integer, Signatures.PublicKey> identities) {
    super(ctx);
    this.received = received;
    this.identities = identities;
  }

  @Override
  public Round expects() {
    return Round.CONSISTENCY_CHECK;
  }

  @Override
  public Step handle(ServerMessage message) {
    Step reject = rejectUnexpected(message, ConsistencyCheckRequest.class);
    if (reject != null) {
      return reject;
    }
    SecAggParameters p = ctx.params();
    BitSet survivors = ((ConsistencyCheckRequest) message).survivors();
    if (survivors.length() > p.parties()) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, "survivor set names unknown parties");
    }
    int me = ctx.id();
    if (!survivors.get(me)) {
      return abort(ClientAbortReason.INCONSISTENT_REQUEST,
          "this party sent its masked input but is not in the survivor set");
    }
    for (int v : p.graph().neighbours(me)) {
      if (survivors.get(v) && !received.containsKey(v)) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "the survivor set names neighbour " + v
            + ", whose shares this party never received");
      }
    }
    if (survivors.cardinality() < p.minSurvivors()) {
      return abort(ClientAbortReason.TOO_FEW_NEIGHBOURS,
          survivors.cardinality() + " survivors, at least " + p.minSurvivors() + " are required");
    }
    byte[] sig = Signatures.sign(ctx.identitySecret(), Transcripts.consistency(p, survivors, p.parties()),
        ctx.profile());
    return new Step(new ClientR4Unmasking(ctx, received, survivors, identities),
        new ConsistencySignature(p.session(), ctx.id(), sig));
  }
}
