package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.dpfl.DpFl;
import dev.helmet.protocols.dpfl.DpFlSimulation;
import dev.helmet.secagg.summation.SecureSummation;
import java.io.PrintWriter;
import java.util.SplittableRandom;

/** {@code helmet train --protocol dp-fl}: federated DP-SGD on the same data and parties as Helmet. */
final class DpFlTrainer {
  private DpFlTrainer() {}

  static ObjectNode train(DataOptions data, PartitionStrategy strategy, ModelOptions model, PrivacyOptions privacy,
      RunOptions run, DpFlOptions o, PrintWriter out, PrintWriter err) {
    long start = System.nanoTime();
    if (!model.learner.equalsIgnoreCase("softmax")) {
      throw new IllegalArgumentException("dp-fl trains the softmax model; --learner " + model.learner
          + " is not supported");
    }
    if (privacy.groupSize != 1 || privacy.minContributors != 0 || run.dropout != 0) {
      throw new IllegalArgumentException("dp-fl supports record-level privacy without dropouts (no --group-size, "
          + "--min-contributors or --dropout)");
    }
    ConsoleProgress progress = new ConsoleProgress(System.err, !run.quiet);
    if (!run.quiet) {
      err.println("loading " + data.dataset + " ...");
      err.flush();
    }
    BuiltinDataset.TrainTest tt = data.load(run.seed);
    SplittableRandom root = new SplittableRandom(run.seed);
    Partition partition = strategy.split(tt.train(), root.split());
    Preprocessing pre = model.preprocessing();
    boolean simulated = o.summation.equalsIgnoreCase("simulated");
    SecureSummation summation = simulated ? null : run.summation(o.summation, 1 - privacy.honestFraction);
    String summationName = simulated ? "simulated" : summation.name();
    boolean inTheClear = simulated || summation.revealsInputs();
    DpFl.Config c = o.config(privacy.epsilon, privacy.delta, privacy.honestFraction, run.ringBits);
    DpFlSimulation.Result r = DpFlSimulation.run(tt.train(), partition, pre, c,
        simulated ? DpFlSimulation.Mode.AGGREGATE : DpFlSimulation.Mode.PER_PARTY, summation, NoiseFactory.secure(),
        root.nextLong(), run.threads(), progress);
    DesignMatrix test = pre.design(tt.test());
    Evaluation eval = Evaluation.of(test.labels(), r.model().predict(test), tt.train().numClasses());
    double wall = (System.nanoTime() - start) / 1e9;
    ObjectNode j = Json.object();
    j.put("dataset", data.dataset);
    j.put("learner", "softmax");
    j.put("protocol", "dp-fl");
    j.put("summation", summationName);
    j.put("in_the_clear", inTheClear);
    j.put("parties", partition.count());
    j.put("partition", partition.description());
    j.put("test_accuracy", eval.accuracy());
    j.put("test_macro_f1", eval.macroF1());
    Json.put(j, "epsilon", r.epsilon());
    j.put("delta", privacy.delta);
    j.put("target_epsilon", privacy.epsilon);
    j.put("accountant", c.accountant());
    j.put("noise_multiplier", r.noiseMultiplier());
    j.put("noise_split", c.split().id());
    j.put("honest_fraction", privacy.honestFraction);
    j.put("sampling_rate", c.samplingRate());
    j.put("clip", c.clip());
    j.put("learning_rate", c.learningRate());
    j.put("rounds", r.rounds());
    j.put("bytes_per_party", r.bytesPerParty());
    j.put("server_bytes", r.serverBytes());
    j.put("summation_seconds", r.summationSeconds());
    j.put("wall_seconds", wall);
    j.put("neighbours", c.neighbours().id());
    j.put("noise_sampler", DpFl.Plan.NOISE_SAMPLER);
    j.set("privacy", dev.helmet.protocols.model.ModelFile.ledgerToJson(r.ledger()));
    if (run.json) {
      out.println(Json.print(j));
    } else {
      out.printf("DP-FL (federated DP-SGD): %d parties, softmax%n", partition.count());
      out.printf("  data              %s; %s%n", data.dataset, partition.description());
      out.printf("  test accuracy     %.2f %%  (macro-F1 %.3f)%n", 100 * eval.accuracy(), eval.macroF1());
      Trainer.printPrivacy(out, r.ledger());
      out.printf("  accounting        %s accountant; noise split %s (honest fraction %s); %s%n", c.accountant(),
          c.split().id(), Trainer.fmt(privacy.honestFraction), DpFl.Plan.NOISE_SAMPLER);
      out.printf("  training          %d rounds, sampling rate %s, clip %s, learning rate %s; noise multiplier %.4f%n",
          r.rounds(), Trainer.fmt(c.samplingRate()), Trainer.fmt(c.clip()), Trainer.fmt(c.learningRate()),
          r.noiseMultiplier());
      if (simulated) {
        out.printf("  communication     none: %d rounds simulated in aggregate (no messages; for experiments only)%n",
            r.rounds());
      } else {
        out.printf("  communication     %s, %d rounds: %d B per party, %d B at the server%s%n", summationName,
            r.rounds(), r.bytesPerParty(), r.serverBytes(),
            inTheClear ? " (IN THE CLEAR: for comparison only)" : "");
      }
      out.printf("  wall time         %.1f s (summation %.1f s)%n", wall, r.summationSeconds());
    }
    out.flush();
    return j;
  }
}
