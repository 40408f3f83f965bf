package dev.helmet.protocols.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One name per setting: wd-dp's section {@code wddp:} reads as its old name {@code wd_dp:} did, a
 * parameter's path finds its value under either, old flags never shadow another parameter's flag,
 * and an unknown algorithm is named with the registered ones and the likely one.
 */
class ParameterNamesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Common COMMON = new Common(1, 1e-5, 0.5, Protection.record(), 0, 4, 3);

  private static AlgorithmSpec wdDp(String json) throws Exception {
    return Algorithms.named("wd-dp").configure(new StrictNode("test", JSON.readTree(json),
        IllegalArgumentException::new), COMMON);
  }

  @Test
  void wdDpsSectionReadsTheSameUnderItsNewAndItsOldName() throws Exception {
    String settings = "{\"steps\": 7, \"accountant\": \"pld\", \"weighting\": \"uniform\"}";
    AlgorithmSpec now = wdDp("{\"wddp\": " + settings + "}");
    AlgorithmSpec old = wdDp("{\"wd_dp\": " + settings + "}");
    assertEquals(old.toConfig(), now.toConfig());
    assertEquals(7, now.toConfig().get("wd_dp").get("steps").asInt(), now.toConfig().toString());
    assertEquals("pld", now.toConfig().get("wd_dp").get("accountant").asText());
    assertNotEquals(wdDp("{}").toConfig(), now.toConfig(), "the settings took effect");
    var both = assertThrows(IllegalArgumentException.class, () -> wdDp("{\"wddp\": {\"steps\": 7}, \"wd_dp\": "
        + "{\"steps\": 8}}"));
    assertTrue(both.getMessage().contains("wd_dp is the old name of wddp; give one of them"), both.getMessage());
    var unknown = assertThrows(IllegalArgumentException.class, () -> wdDp("{\"wddp\": {\"step\": 7}}"));
    assertTrue(unknown.getMessage().contains("unknown key wddp.step"), unknown.getMessage());
  }

  @Test
  void aParametersPathFindsItsValueUnderTheSectionsOldName() throws Exception {
    Algorithm a = Algorithms.named("wd-dp");
    Parameter steps = a.parameters().stream().filter(p -> p.flag().equals("--steps")).findFirst().orElseThrow();
    assertEquals("wddp.steps", steps.path());
    assertEquals(9, a.setting(JSON.readTree("{\"wd_dp\": {\"steps\": 9}}"), steps.path()).asInt());
    assertEquals(11, a.setting(JSON.readTree("{\"wddp\": {\"steps\": 11}}"), steps.path()).asInt());
    assertNull(a.setting(JSON.readTree("{}"), steps.path()));
    // the canonical form, which keeps the old name on the wire, is found too
    ObjectNode canonical = wdDp("{\"wddp\": {\"steps\": 5}}").toConfig();
    assertEquals(5, a.setting(canonical, steps.path()).asInt());
    // an algorithm without old names reads only its own
    assertNull(Algorithms.named("dp-fl").setting(JSON.readTree("{\"dp_fl\": {\"rounds\": 3}}"), "dpfl.rounds"));
  }

  @Test
  void anUnknownAlgorithmIsNamedWithTheKnownOnesAndTheLikelyOne() {
    var typo = assertThrows(IllegalArgumentException.class, () -> Algorithms.named("dpfl"));
    assertTrue(typo.getMessage().startsWith("unknown algorithm 'dpfl'; known: helmet, dp-fl"), typo.getMessage());
    assertTrue(typo.getMessage().endsWith(" (did you mean dp-fl?)"), typo.getMessage());
    assertEquals(" (did you mean wd-dp?)", Algorithms.didYouMean("wd_dp"));
    assertEquals(" (did you mean cross-silo?)", Algorithms.didYouMean("crossilo"));
    assertEquals(" (did you mean helmet?)", Algorithms.didYouMean("Helmet"));
    assertEquals("", Algorithms.didYouMean("nonesuch"));
    assertEquals("", Algorithms.didYouMean("x"));
  }

  @Test
  void noOldFlagIsAnotherParametersFlag() {
    Set<String> flags = new HashSet<>();
    Algorithms.all().forEach(a -> a.parameters().forEach(p -> flags.add(p.flag())));
    for (Algorithm a : Algorithms.all()) {
      for (Parameter p : a.parameters()) {
        for (String old : p.aliases()) {
          assertFalse(flags.contains(old), a.id() + ": " + old + " is also a flag");
        }
      }
    }
    Parameter y = new Parameter("x.y", "--y", Parameter.Type.TEXT, "1", "y");
    assertThrows(IllegalArgumentException.class, () -> y.withAliases("--y"));
    assertThrows(IllegalArgumentException.class, () -> y.withAliases("y-old"));
    assertEquals("y", y.key());
  }
}
