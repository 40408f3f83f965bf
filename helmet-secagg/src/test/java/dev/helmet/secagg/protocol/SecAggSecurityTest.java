package dev.helmet.secagg.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;
import dev.helmet.secagg.protocol.Messages.KeyRoster;
import dev.helmet.secagg.protocol.Messages.MaskedInput;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.Messages.ShareDelivery;
import dev.helmet.secagg.protocol.Messages.UnmaskingRequest;
import dev.helmet.secagg.protocol.ServerEvents.RejectReason;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

class SecAggSecurityTest {

  /**
   * A masked input of an all-zero vector is uniform in Z_{2^32}: chi-square over the 256 values of
   * its lowest and of its highest byte (40,000 elements each) at the 1e-7 upper quantile: a
   * false-failure rate of 2e-7.
   */
  @Test
  void maskedInputsAreUniformEvenForAnAllZeroInput() {
    Harness h = new Harness(5, 40_000, 32);
    Map<Integer, ServerMessage> out = h.serverRound(); // rosters
    h.clientRound(out);
    h.clientRound(h.serverRound()); // share deliveries -> masked inputs
    long[] y = ((MaskedInput) h.replies[0]).masked(40_000, 32);
    double crit = ChiSquaredDistribution.of(255).inverseSurvivalProbability(1e-7);
    for (int shift : new int[] {0, 24}) {
      long[] counts = new long[256];
      for (long v : y) {
        counts[(int) ((v >>> shift) & 0xff)]++;
      }
      double expected = y.length / 256.0;
      double chi2 = 0;
      for (long c : counts) {
        chi2 += (c - expected) * (c - expected) / expected;
      }
      assertTrue(chi2 < crit, "byte at bit " + shift + ": chi2 " + chi2 + " >= " + crit);
    }
    // and the masks still cancel: finishing the protocol gives the exact (zero) sum
    while (!h.server.isFinal()) {
      h.clientRound(h.serverRound());
    }
    assertArrayEquals(new long[40_000], ((ServerState.Completed) h.server).sum());
  }

  @Test
  void aTamperedShareCiphertextMakesItsRecipientAbortAndTheRestFinish() {
    Harness h = new Harness(6, 10, 32);
    for (int i = 0; i < 6; i++) {
      h.inputs[i][0] = i + 1;
    }
    h.clientRound(h.serverRound());
    Map<Integer, ServerMessage> deliveries = new java.util.HashMap<>(h.serverRound());
    ShareDelivery d = (ShareDelivery) deliveries.get(1);
    TreeMap<Integer, byte[]> shares = new TreeMap<>(d.encryptedShares());
    byte[] c = shares.get(0).clone();
    c[20] ^= 1;
    shares.put(0, c);
    deliveries.put(1, new ShareDelivery(d.session(), 1, shares));
    h.clientRound(deliveries);
    assertEquals(ClientAbortReason.DECRYPTION_FAILED, ((ClientState.Aborted) h.clients[1]).reason());
    assertNull(h.replies[1]);
    while (!h.server.isFinal()) {
      h.clientRound(h.serverRound());
    }
    ServerState.Completed done = assertInstanceOf(ServerState.Completed.class, h.server);
    assertEquals(1 + 3 + 4 + 5 + 6, done.sum()[0]); // party 1 (input 2) is left out
    assertEquals(Round.MASKED_INPUT, h.server.drops().get(0).round());
  }

  @Test
  void aSubstitutedKeyInTheRosterFailsItsSignature() {
    Harness h = new Harness(4, 4, 32);
    Map<Integer, ServerMessage> rosters = new java.util.HashMap<>(h.serverRound());
    KeyRoster r = (KeyRoster) rosters.get(0);
    TreeMap<Integer, AdvertiseKeys> nb = new TreeMap<>(r.neighbours());
    AdvertiseKeys a = nb.get(1);
    nb.put(1, new AdvertiseKeys(a.session(), 1, dev.helmet.secagg.crypto.X25519Keys.generate().publicKey(),
        a.maskKey(), a.signature())); // a man in the middle's key, the party's signature
    rosters.put(0, new KeyRoster(r.session(), 0, nb));
    h.clientRound(rosters);
    assertEquals(ClientAbortReason.INVALID_SIGNATURE, ((ClientState.Aborted) h.clients[0]).reason());
  }

