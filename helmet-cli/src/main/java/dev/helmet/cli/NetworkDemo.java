package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.protocols.helmet.HelmetDefaults;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.Participant;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.SessionPlan;
import dev.helmet.transport.Tls;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.LearnerSpec;
import dev.helmet.transport.wire.PrivacySpec;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code helmet demo --network}: a coordinator and N participants on loopback, each participant
 * with its own TLS certificate, channel and 60 MNIST images, running the networked protocol exactly
 * as separate machines would (in one process, for convenience). A temporary folder holds the
 * certificates and the coordinator's database; it is deleted afterwards.
 */
final class NetworkDemo {
  private NetworkDemo() {}

  /** @param dpfl the DP-FL options for a federated DP-SGD session, or null for blind averaging */
  static ObjectNode run(int parties, int perParty, Path cacheDir, RunOptions run, DpFlOptions dpfl, PrintWriter out,
      PrintWriter err) throws Exception {
    long start = System.nanoTime();
    Logging.configure(true);
    if (!run.quiet) {
      err.println("loading mnist ...");
      err.flush();
    }
    BuiltinDataset.TrainTest mnist = BuiltinDataset.byId("mnist")
        .load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache());
    Dataset train = mnist.train();
    Partition partition = new PartitionStrategy.Iid(parties, perParty).split(train, new SplittableRandom(run.seed));
    Path tmp = Files.createTempDirectory("helmet-network-demo");
    try {
      Certificates.create(tmp.resolve("certs"), List.of("localhost", "127.0.0.1"), parties, Duration.ofDays(1));
      LearnerKind kind = LearnerKind.SOFTMAX;
      int minContributors = parties - (int) Math.floor(run.dropout * parties + 1e-9);
      double colluding = run.colludingFraction != null ? run.colludingFraction : 1 - HelmetDefaults.HONEST_FRACTION;
      SessionConfig.Builder builder = SessionConfig.newBuilder();
      if (dpfl != null) {
        if (dpfl.summation.equals("simulated") || dpfl.summation.equals("plain")) {
          throw new IllegalArgumentException("--summation " + dpfl.summation + " has no network version; the "
              + "networked session sums through secagg+");
        }
        // The same defaults as `train --protocol dp-fl` (replace-one neighbours, the PLD accountant).
        var dc = dpfl.config(HelmetDefaults.EPSILON, HelmetDefaults.DELTA, HelmetDefaults.HONEST_FRACTION, run.ringBits);
        builder.setAlgorithm("dp-fl").setDpfl(dev.helmet.transport.wire.DpFlSpec.newBuilder()
            .setSamplingRate(dc.samplingRate()).setGradClip(dc.clip()).setRounds(dc.rounds())
            .setLearningRate(dc.learningRate()).setNoiseSplit(dc.split().id()).setAccountant(dc.accountant())
            .setNeighbours(dc.neighbours().id())
            .setExpectedBatch(Double.isNaN(dc.expectedBatch()) ? 0 : dc.expectedBatch()));
      }
      SessionConfig config = builder
          .setName("network-demo")
          .setDataset("mnist-demo")
          .setProtocol("secagg+")
          .setParties(parties)
          .setMinContributors(minContributors)
          .setColludingFraction(colluding)
          .setMaxPoints(SessionFile.DEFAULT_MAX_POINTS)
          .setNoise(run.noiseKind().id())
          .setRingBits(run.ringBits)
          .setFeatures(train.dimension())
          .addAllLabels(train.labelSet().names())
          .setLearner(LearnerSpec.newBuilder().setKind(kind.id()).setLambda(HelmetDefaults.lambda(kind))
              .setRadius(HelmetDefaults.radius(kind)).setEpochs(HelmetDefaults.epochs(kind))
              .setBatchSize(HelmetDefaults.BATCH_SIZE).setSmoothness("tight").setHuberH(0.1)
              .setClipBound(HelmetDefaults.CLIP_BOUND).setNormalise(HelmetDefaults.NORMALISE))
          .setPrivacy(PrivacySpec.newBuilder().setEpsilon(HelmetDefaults.EPSILON).setDelta(HelmetDefaults.DELTA)
              .setHonestFraction(HelmetDefaults.HONEST_FRACTION).setProtection("record").setGroupSize(1))
          .setDeadlines(Deadlines.newBuilder().setEnrolmentSeconds(300).setRoundSeconds(120))
          .setSessionId(ByteString.copyFrom(new byte[16]))
          .setGraphNonceCommitment(ByteString.copyFrom(new byte[32]))
          .build();
      Path certs = tmp.resolve("certs");
      Coordinator.Settings settings = new Coordinator.Settings(config, "127.0.0.1", 0,
          Tls.Files.in(certs, "coordinator"), "jdbc:h2:file:" + tmp.resolve("db").toAbsolutePath(), "", "",
          HelmetDefaults.EPSILON, HelmetDefaults.DELTA, 16);
      ConsoleProgress progress = new ConsoleProgress(System.err, !run.quiet);
      Coordinator.Result result;
      List<Participant.Result> results = new ArrayList<>();
      try (Coordinator c = Coordinator.start(settings)) {
        progress.start("network: coordinator on 127.0.0.1:" + c.port() + " (mutual TLS), " + parties
            + " participants", parties);
        ExecutorService pool = Executors.newFixedThreadPool(parties);
        try {
          List<Future<Participant.Result>> fs = new ArrayList<>();
          for (int i = 0; i < parties; i++) {
            int k = i;
            Dataset shard = train.subset(partition.indices(k), "mnist shard " + (k + 1));
            fs.add(pool.submit(() -> {
              try {
                return Participant.run(new Participant.Settings("127.0.0.1:" + c.port(),
                    Tls.Files.in(certs, "participant-" + (k + 1)), Participant.Policy.upTo(HelmetDefaults.EPSILON),
                    shard, null, 0));
              } finally {
                progress.advance(1);
              }
            }));
          }
          result = c.await(config.getDeadlines().getEnrolmentSeconds()
              + (5L * SessionPlan.rounds(config) + 5) * config.getDeadlines().getRoundSeconds(), TimeUnit.SECONDS);
          for (Future<Participant.Result> f : fs) {
            try {
              results.add(f.get(60, TimeUnit.SECONDS));
            } catch (java.util.concurrent.ExecutionException e) {
              err.println("helmet: a participant failed: " + e.getCause().getMessage());
            }
          }
        } finally {
          pool.shutdownNow();
          progress.finish();
        }
      }
      if (!result.completed()) {
        throw new IllegalStateException("the networked session aborted: " + result.reason() + "; nothing was released");
      }
      ReleasedModel model = result.model();
      DesignMatrix test = SessionPlan.preprocessing(config).design(mnist.test());
      LinearModel w = model.weights();
      Evaluation eval = Evaluation.of(test.labels(), w.predict(test), train.numClasses());
      Evaluation reference = null;
      if (run.reference && dpfl == null) {
        progress.start("training the non-private centralized reference", 1);
        var learner = SessionPlan.learner(config);
        LinearModel ref = learner.train(SessionPlan.preprocessing(config).design(train, partition.pooled()),
            new SplittableRandom(run.seed));
        reference = Evaluation.of(test.labels(), ref.predict(test), train.numClasses());
        progress.advance(1);
        progress.finish();
      }
      if (run.modelOut != null) {
        Trainer.write(model, run.modelOut);
      }
      double wall = (System.nanoTime() - start) / 1e9;
      long sent = 0;
      long received = 0;
      for (Participant.Result r : results) {
        sent += r.bytesSent();
        received += r.bytesReceived();
      }
      ObjectNode j = Json.object();
      j.put("dataset", "mnist");
      j.put("learner", kind.id());
      j.put("algorithm", dpfl == null ? "helmet" : "dp-fl");
      j.put("rounds", SessionPlan.rounds(config));
      j.put("protocol", "secagg+ over gRPC (mutual TLS, loopback)");
      j.put("in_the_clear", false);
      j.put("parties", parties);
      j.put("per_party", perParty);
      j.put("test_accuracy", eval.accuracy());
      j.put("test_macro_f1", eval.macroF1());
      if (reference != null) {
        j.put("reference_accuracy", reference.accuracy());
      }
      Json.put(j, "epsilon", model.privacy().epsilon());
      j.put("delta", model.privacy().delta());
      j.put("target_epsilon", HelmetDefaults.EPSILON);
      j.put("honest_fraction", HelmetDefaults.HONEST_FRACTION);
      Map<String, Object> d = model.privacy().details();
      j.put("noise_multiplier", ((Number) d.get("noise_multiplier")).doubleValue());
      j.put("contributors", result.contributors().size());
      j.put("dropped", result.dropped().size());
      j.put("bytes_per_party", results.isEmpty() ? 0 : (sent + received) / results.size());
      j.put("server_bytes", result.serverBytes());
      j.put("session_seconds", result.seconds());
      j.put("wall_seconds", wall);
      j.set("summation_parameters", Json.MAPPER.valueToTree(result.parameters()));
      j.set("privacy", ModelFile.ledgerToJson(model.privacy()));
      if (run.json) {
        out.println(Json.print(j));
      } else {
        out.printf("Helmet demo: %d parties x %d MNIST images, softmax, %s through secagg+ over gRPC%n",
            parties, perParty, dpfl == null ? "blind averaging" : "federated DP-SGD (dp-fl), " + SessionPlan.rounds(config)
                + " rounds");
        out.printf("  data              mnist; %s%n", partition.description());
        if (dpfl == null) {
          out.printf("  learner           softmax, Lambda %s, R %s, %d epochs, batch %d, clip c=%s (rows normalised)%n",
              Trainer.fmt(HelmetDefaults.lambda(kind)), Trainer.fmt(HelmetDefaults.radius(kind)),
              HelmetDefaults.epochs(kind), HelmetDefaults.BATCH_SIZE, Trainer.fmt(HelmetDefaults.CLIP_BOUND));
        } else {
          out.printf("  training          %d rounds, sampling rate %s, gradient clip %s, learning rate %s, noise split "
              + "%s%n", SessionPlan.rounds(config), Trainer.fmt(dpfl.samplingRate), Trainer.fmt(dpfl.clip),
              Trainer.fmt(dpfl.learningRate), dpfl.noiseSplit);
        }
        out.printf("  test accuracy     %.2f %%  (macro-F1 %.3f)%n", 100 * eval.accuracy(), eval.macroF1());
        if (reference != null) {
          out.printf("  reference         %.2f %%  non-private centralized, same objective on the pooled data%n",
              100 * reference.accuracy());
        }
        Trainer.printPrivacy(out, model.privacy());
        if (dpfl == null) {
          out.printf("  noise multiplier  %.4f over %s release(s)%n", ((Number) d.get("noise_multiplier")).doubleValue(),
              d.get("releases"));
        } else {
          out.printf("  noise multiplier  %.4f per round (%s accountant)%n",
              ((Number) d.get("noise_multiplier")).doubleValue(), model.privacy().accountant());
        }
        out.printf("  protocol          secagg+ over gRPC, mutual TLS on loopback%s; %d of %d contributed; %d B per "
            + "participant%n", Trainer.describe(result.parameters()), result.contributors().size(), parties,
            results.isEmpty() ? 0 : (sent + received) / results.size());
        if (d.get("noise_sampler") != null) {
          out.printf("  noise             %s%n", d.get("noise_sampler"));
        }
        out.printf("  wall time         %.1f s (session %.1f s)%n", wall, result.seconds());
        if (run.modelOut != null) {
          out.printf("  model             %s%n", run.modelOut);
        }
      }
      out.flush();
      return j;
    } finally {
      deleteTree(tmp);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // a temporary folder; the OS cleans it eventually
    }
  }
}
