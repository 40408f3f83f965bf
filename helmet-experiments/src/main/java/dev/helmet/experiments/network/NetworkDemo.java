package dev.helmet.experiments.network;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.protocols.shared.CommonDefaults;
import dev.helmet.protocols.simulation.CentralizedReference;
import dev.helmet.protocols.simulation.RunCost;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantListener;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.SessionPlan;
import dev.helmet.transport.Tls;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.PrivacySpec;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The network demo: a coordinator and N participants on loopback, each participant with its own
 * TLS certificate, channel and share of MNIST, running the networked protocol exactly as separate
 * machines would (in one process, for convenience). A temporary folder holds the certificates and
 * the coordinator's database; it is deleted afterwards. The privacy target is the common default
 * ({@link CommonDefaults}).
 */
public final class NetworkDemo {
  private NetworkDemo() {}

  /**
   * What to run.
   *
   * @param features the feature stage every participant computes on its own images ("raw", ...)
   * @param cacheDir where MNIST and computed features are cached; null for the default
   * @param seed the partition's and the reference's seed
   * @param dropout the fraction of parties the summation tolerates losing (it sets min_contributors)
   * @param colludingFraction the fraction of parties colluding with the server that the summation
   *     withstands; null: 1 - the default honest fraction
   * @param summation secagg+ or secagg
   * @param ringBits the summation ring's bits, 0 to let the algorithm choose
   * @param reference whether to train the non-private centralized reference afterwards
   * @param optimalityGap with the reference: true always, false never, null when cheap enough
   * @param algorithm the algorithm the session runs
   * @param configure the algorithm configured for the session's common settings (its command-line
   *     settings applied)
   */
  public record Settings(int parties, int perParty, String features, Path cacheDir, long seed, int threads,
      double dropout, Double colludingFraction, String summation, int ringBits, boolean reference,
      Boolean optimalityGap, Algorithm algorithm, Function<Common, AlgorithmSpec> configure) {}

  /**
   * What the caller provides to the run: progress bars, the notes said before it (its cost, a low
   * default epsilon) and warnings (a participant that failed, a reference skipped), and the status
   * page of the coordinator, kept open until the demo ends.
   */
  public interface Hooks {
    /** A fresh progress display. */
    Progress progress();

    /** A note before the run; a no-op to keep quiet. */
    void note(String line);

    /** A warning, said whatever the notes. */
    void warn(String line);

    /** Opens the coordinator's status page (closed when the demo ends), or returns null for none. */
    AutoCloseable statusPage(Coordinator coordinator) throws IOException;
  }

  /**
   * The session's outcome.
   *
   * @param spec the configured algorithm
   * @param stage the feature stage
   * @param partition the split of MNIST's training images among the participants
   * @param session the coordinator's result (its released model, contributors, bytes, seconds)
   * @param model the released model
   * @param test its evaluation on MNIST's test images
   * @param noiseMultiplier the noise multiplier where the ledger records one, else null
   * @param bytesPerParticipant bytes each participant sent and received, on average
   * @param reference the non-private reference, or null when not trained
   * @param wallSeconds the whole run (null until the end)
   */
  public record Outcome(AlgorithmSpec spec, FeatureStage stage, Partition partition, Coordinator.Result session,
      ReleasedModel model, Evaluation test, Double noiseMultiplier, long bytesPerParticipant,
      CentralizedReference.Outcome reference, double wallSeconds) {}

  /**
   * One participant's share of the demo's progress, from its own events: its local work before it
   * joins ({@link #UNITS}, advanced as its training reports epochs) and {@link #UNITS} for each
   * round's input, so the count moves while the participants train rather than all at the end.
   */
  public static final class Share implements ParticipantListener {
    /** Progress units per phase: the local work, and each round's input. */
    public static final int UNITS = 100;
    private final Progress progress;
    private final long total;
    private long counted;
    private long prepared;

