package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.RosterEntry;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under add-or-remove neighbours a party's size is private (the neighbouring data sets differ in
 * it): a participant claims the session's public max_points instead of its size, so neither the
 * roster every party receives nor the coordinator's database holds a real size. Under replace-one
 * the sizes are public and sent as they are.
 */
class AddOrRemoveSizesTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int MAX_POINTS = 500;
  private static final int[] SIZES = {60, 50, 40};

  /** DP-FL under add-or-remove neighbours with a public normaliser, max_points 500. */
  private static SessionConfig addRemove(int parties) {
    return Loopback.algorithm(Loopback.config(DIGITS, parties, parties, 1e6).setMaxPoints(MAX_POINTS), "dp-fl",
        "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, \"rounds\": 2, "
            + "\"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": \"add-remove\", "
            + "\"expected_batch\": 75}}").build();
  }

  private static List<Dataset> shards() {
    List<Dataset> out = new ArrayList<>();
    int at = 0;
    for (int i = 0; i < SIZES.length; i++) {
      int[] rows = new int[SIZES[i]];
      for (int j = 0; j < rows.length; j++) {
        rows[j] = at++;
      }
      out.add(DIGITS.subset(rows, "shard " + i));
    }
    return out;
  }

  /** Records every Join a participant sends and every roster it receives. */
  private static final class Watch implements Participant.Hook {
    final List<Integer> joins = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> roster = Collections.synchronizedList(new ArrayList<>());

    @Override
    public List<ParticipantMessage> sending(ParticipantMessage m) {
      if (m.hasJoin()) {
        joins.add(m.getJoin().getPoints());
      }
      return List.of(m);
    }

    @Override
    public void received(CoordinatorMessage m, ManagedChannel channel) {
      if (m.hasRoster()) {
        for (RosterEntry e : m.getRoster().getPartiesList()) {
          roster.add(e.getPoints());
        }
      }
    }
  }

  private static List<Integer> storedPoints(Coordinator c) {
    List<Integer> out = new ArrayList<>();
    for (Map<String, Object> row : c.store().participants(c.sessionId())) {
      out.add(((Number) row.get("POINTS")).intValue());
    }
    return out;
  }

  @Test
  void anAddOrRemoveParticipantClaimsMaxPointsSoNeitherRosterNorStoreHoldsItsSize(@TempDir Path dir)
      throws Exception {
    SessionConfig config = addRemove(SIZES.length);
    List<Watch> watches = List.of(new Watch(), new Watch(), new Watch());
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards(), null, i -> null,
          ParticipantPolicy.upTo(1e7), watches::get);
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, outs, SIZES.length);
      List<Integer> bound = Collections.nCopies(SIZES.length, MAX_POINTS);
      for (Watch w : watches) {
        assertEquals(List.of(MAX_POINTS), w.joins, "each Join claims max_points, not the party's size");
        assertEquals(bound, w.roster, "the roster every party receives lists only the public bound");
      }
      assertEquals(bound, storedPoints(c), "the coordinator's database holds only the public bound");
    }
  }

  /** Under replace-one (blind averaging) sizes are public and every party still sends its own. */
  @Test
  void aReplaceOneParticipantStillSendsItsPublicSize(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, SIZES.length, SIZES.length, 1).setMaxPoints(MAX_POINTS).build();
    List<Watch> watches = List.of(new Watch(), new Watch(), new Watch());
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 10))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards(), null, i -> null,
          ParticipantPolicy.upTo(10), watches::get);
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, outs, SIZES.length);
      for (int i = 0; i < SIZES.length; i++) {
        assertEquals(List.of(SIZES[i]), watches.get(i).joins);
      }
      List<Integer> stored = storedPoints(c);
      Collections.sort(stored);
      assertEquals(List.of(40, 50, 60), stored);
    }
  }

  /**
   * A participant that sends its real size in an add-or-remove session (an older version) is
   * refused, and the number is neither stored nor written into the refusal the database records.
   */
  @Test
  void aJoinClaimingAnotherNumberInAnAddOrRemoveSessionIsRefusedAndNotRecorded(@TempDir Path dir) throws Exception {
    SessionConfig config = addRemove(2);
    int size = 47;
    Participant.Hook claimsItsSize = new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        return m.hasJoin() ? List.of(m.toBuilder().setJoin(m.getJoin().toBuilder().setPoints(size)).build())
            : List.of(m);
      }
    };
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, List.of(shards().get(0)), null, i -> null,
          ParticipantPolicy.upTo(1e7), i -> claimsItsSize);
      Exception refused = outs.get(0).error();
      assertNotNull(refused, "the coordinator must refuse the join");
      assertTrue(refused.getMessage().contains("claims max_points = " + MAX_POINTS), refused.getMessage());
      assertTrue(storedPoints(c).isEmpty(), "no participant is stored");
      // The participant can read the refusal before the coordinator has written its event: wait for
      // it, bounded (10 s).
      List<Map<String, Object>> events = c.store().events(c.sessionId());
      for (long end = System.nanoTime() + 10_000_000_000L; events.isEmpty() && System.nanoTime() < end; ) {
        Thread.sleep(50);
        events = c.store().events(c.sessionId());
      }
      StringBuilder reasons = new StringBuilder();
      for (Map<String, Object> e : events) {
        reasons.append(e.get("REASON")).append(' ').append(e.get("DETAIL")).append('\n');
      }
      List<Map<String, Object>> seen = events;
      assertTrue(reasons.toString().contains("add-or-remove"), seen::toString);
      assertFalse(java.util.regex.Pattern.compile("\\b" + size + "\\b").matcher(reasons).find(),
          "the claimed number is not recorded: " + reasons);
    }
  }

  /**
   * max_points must bound the size it stands for: a participant holding more points refuses an
   * add-or-remove session itself, before it joins or trains.
   */
  @Test
  void aParticipantHoldingMoreThanMaxPointsRefusesAnAddOrRemoveSession(@TempDir Path dir) throws Exception {
    SessionConfig config = addRemove(2).toBuilder().setMaxPoints(SIZES[0] - 1).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, List.of(shards().get(0)), null, i -> null,
          ParticipantPolicy.upTo(1e7));
      Exception refused = outs.get(0).error();
      assertNotNull(refused, "a party larger than max_points must refuse");
      assertTrue(refused.getMessage().contains("more than session") && refused.getMessage().contains("max_points = "
          + (SIZES[0] - 1)), refused.getMessage());
      assertTrue(storedPoints(c).isEmpty(), "it never joined");
    }
  }
}
