package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ConsistencySignature;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.UnmaskingRequest;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Round 3: collect signatures of U3; then ask each signer for the self-mask shares of its
 * surviving neighbours and the mask-key shares of its neighbours that dropped after round 1 (never
 * both for one party), passing on its neighbours' signatures as proof of a consistent U3.
 */
public final class ServerR3ConsistencyCheck extends ServerState {
  private final BitSet u2;
  private final BitSet u3;
  private final Map<Integer, AdvertiseKeys> keys;
  private final long[] sum;
  private final Map<Integer, byte[]> signatures = new HashMap<>();
  private final byte[] transcript;

  ServerR3ConsistencyCheck(Session session, BitSet u2, BitSet u3, Map<Integer, AdvertiseKeys> keys, long[] sum) {
    super(session);
    this.u2 = u2;
    this.u3 = u3;
    this.keys = keys;
    this.sum = sum;
    this.transcript = Transcripts.consistency(session.params, u3, session.params.parties());
  }

  @Override
  public Round round() {
    return Round.CONSISTENCY_CHECK;
  }

  @Override
  BitSet expected() {
    return u3;
  }

  @Override
  Drop take(ClientMessage m) {
    ConsistencySignature s = (ConsistencySignature) m;
    if (!Signatures.verify(session.params.identityKeys().get(s.sender()), transcript, s.signature(),
        session.profile)) {
      return new Drop(s.sender(), round(), DropReason.INVALID_SIGNATURE, "signature of the survivor set does not verify");
    }
    signatures.put(s.sender(), s.signature());
    return null;
  }

  @Override
  public Transition close() {
    BitSet u4 = survivorsOfRound();
    Transition abort = abortIfTooFew(u4, session.params.threshold());
    if (abort != null) {
      return abort;
    }
    SecAggParameters p = session.params;
    Map<Integer, ServerMessage> out = new HashMap<>();
    for (int w = u4.nextSetBit(0); w >= 0; w = u4.nextSetBit(w + 1)) {
      TreeMap<Integer, byte[]> sigs = new TreeMap<>();
      int selfCount = 0;
      int keyCount = 0;
      int[] nb = p.graph().neighbours(w);
      for (int v : nb) {
        if (u4.get(v)) {
          sigs.put(v, signatures.get(v));
        }
        if (u3.get(v)) {
          selfCount++;
        } else if (u2.get(v)) {
          keyCount++;
        }
      }
      int[] self = new int[selfCount];
      int[] key = new int[keyCount];
      int a = 0;
      int b = 0;
      for (int v : nb) {
        if (u3.get(v)) {
          self[a++] = v;
        } else if (u2.get(v)) {
          key[b++] = v;
        }
      }
      out.put(w, new UnmaskingRequest(p.session(), w, u3, sigs, self, key));
    }
    return new Transition(new ServerR4Unmasking(session, u2, u3, u4, keys, sum, out), out);
  }
}
