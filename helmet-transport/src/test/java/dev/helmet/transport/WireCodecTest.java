package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.secagg.protocol.Messages;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class WireCodecTest {
  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  @Test
  void everyMessageRoundTrips() {
    WireCodec c = new WireCodec(10, 5, 32);
    var adv = new Messages.AdvertiseKeys(7L, 3, bytes(32, 1), bytes(32, 2), bytes(64, 3));
    var back = c.decode(c.encode(adv));
    assertEquals(adv.session(), back.session());
    assertArrayEquals(adv.maskKey(), back.maskKey());
    TreeMap<Integer, byte[]> shares = new TreeMap<>();
    shares.put(1, bytes(90, 4));
    shares.put(9, bytes(90, 5));
    assertArrayEquals(shares.get(9), c.decode(c.encode(new Messages.ShareKeys(7L, 3, shares, new byte[32]))).encryptedShares().get(9));
    long[] y = {0, 1, 0xFFFF_FFFFL, 123456789L, 42};
    assertArrayEquals(y, c.decode(c.encode(Messages.MaskedInput.of(7L, 3, y, 32))).masked(5, 32));
    BitSet u = new BitSet();
    u.set(0);
    u.set(9);
    assertEquals(u, c.decode(c.encode(new Messages.ConsistencyCheckRequest(7L, 2, u))).survivors());
    TreeMap<Integer, long[]> sm = new TreeMap<>();
    sm.put(4, new long[] {1, 2, 3, 4, 5});
    var us = c.decode(c.encode(new Messages.UnmaskingShares(7L, 3, sm, new TreeMap<>())));
    assertArrayEquals(sm.get(4), us.selfMaskShares().get(4));
    TreeMap<Integer, byte[]> sigs = new TreeMap<>();
    sigs.put(5, bytes(64, 6));
    var req = c.decode(c.encode(new Messages.UnmaskingRequest(7L, 2, u, sigs, new int[] {0}, new int[] {9})));
    assertArrayEquals(new int[] {9}, req.revealMaskKey());
  }

  @Test
  void malformedFieldsAreNamed() {
    WireCodec c = new WireCodec(10, 5, 32);
    var mi = c.encode(Messages.MaskedInput.of(7L, 3, new long[5], 32));
    WireFormatException e = assertThrows(WireFormatException.class,
        () -> c.decode(mi.toBuilder().setValues(ByteString.copyFrom(new byte[19])).build()));
    assertTrue(e.getMessage().startsWith("values: 19 bytes, expected 5 elements"), e.getMessage());
    e = assertThrows(WireFormatException.class, () -> c.decode(mi.toBuilder().setSender(10).build()));
    assertTrue(e.getMessage().contains("sender: party 10 is not in [0, 10)"), e.getMessage());
    var adv = c.encode(new Messages.AdvertiseKeys(7L, 3, bytes(32, 1), bytes(32, 2), bytes(64, 3)));
    e = assertThrows(WireFormatException.class,
        () -> c.decode(adv.toBuilder().setSignature(ByteString.copyFrom(new byte[63])).build()));
    assertTrue(e.getMessage().startsWith("signature: 63 bytes"), e.getMessage());
    var us = c.encode(new Messages.UnmaskingShares(7L, 3, new TreeMap<>(java.util.Map.of(4, new long[] {1, 2, 3, 4, 5})),
        new TreeMap<>()));
    e = assertThrows(WireFormatException.class, () -> c.decode(us.toBuilder().addSelfMaskShares(us.getSelfMaskShares(0))
        .build()));
    assertTrue(e.getMessage().contains("appears twice"), e.getMessage());
    var cc = c.encode(new Messages.ConsistencyCheckRequest(7L, 2, new BitSet()));
    e = assertThrows(WireFormatException.class,
        () -> c.decode(cc.toBuilder().setSurvivors(ByteString.copyFrom(new byte[] {0, 4})).build()));
    assertTrue(e.getMessage().startsWith("survivors: names party 10"), e.getMessage());
  }

  /** A ring that is not byte-aligned (b = 20): 2.5 bytes per element, and elements >= 2^20 cannot be packed. */
  @Test
  void valuesOutsideTheRingCannotBePacked() {
    WireCodec c = new WireCodec(4, 2, 20);
    byte[] packed = c.pack(new long[] {(1 << 20) - 1, 5});
    assertEquals(5, packed.length);
    assertArrayEquals(new long[] {(1 << 20) - 1, 5}, c.unpack(ByteString.copyFrom(packed)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.pack(new long[] {1 << 20, 0}));
    assertTrue(e.getMessage().contains("element 0 is outside the ring Z_2^20"), e.getMessage());
  }

  /**
   * SMM's 6-bit ring: 7 masked elements travel in ceil(42 / 8) = 6 bytes; 5 or 7 bytes, or a set
   * padding bit, are refused naming the problem, before the protocol sees the message.
   */
  @Test
  void aSixBitMaskedInputIsBitPackedAndCheckedExactly() {
    WireCodec c = new WireCodec(10, 7, 6);
    long[] y = {0, 63, 1, 32, 17, 5, 62};
    var mi = c.encode(Messages.MaskedInput.of(7L, 3, y, 6));
    assertEquals(6, mi.getValues().size());
    assertArrayEquals(y, c.decode(mi).masked(7, 6));
    WireFormatException e = assertThrows(WireFormatException.class,
        () -> c.decode(mi.toBuilder().setValues(mi.getValues().substring(0, 5)).build()));
    assertEquals("values: 5 bytes, expected 7 elements of 6 bits packed in 6 bytes", e.getMessage());
    e = assertThrows(WireFormatException.class,
        () -> c.decode(mi.toBuilder().setValues(mi.getValues().concat(ByteString.copyFrom(new byte[1]))).build()));
    assertEquals("values: 7 bytes, expected 7 elements of 6 bits packed in 6 bytes", e.getMessage());
    byte[] padded = mi.getValues().toByteArray();
    padded[5] |= (byte) 0x40;
    e = assertThrows(WireFormatException.class,
        () -> c.decode(mi.toBuilder().setValues(ByteString.copyFrom(padded)).build()));
    assertEquals("values: the 6 padding bits after element 6 are not zero", e.getMessage());
  }

  /** 32- and 64-bit rings keep the wire layout they had: little-endian words of 4 and 8 bytes. */
  @Test
  void thirtyTwoAndSixtyFourBitInputsKeepTheirByteLayout() {
    assertArrayEquals(new byte[] {4, 3, 2, 1, (byte) 0xFF, 0, 0, 0}, new WireCodec(2, 2, 32).pack(new long[] {0x01020304L,
        255}));
    assertEquals(16, new WireCodec(2, 2, 64).pack(new long[] {-1L, 1}).length);
  }
}
