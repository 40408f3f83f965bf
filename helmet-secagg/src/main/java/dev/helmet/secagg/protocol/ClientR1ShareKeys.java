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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Round 1 (ShareKeys): verify the neighbours' signed keys (in one batch; their identity keys are
 * decoded here once and kept for round 4), draw the self-mask seed b, Shamir-share
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
    Set<ByteBuffer> seen = new HashSet<>();
    seen.add(ByteBuffer.wrap(encryption.publicKey()));
    seen.add(ByteBuffer.wrap(mask.publicKey()));
    // Entries are checked in order; the first bad one decides the abort, whether its fault is its form
    // or its signature. The signatures of the well-formed entries before it are verified together.
    Map<Integer, Signatures.PublicKey> identities = new HashMap<>();
    List<Integer> signers = new ArrayList<>();
    List<Signatures.PublicKey> keys = new ArrayList<>();
    List<byte[]> transcripts = new ArrayList<>();
    List<byte[]> signatures = new ArrayList<>();
    String malformed = null;
    for (Map.Entry<Integer, AdvertiseKeys> e : roster.neighbours().entrySet()) {
      int v = e.getKey();
      AdvertiseKeys a = e.getValue();
      if (a == null || a.sender() != v || v == me || v < 0 || v >= p.parties() || !p.graph().adjacent(me, v)
          || a.session() != p.session() || a.encryptionKey() == null || a.encryptionKey().length != X25519Keys.SIZE
          || a.maskKey() == null || a.maskKey().length != X25519Keys.SIZE) {
        malformed = "roster entry for party " + v + " is not a neighbour's key";
        break;
      }
      if (!seen.add(ByteBuffer.wrap(a.encryptionKey().clone())) || !seen.add(ByteBuffer.wrap(a.maskKey().clone()))) {
        malformed = "party " + v + " advertises a key another party uses";
        break;
      }
      Signatures.PublicKey key = p.identityVerifier(v);
      identities.put(v, key);
      signers.add(v);
      keys.add(key);
      transcripts.add(Transcripts.advertise(p, v, a.encryptionKey(), a.maskKey()));
      signatures.add(a.signature());
    }
    int bad = Signatures.firstInvalid(keys, transcripts, signatures, ctx.profile());
    if (bad >= 0) {
      return abort(ClientAbortReason.INVALID_SIGNATURE, "the keys of party " + signers.get(bad) + " are not signed by it");
    }
    if (malformed != null) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, malformed);
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
    Aead aead = new Aead(ctx.profile());
    try {
      List<byte[]> peerKeys = new ArrayList<>(holders.length);
      for (int v : holders) {
        peerKeys.add(roster.neighbours().get(v).encryptionKey());
      }
      List<byte[]> agreements = X25519Keys.agreeAll(encryption.secret(), peerKeys, ctx.profile());
      for (int i = 0; i < holders.length; i++) {
        int v = holders[i];
        byte[] agreed = agreements.get(i);
        byte[] key = Transcripts.derive(agreed, p, Transcripts.SHARE_KEY, ctx.profile());
        java.util.Arrays.fill(agreed, (byte) 0); // the raw shared secret is not needed past the KDF
        shareKeys.put(v, key);
        out.put(v, aead.seal(key, Transcripts.shareAad(p, me, v),
            Transcripts.encodeShares(me, v, maskKeyShares[i], selfMaskShares[i])));
      }
    } catch (CryptoException e) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, e.getMessage());
    }
    return new Step(new ClientR2MaskedInput(ctx, mask, selfMaskSeed, roster.neighbours(), shareKeys, identities),
        new ShareKeys(p.session(), me, out, Transcripts.selfMaskCommitment(p, me, selfMaskSeed)));
  }
}