  /**
   * With several neighbours the signatures are verified as a batch; the abort still names the first
   * bad roster entry in order, whether a forged signature or a malformed entry comes first.
   */
  @Test
  void theFirstBadRosterEntryDecidesTheAbortAsWithOneVerificationAtATime() {
    for (boolean forgedFirst : new boolean[] {true, false}) {
      Harness h = new Harness(6, 4, 32);
      Map<Integer, ServerMessage> rosters = new java.util.HashMap<>(h.serverRound());
      KeyRoster r = (KeyRoster) rosters.get(0);
      TreeMap<Integer, AdvertiseKeys> nb = new TreeMap<>(r.neighbours());
      int forged = forgedFirst ? 2 : 4;
      int malformed = forgedFirst ? 4 : 2;
      AdvertiseKeys f = nb.get(forged);
      byte[] sig = f.signature().clone();
      sig[5] ^= 1;
      nb.put(forged, new AdvertiseKeys(f.session(), forged, f.encryptionKey(), f.maskKey(), sig));
      AdvertiseKeys m = nb.get(malformed);
      nb.put(malformed, new AdvertiseKeys(m.session(), malformed, new byte[7], m.maskKey(), m.signature()));
      rosters.put(0, new KeyRoster(r.session(), 0, nb));
      h.clientRound(rosters);
      ClientState.Aborted a = (ClientState.Aborted) h.clients[0];
      assertEquals(forgedFirst ? ClientAbortReason.INVALID_SIGNATURE : ClientAbortReason.MALFORMED_MESSAGE, a.reason());
      assertTrue(a.detail().contains("party " + (forgedFirst ? forged : malformed)), a.detail());
      assertInstanceOf(ClientR2MaskedInput.class, h.clients[1], "the other parties go on");
    }
  }

  @Test
  void theServerDropsAForgedAdvertisement() {
    Harness h = new Harness(4, 4, 32);
    AdvertiseKeys a = (AdvertiseKeys) h.replies[2];
    byte[] sig = a.signature().clone();
    sig[0] ^= 1;
    h.replies[2] = new AdvertiseKeys(a.session(), 2, a.encryptionKey(), a.maskKey(), sig);
    h.serverRound();
    assertEquals(ServerEvents.DropReason.INVALID_SIGNATURE, h.server.drops().get(0).reason());
    assertEquals(2, h.server.drops().get(0).party());
  }

  @Test
  void replayedMisplacedAndForeignMessagesAreRejectedWhileTheRoundGoesOn() {
    Harness h = new Harness(4, 4, 32);
    AdvertiseKeys first = (AdvertiseKeys) h.replies[0];
    h.server.receive(first);
    h.server.receive(first); // replay
    h.server.receive(new AdvertiseKeys(first.session() + 1, 1, first.encryptionKey(), first.maskKey(),
        first.signature())); // another session
    h.server.receive(new AdvertiseKeys(first.session(), 99, first.encryptionKey(), first.maskKey(),
        first.signature())); // not a party
    h.server.receive(new MaskedInput(first.session(), 3, new byte[16])); // a round-2 message in round 0
    h.replies[0] = null;
    Map<Integer, ServerMessage> rosters = h.serverRound();
    assertEquals(4, rosters.size(), "every genuine party is still in");
    assertEquals(java.util.List.of(RejectReason.REPLAYED, RejectReason.WRONG_SESSION, RejectReason.UNKNOWN_PARTY,
        RejectReason.WRONG_ROUND), h.server.rejections().stream().map(ServerEvents.Rejection::reason).toList());
    // A party given a stale server message aborts rather than acting on it.
    h.clientRound(rosters);
    ClientState.Step s = h.clients[1].handle(rosters.get(1)); // the roster replayed in round 2
    assertEquals(ClientAbortReason.UNEXPECTED_MESSAGE, ((ClientState.Aborted) s.next()).reason());
    assertNull(s.reply());
  }

  @Test
  void aLateCopyOfAnAcceptedMessageIsAReplayInAnyLaterRound() {
    Harness h = new Harness(4, 4, 32);
    AdvertiseKeys first = (AdvertiseKeys) h.replies[0];
    h.clientRound(h.serverRound()); // round 0 closes with party 0's advertisement taken
    h.server.receive(first); // the same advertisement again, now in round 1
    h.server.receive(new MaskedInput(first.session(), 1, new byte[16])); // a round-2 message, never sent before
    assertEquals(java.util.List.of(RejectReason.REPLAYED, RejectReason.WRONG_ROUND),
        h.server.rejections().stream().map(ServerEvents.Rejection::reason).toList());
    assertEquals(4, h.serverRound().size(), "the round goes on with every party");
  }

  private static Harness atUnmasking(Map<Integer, ServerMessage>[] holder, int n) {
    Harness h = new Harness(n, 4, 32);
    Map<Integer, ServerMessage> out = h.serverRound();
    while (out.values().iterator().next().round() != Round.UNMASKING) {
      h.clientRound(out);
      out = h.serverRound();
    }
    holder[0] = new java.util.HashMap<>(out);
    return h;
  }

