package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.PrivacySpec;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator and participants on loopback, for tests: over TCP ({@link #settings}) or over the
 * in-process network ({@link #inProcess}: every test that does not test sockets, TLS, handshakes,
 * connection limits, ports or process boundaries itself). Participants run on the transport of the
 * coordinator they are given.
 */
final class Loopback {
  private Loopback() {}

  /** The in-process network ({@link InProcessNetwork}). */
  static final Transport IN_PROCESS = InProcessNetwork.NETWORK;

  /** A session configuration for {@code data}'s shape. */
  static SessionConfig.Builder config(Dataset data, int parties, int minContributors, double epsilon) {
    SessionConfig.Builder b = SessionConfig.newBuilder()
        .setName("test")
        .setDataset("digits")
        .setProtocol("secagg+")
        .setParties(parties)
        .setMinContributors(minContributors)
        .setColludingFraction(0)
        .setMaxPoints(100_000)
        .setFeatures(data.dimension())
        .addAllLabels(data.labelSet().names())
        .setPrivacy(PrivacySpec.newBuilder().setEpsilon(epsilon).setDelta(1e-5).setHonestFraction(1)
            .setProtection("record").setGroupSize(1))
        .setDeadlines(Deadlines.newBuilder().setEnrolmentSeconds(60).setRoundSeconds(30))
        .setSessionId(ByteString.copyFrom(new byte[16]))
        .setGraphNonceCommitment(ByteString.copyFrom(new byte[32]));
    return algorithm(b, "helmet", HELMET);
  }

  /** Blind averaging's test settings: softmax, 10 epochs, batch 10, exact noise. */
  static final String HELMET = "{\"learner\": {\"kind\": \"softmax\", \"lambda\": 0.5, \"radius\": 2, "
      + "\"epochs\": 10, \"batch_size\": 10, \"clip_bound\": 10, \"normalise\": true}, "
      + "\"noise\": \"discrete-gaussian\"}";

  /**
   * Sets the algorithm and its settings (JSON, as in a session file), published in canonical
   * form; the common settings must be set first.
   */
  static SessionConfig.Builder algorithm(SessionConfig.Builder b, String id, String json) {
    try {
      var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
      var spec = dev.helmet.protocols.algorithm.Algorithms.named(id).configure(new dev.helmet.protocols.config
          .StrictNode("test", node, IllegalArgumentException::new), SessionPlan.common(b.build()));
      return b.setAlgorithm(id).setAlgorithmConfig(SessionPlan.algorithmConfig(spec));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * {@code p} with the sizes the session's roster would list: each party's own under replace-one,
   * max_points for every party under add-or-remove ({@link SessionPlan#claimedPoints}), so an
   * in-process run derives the plan the networked one does.
   */
  static dev.helmet.protocols.simulation.Simulation.Prepared rostered(SessionConfig c,
      dev.helmet.protocols.simulation.Simulation.Prepared p) {
    int[] claimed = new int[p.sizes().length];
    for (int i = 0; i < claimed.length; i++) {
      claimed[i] = SessionPlan.claimedPoints(p.spec(), c, p.sizes()[i]);
    }
    return new dev.helmet.protocols.simulation.Simulation.Prepared(p.spec(), p.locals(), claimed, p.seeds(),
        p.partition());
  }

  /** A learner with the configuration's settings, for tests that train outside a participant. */
  static dev.helmet.core.learn.Learner learner(SessionConfig config) {
    var spec = SessionPlan.spec(config);
    return new dev.helmet.core.learn.Learner(((dev.helmet.protocols.blind.BlindAveragingSpec) spec).learner(), spec.preprocessing().inputNormBound(),
        (int) config.getFeatures(), config.getLabelsCount());
  }

  /** The first {@code w} shards of {@code data}, {@code per} rows each. */
  static List<Dataset> shards(Dataset data, int w, int per, long seed) {
    var p = new dev.helmet.core.partition.PartitionStrategy.Iid(w, per).split(data, new java.util.SplittableRandom(seed));
    List<Dataset> out = new ArrayList<>();
    for (int i = 0; i < w; i++) {
      out.add(data.subset(p.indices(i), "shard " + i));
    }
    return out;
  }

  /** The size-weighted mean of the local models of {@code shards} trained with {@code seeds}. */
  static double[] mean(SessionConfig config, List<Dataset> shards, List<Long> seeds) {
    var learner = learner(config);
    var pre = SessionPlan.spec(config).preprocessing();
    double[] m = null;
    long total = 0;
    for (int i = 0; i < shards.size(); i++) {
      double[] w = learner.train(pre.design(shards.get(i)), new java.util.SplittableRandom(seeds.get(i))).weights();
      if (m == null) {
        m = new double[w.length];
      }
      int n = shards.get(i).size();
      total += n;
      for (int j = 0; j < w.length; j++) {
        m[j] += n * w[j];
      }
    }
    for (int j = 0; j < m.length; j++) {
      m[j] /= total;
    }
    return m;
  }

  static double maxDifference(double[] a, double[] b) {
    double worst = 0;
    for (int j = 0; j < a.length; j++) {
      worst = Math.max(worst, Math.abs(a[j] - b[j]));
    }
    return worst;
  }

  /** A hook that kills the participant (closes its connection) when a message of {@code kind} arrives. */
  static Participant.Hook killAt(dev.helmet.transport.wire.CoordinatorMessage.BodyCase kind) {
    return new Participant.Hook() {
      @Override
      public void received(dev.helmet.transport.wire.CoordinatorMessage m, io.grpc.ManagedChannel channel)
          throws Participant.ParticipantException {
        if (m.getBodyCase() == kind) {
          channel.shutdownNow();
          throw new Participant.ParticipantException("killed at " + kind);
        }
      }
    };
  }

  /** A coordinator on loopback over TCP. */
  static Coordinator.Settings settings(SessionConfig config, Path dir, Tls.Files tls, double budget) {
    return new Coordinator.Settings(config, "127.0.0.1", 0, tls, "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(),
        "", "", budget, 1e-3, 4);
  }

  /** A coordinator on the in-process network, at 127.0.0.1 (TLS identities without TLS: {@link InProcessNetwork}). */
  static Coordinator.Settings inProcess(SessionConfig config, Path dir, Tls.Files tls, double budget) {
    return settings(config, dir, tls, budget).withTransport(IN_PROCESS);
  }

  /** The same settings on port {@code port} (the same transport). */
  static Coordinator.Settings onPort(Coordinator.Settings s, int port) {
    return new Coordinator.Settings(s.config(), s.host(), port, s.tls(), s.databaseUrl(), s.databaseUser(),
        s.databasePassword(), s.budgetEpsilon(), s.budgetDelta(), s.uploadSlots(), s.connections(), s.transport());
  }

  /** A participant's settings on the transport of {@code c} (its port, over TCP or in-process). */
  static Participant.Settings at(Coordinator c, Participant.Settings s) {
    return s.withTransport(c.settings().transport());
  }

  /**
   * The session completed with {@code contributors} contributors and every participant completed,
   * charging its data by its own accounting at least the coordinator's eps (the participant counts
   * the planned contributors; more of them only add noise).
   */
  static void assertAllCompleted(Coordinator.Result r, List<Outcome> outs, int contributors) {
    org.junit.jupiter.api.Assertions.assertTrue(r.completed(), r.reason());
    org.junit.jupiter.api.Assertions.assertEquals(contributors, r.contributors().size());
    for (Outcome o : outs) {
      org.junit.jupiter.api.Assertions.assertNull(o.error(), () -> String.valueOf(o.error()));
      org.junit.jupiter.api.Assertions.assertTrue(o.result().completed());
      org.junit.jupiter.api.Assertions.assertTrue(o.result().epsilon() >= r.epsilon() * (1 - 1e-9),
          "participant's own eps " + o.result().epsilon() + " below the coordinator's " + r.epsilon());
    }
  }

  /** Outcome of one participant: its result or its exception. */
  record Outcome(Participant.Result result, Exception error) {}

  static {
    // Hundreds of participants and the fuzzed messages would flood the test log; errors still show
    // (the tests read rejections and drops from the database instead).
    java.util.logging.Logger.getLogger("dev.helmet.transport").setLevel(java.util.logging.Level.SEVERE);
  }

  /** Runs one participant per data set against the coordinator, concurrently, on its transport. */
  static List<Outcome> participants(Coordinator c, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy) throws InterruptedException {
    return participants(c, shards, seeds, tls, policy, i -> Participant.Hook.NONE);
  }

  /** As above, with a fault-injection hook per participant. */
  static List<Outcome> participants(Coordinator c, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks) throws InterruptedException {
    return participants(c.settings().transport(), c.port(), shards, seeds, tls, policy, hooks, i -> null, 0);
  }

  /** As above, each participant with its own ledger (or null). */
  static List<Outcome> participants(Coordinator c, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks, java.util.function.IntFunction<LocalLedger> ledgers)
      throws InterruptedException {
    return participants(c.settings().transport(), c.port(), shards, seeds, tls, policy, hooks, ledgers, 0);
  }

  /** Participants of the coordinator at 127.0.0.1:{@code port} over TCP, with a hook each. */
  static List<Outcome> participants(int port, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks) throws InterruptedException {
    return participants(port, shards, seeds, tls, policy, hooks, i -> null);
  }

  /** As above, each participant with its own ledger (or null). */
  static List<Outcome> participants(int port, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks, java.util.function.IntFunction<LocalLedger> ledgers)
      throws InterruptedException {
    return participants(port, shards, seeds, tls, policy, hooks, ledgers, 0);
  }

  /** As above, each waiting up to {@code waitSeconds} for the coordinator (at start and after losing it). */
  static List<Outcome> participants(int port, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks, java.util.function.IntFunction<LocalLedger> ledgers,
      long waitSeconds) throws InterruptedException {
    return participants(Transport.NETTY, port, shards, seeds, tls, policy, hooks, ledgers, waitSeconds);
  }

  /** As above, over {@code transport}. */
  static List<Outcome> participants(Transport transport, int port, List<Dataset> shards, List<Long> seeds,
      java.util.function.IntFunction<Tls.Files> tls, ParticipantPolicy policy,
      java.util.function.IntFunction<Participant.Hook> hooks, java.util.function.IntFunction<LocalLedger> ledgers,
      long waitSeconds) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(shards.size(), 64));
    try {
      List<Future<Outcome>> fs = new ArrayList<>();
      for (int i = 0; i < shards.size(); i++) {
        int k = i;
        fs.add(pool.submit(() -> {
          try {
            return new Outcome(Participant.run(new Participant.Settings("127.0.0.1:" + port, tls.apply(k), policy,
                shards.get(k), seeds == null ? null : seeds.get(k), 120, ledgers.apply(k)).waiting(waitSeconds)
                .withTransport(transport), hooks.apply(k)),
                null);
          } catch (Exception e) {
            return new Outcome(null, e);
          }
        }));
      }
      List<Outcome> out = new ArrayList<>();
      for (Future<Outcome> f : fs) {
        try {
          out.add(f.get(300, TimeUnit.SECONDS));
        } catch (Exception e) {
          out.add(new Outcome(null, e));
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
