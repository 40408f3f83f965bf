package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Aead;
import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.Shamir;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.KeyRoster;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.ShareKeys;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Round 1 (ShareKeys): verify the neighbours' signed keys, draw the self-mask seed b, Shamir-share
 * the mask key and b among the neighbours, and send each neighbour its shares encrypted under a
 * key agreed with its encryption key.
 */
public final class ClientR1ShareKeys extends ClientState {
  private final X25519Keys.KeyPair encryption;
  private final X25519Keys.KeyPair mask;

  ClientR1ShareKeys(Context ctx, X25519Keys.KeyPair encryption, X25519Keys.KeyPair mask) {
    super(ctx);
    this.encryption = encryption;
    this.mask = mask;
  }

  @Override
  public Round expects() {
    return Round.SHARE_KEYS;
  }

  @Override
  public Step handle(ServerMessage message) {
    Step reject = rejectUnexpected(message, KeyRoster.class);
    if (reject != null) {
      return reject;
    }
    SecAggParameters p = ctx.params();
    KeyRoster roster = (KeyRoster) message;
    int me = ctx.id();
    java.util.Set<String> seen = new java.util.HashSet<>();
    seen.add(java.util.HexFormat.of().formatHex(encryption.publicKey()));
    seen.add(java.util.HexFormat.of().formatHex(mask.publicKey()));
    for (Map.Entry<Integer, AdvertiseKeys> e : roster.neighbours().entrySet()) {
      int v = e.getKey();
      AdvertiseKeys a = e.getValue();
      if (a == null || a.sender() != v || v == me || v < 0 || v >= p.parties() || !p.graph().adjacent(me, v)
          || a.session() != p.session() || a.encryptionKey() == null || a.encryptionKey().length != X25519Keys.SIZE
          || a.maskKey() == null || a.maskKey().length != X25519Keys.SIZE) {
        return abort(ClientAbortReason.MALFORMED_MESSAGE, "roster entry for party " + v + " is not a neighbour's key");
      }
      if (!seen.add(java.util.HexFormat.of().formatHex(a.encryptionKey()))
          || !seen.add(java.util.HexFormat.of().formatHex(a.maskKey()))) {
        return abort(ClientAbortReason.MALFORMED_MESSAGE, "party " + v + " advertises a key another party uses");
      }
      if (!Signatures.verify(p.identityKeys().get(v),
          Transcripts.advertise(p, v, a.encryptionKey(), a.maskKey()), a.signature(), ctx.profile())) {
        return abort(ClientAbortReason.INVALID_SIGNATURE, "the keys of party " + v + " are not signed by it");
      }
    }
    if (roster.neighbours().size() < p.threshold()) {
      return abort(ClientAbortReason.TOO_FEW_NEIGHBOURS,
          roster.neighbours().size() + " neighbours remain, the threshold is " + p.threshold());
    }
    int[] holders = roster.neighbours().keySet().stream().mapToInt(Integer::intValue).toArray();
    int[] xs = new int[holders.length];
    for (int i = 0; i < holders.length; i++) {
      xs[i] = holders[i] + 1;
    }
    byte[] selfMaskSeed = Secrets.bytes(Shamir.SECRET_BYTES);
    long[][] maskKeyShares = Shamir.split(mask.secret(), p.threshold(), xs, ctx.profile());
    long[][] selfMaskShares = Shamir.split(selfMaskSeed, p.threshold(), xs, ctx.profile());
    Map<Integer, byte[]> shareKeys = new HashMap<>();
    TreeMap<Integer, byte[]> out = new TreeMap<>();
    try {
      for (int i = 0; i < holders.length; i++) {
        int v = holders[i];
        byte[] agreed = X25519Keys.agree(encryption.secret(), roster.neighbours().get(v).encryptionKey(), ctx.profile());
        byte[] key = Transcripts.derive(agreed, p, Transcripts.SHARE_KEY, ctx.profile());
        shareKeys.put(v, key);
        out.put(v, Aead.encrypt(key, Transcripts.shareAad(p, me, v),
            Transcripts.encodeShares(me, v, maskKeyShares[i], selfMaskShares[i]), ctx.profile()));
      }
    } catch (CryptoException e) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, e.getMessage());
    }
    return new Step(new ClientR2MaskedInput(ctx, mask, selfMaskSeed, roster.neighbours(), shareKeys),
        new ShareKeys(p.session(), me, out, Transcripts.selfMaskCommitment(p, me, selfMaskSeed)));
  }
}
