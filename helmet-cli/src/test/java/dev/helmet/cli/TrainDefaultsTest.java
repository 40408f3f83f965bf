package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.simulation.CentralizedReference;
import dev.helmet.protocols.simulation.RunCost;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What {@code helmet train --algorithm NAME} costs with nothing else given, for every registered
 * algorithm (a new one is covered without a change here), and the non-private reference after the
 * private result.
 */
@org.junit.jupiter.api.Tag("integration")
class TrainDefaultsTest {
  /**
   * Party-rounds (rounds x parties) the defaults may plan at most: cross-silo's 1,250 rounds x 10
   * parties, some 2-12 minutes here. Before each algorithm had its own parties, smm planned 1,000 x
   * 1,000 (an ETA of 13 h) and cross-silo 1,250 x 1,000.
   */
  private static final long MOST_PARTY_ROUNDS = 12_500;

  /** {@code helmet train ARGS} as the command line parses it. */
  private static TrainCommand parsed(String... args) {
    CommandLine cl = Main.newCommandLine();
    String[] all = new String[args.length + 1];
    all[0] = "train";
    System.arraycopy(args, 0, all, 1, args.length);
    cl.parseArgs(all);
    return cl.getSubcommands().get("train").getCommand();
  }

  @Test
  void everyAlgorithmsDefaultsPlanBoundedWorkAndALongRunSaysUpFrontHowToShortenIt() {
    for (Algorithm a : Algorithms.all()) {
      TrainCommand cmd = parsed("--algorithm", a.id());
      // MNIST, train's default data set: 784 raw pixels (the default features), 10 classes.
      assertEquals("mnist", cmd.data.dataset);
      AlgorithmSpec spec = Trainer.configure(cmd.trainerSpec(), 784, 10, false);
      int parties = cmd.partition.parties(a);
      assertEquals(a.defaultParties(), parties, a.id());
      long work = (long) spec.rounds() * parties;
      assertTrue(work <= MOST_PARTY_ROUNDS, a.id() + ": " + spec.rounds() + " rounds x " + parties + " parties");
      String note = RunCost.note(spec, parties);
      if (work >= RunCost.LONG_RUN_PARTY_ROUNDS) {
        assertNotNull(note, a.id());
        assertTrue(note.contains(String.format("%,d round(s) x %,d parties", spec.rounds(), parties))
            && note.contains("--parties"), note);
      } else {
        assertNull(note, a.id());
      }
    }
  }

  @Test
  void smmWithNoEpsilonGivenSaysUpFrontThatItsDefaultsLearnLittleAndNamesTheDocumentedEpsilon() {
    // The default stays the common, safe 0.5 (a bare command never spends more); the note says why
    // the model will be near chance (10.44 % measured) and which eps the docs measure.
    TrainCommand bare = parsed("--algorithm", "smm");
    assertFalse(bare.privacy.epsilonGiven());
    assertEquals(0.5, bare.privacy.epsilon);
    String note = bare.algorithm.chosen(null).defaultEpsilonNote(bare.privacy.epsilon);
    assertNotNull(note);
    assertTrue(note.contains("--epsilon 3") && note.contains("docs/smm.md"), note);
    // Given explicitly, even the same value: the user chose it, and no note is due.
    assertTrue(parsed("--algorithm", "smm", "--epsilon", "0.5").privacy.epsilonGiven());
    assertNull(Algorithms.named("smm").defaultEpsilonNote(3));
    for (Algorithm a : Algorithms.all()) {
      if (!a.id().equals("smm")) {
        assertNull(a.defaultEpsilonNote(0.5), a.id() + "'s defaults learn at the common default eps");
      }
    }
  }

  @Test
  void aLongRunIsAnnouncedWithTheAlgorithmsOwnRoundOptions() {
    // smm at the old default of 1,000 parties: 1,000 rounds of them
    TrainCommand cmd = parsed("--algorithm", "smm", "--parties", "1000");
    AlgorithmSpec spec = Trainer.configure(cmd.trainerSpec(), 784, 10, false);
    String note = RunCost.note(spec, cmd.partition.parties(spec.algorithm()));
    assertNotNull(note);
    assertTrue(note.contains("1,000 round(s) x 1,000 parties = 1,000,000 party-rounds"), note);
    assertTrue(note.contains("--rounds") && note.contains("--dp-epochs") && note.contains("--parties"), note);
    assertTrue(note.contains(" h;"), "hours, said before it starts: " + note);
  }

