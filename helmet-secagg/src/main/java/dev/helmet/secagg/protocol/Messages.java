package dev.helmet.secagg.protocol;

import dev.helmet.secagg.ring.BitPacking;
import java.util.BitSet;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The messages of SecAgg/SecAgg+, one record per message and direction. Every message names its
 * session and round; a state accepts only the one message it expects, from a party it expects,
 * once. {@code wireSize()} is the size of the message in the transport's encoding (ids 4 bytes,
 * keys 32, signatures 64, a vector of d ring elements ceil(d b / 8) bit-packed, Shamir shares
 * 5 x 8), used for the byte counts.
 */
public final class Messages {
  private Messages() {}

  /** A message from a party to the server. */
  public sealed interface ClientMessage permits AdvertiseKeys, ShareKeys, MaskedInput, ConsistencySignature,
      UnmaskingShares {
    long session();

    int sender();

    Round round();

    int wireSize();
  }

  /** A message from the server to one party. */
  public sealed interface ServerMessage permits KeyRoster, ShareDelivery, ConsistencyCheckRequest,
      UnmaskingRequest {
    long session();

    int recipient();

    Round round();

    int wireSize();
  }

  static final int HEADER = 8 + 4 + 1; // session, party id, round

  /** Round 0, party to server: the encryption key c_pk and the mask key s_pk, signed. */
  public record AdvertiseKeys(long session, int sender, byte[] encryptionKey, byte[] maskKey, byte[] signature)
      implements ClientMessage {
    @Override
    public Round round() {
      return Round.ADVERTISE_KEYS;
    }

    @Override
    public int wireSize() {
      return HEADER + 32 + 32 + 64;
    }
  }

  /** Round 1, server to party: the advertised keys of its neighbours that took part in round 0. */
  public record KeyRoster(long session, int recipient, SortedMap<Integer, AdvertiseKeys> neighbours)
      implements ServerMessage {
    public KeyRoster {
      neighbours = new TreeMap<>(neighbours);
    }

    @Override
    public Round round() {
      return Round.SHARE_KEYS;
    }

    @Override
    public int wireSize() {
      return HEADER + neighbours.size() * (4 + 32 + 32 + 64);
    }
  }

  /** Round 1, party to server: one AEAD ciphertext of shares per neighbour (recipient to bytes). */
  /**
   * Round 1, party to server: one encrypted share pair per neighbour, and the party's commitment
   * to its self-mask seed (32 bytes), against which the server checks the seed it rebuilds.
   */
  public record ShareKeys(long session, int sender, SortedMap<Integer, byte[]> encryptedShares,
      byte[] selfMaskCommitment) implements ClientMessage {
    public ShareKeys {
      encryptedShares = new TreeMap<>(encryptedShares);
    }

    @Override
    public Round round() {
      return Round.SHARE_KEYS;
    }

    @Override
    public int wireSize() {
      return HEADER + 32 + encryptedShares.values().stream().mapToInt(c -> 4 + c.length).sum();
    }
  }

  /** Round 2, server to party: the ciphertexts addressed to it (sender to bytes). */
  public record ShareDelivery(long session, int recipient, SortedMap<Integer, byte[]> encryptedShares)
      implements ServerMessage {
    public ShareDelivery {
      encryptedShares = new TreeMap<>(encryptedShares);
    }

    @Override
    public Round round() {
      return Round.MASKED_INPUT;
    }

    @Override
    public int wireSize() {
      return HEADER + encryptedShares.values().stream().mapToInt(c -> 4 + c.length).sum();
    }
  }

  /**
   * Round 2, party to server: the masked input y in Z_{2^b}^d, bit-packed in exactly {@code ceil(d
   * b / 8)} bytes ({@link BitPacking}); the server checks the length and padding against the
   * session's d and b and drops a party whose input is malformed.
   */
  public record MaskedInput(long session, int sender, byte[] packed) implements ClientMessage {
    public MaskedInput {
      Objects.requireNonNull(packed, "packed");
    }

    /** Packs {@code masked}, elements of Z_{2^ringBits}. */
    public static MaskedInput of(long session, int sender, long[] masked, int ringBits) {
      return new MaskedInput(session, sender, BitPacking.pack(masked, ringBits));
    }

    /**
     * The masked input as d elements of Z_{2^ringBits}.
     *
     * @throws IllegalArgumentException naming the problem if the packed bytes are not d elements
     */
    public long[] masked(int length, int ringBits) {
      return BitPacking.unpack(packed, length, ringBits);
    }

    @Override
    public Round round() {
      return Round.MASKED_INPUT;
    }

    @Override
    public int wireSize() {
      return HEADER + packed.length;
    }
  }

  /** Round 3, server to party: U3, the parties whose masked inputs the server holds. */
  public record ConsistencyCheckRequest(long session, int recipient, BitSet survivors) implements ServerMessage {
    public ConsistencyCheckRequest {
      survivors = (BitSet) survivors.clone();
    }

    @Override
    public Round round() {
      return Round.CONSISTENCY_CHECK;
    }

    @Override
    public int wireSize() {
      return HEADER + (survivors.length() + 7) / 8;
    }
  }

  /** Round 3, party to server: its signature of U3. */
  public record ConsistencySignature(long session, int sender, byte[] signature) implements ClientMessage {
    @Override
    public Round round() {
      return Round.CONSISTENCY_CHECK;
    }

    @Override
    public int wireSize() {
      return HEADER + 64;
    }
  }

  /**
   * Round 4, server to party: U3, its neighbours' signatures of U3, and which shares to reveal:
   * self-mask shares of the survivors, mask-key shares of those who dropped after round 1.
   */
  public record UnmaskingRequest(
      long session, int recipient, BitSet survivors, SortedMap<Integer, byte[]> signatures, int[] revealSelfMask,
      int[] revealMaskKey) implements ServerMessage {
    public UnmaskingRequest {
      survivors = (BitSet) survivors.clone();
      signatures = new TreeMap<>(signatures);
      revealSelfMask = revealSelfMask.clone();
      revealMaskKey = revealMaskKey.clone();
    }

    @Override
    public Round round() {
      return Round.UNMASKING;
    }

    @Override
    public int wireSize() {
      return HEADER + (survivors.length() + 7) / 8 + signatures.size() * (4 + 64)
          + 4 * (revealSelfMask.length + revealMaskKey.length);
    }
  }

  /** Round 4, party to server: the requested shares (party to its five field elements). */
  public record UnmaskingShares(
      long session, int sender, SortedMap<Integer, long[]> selfMaskShares, SortedMap<Integer, long[]> maskKeyShares)
      implements ClientMessage {
    public UnmaskingShares {
      selfMaskShares = new TreeMap<>(selfMaskShares);
      maskKeyShares = new TreeMap<>(maskKeyShares);
    }

    @Override
    public Round round() {
      return Round.UNMASKING;
    }

    @Override
    public int wireSize() {
      return HEADER + (selfMaskShares.size() + maskKeyShares.size()) * (4 + 5 * 8);
    }
  }

}
