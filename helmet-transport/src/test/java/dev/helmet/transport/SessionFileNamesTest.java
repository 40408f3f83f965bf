package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session file names wd-dp's section {@code wddp:}, like {@code dpfl:} and {@code crosssilo:};
 * {@code wd_dp:}, its old name, publishes the same settings. A mistyped algorithm is named with the
 * registered ones and the likely one.
 */
class SessionFileNamesTest {
  private static Path file(Path dir, String... lines) throws Exception {
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n", "name: t", "dataset: iris", "parties: 3", "features: 4",
        "labels: [0, 1, 2]", "plaintext: true", String.join("\n", lines), ""));
    return yaml;
  }

  @Test
  void wdDpsSectionPublishesTheSameSettingsUnderItsNewAndItsOldName(@TempDir Path dir) throws Exception {
    var now = SessionFile.read(file(dir, "algorithm: wd-dp", "wddp: {steps: 7, weighting: uniform}"));
    var old = SessionFile.read(file(dir, "algorithm: wd-dp", "wd_dp: {steps: 7, weighting: uniform}"));
    var none = SessionFile.read(file(dir, "algorithm: wd-dp"));
    assertEquals(old.config().getAlgorithmConfig(), now.config().getAlgorithmConfig());
    var published = new ObjectMapper().readTree(now.config().getAlgorithmConfig().toStringUtf8());
    assertEquals(7, published.get("wd_dp").get("steps").asInt(), published.toString());
    assertEquals("uniform", published.get("wd_dp").get("weighting").asText(), published.toString());
    assertTrue(!none.config().getAlgorithmConfig().equals(now.config().getAlgorithmConfig()), "the section is read");
    var both = assertThrows(SessionFile.SessionFileException.class, () -> SessionFile.read(file(dir,
        "algorithm: wd-dp", "wddp: {steps: 7}", "wd_dp: {steps: 7}")));
    assertTrue(both.getMessage().contains("wd_dp is the old name of wddp; give one of them"), both.getMessage());
  }

  @Test
  void aMistypedAlgorithmIsNamedWithTheKnownOnes(@TempDir Path dir) throws Exception {
    var e = assertThrows(SessionFile.SessionFileException.class, () -> SessionFile.read(file(dir,
        "algorithm: dpfl")));
    // (this module's tests register a toy algorithm too)
    assertTrue(e.getMessage().contains("session.yaml: algorithm names an unknown algorithm 'dpfl'; known: "),
        e.getMessage());
    assertTrue(e.getMessage().contains("helmet, dp-fl, wd-dp, smm, cross-silo"), e.getMessage());
    assertTrue(e.getMessage().endsWith(" (did you mean dp-fl?)"), e.getMessage());
  }
}