  @Test
  void helpAndTheAlgorithmListShowEachAlgorithmsDefaultParties() {
    Cli help = Cli.run("train", "--help");
    String text = help.out.replaceAll("\\s+", " ");
    assertTrue(text.contains("Number of parties. Default: the algorithm's own: "), text);
    Cli list = Cli.run("algorithms", "--json");
    assertEquals(0, list.exit, list.toString());
    for (Algorithm a : Algorithms.all()) {
      assertTrue(text.matches(".*Default: the algorithm's own: [^.]*" + a.defaultParties() + " \\([^)]*"
          + java.util.regex.Pattern.quote(a.id()) + ".*"), a.id() + ": " + text);
      assertTrue(list.out.contains("\"name\" : \"" + a.id() + "\""), list.out);
    }
    assertTrue(list.out.contains("\"default_parties\""), list.out);
  }

  /**
   * wd-dp on iris: the private result's lines come before the reference's, whose optimality gap
   * (20,000 steps on 150 rows at most) is cheap enough to be solved unasked; the noise multiplier is
   * said to be per step.
   */
  @Test
  void thePrivateResultIsPrintedBeforeTheReferenceAndTheNoiseMultiplierIsPerStep() {
    Cli run = Cli.run("train", "--algorithm", "wd-dp", "--dataset", TestData.path("iris.csv").toString(),
        "--skip-rows", "1", "--parties", "3", "--steps", "20", "-q");
    assertEquals(0, run.exit, run.toString());
    List<String> lines = run.out.lines().toList();
    int privacy = index(lines, "  privacy ");
    int protocol = index(lines, "  protocol ");
    int reference = index(lines, "  reference ");
    assertTrue(privacy >= 0 && protocol > privacy && reference > protocol, run.out);
    assertTrue(index(lines, "  optimality gap ") > reference, run.out);
    assertTrue(lines.get(index(lines, "  optimality gap ")).contains("L_D(theta*)"), run.out);
    String noise = lines.get(index(lines, "  noise multiplier "));
    assertTrue(noise.contains("per step; 20 steps compose; 1 summation"), noise);
    assertFalse(noise.contains("round"), noise);
  }

  /**
   * wd-dp on 1,000 MNIST rows: solving for theta* could take 20,000 steps, 1,000 times the run's 20,
   * so it is skipped with a line saying how to ask for it; the reference itself is still trained.
   */
  @Test
  void anOptimalityGapThatCostsFarMoreThanTheRunIsSkippedSayingHowToAskForIt() throws Exception {
    Cli run = Cli.run("train", "--algorithm", "wd-dp", "--parties", "10", "--per-party", "100", "--steps", "20",
        "--json", "-q");
    assertEquals(0, run.exit, run.toString());
    JsonNode j = new ObjectMapper().readTree(run.out);
    assertTrue(j.has("reference_accuracy"), run.out);
    assertFalse(j.has("optimality_gap"), run.out);
    String skipped = j.get("optimality_gap_skipped").asText();
    assertTrue(skipped.contains("--optimality-gap") && skipped.contains("1000 times this run's work"), skipped);
    // the same rule, on the shapes it was made for
    AlgorithmSpec mnist = Trainer.configure(parsed("--algorithm", "wd-dp", "--steps", "20").trainerSpec(), 784, 10,
        false);
    assertNotNull(CentralizedReference.gapTooCostly(mnist, 60_000));
    AlgorithmSpec iris = Trainer.configure(parsed("--algorithm", "wd-dp", "--dataset",
        TestData.path("iris.csv").toString()).trainerSpec(), 4, 3, false);
    assertNull(CentralizedReference.gapTooCostly(iris, 150), "a tabular set's gap is solved unasked");
  }

  private static int index(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }
}
