package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.audit.ArtifactDiff;
import dev.helmet.protocols.audit.InputMirrorCanary;
import dev.helmet.protocols.audit.NeighbourPair;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifact diff of a networked session ({@link NetworkArtifacts}): a coordinator and three
 * participants (in-process gRPC) run on D, on D again (the control) and on D' with the same seeds
 * and the same seeded noise, and nothing they leave behind differs beyond the DP release and the
 * declared classes (clock readings, per-session secrets): no database
 * row, no field of the model file, the coordinator's result or any participant's.
 *
 * <p>Digits, three parties of 40 records, two DP-FL rounds or one blind-averaging release.
 */
@Tag("integration")
class NetworkedArtifactDiffTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int PARTIES = 3;
  private static final int MAX_POINTS = 500;

  @TempDir Path dir;

  /** DP-FL under add-or-remove neighbours: every party claims max_points, the normaliser is public. */
  static SessionConfig dpFlAddRemove() {
    return Loopback.algorithm(Loopback.config(DIGITS, PARTIES, PARTIES, 2).setMaxPoints(MAX_POINTS), "dp-fl",
        "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, \"rounds\": 2, "
            + "\"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": \"add-remove\", "
            + "\"expected_batch\": 60}}").build();
  }

  static Partition split() {
    return new PartitionStrategy.Iid(PARTIES, 40).split(DIGITS, new SplittableRandom(5));
  }

  /** D' = D without party 0's first record: party 0 holds 39, the others their 40 (add-or-remove). */
  static Partition withoutFirstRecordOfParty0(Partition p) {
    List<int[]> parties = new ArrayList<>();
    for (int i = 0; i < p.count(); i++) {
      int[] rows = p.indices(i);
      parties.add(i == 0 ? Arrays.copyOfRange(rows, 1, rows.length) : rows);
    }
    return new Partition(parties, p.description(), p.countFreeDescription());
  }

  private NetworkArtifacts.Audit audit(SessionConfig config, Dataset d, Partition pd, Dataset n, Partition pn,
      String name) throws Exception {
    return NetworkArtifacts.audit(dir.resolve(name.replace(' ', '-')), config, d, pd, n, pn, name, false,
        c -> {}, c -> Map.of(), NetworkArtifacts::kind);
  }

  /**
   * What every sound outcome shows: the pair moved the stored release, two sessions on D differ in
   * the declared classes alone, and D against D' shows no finding.
   */
  static void assertNoFinding(NetworkArtifacts.Audit a, String... artifacts) {
    List<String> expected = new ArrayList<>(List.of(NetworkArtifacts.DATABASE, NetworkArtifacts.MODEL,
        NetworkArtifacts.RESULT, "participant-0", "participant-1", "participant-2"));
    expected.addAll(List.of(artifacts));
    assertEquals(new java.util.TreeSet<>(expected), new java.util.TreeSet<>(a.diff().compared()));
    assertTrue(a.diff().differences().stream().anyMatch(d -> d.released()
        && d.path().startsWith(NetworkArtifacts.DATABASE + ":/RELEASES/")), "the pair must move the stored release");
    assertEquals(List.of(), a.controlProblems(), "two sessions on D with the same seeds and noise differ");
    assertEquals(List.of(), a.of(NetworkArtifacts.Kind.FINDING),
        "the session's artifacts tell D from D' beyond the DP release");
  }

  @Test
  void dpFlUnderAddOrRemoveLeavesNoCountInTheDatabaseOrAnyResult() throws Exception {
    Partition p = split();
    NetworkArtifacts.Audit a = audit(dpFlAddRemove(), DIGITS, p, DIGITS, withoutFirstRecordOfParty0(p), "dp-fl add-remove");
    assertNoFinding(a);
    // The stored claim is the public bound on both sides (the size itself differs: 40 and 39).
    assertEquals(MAX_POINTS, a.onN().artifacts().get(NetworkArtifacts.DATABASE).at("/PARTICIPANTS/0/POINTS").asInt());
  }

  @Test
  void blindAveragingUnderReplaceOneLeavesNothingBeyondTheRelease() throws Exception {
    SessionConfig config = Loopback.config(DIGITS, PARTIES, PARTIES, 2).build();
    Partition p = split();
    NeighbourPair pair = new InputMirrorCanary().pair(SessionPlan.spec(config), DIGITS, p);
    NetworkArtifacts.Audit a = audit(config, DIGITS, p, pair.neighbour(), p, "helmet replace-one");
    assertNoFinding(a);
  }

  /**
   * The power check: the database a5230d4's coordinator kept under add-or-remove neighbours stored
   * each participant's own size in {@code participants.points} (privacy review turn 3, finding 3:
   * Store.participant, from the Join's points; fixed in aa7384c, every party claims max_points).
   * Today's rows on D and D' with that column set as it was (40 and 39 for party 0) are reported at
   * the column's path.
   */
  @Test
  void theOldDatabaseThatStoredEachPartysSizeUnderAddOrRemoveIsReportedWithItsPath() throws Exception {
    Partition p = split();
    Partition q = withoutFirstRecordOfParty0(p);
    NetworkArtifacts.Audit a = audit(dpFlAddRemove(), DIGITS, p, DIGITS, q, "dp-fl add-remove, a5230d4's points");
    List<ArtifactDiff.Difference> found = NetworkArtifacts.of(NetworkArtifacts.compare(oldPoints(a.onD(), p),
        oldPoints(a.onN(), q)), NetworkArtifacts.Kind.FINDING, a.onD(), a.onN());
    System.out.println("a5230d4's participants.points: " + found);
    assertEquals(List.of("database:/PARTICIPANTS/0/POINTS: 40 -> 39"), found.stream().map(Object::toString).toList());

    // A byte count is the release's only when it moves by exactly the compressed model's length:
    // one byte more than that (a count of something else riding along) is reported.
    Map<String, JsonNode> more = new LinkedHashMap<>(a.onN().artifacts());
    ObjectNode party0 = more.get("participant-0").deepCopy();
    party0.put("bytes_received", party0.get("bytes_received").asLong() + 1);
    more.put("participant-0", party0);
    assertEquals(List.of("participant-0:/bytes_received"), NetworkArtifacts.of(NetworkArtifacts.compare(
        a.onD().artifacts(), more), NetworkArtifacts.Kind.FINDING, a.onD(), a.onN()).stream()
        .map(ArtifactDiff.Difference::path).toList());
  }

  /** {@code artifacts} with every participants row's points the party's own size, as a5230d4 stored it. */
  private static Map<String, JsonNode> oldPoints(NetworkArtifacts.Session s, Partition p) {
    Map<String, JsonNode> out = new LinkedHashMap<>(s.artifacts());
    ObjectNode db = s.artifacts().get(NetworkArtifacts.DATABASE).deepCopy();
    for (int i = 0; i < p.count(); i++) {
      ((ObjectNode) db.get("PARTICIPANTS").get(Integer.toString(i))).put("POINTS", p.size(i));
    }
    out.put(NetworkArtifacts.DATABASE, db);
    return out;
  }
}
