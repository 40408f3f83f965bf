package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.Messages.ConsistencyCheckRequest;
import dev.helmet.secagg.protocol.Messages.ConsistencySignature;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import java.util.BitSet;
import java.util.SortedMap;

/**
 * Round 3 (ConsistencyCheck): sign U3, the set of parties whose masked inputs the server says it
 * holds. The signatures let every party check in round 4 that its neighbours were told the same
 * set, so the server cannot claim a party both survived and dropped.
 */
public final class ClientR3ConsistencyCheck extends ClientState {
  private final SortedMap<Integer, long[][]> received;

  ClientR3ConsistencyCheck(Context ctx, SortedMap<Integer, long[][]> received) {
    super(ctx);
    this.received = received;
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
    if (survivors.cardinality() < p.minSurvivors()) {
      return abort(ClientAbortReason.TOO_FEW_NEIGHBOURS,
          survivors.cardinality() + " survivors, at least " + p.minSurvivors() + " are required");
    }
    byte[] sig = Signatures.sign(ctx.identitySecret(), Transcripts.consistency(p.session(), survivors, p.parties()),
        ctx.profile());
    return new Step(new ClientR4Unmasking(ctx, received, survivors),
        new ConsistencySignature(p.session(), ctx.id(), sig));
  }
}
