package dev.helmet.protocols.crosssilo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupBoard;
import dev.helmet.secagg.mixnet.JointSeed;
import dev.helmet.secagg.mixnet.MixnetAbortException;
import dev.helmet.secagg.mixnet.OnionLayer;
import dev.helmet.secagg.mixnet.TokenList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The token mixnet and joint seed as board steps (the cross-silo paper's Algorithm 2): the
 * schedule every runner follows, the batches it yields, and the checks that end a session.
 */
class MixnetSetupTest {
  private static final int[] SIZES = {5, 7, 3};
  private static final byte[] SESSION = new byte[16];

  /**
   * N + 6 steps: keys and wraps from everyone, one mixer per step, then commit, reveal, the seed and
   * its confirmation from everyone (who reads every seed); each post's length is the public
   * schedule's (16 + 48 layers per element).
   */
  @Test
  void theScheduleIsPublicAndExact() {
    MixnetSetup s = new MixnetSetup(SIZES, 4, SESSION);
    assertEquals(9, s.steps());
    assertArrayEquals(new int[] {0, 1, 2}, s.speakers(0));
    assertArrayEquals(new int[] {1}, s.speakers(3));
    assertEquals(List.of(new Setup.PostId(2, 0)), s.reads(3, 1));
    assertEquals(3, s.reads(2, 0).size(), "mixer 0 reads every party's wrapped tokens");
    assertEquals(List.of(new Setup.PostId(4, 2)), s.reads(5, 1), "everyone reads the last mixer's final list");
    assertEquals(7L * OnionLayer.size(3), s.bytes(1, 1));
    assertEquals(15L * OnionLayer.size(2), s.bytes(2, 0));
    assertEquals(15L * 16, s.bytes(4, 2));
    assertEquals(3, s.reads(8, 1).size(), "everyone reads every seed");
    assertEquals(32, s.bytes(8, 0));
    assertTrue(s.unanimous(7) && s.unanimous(8) && !s.unanimous(6));
  }

  /**
   * Security review turn 3, T3-10 (PoC MixnetSchedulePocTest, 10 parties of 6,000 records): before
   * the fix no step read the seed posts, so only the coordinator compared the parties' seeds. Now
   * every party reads every party's seed post before its batches exist.
   */
  @Test
  void everyPartyReadsEveryPartysSeedBeforeRoundZero() {
    int n = 10;
    int[] sizes = new int[n];
    java.util.Arrays.fill(sizes, 6000);
    MixnetSetup s = new MixnetSetup(sizes, 480, SESSION);
    int seedStep = n + 4;
    assertTrue(s.unanimous(seedStep));
    int readers = 0;
    for (int party = 0; party < n; party++) {
      Set<Integer> seen = new HashSet<>();
      for (int step = 0; step < s.steps(); step++) {
        for (int q : s.speakers(step)) {
          if (q == party) {
            s.reads(step, q).stream().filter(id -> id.step() == seedStep).forEach(id -> seen.add(id.sender()));
          }
        }
      }
      if (seen.size() == n) {
        readers++;
      }
    }
    assertEquals(n, readers, "parties that read every party's seed post");
  }

  /**
   * Security review turn 3, T3-10 (a): party 2 colludes with the coordinator and signs two
   * commitments (and the two matching reveals); the coordinator shows one pair to party 0 and the
   * other to party 1. Each honest party's own checks pass under its view and they derive different
   * seeds; each then reads the other's signed seed post (which the coordinator cannot forge), stops
   * with SEED_MISMATCH naming the other party, and never takes batches.
   */
  @Test
  void honestPartiesShownDifferentCommitmentsOfAColluderStopBeforeTakingBatches() {
    MixnetSetup s = new MixnetSetup(SIZES, 4, SESSION);
    int n = SIZES.length;
    int colluder = 2;
    List<MixnetSetup.Party> p = List.of(s.party(0), s.party(1), s.party(2));
    Map<Setup.PostId, byte[]> shared = new HashMap<>();
    for (int step = 0; step < n + 2; step++) { // keys, wraps and the mixers: one board for all
      for (int q : s.speakers(step)) {
        shared.put(new Setup.PostId(step, q), p.get(q).post(step, read(s, shared, step, q)));
      }
    }
    List<byte[]> tokens = new ArrayList<>();
    byte[] last = shared.get(new Setup.PostId(n + 1, n - 1));
    for (int off = 0; off < last.length; off += 16) {
      tokens.add(java.util.Arrays.copyOfRange(last, off, off + 16));
    }
    byte[] context = JointSeed.context(SESSION, TokenList.of(tokens, s.total()));
    byte[] otherShare = new byte[JointSeed.BYTES];
    java.util.Arrays.fill(otherShare, (byte) 7);
    List<Map<Setup.PostId, byte[]>> view = List.of(new HashMap<>(shared), new HashMap<>(shared));
    for (int step = n + 2; step <= n + 4; step++) { // commit, reveal, seed: party 1 sees the colluder's other pair
      Map<Integer, byte[]> posts = new HashMap<>();
      for (int q : s.speakers(step)) {
        posts.put(q, p.get(q).post(step, read(s, view.get(q == colluder ? 0 : q), step, q)));
      }
      for (int h = 0; h < 2; h++) {
        for (int q : s.speakers(step)) {
          view.get(h).put(new Setup.PostId(step, q), posts.get(q));
        }
      }
      byte[] forParty1 = step == n + 2 ? JointSeed.commitment(context, colluder, otherShare)
          : step == n + 3 ? otherShare : posts.get(1);
      view.get(1).put(new Setup.PostId(step, colluder), forParty1);
    }
    byte[] seed0 = view.get(0).get(new Setup.PostId(n + 4, 0));
    byte[] seed1 = view.get(1).get(new Setup.PostId(n + 4, 1));
    assertFalse(java.util.Arrays.equals(seed0, seed1), "the equivocation passed both parties' own checks");
    MixnetAbortException[] stopped = new MixnetAbortException[2];
    for (int step = n + 5; step < s.steps(); step++) {
      for (int h = 0; h < 2; h++) {
        try {
          p.get(h).post(step, read(s, view.get(h), step, h));
        } catch (MixnetAbortException e) {
          stopped[h] = e;
        }
      }
    }
    for (int h = 0; h < 2; h++) {
      assertNotNull(stopped[h], "honest party " + h + " went on with a seed the other honest party does not hold");
      assertEquals(MixnetAbortException.Reason.SEED_MISMATCH, stopped[h].reason());
      String msg = stopped[h].getMessage();
      assertTrue(msg.contains("party " + (1 - h) + "'s published joint seed differs")
          && msg.contains("detected by party " + h), msg);
      int party = h;
      var none = assertThrows(IllegalArgumentException.class, () -> p.get(party).batch(0));
      assertTrue(none.getMessage().contains("has not finished"), none.getMessage());
    }
  }

  /**
   * Security review turn 3, T3-11 (PoC numbers): 45 parties each claiming up to the default
   * max_points of 1,000,000 imply a mixer list of ~91,000 MiB, beyond a board post (2 GiB) and the
   * setup's memory bound; the session is refused naming max_points, the limit and the largest
   * max_points that fits. The existing networked tests' 3 parties of up to 100,000 records and the
   * documented 10-party demo (max_points 6,000) fit; a roster that no board can carry is refused
   * when its setup is built.
   */
  @Test
  void aSetupNoBoardCarriesIsRefusedBeforeAnyoneTrains() {
    String big = MixnetSetup.sizeProblem(45, 1_000_000);
    assertNotNull(big);
    assertTrue(big.contains("parties = 45") && big.contains("max_points = 1000000") && big.contains("board post")
        && big.contains("lower max_points to at most 17648"), big);
    assertNull(MixnetSetup.sizeProblem(3, 100_000));
    assertNull(MixnetSetup.sizeProblem(10, 6000));
    String memory = MixnetSetup.sizeProblem(7, 1_000_000);
    assertNotNull(memory, "7 x 1,000,000 tokens: each post fits, a mixer's memory does not");
    assertTrue(memory.contains("memory") && memory.contains("8192 MiB per party"), memory);
    int[] many = new int[45];
    java.util.Arrays.fill(many, 6000);
    many[0] = 1_000_000;
    var e = assertThrows(IllegalArgumentException.class, () -> new MixnetSetup(many, 480, SESSION));
    assertTrue(e.getMessage().contains("party 0's post at setup step 1") && e.getMessage().contains("board post"),
        e.getMessage());
  }

  private static List<byte[]> read(Setup s, Map<Setup.PostId, byte[]> board, int step, int party) {
    List<byte[]> out = new ArrayList<>();
    for (Setup.PostId id : s.reads(step, party)) {
      out.add(board.get(id));
    }
    return out;
  }

  /**
   * Run on the in-process board: each step's batch has b records in all, each party's within its
   * own rows, the same for every party; over 200 steps every record is drawn (each has chance 4/15
   * per step, so a record never drawn would have probability (11/15)^200 < 1e-26).
   */
  @Test
  void everyPartyFindsItsRecordsInTheSameUniformBatches() {
    MixnetSetup s = new MixnetSetup(SIZES, 4, SESSION);
    List<MixnetSetup.Party> parties = new ArrayList<>();
    SetupBoard.run(s, SIZES.length, 2).parties().forEach(p -> parties.add((MixnetSetup.Party) p));
    List<Set<Integer>> drawn = List.of(new HashSet<>(), new HashSet<>(), new HashSet<>());
    for (int step = 0; step < 200; step++) {
      assertEquals(parties.get(0).batch(step), parties.get(2).batch(step));
      int total = 0;
      for (int p = 0; p < SIZES.length; p++) {
        for (int r : parties.get(p).records(step)) {
          assertTrue(r >= 0 && r < SIZES[p], "record " + r + " of party " + p);
          drawn.get(p).add(r);
          total++;
        }
      }
      assertEquals(4, total, "step " + step);
    }
    for (int p = 0; p < SIZES.length; p++) {
      assertEquals(SIZES[p], drawn.get(p).size(), "party " + p + "'s records drawn");
    }
  }

  /** A mixer whose list was altered on the board stops with the mixnet's AEAD failure. */
  @Test
  void anAlteredListStopsTheNextMixer() {
    MixnetSetup s = new MixnetSetup(SIZES, 4, SESSION);
    List<MixnetSetup.Party> p = List.of(s.party(0), s.party(1), s.party(2));
    List<byte[]> keys = new ArrayList<>();
    for (MixnetSetup.Party q : p) {
      keys.add(q.post(0, List.of()));
    }
    List<byte[]> wraps = new ArrayList<>();
    for (MixnetSetup.Party q : p) {
      wraps.add(q.post(1, keys));
    }
    byte[] mixed = p.get(0).post(2, wraps);
    mixed[mixed.length - 1] ^= 1;
    var e = assertThrows(MixnetAbortException.class, () -> p.get(1).post(3, List.of(mixed)));
    assertEquals(MixnetAbortException.Reason.AEAD_FAILURE, e.reason());
    var order = assertThrows(IllegalArgumentException.class, () -> p.get(2).post(2, wraps));
    assertTrue(order.getMessage().contains("does not post at step 2"), order.getMessage());
  }
}