    /** A participant's share of {@code progress} for a session of {@code rounds} rounds. */
    public Share(Progress progress, int rounds) {
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

    /** Counts what is left of the share (a participant that stopped early is done too). */
    public synchronized void finish() {
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
   * Runs the demo; {@code released} receives the outcome without reference and wall time once the
   * model is released and evaluated, before the reference is trained (which can be slow), so the
   * private result is out first.
   *
   * @throws IllegalArgumentException for a summation the demo does not run
   * @throws IllegalStateException if the session aborts (nothing is released or charged)
   */
  public static Outcome run(Settings s, Hooks hooks, Consumer<Outcome> released) throws Exception {
    long start = System.nanoTime();
    int parties = s.parties();
    int perParty = s.perParty();
    hooks.note("loading mnist ...");
    Path cache = s.cacheDir() != null ? s.cacheDir() : BuiltinDataset.defaultCache();
    BuiltinDataset.TrainTest mnist = BuiltinDataset.byId("mnist").load(cache);
    Dataset train = mnist.train();
    // Each participant computes the published feature stage on its own raw shard; the demo computes
    // it here too (cached) for the test data and the centralized reference.
    FeatureStage stage = FeatureStage.parse(s.features(), train.imageShape());
    Dataset testFeatures = stage.apply(mnist.test(), s.threads(), hooks.progress(), cache);
    Partition partition = new PartitionStrategy.Iid(parties, perParty).split(train, new SplittableRandom(s.seed()));
    Path tmp = Files.createTempDirectory("helmet-network-demo");
    // The coordinator and its status page stay up until the demo ends, so the page shows the
    // finished session while the demo evaluates and reports.
    Coordinator coordinator = null;
    AutoCloseable page = null;
    try {
      Certificates.create(tmp.resolve("certs"), List.of("localhost", "127.0.0.1"), parties, Duration.ofDays(1));
      int minContributors = parties - (int) Math.floor(s.dropout() * parties + 1e-9);
      double colluding = s.colludingFraction() != null ? s.colludingFraction() : 1 - CommonDefaults.HONEST_FRACTION;
      String summation = s.summation();
      if (!summation.equals("secagg+") && !summation.equals("secagg")) {
        throw new IllegalArgumentException("--summation " + summation + " has no network demo; the demo sums through "
            + "secagg+ or secagg (a networked dca session runs `helmet compute-node` processes beside the coordinator: "
            + "docs/deployment.md, scripts/dca-loopback.sh)");
      }
      SessionConfig.Builder builder = SessionConfig.newBuilder()
          .setAlgorithm(s.algorithm().id())
          .setName("network-demo")
          .setDataset("mnist-demo")
          .setProtocol(summation)
          .setParties(parties)
          .setMinContributors(minContributors)
          .setColludingFraction(colluding)
          .setMaxPoints(SessionFile.DEFAULT_MAX_POINTS)
          .setRingBits(s.ringBits())
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
      AlgorithmSpec spec = s.configure().apply(
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
      String cost = RunCost.note(spec, parties);
      if (cost != null) {
        hooks.note(cost);
      }
      String low = s.algorithm().defaultEpsilonNote(CommonDefaults.EPSILON);
      if (low != null) {
        hooks.note(low);
      }
      Path certs = tmp.resolve("certs");
      Coordinator.Settings settings = new Coordinator.Settings(config, "127.0.0.1", 0,
          Tls.Files.in(certs, "coordinator"), "jdbc:h2:file:" + tmp.resolve("db").toAbsolutePath(), "", "",
          CommonDefaults.EPSILON, CommonDefaults.DELTA, 16);
      Progress progress = hooks.progress();
      Coordinator.Result result;
      List<Participant.Result> results = new ArrayList<>();
      {
        Coordinator c = Coordinator.start(settings);
        coordinator = c;
        page = hooks.statusPage(c);
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
              hooks.warn("helmet: a participant failed: " + e.getCause().getMessage());
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
      // The algorithm's noise multiplier where its ledger records one (smm's records its mechanism's
      // own parameters instead: its noise is a Skellam mixture in ring units).
      Double noiseMultiplier = model.privacy().details().get("noise_multiplier") instanceof Number n
          ? n.doubleValue() : null;
      long sent = 0;
      long received = 0;
      for (Participant.Result r : results) {
        sent += r.bytesSent();
        received += r.bytesReceived();
      }
      long perParticipant = results.isEmpty() ? 0 : (sent + received) / results.size();
      Outcome outcome = new Outcome(spec, stage, partition, result, model, eval, noiseMultiplier, perParticipant,
          null, Double.NaN);
      released.accept(outcome);
      CentralizedReference.Outcome reference = null;
      if (s.reference()) {
        reference = CentralizedReference.train(spec, stage.apply(train, s.threads(), progress, cache),
            partition.pooled(), test, testFeatures, new SplittableRandom(s.seed()), w, s.optimalityGap(), progress,
            hooks::warn);
      }
      double wall = (System.nanoTime() - start) / 1e9;
      return new Outcome(spec, stage, partition, result, model, eval, noiseMultiplier, perParticipant, reference,
          wall);
    } finally {
      if (page != null) {
        page.close();
      }
      if (coordinator != null) {
        coordinator.close();
      }
      Loopback.deleteTree(tmp);
    }
  }
}
