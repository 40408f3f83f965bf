package dev.helmet.cli;

import dev.helmet.protocols.shared.CommonDefaults;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.SessionPlan;
import dev.helmet.transport.Tls;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
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
 * with its own TLS certificate, channel and share of MNIST, running the networked protocol exactly
 * as separate machines would (in one process, for convenience). A temporary folder holds the
 * certificates and the coordinator's database; it is deleted afterwards.
 */
final class NetworkDemo {
  private NetworkDemo() {}

  /**
   * One participant's share of the demo's progress, from its own events: its local work before it
   * joins ({@link #UNITS}, advanced as its training reports epochs) and {@link #UNITS} for each
   * round's input, so the count moves while the participants train rather than all at the end.
   */
  static final class Share implements dev.helmet.transport.ParticipantListener {
    static final int UNITS = 100;
    private final dev.helmet.core.util.Progress progress;
    private final long total;
    private long counted;
    private long prepared;

    Share(dev.helmet.core.util.Progress progress, int rounds) {
      this.progress = progress;
      this.total = (long) UNITS * (rounds + 1);
    }

    @Override
    public synchronized void event(String kind, Map<String, Object> fields) {
      switch (kind) {
        case "training" -> {
          long of = ((Number) fields.get("total")).longValue();
          long upTo = of <= 0 ? 0 : Math.min(UNITS, UNITS * ((Number) fields.get("done")).longValue() / of);
          if (upTo > prepared) {
            add(upTo - prepared);
            prepared = upTo;
          }
        }
        case "prepared" -> {
          add(UNITS - prepared);
          prepared = UNITS;
        }
        case "sent" -> add(UNITS);
        default -> { }
      }
    }

    synchronized void finish() {
      add(total - counted);
    }

    private void add(long units) {
      long n = Math.min(units, total - counted);
      if (n > 0) {
        counted += n;
        progress.advance(n);
      }
    }
  }