  @Test
  void aPartyAskedForBothSecretsOfOnePartyRefusesAndRevealsNothing() {
    @SuppressWarnings("unchecked")
    Map<Integer, ServerMessage>[] out = new Map[1];
    Harness h = atUnmasking(out, 6);
    UnmaskingRequest r = (UnmaskingRequest) out[0].get(2);
    int victim = r.revealSelfMask()[0];
    UnmaskingRequest greedy = new UnmaskingRequest(r.session(), 2, r.survivors(), r.signatures(), r.revealSelfMask(),
        new int[] {victim});
    ClientState.Step s = h.clients[2].handle(greedy);
    assertEquals(ClientAbortReason.BOTH_SECRETS_REQUESTED, ((ClientState.Aborted) s.next()).reason());
    assertNull(s.reply(), "nothing is revealed");
  }

  @Test
  void anUnmaskingRequestThatContradictsTheSignedSurvivorSetIsRefused() {
    @SuppressWarnings("unchecked")
    Map<Integer, ServerMessage>[] out = new Map[1];
    Harness h = atUnmasking(out, 6);
    UnmaskingRequest r = (UnmaskingRequest) out[0].get(3);
    BitSet other = r.survivors();
    other.clear(0);
    ClientState.Step s = h.clients[3].handle(new UnmaskingRequest(r.session(), 3, other, r.signatures(),
        r.revealSelfMask(), r.revealMaskKey()));
    assertEquals(ClientAbortReason.INCONSISTENT_REQUEST, ((ClientState.Aborted) s.next()).reason());
    // A neighbour's signature that does not verify: the server forged or altered it.
    Harness h2 = atUnmasking(out, 6);
    UnmaskingRequest r2 = (UnmaskingRequest) out[0].get(3);
    TreeMap<Integer, byte[]> sigs2 = new TreeMap<>(r2.signatures());
    byte[] bad = sigs2.firstEntry().getValue().clone();
    bad[5] ^= 1;
    sigs2.put(sigs2.firstKey(), bad);
    ClientState.Step s2 = h2.clients[3].handle(new UnmaskingRequest(r2.session(), 3, r2.survivors(), sigs2,
        r2.revealSelfMask(), r2.revealMaskKey()));
    assertEquals(ClientAbortReason.INVALID_SIGNATURE, ((ClientState.Aborted) s2.next()).reason());
  }

  @Test
  void theServerDropsAMaskedInputOfTheWrongLengthOrWithPaddingBitsSet() {
    // 5 elements of 6 bits: 30 bits in 4 bytes, the top 2 bits of the last byte are padding.
    Harness h = new Harness(5, 5, 6);
    h.clientRound(h.serverRound());
    h.clientRound(h.serverRound());
    MaskedInput good = (MaskedInput) h.replies[0];
    assertEquals(4, good.packed().length);
    h.replies[0] = new MaskedInput(good.session(), 0, java.util.Arrays.copyOf(good.packed(), 5));
    MaskedInput g1 = (MaskedInput) h.replies[1];
    byte[] padded = g1.packed().clone();
    padded[3] |= (byte) 0x80;
    h.replies[1] = new MaskedInput(g1.session(), 1, padded);
    h.serverRound();
    assertEquals(2, h.server.drops().size());
    assertTrue(h.server.drops().stream().allMatch(d -> d.reason() == ServerEvents.DropReason.MALFORMED_MESSAGE));
    assertEquals("masked input: 5 bytes, expected 5 elements of 6 bits packed in 4 bytes",
        h.server.drops().get(0).detail());
    assertEquals("masked input: the 2 padding bits after element 4 are not zero", h.server.drops().get(1).detail());
  }

  /**
   * The "declare them dropped" attack: a malicious server gives target party u only the shares of
   * a set S of t neighbours (so u masks only with S), then announces a survivor set U3 without S
   * although S is alive. If the members of S answered, the server would collect u's self-mask
   * seed from them and their mask keys from their other neighbours, and unmask u's input. Every
   * member of S must refuse because it is not in the U3 it is asked to sign, and u must refuse
   * because U3 names neighbours whose shares it never received.
   */
  @Test
  void partiesRefuseASurvivorSetThatOmitsThemOrContradictsTheirRound2View() {
    Harness h = new Harness(9, 4, 32); // complete graph: 8 neighbours, t = 5
    int u = 0;
    int t = h.params.threshold();
    h.clientRound(h.serverRound());
    Map<Integer, ServerMessage> deliveries = new java.util.HashMap<>(h.serverRound());
    ShareDelivery d = (ShareDelivery) deliveries.get(u);
    TreeMap<Integer, byte[]> only = new TreeMap<>();
    for (int v : d.encryptedShares().keySet()) {
      if (only.size() < t) {
        only.put(v, d.encryptedShares().get(v)); // S: the first t neighbours
      }
    }
    deliveries.put(u, new ShareDelivery(d.session(), u, only));
    h.clientRound(deliveries);
    assertInstanceOf(MaskedInput.class, h.replies[u], "u has t shares, so it masks (with S only)");
    java.util.Set<Integer> s = only.keySet();
    BitSet lieU3 = new BitSet();
    for (int v = 0; v < 9; v++) {
      if (!s.contains(v)) {
        lieU3.set(v);
      }
    }
    for (int v : s) {
      ClientState.Step step = h.clients[v].handle(new Messages.ConsistencyCheckRequest(h.params.session(), v, lieU3));
      ClientState.Aborted a = assertInstanceOf(ClientState.Aborted.class, step.next(),
          "party " + v + " is alive but left out of U3, and must not go on to unmasking");
      assertEquals(ClientAbortReason.INCONSISTENT_REQUEST, a.reason());
      assertNull(step.reply(), "and signs nothing");
    }
    ClientState.Step stepU = h.clients[u].handle(new Messages.ConsistencyCheckRequest(h.params.session(), u, lieU3));
    ClientState.Aborted au = assertInstanceOf(ClientState.Aborted.class, stepU.next(),
        "U3 names neighbours whose shares u never received");
    assertEquals(ClientAbortReason.INCONSISTENT_REQUEST, au.reason());
  }

