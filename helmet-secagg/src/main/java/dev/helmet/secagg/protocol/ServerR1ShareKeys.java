package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Aead;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.ShareDelivery;
import dev.helmet.secagg.protocol.Messages.ShareKeys;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Round 1: collect the encrypted shares; route each ciphertext to its recipient. */
public final class ServerR1ShareKeys extends ServerState {
  private final BitSet u1;
  private final Map<Integer, AdvertiseKeys> keys;
  private final Map<Integer, Map<Integer, byte[]>> shares = new HashMap<>();

  ServerR1ShareKeys(Session session, BitSet u1, Map<Integer, AdvertiseKeys> keys) {
    super(session);
    this.u1 = u1;
    this.keys = keys;
  }

  @Override
  public Round round() {
    return Round.SHARE_KEYS;
  }

  @Override
  BitSet expected() {
    return u1;
  }

  @Override
  Drop take(ClientMessage m) {
    ShareKeys s = (ShareKeys) m;
    SecAggParameters p = session.params;
    int u = s.sender();
    int expectedCount = 0;
    for (int v : p.graph().neighbours(u)) {
      if (u1.get(v)) {
        expectedCount++;
        byte[] c = s.encryptedShares().get(v);
        if (c == null || c.length != Aead.NONCE + Transcripts.SHARE_PLAINTEXT + Aead.TAG) {
          return new Drop(u, round(), DropReason.MALFORMED_MESSAGE, "no well-formed share for neighbour " + v);
        }
      }
    }
    if (s.encryptedShares().size() != expectedCount) {
      return new Drop(u, round(), DropReason.MALFORMED_MESSAGE, "shares addressed to parties outside its roster");
    }
    if (s.selfMaskCommitment() == null || s.selfMaskCommitment().length != 32) {
      return new Drop(u, round(), DropReason.MALFORMED_MESSAGE, "no 32-byte commitment to its self-mask seed");
    }
    shares.put(u, s.encryptedShares());
    session.selfMaskCommitments.put(u, s.selfMaskCommitment().clone());
    return null;
  }

  @Override
  public Transition close() {
    BitSet u2 = survivorsOfRound();
    Transition abort = abortIfTooFew(u2, Math.max(needed(), session.params.threshold() + 1));
    if (abort != null) {
      return abort;
    }
    SecAggParameters p = session.params;
    Map<Integer, ServerMessage> out = new HashMap<>();
    for (int v = u2.nextSetBit(0); v >= 0; v = u2.nextSetBit(v + 1)) {
      TreeMap<Integer, byte[]> mine = new TreeMap<>();
      for (int u : p.graph().neighbours(v)) {
        if (u2.get(u)) {
          mine.put(u, shares.get(u).get(v));
        }
      }
      out.put(v, new ShareDelivery(p.session(), v, mine));
    }
    return new Transition(new ServerR2MaskedInput(session, u2, keys), out);
  }
}