  /**
   * @param algorithm the algorithm the session runs
   * @param algorithmConfig its settings from the command line (a configuration mapping)
   */
  static ObjectNode run(int parties, int perParty, String features, Path cacheDir, RunOptions run, Algorithm algorithm,
      ObjectNode algorithmConfig, PrintWriter out, PrintWriter err) throws Exception {
    long start = System.nanoTime();
    Logging.configure(true);
    if (!run.quiet) {
      err.println("loading mnist ...");
      err.flush();
    }
    BuiltinDataset.TrainTest mnist = BuiltinDataset.byId("mnist")
        .load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache());
    Dataset train = mnist.train();
    // Each participant computes the published feature stage on its own raw shard; the demo computes
    // it here too (cached) for the test data and the centralized reference.
    FeatureStage stage = FeatureStage.parse(features, train.imageShape());
    Path cache = cacheDir != null ? cacheDir : BuiltinDataset.defaultCache();
    ConsoleProgress featureProgress = new ConsoleProgress(System.err, !run.quiet);
    Dataset testFeatures = stage.apply(mnist.test(), run.threads(), featureProgress, cache);
    Partition partition = new PartitionStrategy.Iid(parties, perParty).split(train, new SplittableRandom(run.seed));
    Path tmp = Files.createTempDirectory("helmet-network-demo");
    // The coordinator and its status page stay up until the demo ends, so the page shows the
    // finished session while the demo evaluates and reports.
    Coordinator coordinator = null;
    StatusPage page = null;
    try {
      Certificates.create(tmp.resolve("certs"), List.of("localhost", "127.0.0.1"), parties, Duration.ofDays(1));
      int minContributors = parties - (int) Math.floor(run.dropout * parties + 1e-9);
      double colluding = run.colludingFraction != null ? run.colludingFraction : 1 - CommonDefaults.HONEST_FRACTION;
      String summation = run.summationName();
      if (!summation.equals("secagg+") && !summation.equals("secagg")) {
        throw new IllegalArgumentException("--summation " + summation + " has no network demo; the demo sums through "
            + "secagg+ or secagg (a networked dca session runs `helmet compute-node` processes beside the coordinator: "
            + "docs/deployment.md, scripts/dca-loopback.sh)");
      }
      SessionConfig.Builder builder = SessionConfig.newBuilder()
          .setAlgorithm(algorithm.id())
          .setName("network-demo")
          .setDataset("mnist-demo")
          .setProtocol(summation)
          .setParties(parties)
          .setMinContributors(minContributors)
          .setColludingFraction(colluding)
          .setMaxPoints(SessionFile.DEFAULT_MAX_POINTS)
          .setRingBits(run.ringBits())
          .setFeatures(stage.outputDimension(train.dimension()))
          .setFeatureStage(SessionPlan.featureStageBytes(stage))
          .addAllLabels(train.labelSet().names())
          .setPrivacy(PrivacySpec.newBuilder().setEpsilon(CommonDefaults.EPSILON).setDelta(CommonDefaults.DELTA)
              .setHonestFraction(CommonDefaults.HONEST_FRACTION).setProtection("record").setGroupSize(1))
          .setDeadlines(Deadlines.newBuilder().setEnrolmentSeconds(300).setRoundSeconds(120))
          .setSessionId(ByteString.copyFrom(new byte[16]))
          .setGraphNonceCommitment(ByteString.copyFrom(new byte[32]));
      // The records are fixed by the demo's public shape (parties x per party), as train's --per-party
      // fixes them: an algorithm may default a public normaliser to it (smm's expected batch).
      AlgorithmSpec spec = AlgorithmOptions.configure(algorithm, algorithmConfig,
          SessionPlan.common(builder.build()).withPublicRecords((long) parties * perParty));
      if (!spec.sizesPrivate() && spec.setupProblem(parties, SessionFile.DEFAULT_MAX_POINTS) != null) {
        // A setup sized by the claims (cross-silo swor's mixnet) is sized for every party claiming
        // max_points; the demo's shard sizes are public under replace-one, so the largest bounds them.
        int largest = 0;
        for (int k = 0; k < parties; k++) {
          largest = Math.max(largest, partition.indices(k).length);
        }
        builder.setMaxPoints(largest);
      }
      SessionConfig config = builder.setAlgorithmConfig(SessionPlan.algorithmConfig(spec)).build();
      String cost = dev.helmet.protocols.simulation.RunCost.note(spec, parties);
      if (cost != null && !run.quiet) {
        err.println(cost);
        err.flush();
      }
      String low = algorithm.defaultEpsilonNote(CommonDefaults.EPSILON);
      if (low != null && !run.quiet) {
        err.println(low);
        err.flush();
      }
      Path certs = tmp.resolve("certs");
      Coordinator.Settings settings = new Coordinator.Settings(config, "127.0.0.1", 0,
          Tls.Files.in(certs, "coordinator"), "jdbc:h2:file:" + tmp.resolve("db").toAbsolutePath(), "", "",
          CommonDefaults.EPSILON, CommonDefaults.DELTA, 16);
      ConsoleProgress progress = new ConsoleProgress(System.err, !run.quiet);
      Coordinator.Result result;
      List<Participant.Result> results = new ArrayList<>();
      {
        Coordinator c = Coordinator.start(settings);
        coordinator = c;
        page = StatusPage.start(c, new StatusPage.Address("127.0.0.1", 0), null, err);
        // Progress as the work happens: each participant's local work (by its own training events),
        // then its input to each round, Share.UNITS each.
        int rounds = spec.rounds();
        progress.start("network: coordinator on 127.0.0.1:" + c.port() + " (mutual TLS), " + parties
            + " participants' local work and " + rounds + " round(s)", (long) parties * (rounds + 1) * Share.UNITS);
        ExecutorService pool = Executors.newFixedThreadPool(parties);
        try {
          List<Future<Participant.Result>> fs = new ArrayList<>();
          for (int i = 0; i < parties; i++) {
            int k = i;
            Dataset shard = train.subset(partition.indices(k), "mnist shard " + (k + 1));
            fs.add(pool.submit(() -> {
              Share share = new Share(progress, rounds);
              try {
                return Participant.run(new Participant.Settings("127.0.0.1:" + c.port(),
                    Tls.Files.in(certs, "participant-" + (k + 1)), ParticipantPolicy.upTo(CommonDefaults.EPSILON),
                    shard, null, 0), share);
              } finally {
                share.finish(); // a participant that stopped early is done too
              }
            }));
          }
          result = c.await(config.getDeadlines().getEnrolmentSeconds()
              + (5L * spec.rounds() + 5) * config.getDeadlines().getRoundSeconds(), TimeUnit.SECONDS);
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
        // The reason already says what was released and charged (nothing, here).
        throw new IllegalStateException("the networked session aborted: " + result.reason());
      }
      ReleasedModel model = result.model();
      DesignMatrix test = spec.preprocessing().design(testFeatures);
      dev.helmet.core.learn.Model w = model.weights();
      Evaluation eval = Evaluation.of(w, test, testFeatures, spec.preprocessing());
      if (run.modelOut != null) {
        Trainer.write(model, run.modelOut);
      }
      Map<String, Object> d = model.privacy().details();
      // The algorithm's noise multiplier where its ledger records one (smm's records its mechanism's
      // own parameters instead: its noise is a Skellam mixture in ring units).
      Double noiseMultiplier = d.get("noise_multiplier") instanceof Number n ? n.doubleValue() : null;
      long sent = 0;
      long received = 0;
      for (Participant.Result r : results) {
        sent += r.bytesSent();
        received += r.bytesReceived();
      }
      long perParticipant = results.isEmpty() ? 0 : (sent + received) / results.size();
      if (!run.json) {
        // The private result first: the reference after it may take long, and is only a comparison.
        out.printf("Helmet demo: %d parties x %d MNIST images, %s (%d round(s)) through %s over gRPC%n", parties,
            perParty, algorithm.id(), spec.rounds(), summation);
        out.printf("  data              mnist; %s%n", partition.description());
        if (!stage.isRaw()) {
          out.printf("  features          %s, computed by each participant on its own images%n", stage.describe());
        }
        out.printf("  %-17s %s%n", algorithm.id(), spec.describe());
        out.printf("  test accuracy     %.2f %%  (macro-F1 %.3f)%n", 100 * eval.accuracy(), eval.macroF1());
        Trainer.printPrivacy(out, model.privacy());
        if (noiseMultiplier != null) {
          out.printf("  noise multiplier  %.4f %s (%s accountant)%n", noiseMultiplier,
              TrainerReport.noiseMultiplierMeaning(d, spec.rounds()), model.privacy().accountant());
        } else {
          out.printf("  mechanism         %s (%s accountant)%n", model.privacy().event(), model.privacy().accountant());
        }
        out.printf("  protocol          %s over gRPC, mutual TLS on loopback%s; %d of %d contributed; %d B per "
            + "participant%n", summation, Trainer.describe(result.parameters()), result.contributors().size(), parties,
            perParticipant);
        if (d.get("noise_sampler") != null) {
          out.printf("  noise             %s%n", d.get("noise_sampler"));
        }
        if (run.modelOut != null) {
          out.printf("  model             %s%n", run.modelOut);
        }
        out.flush();
      }
      dev.helmet.protocols.simulation.CentralizedReference.Outcome reference = null;
      if (run.reference) {
        reference = dev.helmet.protocols.simulation.CentralizedReference.train(spec, stage.apply(train, run.threads(), progress, cache),
            partition.pooled(), test, testFeatures, new SplittableRandom(run.seed), w, run.optimalityGap, progress,
            line -> { System.err.println(line); System.err.flush(); });
      }
      double wall = (System.nanoTime() - start) / 1e9;
      ObjectNode j = Json.object();
      j.put("dataset", "mnist");
      j.put("features", stage.id());
      j.put("learner", spec.learner().kind().id());
      j.put("algorithm", algorithm.id());
      j.put("rounds", spec.rounds());
      j.put("protocol", summation + " over gRPC (mutual TLS, loopback)");
      j.put("in_the_clear", false);
      j.put("parties", parties);
      j.put("per_party", perParty);
      j.put("test_accuracy", eval.accuracy());
      j.put("test_macro_f1", eval.macroF1());
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
      if (noiseMultiplier != null) {
        j.put("noise_multiplier", noiseMultiplier);
      } else {
        j.putNull("noise_multiplier");
      }
      j.put("contributors", result.contributors().size());
      j.put("dropped", result.dropped().size());
      j.put("bytes_per_party", perParticipant);
      j.put("server_bytes", result.serverBytes());
      j.put("session_seconds", result.seconds());
      j.put("wall_seconds", wall);
      j.set("summation_parameters", Json.MAPPER.valueToTree(result.parameters()));
      j.set("privacy", ModelFile.ledgerToJson(model.privacy()));
      if (run.json) {
        out.println(Json.print(j));
      } else {
        TrainerReport.printReference(reference, out);
        out.printf("  wall time         %.1f s (session %.1f s)%n", wall, result.seconds());
      }
      out.flush();
      return j;
    } finally {
      if (page != null) {
        page.close();
      }
      if (coordinator != null) {
        coordinator.close();
      }
      LoopbackProcesses.deleteTree(tmp);
    }
  }
}