  /**
   * Robust reconstruction (issue 13, finding 8): a wrong share of a self-mask seed no longer aborts
   * the session or silently corrupts the sum. The server tries other t-subsets of the shares, keeps
   * the seed that matches the owner's signed commitment, and names the party that sent the bad share.
   */
  @Test
  void aWrongUnmaskingShareIsAttributedAndTheSumIsStillExact() {
    Harness h = new Harness(6, 10, 32);
    for (int i = 0; i < 6; i++) {
      h.inputs[i][0] = i + 1;
    }
    for (int round = 0; round < 10 && !(h.replies[1] instanceof Messages.UnmaskingShares); round++) {
      h.clientRound(h.serverRound());
    }
    Messages.UnmaskingShares u = assertInstanceOf(Messages.UnmaskingShares.class, h.replies[1]);
    TreeMap<Integer, long[]> self = new TreeMap<>(u.selfMaskShares());
    int owner = self.firstKey();
    long[] wrong = self.get(owner).clone();
    wrong[0] ^= 1;
    self.put(owner, wrong);
    h.replies[1] = new Messages.UnmaskingShares(u.session(), 1, self, u.maskKeyShares());
    h.serverRound();
    ServerState.Completed done = assertInstanceOf(ServerState.Completed.class, h.server);
    assertEquals(1 + 2 + 3 + 4 + 5 + 6, done.sum()[0]);
    assertTrue(h.server.rejections().stream().anyMatch(r -> r.reason() == RejectReason.BAD_SHARE
        && r.claimedSender() == 1), String.valueOf(h.server.rejections()));
  }

  /**
   * The same for a dropout's mask key: party 5 leaves after sharing its keys, so the server rebuilds
   * its mask key from the survivors' shares; one of them is wrong. The server finds a t-subset whose
   * key matches the one party 5 advertised, names the sender of the bad share, and the sum of the
   * five survivors is exact.
   */
  @Test
  void aWrongMaskKeyShareOfADropoutIsAttributedAndTheSumIsStillExact() {
    Harness h = new Harness(6, 10, 32);
    for (int i = 0; i < 6; i++) {
      h.inputs[i][0] = i + 1;
    }
    for (int round = 0; round < 10 && !(h.replies[1] instanceof Messages.UnmaskingShares); round++) {
      if (h.replies[5] instanceof Messages.MaskedInput) {
        h.replies[5] = null; // party 5 drops before its masked input arrives
      }
      h.clientRound(h.serverRound());
    }
    // Party 0's share is among the first t the server tries, so the bad share must be found and named.
    Messages.UnmaskingShares u = assertInstanceOf(Messages.UnmaskingShares.class, h.replies[0]);
    TreeMap<Integer, long[]> keys = new TreeMap<>(u.maskKeyShares());
    long[] wrong = keys.get(5).clone();
    // Not the lowest bits of the first field element: they reach only the bits X25519 clamps away
    // (the rebuilt key would differ from the real one in bits that do not matter).
    wrong[1] ^= 1;
    keys.put(5, wrong);
    h.replies[0] = new Messages.UnmaskingShares(u.session(), 0, u.selfMaskShares(), keys);
    h.serverRound();
    ServerState.Completed done = assertInstanceOf(ServerState.Completed.class, h.server);
    assertEquals(1 + 2 + 3 + 4 + 5, done.sum()[0]);
    assertTrue(h.server.rejections().stream().anyMatch(r -> r.reason() == RejectReason.BAD_SHARE
        && r.claimedSender() == 0 && r.detail().contains("mask key")), String.valueOf(h.server.rejections()));
  }
}
