package dev.helmet.secagg.mixnet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.crypto.CryptoException;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.mixnet.MixnetAbortException.Reason;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MixnetTest {

  private static List<MixnetParty> parties(int[] records, byte[] session) {
    List<MixnetParty> p = new ArrayList<>();
    for (int i = 0; i < records.length; i++) {
      p.add(new MixnetParty(i, records.length, records[i], session));
    }
    return p;
  }

  /** Runs with {@code board} and returns the abort it must end in. */
  private static MixnetAbortException abortWith(int[] records, MixnetSimulation.Board board) {
    List<MixnetParty> p = parties(records, Secrets.bytes(16));
    return assertThrows(MixnetAbortException.class, () -> MixnetSimulation.run(p, 1, board));
  }

  private static List<byte[]> replace(List<byte[]> list, int at, byte[] element) {
    List<byte[]> out = new ArrayList<>(list);
    out.set(at, element);
    return out;
  }

  @Test
  void theFinalListIsExactlyTheUnionOfAllPartiesTokensAndEachFindsItsRecords() {
    int[] records = {3, 0, 5, 2};
    MixnetSimulation.Result r = MixnetSimulation.run(records, Secrets.bytes(16), 2);
    assertEquals(10, r.tokens().size());
    Set<Token> union = new HashSet<>();
    for (MixnetParty p : r.parties()) {
      union.addAll(p.tokensForTest());
    }
    assertEquals(union, new HashSet<>(r.tokens().tokens()));
    for (Token t : r.tokens().tokens()) {
      assertEquals(1, r.parties().stream().filter(p -> p.owns(t)).count(), "one owner per token");
    }
    for (MixnetParty p : r.parties()) {
      // the secret bijection maps the party's tokens onto exactly its records 0 .. n_i - 1
      assertArrayEquals(IntStream.range(0, records[p.index()]).toArray(), p.recordsIn(r.tokens().tokens()));
    }
    // party 0 sends its key, 3 onions of 16 + 48 * 4 bytes and the list after its step (3 layers
    // left); receives 3 keys, the initial list (4 layers) and the final list of 16-byte tokens
    assertEquals(32 + 3 * 208 + 10 * 160, r.bytesSent()[0]);
    assertEquals(3 * 32 + 10 * 208 + 10 * 16, r.bytesReceived()[0]);
    assertEquals(3 * 32 + 10 * 64, r.bytesReceived()[3]); // the last mixer publishes the final list
    assertTrue(r.profile().get("key_agreement") > 0 && r.profile().get("aead") > 0);
  }

  @Test
  void aLayerOpensOnlyWithItsKeySessionAndLayerIndex() {
    X25519Keys.KeyPair a = X25519Keys.generate();
    X25519Keys.KeyPair b = X25519Keys.generate();
    byte[] s = Secrets.bytes(16);
    byte[] inner = Secrets.bytes(16);
    byte[] sealed = OnionLayer.seal(inner, a.publicKey(), s, 2, CryptoProfile.NONE);
    assertEquals(OnionLayer.size(1), sealed.length);
    assertArrayEquals(inner, OnionLayer.open(sealed, a, s, 2, CryptoProfile.NONE));
    CryptoException wrongKey = assertThrows(CryptoException.class, () -> OnionLayer.open(sealed, b, s, 2,
        CryptoProfile.NONE));
    assertTrue(wrongKey.getMessage().startsWith("authentication failed"), wrongKey.getMessage());
    assertThrows(CryptoException.class, () -> OnionLayer.open(sealed, a, Secrets.bytes(16), 2, CryptoProfile.NONE));
    assertThrows(CryptoException.class, () -> OnionLayer.open(sealed, a, s, 3, CryptoProfile.NONE));
    assertThrows(IllegalArgumentException.class, () -> OnionLayer.seal(inner, a.publicKey(), new byte[8], 0,
        CryptoProfile.NONE));
  }

  /**
   * Fresh ephemeral keys make the layers of one element unlinkable by their bytes: no 16-byte
   * window of a layer-i ciphertext occurs in its layer-(i+1) ciphertext, and two onions of the same
   * token share none either (a chance 16-byte match has probability about 2^-115 here).
   */
  @Test
  void consecutiveLayersAndRepeatedWrapsShareNoSixteenByteSubstring() {
    List<X25519Keys.KeyPair> keys = new ArrayList<>();
    List<byte[]> pks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      keys.add(X25519Keys.generate());
      pks.add(keys.get(i).publicKey());
    }
    byte[] s = Secrets.bytes(16);
    Token t = Token.random(Secrets.random());
    byte[] outer = OnionLayer.wrap(t, pks, s, CryptoProfile.NONE);
    assertEquals(16 + 48 * 4, outer.length);
    assertFalse(sharesWindow(outer, OnionLayer.wrap(t, pks, s, CryptoProfile.NONE)));
    byte[] c = outer;
    for (int i = 0; i < 4; i++) {
      byte[] inner = OnionLayer.open(c, keys.get(i), s, i, CryptoProfile.NONE);
      assertFalse(sharesWindow(c, inner), "layers " + i + " and " + (i + 1));
      c = inner;
    }
    assertEquals(t, Token.of(c));
  }

  private static boolean sharesWindow(byte[] a, byte[] b) {
    Set<ByteBuffer> windows = new HashSet<>();
    for (int i = 0; i + 16 <= a.length; i++) {
      windows.add(ByteBuffer.wrap(a, i, 16).slice());
    }
    for (int i = 0; i + 16 <= b.length; i++) {
      if (windows.contains(ByteBuffer.wrap(b, i, 16).slice())) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aFlippedByteMakesTheNextMixerAbortNamingTheElement() {
    MixnetAbortException e = abortWith(new int[] {2, 2, 2}, (step, list) -> {
      if (step == 0) {
        byte[] c = list.get(3).clone();
        c[40] ^= 1;
        return replace(list, 3, c);
      }
      return list;
    });
    assertEquals(Reason.AEAD_FAILURE, e.reason());
    assertEquals(1, e.party());
    assertTrue(e.getMessage().startsWith("AEAD_FAILURE: element 3 of the list for step 1 does not open: "
        + "authentication failed"), e.getMessage());
    // tampering with the initial list is caught by mixer 0
    MixnetAbortException first = abortWith(new int[] {2, 2, 2}, (step, list) -> {
      if (step == -1) {
        byte[] c = list.get(5).clone();
        c[c.length - 1] ^= (byte) 0x80;
        return replace(list, 5, c);
      }
      return list;
    });
    assertEquals(Reason.AEAD_FAILURE, first.reason());
    assertEquals(0, first.party());
  }

  @Test
  void aMixerThatDropsATokenIsCaughtByTheListSize() {
    MixnetAbortException last = abortWith(new int[] {2, 2, 2}, (step, list) -> step == 2 ? list.subList(1, 6) : list);
    assertEquals(Reason.WRONG_LIST_SIZE, last.reason());
    assertEquals("WRONG_LIST_SIZE: the final list has 5 tokens, the parties announced 6", last.getMessage());
    MixnetAbortException middle = abortWith(new int[] {2, 2, 2}, (step, list) -> step == 0 ? list.subList(0, 5) : list);
    assertEquals(Reason.WRONG_LIST_SIZE, middle.reason());
    assertEquals(1, middle.party());
  }

  @Test
  void aMixerThatDuplicatesATokenIsCaught() {
    MixnetAbortException last = abortWith(new int[] {2, 2, 2}, (step, list) -> step == 2 ? replace(list, 1, list.get(0))
        : list);
    assertEquals(Reason.DUPLICATE_TOKEN, last.reason());
    // a copied ciphertext is caught by the next mixer before its plaintext is ever published
    MixnetAbortException middle = abortWith(new int[] {2, 2, 2}, (step, list) -> step == 0 ? replace(list, 4,
        list.get(2)) : list);
    assertEquals(Reason.DUPLICATE_ELEMENT, middle.reason());
    assertEquals("DUPLICATE_ELEMENT: element 4 of the list for step 1 repeats an earlier element (detected by party 1)",
        middle.getMessage());
  }

  /**
   * A corrupted mixer swaps an element for one of its own making: at the last step a fresh token,
   * at a middle step a fresh onion sealed for the remaining mixers (so it opens everywhere). The
   * corrupted mixer holds no records, so the element was an honest party's, and its owner's final
   * check aborts (Theorem 1 i).
   */
  @Test
  void aMixerThatReplacesAnHonestTokenIsCaughtByItsOwner() {
    int[] records = {2, 3, 0, 2};
    byte[] session = Secrets.bytes(16);
    List<MixnetParty> p = parties(records, session);
    List<byte[]> later = List.of(p.get(3).publicKey());
    MixnetAbortException middle = assertThrows(MixnetAbortException.class, () -> MixnetSimulation.run(p, 1,
        (step, list) -> step == 2 ? replace(list, 4, sealForLayers(later, 3, session)) : list));
    assertEquals(Reason.MISSING_OWN_TOKEN, middle.reason());
    assertTrue(middle.getMessage().matches("MISSING_OWN_TOKEN: 1 of party [013]'s [23] tokens are missing from the "
        + "final list \\(detected by party [013]\\)"), middle.getMessage());

    MixnetAbortException last = abortWith(new int[] {2, 3, 2, 0}, (step, list) -> step == 3 ? replace(list, 0,
        Token.random(Secrets.random()).toBytes()) : list);
    assertEquals(Reason.MISSING_OWN_TOKEN, last.reason());
  }

  /** A fresh token wrapped for mixers {@code first} .. N-1 whose keys are {@code keys}. */
  private static byte[] sealForLayers(List<byte[]> keys, int first, byte[] session) {
    byte[] c = Token.random(Secrets.random()).toBytes();
    for (int i = keys.size() - 1; i >= 0; i--) {
      c = OnionLayer.seal(c, keys.get(i), session, first + i, CryptoProfile.NONE);
    }
    return c;
  }

  @Test
  void malformedListsAndArgumentsAreRefused() {
    MixnetAbortException shortElement = abortWith(new int[] {1, 1}, (step, list) -> step == -1
        ? replace(list, 1, new byte[20]) : list);
    assertEquals("MALFORMED_ELEMENT: element 1 of the list for step 0 is 20 bytes, expected 112 (detected by party 0)",
        shortElement.getMessage());
    MixnetParty p = new MixnetParty(0, 2, 1, Secrets.bytes(16));
    assertThrows(IllegalArgumentException.class, () -> p.wrapTokens(List.of(p.publicKey())));
    assertThrows(IllegalArgumentException.class, () -> new MixnetParty(2, 2, 1, Secrets.bytes(16)));
    assertThrows(IllegalArgumentException.class, () -> new MixnetParty(0, 2, 1, new byte[15]));
    assertFalse(p.toString().contains("secret"));
  }
}
