package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.secagg.protocol.Messages;
import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.transport.wire.AdvertiseKeys;
import dev.helmet.transport.wire.ConsistencyCheckRequest;
import dev.helmet.transport.wire.ConsistencySignature;
import dev.helmet.transport.wire.EncryptedShare;
import dev.helmet.transport.wire.KeyRoster;
import dev.helmet.transport.wire.MaskedInput;
import dev.helmet.transport.wire.PartyShare;
import dev.helmet.transport.wire.PartySignature;
import dev.helmet.transport.wire.ShareDelivery;
import dev.helmet.transport.wire.ShareKeys;
import dev.helmet.transport.wire.UnmaskingRequest;
import dev.helmet.transport.wire.UnmaskingShares;
import java.util.BitSet;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Converts between the protocol's messages ({@link Messages}) and their protobuf encoding
 * (helmet/v1/helmet.proto). Decoding checks everything the encoding alone determines (lengths, ids
 * in range, no duplicate entries, a masked input of exactly {@code ceil(d b / 8)} bytes with zero
 * padding: {@link BitPacking}) and throws {@link WireFormatException}
 * naming the field; what the protocol determines (signatures, shares, who may speak when) is
 * checked by the state machines.
 */
public final class WireCodec {
  /** Elements of GF(2^61 - 1) per Shamir share of a 32-byte secret. */
  static final int SHARE_LIMBS = 5;

  private final int parties;
  private final int length;
  private final int ringBits;

  /**
   * @param parties n: party ids must lie in [0, n)
   * @param length d: the vector length of masked inputs
   * @param ringBits b, 2 to 64: masked inputs are elements of Z_{2^b}, b bits each on the wire
   */
  public WireCodec(int parties, int length, int ringBits) {
    this.parties = parties;
    this.length = length;
    this.ringBits = dev.helmet.core.util.Checks.inRange("ring bits", ringBits, BitPacking.MIN_BITS,
        BitPacking.MAX_BITS);
  }

  // ----- participant to coordinator -----

  public AdvertiseKeys encode(Messages.AdvertiseKeys m) {
    return AdvertiseKeys.newBuilder().setSecaggSession(m.session()).setSender(m.sender())
        .setEncryptionKey(ByteString.copyFrom(m.encryptionKey())).setMaskKey(ByteString.copyFrom(m.maskKey()))
        .setSignature(ByteString.copyFrom(m.signature())).build();
  }

  public Messages.AdvertiseKeys decode(AdvertiseKeys m) {
    return new Messages.AdvertiseKeys(m.getSecaggSession(), party("sender", m.getSender()),
        bytes("encryption_key", m.getEncryptionKey(), 32), bytes("mask_key", m.getMaskKey(), 32),
        bytes("signature", m.getSignature(), 64));
  }

  public ShareKeys encode(Messages.ShareKeys m) {
    return ShareKeys.newBuilder().setSecaggSession(m.session()).setSender(m.sender())
        .addAllShares(shares(m.encryptedShares()))
        .setSelfMaskCommitment(ByteString.copyFrom(m.selfMaskCommitment())).build();
  }

  public Messages.ShareKeys decode(ShareKeys m) {
    if (m.getSelfMaskCommitment().size() != 32) {
      throw new WireFormatException("self_mask_commitment must be 32 bytes, not " + m.getSelfMaskCommitment().size());
    }
    return new Messages.ShareKeys(m.getSecaggSession(), party("sender", m.getSender()),
        shares("shares", m.getSharesList()), m.getSelfMaskCommitment().toByteArray());
  }

  public MaskedInput encode(Messages.MaskedInput m) {
    return MaskedInput.newBuilder().setSecaggSession(m.session()).setSender(m.sender())
        .setValues(ByteString.copyFrom(m.packed())).build();
  }

  /** The masked input, still packed; its length and padding are checked here. */
  public Messages.MaskedInput decode(MaskedInput m) {
    byte[] packed = m.getValues().toByteArray();
    String problem = BitPacking.problem(packed, length, ringBits);
    if (problem != null) {
      throw new WireFormatException("values: " + problem);
    }
    return new Messages.MaskedInput(m.getSecaggSession(), party("sender", m.getSender()), packed);
  }

