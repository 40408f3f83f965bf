package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.model.ModelFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helmet demo --network} for every registered algorithm (a new one is covered without a
 * change here), small: 3 participants of 20 MNIST images each on raw pixels, at most 2 rounds, the
 * reference without the optimality gap's solve. Each session completes, the summary prints in full
 * (smm's ledger has no single noise multiplier; the demo used to crash on it after the session) and
 * the written model reads back.
 */
@org.junit.jupiter.api.Tag("integration")
class NetworkDemoEveryAlgorithmTest {
  @Test
  void everyRegisteredAlgorithmRunsTheNetworkDemoToItsSummary(@TempDir Path dir) throws Exception {
    for (Algorithm a : Algorithms.all()) {
      Path model = dir.resolve(a.id() + ".json");
      List<String> args = new ArrayList<>(List.of("demo", "--network", "--algorithm", a.id(), "--parties", "3",
          "--per-party", "20", "--features", "raw", "--no-optimality-gap", "-q", "-o", model.toString()));
      // The algorithm's own round count, where it has one, kept to 2 (its parameter <section>.rounds).
      for (Parameter p : a.parameters()) {
        if (p.path().endsWith(".rounds") && !p.path().startsWith("learner.")) {
          args.addAll(List.of(p.flag(), "2"));
        }
      }
      Cli run = Cli.run(args.toArray(String[]::new));
      assertEquals(0, run.exit, a.id() + ": " + run);
      String out = run.out;
      assertTrue(out.contains(" through secagg+ over gRPC"), a.id() + ": " + out);
      for (String line : List.of("  test accuracy ", "  privacy ", "  protocol ", "  reference ", "  wall time ")) {
        assertTrue(out.contains("\n" + line), a.id() + " prints" + line + ": " + out);
      }
      assertTrue(out.contains("  noise multiplier ") || out.contains("  mechanism "), a.id() + ": " + out);
      assertTrue(out.indexOf("  protocol ") < out.indexOf("  reference "), "the private result first: " + out);
      assertTrue(out.contains("3 of 3 contributed"), a.id() + ": " + out);
      assertEquals(a.id(), ModelFile.read(model).provenance().get("algorithm"), a.id());
    }
  }
}
