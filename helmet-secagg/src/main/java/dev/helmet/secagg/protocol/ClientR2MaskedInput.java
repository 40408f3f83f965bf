package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Aead;
import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.MaskedInput;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.ShareDelivery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Round 2 (MaskedInput): decrypt and keep the shares the neighbours sent, then send
 * {@code y = x + PRG(b) + sum_v +-PRG(s_{u,v}) mod 2^b} over the neighbours v that shared keys
 * (U2); u adds the pairwise mask with v when u < v and subtracts it otherwise, so each pair's masks
 * cancel in the sum. y is sent bit-packed, b bits per element. After this round the party forgets
 * b and its mask key.
 */
public final class ClientR2MaskedInput extends ClientState {
  private final X25519Keys.KeyPair mask;
  private final byte[] selfMaskSeed;
  private final SortedMap<Integer, AdvertiseKeys> roster;
  private final Map<Integer, byte[]> shareKeys;
  private final Map<Integer, Signatures.PublicKey> identities;

  ClientR2MaskedInput(Context ctx, X25519Keys.KeyPair mask, byte[] selfMaskSeed,
      SortedMap<Integer, AdvertiseKeys> roster, Map<Integer, byte[]> shareKeys,
      Map<Integer, Signatures.PublicKey> identities) {
    super(ctx);
    this.mask = mask;
    this.selfMaskSeed = selfMaskSeed;
    this.roster = roster;
    this.shareKeys = shareKeys;
    this.identities = identities;
  }

  @Override
  public Round expects() {
    return Round.MASKED_INPUT;
  }

  @Override
  public Step handle(ServerMessage message) {
    Step reject = rejectUnexpected(message, ShareDelivery.class);
    if (reject != null) {
      return reject;
    }
    SecAggParameters p = ctx.params();
    int me = ctx.id();
    ShareDelivery delivery = (ShareDelivery) message;
    TreeMap<Integer, long[][]> received = new TreeMap<>();
    Aead aead = new Aead(ctx.profile());
    for (Map.Entry<Integer, byte[]> e : delivery.encryptedShares().entrySet()) {
      int v = e.getKey();
      byte[] key = shareKeys.get(v);
      if (key == null) {
        return abort(ClientAbortReason.INCONSISTENT_REQUEST, "shares from party " + v + ", not in this party's roster");
      }
      try {
        byte[] plain = aead.open(key, Transcripts.shareAad(p, v, me), e.getValue());
        received.put(v, Transcripts.decodeShares(plain, v, me));
      } catch (CryptoException | IllegalArgumentException ex) {
        return abort(ClientAbortReason.DECRYPTION_FAILED, "the shares from party " + v + ": " + ex.getMessage());
      }
    }
    if (received.size() < p.threshold()) {
      return abort(ClientAbortReason.TOO_FEW_NEIGHBOURS,
          received.size() + " neighbours shared keys, the threshold is " + p.threshold());
    }
    long[] x = ctx.input().get();
    if (x == null || x.length != p.length()) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, "the input has the wrong length");
    }
    int outside = Ring.firstOutside(x, p.mask());
    if (outside >= 0) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, "input element " + outside + " is outside the ring");
    }
    long[] y = x.clone();
    // The self mask and one pairwise mask per neighbour that shared keys, expanded in one pass.
    List<byte[]> seeds = new ArrayList<>(received.size() + 1);
    boolean[] subtract = new boolean[received.size() + 1];
    seeds.add(Transcripts.derive(selfMaskSeed, p, Transcripts.SELF_MASK, ctx.profile()));
    try {
      List<byte[]> peerKeys = new ArrayList<>(received.size());
      for (int v : received.keySet()) {
        peerKeys.add(roster.get(v).maskKey());
      }
      List<byte[]> agreements = X25519Keys.agreeAll(mask.secret(), peerKeys, ctx.profile());
      int i = 0;
      for (int v : received.keySet()) {
        subtract[seeds.size()] = Transcripts.subtracts(me, v);
        byte[] agreed = agreements.get(i++);
        seeds.add(Transcripts.derive(agreed, p, Transcripts.PAIRWISE_MASK, ctx.profile()));
        java.util.Arrays.fill(agreed, (byte) 0); // the raw shared secret is not needed past the KDF
      }
    } catch (CryptoException ex) {
      return abort(ClientAbortReason.MALFORMED_MESSAGE, ex.getMessage());
    }
    MaskPrg.apply(seeds, subtract, y, p.ringBits(), ctx.profile());
    return new Step(new ClientR3ConsistencyCheck(ctx, received, identities),
        MaskedInput.of(p.session(), me, y, p.ringBits()));
  }
}
