package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.KeyRoster;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Round 0: collect the signed key advertisements; send each party its neighbours' keys. */
public final class ServerR0AdvertiseKeys extends ServerState {
  private final Map<Integer, AdvertiseKeys> keys = new HashMap<>();
  /** Every public key accepted so far (Bonawitz et al.: all keys distinct; a copied mask key cancels masks). */
  private final java.util.Set<String> seenKeys = new java.util.HashSet<>();

  ServerR0AdvertiseKeys(Session session) {
    super(session);
  }

  @Override
  public Round round() {
    return Round.ADVERTISE_KEYS;
  }

  @Override
  BitSet expected() {
    BitSet all = new BitSet();
    all.set(0, session.params.parties());
    return all;
  }

  @Override
  Drop take(ClientMessage m) {
    AdvertiseKeys a = (AdvertiseKeys) m;
    SecAggParameters p = session.params;
    if (a.encryptionKey() == null || a.encryptionKey().length != X25519Keys.SIZE || a.maskKey() == null
        || a.maskKey().length != X25519Keys.SIZE) {
      return new Drop(a.sender(), round(), DropReason.MALFORMED_MESSAGE, "keys must be 32 bytes");
    }
    if (!Signatures.verify(p.identityKeys().get(a.sender()),
        Transcripts.advertise(p, a.sender(), a.encryptionKey(), a.maskKey()), a.signature(), session.profile)) {
      return new Drop(a.sender(), round(), DropReason.INVALID_SIGNATURE, "key advertisement not signed by the party");
    }
    String ck = java.util.HexFormat.of().formatHex(a.encryptionKey());
    String sk = java.util.HexFormat.of().formatHex(a.maskKey());
    if (ck.equals(sk) || seenKeys.contains(ck) || seenKeys.contains(sk)) {
      return new Drop(a.sender(), round(), DropReason.MALFORMED_MESSAGE, "a public key another party already uses");
    }
    seenKeys.add(ck);
    seenKeys.add(sk);
    keys.put(a.sender(), a);
    return null;
  }

  @Override
  public Transition close() {
    BitSet u1 = survivorsOfRound();
    Transition abort = abortIfTooFew(u1, Math.max(needed(), session.params.threshold() + 1));
    if (abort != null) {
      return abort;
    }
    SecAggParameters p = session.params;
    Map<Integer, ServerMessage> out = new HashMap<>();
    for (int u = u1.nextSetBit(0); u >= 0; u = u1.nextSetBit(u + 1)) {
      TreeMap<Integer, AdvertiseKeys> roster = new TreeMap<>();
      for (int v : p.graph().neighbours(u)) {
        if (u1.get(v)) {
          roster.put(v, keys.get(v));
        }
      }
      out.put(u, new KeyRoster(p.session(), u, roster));
    }
    return new Transition(new ServerR1ShareKeys(session, u1, keys), out);
  }
}
