package dev.helmet.secagg.protocol;

import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ConsistencyCheckRequest;
import dev.helmet.secagg.protocol.Messages.MaskedInput;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import dev.helmet.secagg.ring.BitPacking;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Round 2: add each masked input to a running sum as it arrives, unpacking it on the way (the
 * server never keeps a party's vector); then ask the survivors U3 to sign the survivor set. A
 * masked input that is not exactly d packed elements of b bits drops its sender.
 */
public final class ServerR2MaskedInput extends ServerState {
  private final BitSet u2;
  private final Map<Integer, AdvertiseKeys> keys;
  private final long[] sum;

  ServerR2MaskedInput(Session session, BitSet u2, Map<Integer, AdvertiseKeys> keys) {
    super(session);
    this.u2 = u2;
    this.keys = keys;
    this.sum = new long[session.params.length()];
  }

  @Override
  public Round round() {
    return Round.MASKED_INPUT;
  }

  @Override
  BitSet expected() {
    return u2;
  }

  @Override
  Drop take(ClientMessage m) {
    MaskedInput in = (MaskedInput) m;
    SecAggParameters p = session.params;
    String problem = BitPacking.problem(in.packed(), p.length(), p.ringBits());
    if (problem != null) {
      return new Drop(in.sender(), round(), DropReason.MALFORMED_MESSAGE, "masked input: " + problem);
    }
    BitPacking.addInto(sum, in.packed(), p.ringBits());
    return null;
  }

  @Override
  public Transition close() {
    BitSet u3 = survivorsOfRound();
    Transition abort = abortIfTooFew(u3, needed());
    if (abort != null) {
      return abort;
    }
    SecAggParameters p = session.params;
    Map<Integer, ServerMessage> out = new HashMap<>();
    for (int v = u3.nextSetBit(0); v >= 0; v = u3.nextSetBit(v + 1)) {
      out.put(v, new ConsistencyCheckRequest(p.session(), v, u3));
    }
    return new Transition(new ServerR3ConsistencyCheck(session, u2, u3, keys, sum), out);
  }
}
