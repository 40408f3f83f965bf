package dev.helmet.protocols.crosssilo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupBoard;
import dev.helmet.secagg.mixnet.MixnetAbortException;
import dev.helmet.secagg.mixnet.OnionLayer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
   * N + 5 steps: keys and wraps from everyone, one mixer per step, then commit, reveal and the seed
   * from everyone; each post's length is the public schedule's (16 + 48 layers per element).
   */
  @Test
  void theScheduleIsPublicAndExact() {
    MixnetSetup s = new MixnetSetup(SIZES, 4, SESSION);
    assertEquals(8, s.steps());
    assertArrayEquals(new int[] {0, 1, 2}, s.speakers(0));
    assertArrayEquals(new int[] {1}, s.speakers(3));
    assertEquals(List.of(new Setup.PostId(2, 0)), s.reads(3, 1));
    assertEquals(3, s.reads(2, 0).size(), "mixer 0 reads every party's wrapped tokens");
    assertEquals(List.of(new Setup.PostId(4, 2)), s.reads(5, 1), "everyone reads the last mixer's final list");
    assertEquals(7L * OnionLayer.size(3), s.bytes(1, 1));
    assertEquals(15L * OnionLayer.size(2), s.bytes(2, 0));
    assertEquals(15L * 16, s.bytes(4, 2));
    assertTrue(s.unanimous(7) && !s.unanimous(6));
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
