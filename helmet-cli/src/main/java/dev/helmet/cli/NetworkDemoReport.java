package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.network.NetworkDemo;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.shared.CommonDefaults;
import dev.helmet.protocols.simulation.CentralizedReference;
import dev.helmet.transport.Coordinator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code helmet demo --network}: maps the options to {@link NetworkDemo} (helmet-experiments: a
 * coordinator and N participants on loopback over mutual TLS, in this process), writes the model,
 * and prints the outcome or its {@code --json}.
 */
final class NetworkDemoReport {
  private NetworkDemoReport() {}

  /**
   * @param algorithm the algorithm the session runs
   * @param algorithmConfig its settings from the command line (a configuration mapping)
   */
  static ObjectNode run(int parties, int perParty, String features, Path cacheDir, RunOptions run, Algorithm algorithm,
      ObjectNode algorithmConfig, PrintWriter out, PrintWriter err) throws Exception {
    Logging.configure(true);
    String summation = run.summationName();
    NetworkDemo.Settings settings = new NetworkDemo.Settings(parties, perParty, features, cacheDir, run.seed,
        run.threads(), run.dropout, run.colludingFraction, summation, run.ringBits(), run.reference,
        run.optimalityGap, algorithm, common -> AlgorithmOptions.configure(algorithm, algorithmConfig, common));
    NetworkDemo.Hooks hooks = new NetworkDemo.Hooks() {
      @Override
      public Progress progress() {
        return new ConsoleProgress(System.err, !run.quiet);
      }

      @Override
      public void note(String line) {
        if (!run.quiet) {
          err.println(line);
          err.flush();
        }
      }

      @Override
      public void warn(String line) {
        err.println(line);
        err.flush();
      }

      @Override
      public AutoCloseable statusPage(Coordinator c) throws IOException {
        return StatusPage.start(c, new StatusPage.Address("127.0.0.1", 0), null, err);
      }
    };
    NetworkDemo.Outcome o = NetworkDemo.run(settings, hooks, released -> {
      if (run.modelOut != null) {
        Trainer.write(released.model(), run.modelOut);
      }
      if (!run.json) {
        // The private result first: the reference after it may take long, and is only a comparison.
        printRun(released, parties, perParty, algorithm, summation, run.modelOut, out);
        out.flush();
      }
    });
    ObjectNode j = json(o, parties, perParty, algorithm, summation);
    if (run.json) {
      out.println(Json.print(j));
    } else {
      TrainerReport.printReference(o.reference(), out);
      out.printf("  wall time         %.1f s (session %.1f s)%n", o.wallSeconds(), o.session().seconds());
    }
    out.flush();
    return j;
  }

  /** The private result's lines: everything but the reference and the wall time. */
  private static void printRun(NetworkDemo.Outcome o, int parties, int perParty, Algorithm algorithm,
      String summation, Path modelOut, PrintWriter out) {
    ReleasedModel model = o.model();
    Map<String, Object> d = model.privacy().details();
    out.printf("Helmet demo: %d parties x %d MNIST images, %s (%d round(s)) through %s over gRPC%n", parties,
        perParty, algorithm.id(), o.spec().rounds(), summation);
    out.printf("  data              mnist; %s%n", o.partition().description());
    if (!o.stage().isRaw()) {
      out.printf("  features          %s, computed by each participant on its own images%n", o.stage().describe());
    }
    out.printf("  %-17s %s%n", algorithm.id(), o.spec().describe());
    out.printf("  test accuracy     %.2f %%  (macro-F1 %.3f)%n", 100 * o.test().accuracy(), o.test().macroF1());
    Trainer.printPrivacy(out, model.privacy());
    if (o.noiseMultiplier() != null) {
      out.printf("  noise multiplier  %.4f %s (%s accountant)%n", o.noiseMultiplier(),
          TrainerReport.noiseMultiplierMeaning(d, o.spec().rounds()), model.privacy().accountant());
    } else {
      out.printf("  mechanism         %s (%s accountant)%n", model.privacy().event(), model.privacy().accountant());
    }
    Coordinator.Result result = o.session();
    out.printf("  protocol          %s over gRPC, mutual TLS on loopback%s; %d of %d contributed; %d B per "
        + "participant%n", summation, Trainer.describe(result.parameters()), result.contributors().size(), parties,
        o.bytesPerParticipant());
    if (d.get("noise_sampler") != null) {
      out.printf("  noise             %s%n", d.get("noise_sampler"));
    }
    if (modelOut != null) {
      out.printf("  model             %s%n", modelOut);
    }
  }

  /** The {@code --json} object. */
  private static ObjectNode json(NetworkDemo.Outcome o, int parties, int perParty, Algorithm algorithm,
      String summation) {
    ReleasedModel model = o.model();
    Coordinator.Result result = o.session();
    ObjectNode j = Json.object();
    j.put("dataset", "mnist");
    j.put("features", o.stage().id());
    j.put("learner", o.spec().modelKind().id());
    j.put("algorithm", algorithm.id());
    j.put("rounds", o.spec().rounds());
    j.put("protocol", summation + " over gRPC (mutual TLS, loopback)");
    j.put("in_the_clear", false);
    j.put("parties", parties);
    j.put("per_party", perParty);
    j.put("test_accuracy", o.test().accuracy());
    j.put("test_macro_f1", o.test().macroF1());
    CentralizedReference.Outcome reference = o.reference();
    if (reference != null) {
      j.put("reference_accuracy", reference.evaluation().accuracy());
      if (reference.epochs() > 0) {
        j.put("reference_epochs", reference.epochs());
      }
      j.put("reference", reference.description());
      if (reference.optimum() != null) {
        j.put("optimality_gap", reference.gap());
        j.put("reference_optimality_gap", reference.referenceGap());
        j.put("optimum", reference.optimum());
      } else if (reference.gapSkipped() != null) {
        j.put("optimality_gap_skipped", reference.gapSkipped());
      }
    }
    Json.put(j, "epsilon", model.privacy().epsilon());
    j.put("delta", model.privacy().delta());
    j.put("epsilon_against", model.privacy().guarantees().get(0).against());
    j.put("epsilon_neighbours", model.privacy().guarantees().get(0).neighbours());
    j.put("target_epsilon", CommonDefaults.EPSILON);
    j.put("honest_fraction", CommonDefaults.HONEST_FRACTION);
    if (o.noiseMultiplier() != null) {
      j.put("noise_multiplier", o.noiseMultiplier());
    } else {
      j.putNull("noise_multiplier");
    }
    j.put("contributors", result.contributors().size());
    j.put("dropped", result.dropped().size());
    j.put("bytes_per_party", o.bytesPerParticipant());
    j.put("server_bytes", result.serverBytes());
    j.put("session_seconds", result.seconds());
    j.put("wall_seconds", o.wallSeconds());
    j.set("summation_parameters", Json.MAPPER.valueToTree(result.parameters()));
    j.set("privacy", ModelFile.ledgerToJson(model.privacy()));
    return j;
  }
}