  public ConsistencySignature encode(Messages.ConsistencySignature m) {
    return ConsistencySignature.newBuilder().setSecaggSession(m.session()).setSender(m.sender())
        .setSignature(ByteString.copyFrom(m.signature())).build();
  }

  public Messages.ConsistencySignature decode(ConsistencySignature m) {
    return new Messages.ConsistencySignature(m.getSecaggSession(), party("sender", m.getSender()),
        bytes("signature", m.getSignature(), 64));
  }

  public UnmaskingShares encode(Messages.UnmaskingShares m) {
    UnmaskingShares.Builder b = UnmaskingShares.newBuilder().setSecaggSession(m.session()).setSender(m.sender());
    m.selfMaskShares().forEach((p, s) -> b.addSelfMaskShares(share(p, s)));
    m.maskKeyShares().forEach((p, s) -> b.addMaskKeyShares(share(p, s)));
    return b.build();
  }

  public Messages.UnmaskingShares decode(UnmaskingShares m) {
    return new Messages.UnmaskingShares(m.getSecaggSession(), party("sender", m.getSender()),
        partyShares("self_mask_shares", m.getSelfMaskSharesList()),
        partyShares("mask_key_shares", m.getMaskKeySharesList()));
  }

  // ----- coordinator to participant -----

  public KeyRoster encode(Messages.KeyRoster m) {
    KeyRoster.Builder b = KeyRoster.newBuilder().setSecaggSession(m.session()).setRecipient(m.recipient());
    m.neighbours().values().forEach(a -> b.addNeighbours(encode(a)));
    return b.build();
  }

  public Messages.KeyRoster decode(KeyRoster m) {
    SortedMap<Integer, Messages.AdvertiseKeys> nb = new TreeMap<>();
    for (AdvertiseKeys a : m.getNeighboursList()) {
      Messages.AdvertiseKeys k = decode(a);
      if (nb.put(k.sender(), k) != null) {
        throw new WireFormatException("neighbours: party " + k.sender() + " appears twice");
      }
    }
    return new Messages.KeyRoster(m.getSecaggSession(), party("recipient", m.getRecipient()), nb);
  }

  public ShareDelivery encode(Messages.ShareDelivery m) {
    return ShareDelivery.newBuilder().setSecaggSession(m.session()).setRecipient(m.recipient())
        .addAllShares(shares(m.encryptedShares())).build();
  }

  public Messages.ShareDelivery decode(ShareDelivery m) {
    return new Messages.ShareDelivery(m.getSecaggSession(), party("recipient", m.getRecipient()),
        shares("shares", m.getSharesList()));
  }

  public ConsistencyCheckRequest encode(Messages.ConsistencyCheckRequest m) {
    return ConsistencyCheckRequest.newBuilder().setSecaggSession(m.session()).setRecipient(m.recipient())
        .setSurvivors(ByteString.copyFrom(m.survivors().toByteArray())).build();
  }

  public Messages.ConsistencyCheckRequest decode(ConsistencyCheckRequest m) {
    return new Messages.ConsistencyCheckRequest(m.getSecaggSession(), party("recipient", m.getRecipient()),
        bitSet("survivors", m.getSurvivors()));
  }

  public UnmaskingRequest encode(Messages.UnmaskingRequest m) {
    UnmaskingRequest.Builder b = UnmaskingRequest.newBuilder().setSecaggSession(m.session())
        .setRecipient(m.recipient()).setSurvivors(ByteString.copyFrom(m.survivors().toByteArray()));
    m.signatures().forEach((p, s) -> b.addSignatures(
        PartySignature.newBuilder().setParty(p).setSignature(ByteString.copyFrom(s))));
    for (int p : m.revealSelfMask()) {
      b.addRevealSelfMask(p);
    }
    for (int p : m.revealMaskKey()) {
      b.addRevealMaskKey(p);
    }
    return b.build();
  }

