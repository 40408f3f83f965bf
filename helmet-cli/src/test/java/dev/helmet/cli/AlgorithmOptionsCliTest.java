package dev.helmet.cli;

import static dev.helmet.cli.CliAssertions.assertInvalid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Parameter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The algorithms' options as a user meets them: help that gives every algorithm's own text and
 * default under a shared flag (and only the chosen one's with {@code --algorithm NAME --help}), old
 * flag names that still do what the new ones do, and refusals that name the flag to use instead.
 */
class AlgorithmOptionsCliTest {
  private static final String IRIS = TestData.path("iris.csv").toString();

  /** {@code helmet train ARGS} as the command line parses it. */
  private static TrainCommand parsed(String... args) {
    CommandLine cl = Main.newCommandLine();
    String[] all = new String[args.length + 1];
    all[0] = "train";
    System.arraycopy(args, 0, all, 1, args.length);
    cl.parseArgs(all);
    return cl.getSubcommands().get("train").getCommand();
  }

  /** The canonical settings the command line makes for iris-shaped data (4 features, 3 classes or a target). */
  private static ObjectNode settings(boolean regression, String... args) {
    return Trainer.configure(parsed(args).trainerSpec(), 4, regression ? 1 : 3, regression).toConfig();
  }

  /**
   * Each option's block of a help text (its rows up to the next option), whitespace removed: picocli
   * wraps descriptions at spaces, hyphens and dots.
   */
  private static Map<String, String> blocks(String help) {
    Map<String, String> out = new LinkedHashMap<>();
    String name = null;
    StringBuilder text = new StringBuilder();
    for (String line : help.lines().toList()) {
      if (line.matches("^ {2}-\\S.*|^ {6}--\\S.*")) {
        if (name != null) {
          out.put(name, text.toString());
        }
        String first = line.trim().split("[\\s=,]")[0];
        name = first.startsWith("--[no-]") ? "--" + first.substring(7) : first;
        text = new StringBuilder();
      }
      if (name != null) {
        text.append(line.replaceAll("\\s+", ""));
      }
    }
    if (name != null) {
      out.put(name, text.toString());
    }
    return out;
  }

  private static String squash(String s) {
    return s.replaceAll("\\s+", "");
  }

  private static String help(String... args) {
    Cli c = Cli.run(args);
    assertEquals(0, c.exit, c.toString());
    return c.out;
  }

  @Test
  void trainHelpGivesEveryAlgorithmsOwnTextAndDefaultUnderASharedFlag() {
    Map<String, String> all = blocks(help("train", "--help"));
    for (Algorithm a : Algorithms.all()) {
      for (Parameter p : a.parameters()) {
        String block = all.get(p.flag());
        assertNotNull(block, p.flag() + " in train --help");
        assertTrue(block.contains(squash(a.id())), p.flag() + " names " + a.id() + ": " + block);
        assertTrue(block.contains(squash(p.description())), p.flag() + " gives " + a.id() + "'s text: " + block);
        assertTrue(block.contains(squash(p.defaultValue())), p.flag() + " gives " + a.id() + "'s default: " + block);
      }
    }
    // the ones a newcomer found showing one algorithm's default or values only
    assertTrue(all.get("--learner").contains("cross-silo:themodel:mlporsoftmax.Default:mlp."), all.get("--learner"));
    assertTrue(all.get("--sampling-rate").contains("Default:0.004.") && all.get("--sampling-rate")
        .contains("Default:0.008."), all.get("--sampling-rate"));
    assertTrue(all.get("--optimizer").contains("Default:dp-flsgd;smmadam;cross-siloadam."), all.get("--optimizer"));
    assertTrue(all.get("--dp-epochs").contains("Default:dp-fl5;smm4;cross-silo10."), all.get("--dp-epochs"));
    assertTrue(all.get("--noise-split").contains("trusted-hardware"), all.get("--noise-split"));
    assertTrue(all.get("--clip").contains("Default:10.0.") && all.get("--clip").contains("Default:1."),
        all.get("--clip"));
    // related settings under other flags point at each other; old names are said to be aliases
    assertTrue(all.get("--epochs").contains("Fordp-fl,smmandcross-silo:--dp-epochs."), all.get("--epochs"));
    assertTrue(all.get("--dp-epochs").contains("Forhelmet:--epochs."), all.get("--dp-epochs"));
    assertTrue(all.get("--radius").contains("--wd-dp-radius:wd-dp'soldnameforit,keptasanalias."),
        all.get("--radius"));
    assertTrue(all.get("--accountant").contains("--wd-dp-accountant:wd-dp'soldnameforit,keptasanalias."),
        all.get("--accountant"));
    assertTrue(all.get("--batch-size").contains("--batch:cross-silo'soldnameforit,keptasanalias."),
        all.get("--batch-size"));
    assertFalse(all.containsKey("--wd-dp-radius"), "an old name is not listed as an option of its own");
  }

  @Test
  void trainWithAnAlgorithmsHelpListsItsOptionsAloneWithItsDefaults() {
    for (Algorithm a : Algorithms.all()) {
      String text = help("train", "--algorithm", a.id(), "--help");
      Map<String, String> shown = blocks(text);
      for (Parameter p : a.parameters()) {
        assertTrue(shown.get(p.flag()).contains(squash(a.id() + ": " + p.description() + ". Default: "
            + p.defaultValue() + ".")), a.id() + " " + p.flag() + ": " + shown.get(p.flag()));
      }
      for (Algorithm other : Algorithms.all()) {
        for (Parameter p : other.parameters()) {
          boolean mine = a.parameters().stream().anyMatch(q -> q.flag().equals(p.flag()));
          assertEquals(mine, shown.containsKey(p.flag()), a.id() + "'s help and " + p.flag());
          assertEquals(mine, text.contains("[" + p.flag() + "=") || text.contains("[--[no-]" + p.flag().substring(2)
              + "]"), a.id() + "'s synopsis and " + p.flag());
        }
      }
      // every other option is still there
      assertTrue(shown.containsKey("--epsilon") && shown.containsKey("--parties") && shown.containsKey("--summation"),
          text);
      assertTrue(shown.get("--algorithm").contains(squash(a.id() + " here")), shown.get("--algorithm"));
    }
    Map<String, String> smm = blocks(help("train", "--algorithm", "smm", "--help"));
    assertTrue(smm.get("--dp-epochs").contains("Default:4."), smm.get("--dp-epochs"));
    assertFalse(smm.get("--dp-epochs").contains("dp-fl"), smm.get("--dp-epochs"));
    Map<String, String> demo = blocks(help("demo", "--algorithm", "cross-silo", "--help"));
    assertTrue(demo.get("--learner").contains("cross-silo:themodel:mlporsoftmax.Default:mlp."), demo.get("--learner"));
    assertFalse(demo.containsKey("--lambda"), demo.keySet().toString());
  }

  @Test
  void anOldFlagDoesWhatItsNewNameDoes() {
    String[] wd = {"--algorithm", "wd-dp", "--dataset", IRIS, "--target-bounds", "0:10"};
    ObjectNode radius = settings(true, concat(wd, "--radius", "3"));
    assertEquals(radius, settings(true, concat(wd, "--wd-dp-radius", "3")));
    assertEquals(3.0, radius.get("wd_dp").get("radius").asDouble(), radius.toString());
    assertNotEquals(radius, settings(true, wd), "the radius took effect");
    String[] wdClass = {"--algorithm", "wd-dp", "--dataset", IRIS};
    ObjectNode accountant = settings(false, concat(wdClass, "--accountant", "rdp"));
    assertEquals(accountant, settings(false, concat(wdClass, "--wd-dp-accountant", "rdp")));
    assertEquals("rdp", accountant.get("wd_dp").get("accountant").asText(), accountant.toString());
    String[] swor = {"--algorithm", "cross-silo", "--dataset", IRIS, "--sampling", "swor"};
    ObjectNode batch = settings(false, concat(swor, "--batch-size", "20"));
    assertEquals(batch, settings(false, concat(swor, "--batch", "20")));
    assertEquals(20, batch.get("crosssilo").get("batch").asInt(), batch.toString());
    // the shared flags set each algorithm's own setting
    assertEquals(4.0, settings(false, "--dataset", IRIS, "--radius", "4").get("learner").get("radius").asDouble());
    assertEquals(6, settings(false, "--dataset", IRIS, "--batch-size", "6").get("learner").get("batch_size").asInt());
    // one setting under both names, and an old name for an algorithm it never belonged to, are refused
    var twice = assertThrows(IllegalArgumentException.class, () -> settings(true, concat(wd, "--radius", "3",
        "--wd-dp-radius", "3")));
    assertTrue(twice.getMessage().contains("--wd-dp-radius is the old name of --radius; give one of them"),
        twice.getMessage());
    var other = assertThrows(IllegalArgumentException.class, () -> settings(false, "--algorithm", "dp-fl",
        "--dataset", IRIS, "--wd-dp-accountant", "rdp"));
    assertTrue(other.getMessage().startsWith("--wd-dp-accountant is a parameter of wd-dp (the old name of "
        + "--accountant); it does not apply to --algorithm dp-fl"), other.getMessage());
  }

  @Test
  void privacySworTakesBatchSizeAndItsOldName() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String[] args = {"privacy", "swor", "--records", "5000", "--malicious-records", "2000", "--json"};
    Cli now = Cli.run(concat(args, "--batch-size", "40"));
    Cli old = Cli.run(concat(args, "--batch", "40"));
    assertEquals(0, now.exit, now.toString());
    JsonNode a = json.readTree(now.out);
    assertEquals(json.readTree(old.out), a);
    assertNotEquals(json.readTree(Cli.run(concat(args, "--batch-size", "80")).out), a, "the batch took effect");
  }

  @Test
  void aRefusedFlagNamesEveryAlgorithmThatTakesItAndTheFlagToUse() {
    String[] iris = {"train", "--dataset", IRIS, "--skip-rows", "1", "--parties", "3", "--quiet"};
    assertInvalid(Cli.run(concat(iris, "--algorithm", "dp-fl", "--epochs", "3")), "--epochs is a parameter of helmet; "
        + "it does not apply to --algorithm dp-fl; for dp-fl use --dp-epochs: passes over the data");
    assertInvalid(Cli.run(concat(iris, "--dp-epochs", "3")), "--dp-epochs is a parameter of dp-fl, smm and "
        + "cross-silo; it does not apply to --algorithm helmet; for helmet use --epochs: local training epochs");
    assertInvalid(Cli.run(concat(iris, "--rounds", "3")), "--rounds is a parameter of dp-fl, smm and cross-silo; it "
        + "does not apply to --algorithm helmet (`helmet algorithms` lists each algorithm's parameters)");
    assertInvalid(Cli.run(concat(iris, "--algorithm", "dpfl")), "unknown algorithm 'dpfl'; known: helmet, dp-fl, "
        + "wd-dp, smm, cross-silo (did you mean dp-fl?)");
    assertInvalid(Cli.run(concat(iris, "--summation", "dca", "--compute-nodes", "1")),
        "--compute-nodes must be >= 2 for --summation dca");
  }

  @Test
  void theAlgorithmListGivesOldNames() throws Exception {
    Cli list = Cli.run("algorithms", "--json");
    assertEquals(0, list.exit, list.toString());
    for (JsonNode a : new ObjectMapper().readTree(list.out).get("algorithms")) {
      for (JsonNode p : a.get("parameters")) {
        if (p.get("option").asText().equals("--radius") && a.get("name").asText().equals("wd-dp")) {
          assertEquals("[\"--wd-dp-radius\"]", p.get("old_options").toString());
          assertEquals("wddp.radius", p.get("key").asText());
        }
      }
      if (a.get("name").asText().equals("wd-dp")) {
        assertEquals("{\"wd_dp\":\"wddp\"}", a.get("old_keys").toString());
      }
    }
    Cli text = Cli.run("algorithms");
    assertTrue(text.out.contains("(old name --wd-dp-accountant, kept as an alias)"), text.out);
  }

  private static String[] concat(String[] base, String... extra) {
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }
}
