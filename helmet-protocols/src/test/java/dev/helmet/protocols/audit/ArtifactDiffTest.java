package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ArtifactDiffTest {
  @Test
  void aRecordCountBesideTheReleaseIsReportedWithItsPathAndTheReleaseIsNot() {
    // The shape of a5230d4's smm model file under add-or-remove: the released weights, and the
    // record count that removing one record changes (privacy review turn 3, finding 3).
    String d = "{\"weights\": [0.5, -1.25], \"privacy\": {\"epsilon\": 1, \"records\": 1200}}";
    String n = "{\"weights\": [0.5, -1.5], \"privacy\": {\"epsilon\": 1.0, \"records\": 1199}}";
    ArtifactDiff diff = new ArtifactDiff().json("model.json", d, n, p -> p.startsWith("/weights/"));
    assertEquals(2, diff.differences().size(), diff.differences().toString());
    assertEquals(1, diff.findings().size());
    ArtifactDiff.Difference f = diff.findings().get(0);
    assertEquals("model.json:/privacy/records", f.path());
    assertEquals("1200", f.onD());
    assertEquals("1199", f.onNeighbour());
    assertTrue(diff.differences().stream().anyMatch(x -> x.released() && x.path().equals("model.json:/weights/1")));
  }

  @Test
  void keysOnOneSideOnlyAndArraysOfOtherLengthsAreDifferences() {
    ArtifactDiff diff = new ArtifactDiff().json("a", "{\"x\": [1, 2], \"only_d\": true}", "{\"x\": [1, 2, 3]}",
        p -> false);
    assertEquals(2, diff.findings().size(), diff.findings().toString());
    assertTrue(diff.findings().stream().anyMatch(x -> x.path().equals("a:/only_d") && x.onNeighbour().equals(
        "<absent>")));
    assertTrue(diff.findings().stream().anyMatch(x -> x.path().equals("a:/x/2") && x.onD().equals("<absent>")));
    // Equal documents (1 and 1.0 are one number) have no difference at all.
    assertTrue(new ArtifactDiff().json("b", "{\"e\": 1, \"k\": {\"a/b\": [\"s\"]}}", "{\"e\": 1.0, \"k\": {\"a/b\": "
        + "[\"s\"]}}", p -> false).differences().isEmpty());
    // Numbers compare exactly: the ninth digit counts.
    assertEquals("a:/e", new ArtifactDiff().json("a", "{\"e\": 0.123456789}", "{\"e\": 0.123456788}", p -> false)
        .findings().get(0).path());
  }

  @Test
  void textsDifferByLineAndBytesByOffset() {
    ArtifactDiff diff = new ArtifactDiff()
        .text("report.txt", "accuracy 0.91\nrecords 120\n", "accuracy 0.90\nrecords 119\n", l -> l.contains("accuracy"))
        .bytes("model.bin", "abcd".getBytes(StandardCharsets.UTF_8), "abXd".getBytes(StandardCharsets.UTF_8), false)
        .bytes("same.bin", new byte[] {1, 2}, new byte[] {1, 2}, false);
    assertEquals(2, diff.findings().size(), diff.findings().toString());
    assertEquals("report.txt:2", diff.findings().get(0).path());
    assertEquals("model.bin@2", diff.findings().get(1).path());
    assertEquals(3, diff.compared().size());
  }

  @Test
  void anArtifactThatIsNotJsonIsRefusedNamingIt() {
    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> new ArtifactDiff().json("status.json", "{", "{}", p -> false));
    assertTrue(e.getMessage().contains("status.json"), e.getMessage());
  }
}