  public Messages.UnmaskingRequest decode(UnmaskingRequest m) {
    SortedMap<Integer, byte[]> sigs = new TreeMap<>();
    for (PartySignature s : m.getSignaturesList()) {
      int p = party("signatures.party", s.getParty());
      if (sigs.put(p, bytes("signatures.signature", s.getSignature(), 64)) != null) {
        throw new WireFormatException("signatures: party " + p + " appears twice");
      }
    }
    return new Messages.UnmaskingRequest(m.getSecaggSession(), party("recipient", m.getRecipient()),
        bitSet("survivors", m.getSurvivors()), sigs, parties("reveal_self_mask", m.getRevealSelfMaskList()),
        parties("reveal_mask_key", m.getRevealMaskKeyList()));
  }

  // ----- pieces -----

  /** Ring elements bit-packed, b bits each ({@link BitPacking}): {@code ceil(d b / 8)} bytes. */
  public byte[] pack(long[] values) {
    return BitPacking.pack(values, ringBits);
  }

  /** The inverse of {@link #pack}; the bytes must be exactly d packed elements with zero padding. */
  public long[] unpack(ByteString bytes) {
    try {
      return BitPacking.unpack(bytes.toByteArray(), length, ringBits);
    } catch (IllegalArgumentException e) {
      throw new WireFormatException("values: " + e.getMessage());
    }
  }

  private int party(String field, int id) {
    if (id < 0 || id >= parties) {
      throw new WireFormatException(field + ": party " + Integer.toUnsignedString(id) + " is not in [0, " + parties
          + ")");
    }
    return id;
  }

  private int[] parties(String field, List<Integer> ids) {
    int[] out = new int[ids.size()];
    BitSet seen = new BitSet();
    for (int i = 0; i < out.length; i++) {
      out[i] = party(field, ids.get(i));
      if (seen.get(out[i])) {
        throw new WireFormatException(field + ": party " + out[i] + " appears twice");
      }
      seen.set(out[i]);
    }
    return out;
  }



  private static byte[] bytes(String field, ByteString b, int size) {
    if (b.size() != size) {
      throw new WireFormatException(field + ": " + b.size() + " bytes, expected " + size);
    }
    return b.toByteArray();
  }

  private BitSet bitSet(String field, ByteString b) {
    BitSet s = BitSet.valueOf(b.toByteArray());
    if (s.length() > parties) {
      throw new WireFormatException(field + ": names party " + (s.length() - 1) + " of " + parties);
    }
    return s;
  }

  private static List<EncryptedShare> shares(SortedMap<Integer, byte[]> m) {
    return m.entrySet().stream().map(e -> EncryptedShare.newBuilder().setParty(e.getKey())
        .setCiphertext(ByteString.copyFrom(e.getValue())).build()).toList();
  }

  private SortedMap<Integer, byte[]> shares(String field, List<EncryptedShare> list) {
    SortedMap<Integer, byte[]> out = new TreeMap<>();
    for (EncryptedShare e : list) {
      int p = party(field + ".party", e.getParty());
      if (out.put(p, e.getCiphertext().toByteArray()) != null) {
        throw new WireFormatException(field + ": party " + p + " appears twice");
      }
    }
    return out;
  }

  private static PartyShare share(int party, long[] limbs) {
    PartyShare.Builder b = PartyShare.newBuilder().setParty(party);
    for (long l : limbs) {
      b.addShare(l);
    }
    return b.build();
  }

  private SortedMap<Integer, long[]> partyShares(String field, List<PartyShare> list) {
    SortedMap<Integer, long[]> out = new TreeMap<>();
    for (PartyShare s : list) {
      int p = party(field + ".party", s.getParty());
      if (s.getShareCount() != SHARE_LIMBS) {
        throw new WireFormatException(field + ": party " + p + "'s share has " + s.getShareCount() + " elements, expected "
            + SHARE_LIMBS);
      }
      long[] limbs = new long[SHARE_LIMBS];
      for (int i = 0; i < SHARE_LIMBS; i++) {
        limbs[i] = s.getShare(i);
      }
      if (out.put(p, limbs) != null) {
        throw new WireFormatException(field + ": party " + p + " appears twice");
      }
    }
    return out;
  }
}
