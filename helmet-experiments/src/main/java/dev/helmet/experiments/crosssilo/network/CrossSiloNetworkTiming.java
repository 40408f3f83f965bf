package dev.helmet.experiments.crosssilo.network;

import dev.helmet.experiments.network.Loopback;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.crosssilo.SummationTiming;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.MlpLayers;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.SessionPlan;
import dev.helmet.transport.Tls;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.PrivacySpec;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The networked forms of the {@code crosssilo-nodes} preset (Heikkilä et al., Fig. 3: fold increase
 * in total running time against the number M of compute nodes) and of {@code crosssilo-projection}
 * (Fig. 4's running-time axis: k against no projection): cross-silo DP-SGD training of the
 * 784-536-536-536-10 MLP on MNIST, every summation through DCA with each compute node its own
 * {@code helmet compute-node} process (own JVM, TLS identity and port on loopback), the coordinator
 * and the P participants in this JVM, each participant with its own mutual-TLS channel.
 *
 * <p>The "no encryption" baseline is DCA through a single node: it receives each party's vector
 * as it is (no secret sharing, no seeds) and sums, the path of the paper's unencrypted runs plus
 * one network hop. One node sees every message, so the session uses the noise split that protects
 * each message by itself ({@code noise_split: local}: the same number of noise draws, M = 1 is
 * admitted for nothing else); the DCA runs use {@code colluders} with T = 0.
 *
 * <p>Repeats interleave the configurations (repeat 1 runs every M, then repeat 2, ...), so that a
 * change in the machine's load falls on all of them alike; one untimed session per configuration
 * warms the JIT of every process first (where sessions are short: {@link Grid#warmUp}).
 */
final class CrossSiloNetworkTiming {
  private CrossSiloNetworkTiming() {}

  /** grid.json pretty-printed, sessions.jsonl one line per session (as the CLI wrote them before this moved here). */
  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * The settings.
   *
   * @param parties P
   * @param perParty MNIST training records per party
   * @param hidden the MLP's hidden layers
   * @param samplingRate q, each party's Poisson rate
   * @param rounds DP-SGD steps per session
   * @param nodes the M of the DCA runs (the baseline, M = 1, always runs too); with projections,
   *     the one M of every session
   * @param projections empty for the nodes preset; else the projection dimensions k, each against
   *     the unprojected baseline through the same M nodes
   * @param repeats timed sessions per configuration
   * @param warmUp whether an untimed session per configuration runs first (where sessions are short
   *     enough for the JIT's compilation to show)
   */
  record Grid(int parties, int perParty, List<Integer> hidden, double samplingRate, int rounds, List<Integer> nodes,
      List<Integer> projections, int repeats, boolean warmUp) {
    Grid {
      hidden = List.copyOf(hidden);
      nodes = List.copyOf(nodes);
      projections = List.copyOf(projections);
      Checks.require(projections.isEmpty() || nodes.size() == 1, "a projection grid runs through one M");
      Checks.require(projections.stream().allMatch(k -> k >= 1), "projection dimensions must be >= 1. Provided "
          + "values: " + projections);
      Checks.require(parties >= 2, "parties must be >= 2. Provided value: " + parties);
      Checks.require(nodes.stream().allMatch(m -> m >= 2), "compute nodes must be >= 2. Provided values: " + nodes);
      Checks.positive("repeats", repeats);
      Checks.positive("rounds", rounds);
    }

    /** The model's parameters (with biases). */
    int parameters() {
      return new Mlp(MlpLayers.widths(784, hidden.stream().mapToInt(Integer::intValue).toArray(), 10))
          .parameterCount();
    }

    /**
     * The baseline first: M = 1 (no encryption) then the DCA node counts, or no projection then
     * each k, through the one M.
     */
    List<Setting> configurations() {
      List<Setting> c = new ArrayList<>();
      if (projections.isEmpty()) {
        c.add(new Setting(1, 0));
        nodes.forEach(m -> c.add(new Setting(m, 0)));
      } else {
        c.add(new Setting(nodes.get(0), 0));
        projections.forEach(k -> c.add(new Setting(nodes.get(0), k)));
      }
      return c;
    }

    /** Whether this is the projection grid. */
    boolean projection() {
      return !projections.isEmpty();
    }
  }

  /**
   * One configuration of a session.
   *
   * @param nodes M
   * @param projection k, or 0 for none
   */
  record Setting(int nodes, int projection) {}

  /**
   * The paper's setting (100 parties of 600 MNIST records, the 1,001,794-parameter MLP, M in {2, 4,
   * 8}, 5 repeats) at 3 steps of q = 0.01 per session, or the CI form (4 parties of 50 records,
   * hidden [16], M in {2, 3}, 1 repeat, 2 steps).
   */
  static Grid grid(boolean quick) {
    return quick ? new Grid(4, 50, List.of(16), 0.1, 2, List.of(2, 3), List.of(), 1, true)
        : new Grid(100, 600, List.of(536, 536, 536), 0.01, 3, List.of(2, 4, 8), List.of(), 5, true);
  }

  /**
   * The running-time half of Fig. 4 ({@code crosssilo-projection --network}): the 1m MLP through 8
   * compute nodes, unprojected and at k in {400, 200, 100, 50}, 10 parties of 6,000 records (the
   * accuracy preset's silos), q = 0.008, 2 steps per session, 3 repeats and no warm-up (a session
   * with P takes minutes: generating d x k Gaussians per party and step dwarfs the JIT's start); or
   * the CI form (4 parties, hidden [16], M = 2, k in {20, 10}, 1 repeat after a warm-up).
   */
  static Grid projectionGrid(boolean quick) {
    return quick ? new Grid(4, 50, List.of(16), 0.1, 2, List.of(2), List.of(20, 10), 1, true)
        : new Grid(10, 6000, List.of(536, 536, 536), 0.008, 2, List.of(8), List.of(400, 200, 100, 50), 3, false);
  }

  /**
   * One compute node's totals in one session, as the coordinator counted them.
   *
   * @param name its name
   * @param receives "seeds" or "last shares"
   * @param bytesIn bytes it received (from parties and the coordinator)
   * @param bytesOut bytes it sent
   * @param cpuSeconds its CPU seconds, as it reported them
   */
  record Node(String name, String receives, long bytesIn, long bytesOut, double cpuSeconds) {}

  /**
   * One session.
   *
   * @param nodes M
   * @param projection k, 0 for none
   * @param repeat 1-based (0: the untimed warm-up)
   * @param sessionSeconds the coordinator's session time (enrolment to release; only sessions that
   *     released are recorded)
   * @param bytesPerParty mean bytes a participant sent and received, coordinator and nodes
   * @param uploadSeconds mean seconds a party spent splitting and uploading, per session
   * @param perNode what each node received, sent and spent
   */
  record Run(int nodes, int projection, int repeat, double sessionSeconds, long bytesPerParty, double uploadSeconds,
      List<Node> perNode) {
    Run {
      perNode = List.copyOf(perNode);
    }
  }

  /** Every timed run and the load average before and after. */
  record Result(Grid grid, List<Run> runs, double loadBefore, double loadAfter, String participantsJvm) {
    /** The timed runs of one configuration. */
    List<Run> of(Setting s) {
      return runs.stream().filter(r -> r.nodes() == s.nodes() && r.projection() == s.projection() && r.repeat() > 0)
          .toList();
    }

    /** The timed runs through M nodes without projection. */
    List<Run> of(int m) {
      return of(new Setting(m, 0));
    }

    /** The median session seconds through M nodes without projection. */
    double median(int m) {
      return median(new Setting(m, 0));
    }

    /** Median, min and max session seconds of one configuration's timed runs. */
    Spread spread(Setting s) {
      return Spread.of(of(s).stream().mapToDouble(Run::sessionSeconds).toArray());
    }

    /** The median session seconds of one configuration. */
    double median(Setting s) {
      return spread(s).median();
    }
  }

  /**
   * Runs the grid into {@code out}: warm-up sessions, then the repeats, each configuration in turn.
   * Resumable: every finished session is appended to {@code sessions.jsonl} and a rerun into the
   * same folder skips the timed sessions already there (the warm-ups run again in the new process);
   * a folder holding another grid is refused. {@code helmetMain} is the class whose {@code main} is
   * the {@code helmet} command line: each node is a {@code helmet compute-node} process run by it.
   */
  static Result run(Grid g, Path cache, Path out, Progress progress, String helmetMain) throws Exception {
    double load = SummationTiming.loadAverage();
    Files.createDirectories(out);
    Path gridFile = out.resolve("grid.json");
    String gridJson = MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(g);
    if (Files.exists(gridFile) && !MAPPER.readTree(gridFile.toFile()).equals(MAPPER.readTree(gridJson))) {
      throw new IllegalArgumentException(out + " holds the sessions of another timing grid (its grid.json differs); "
          + "use another --out folder, or delete it to start over");
    }
    Files.writeString(gridFile, gridJson);
    Path sessionsFile = out.resolve("sessions.jsonl");
    List<Run> runs = new ArrayList<>();
    if (Files.exists(sessionsFile)) {
      List<String> lines = Files.readAllLines(sessionsFile);
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).isBlank()) {
          try {
            // unknown keys ignored: folders from before a field was dropped still resume
            runs.add(MAPPER.readerFor(Run.class).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .readValue(lines.get(i)));
          } catch (IOException e) {
            if (i < lines.size() - 1) {
              throw new IllegalArgumentException(sessionsFile + ": line " + (i + 1) + " is corrupt (" + e.getMessage()
                  + "); delete the folder to start over");
            }
            // the last line cut off by an interruption: its session runs again
          }
        }
      }
    }
    int first = g.warmUp() ? 0 : 1;
    if (nothingToRun(g, runs, first)) {
      // A rerun into a finished folder: no MNIST, no certificates, no node processes to start and
      // stop (three JVMs on the quick grid) for sessions that are all recorded already.
      progress.start(String.format(java.util.Locale.ROOT, "%s over the network: every session recorded in %s",
          g.projection() ? "crosssilo-projection" : "crosssilo-nodes", sessionsFile), 1);
      progress.advance(1);
      progress.finish();
      return new Result(g, runs, load, SummationTiming.loadAverage(), "-Xmx" + Runtime.getRuntime().maxMemory()
          / (1 << 20) + "m");
    }
    BuiltinDataset.TrainTest mnist = BuiltinDataset.byId("mnist").load(cache);
    Dataset train = mnist.train();
    Checks.require((long) g.parties() * g.perParty() <= train.size(), "parties x per party must be at most the "
        + train.size() + " MNIST training records");
    Partition partition = new PartitionStrategy.Iid(g.parties(), g.perParty()).split(train, new SplittableRandom(19));
    List<Dataset> shards = new ArrayList<>();
    for (int k = 0; k < g.parties(); k++) {
      shards.add(train.subset(partition.indices(k), "mnist shard " + (k + 1)));
    }
    int maxNodes = g.configurations().stream().mapToInt(Setting::nodes).max().orElseThrow();
    Path tmp = Files.createTempDirectory("helmet-nodes-timing");
    List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
    // Ctrl-C or SIGTERM skips the finally below: the node processes and the folder go with this JVM anyway.
    Thread cleanup = new Thread(() -> {
      processes.forEach(Process::destroyForcibly);
      Loopback.deleteTree(tmp);
    }, "nodes-timing-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      Path certs = tmp.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), g.parties(), maxNodes, Duration.ofDays(1));
      List<ComputeNodeEntry> entries = new ArrayList<>();
      for (int l = 1; l <= maxNodes; l++) {
        int port = Loopback.freePort();
        String name = "compute-node-" + l;
        processes.add(startNode(helmetMain, name, port, certs, tmp));
        entries.add(ComputeNodeEntry.newBuilder().setName(name).setEndpoint("127.0.0.1:" + port)
            .setCertificateSha256(ByteString.copyFrom(sha256(certs.resolve(name + ".pem")))).build());
      }
      for (int l = 0; l < maxNodes; l++) {
        Loopback.waitForPort(Integer.parseInt(entries.get(l).getEndpoint().split(":")[1]), processes.get(l),
            entries.get(l).getName());
      }
      int total = g.configurations().size() * (g.repeats() + 1 - first);
      progress.start(String.format(java.util.Locale.ROOT, "%s over the network: %d parties, d = %,d, %s, %d timed "
          + "sessions each%s", g.projection() ? "crosssilo-projection" : "crosssilo-nodes", g.parties(),
          g.parameters(), g.projection() ? "M = " + g.nodes().get(0) + ", no projection and k = " + g.projections()
              : "M = 1 (no encryption) and " + g.nodes(), g.repeats(), g.warmUp() ? " after a warm-up" : ""), total);
      for (int r = first; r <= g.repeats(); r++) {
        for (Setting s : g.configurations()) {
          boolean done = recorded(runs, s, r);
          if (skipped(g, runs, s, r)) {
            progress.advance(1);
            continue;
          }
          Run run = session(g, s, r, entries.subList(0, s.nodes()), shards, certs,
              tmp.resolve("db-" + s.nodes() + "-" + s.projection() + "-" + r));
          if (!done) {
            runs.add(run);
            // one line per session
            Files.writeString(sessionsFile, MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(run) + "\n",
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
          }
          progress.advance(1);
        }
      }
      progress.finish();
      return new Result(g, runs, load, SummationTiming.loadAverage(), "-Xmx" + Runtime.getRuntime().maxMemory() / (1 << 20) + "m");
    } finally {
      for (Process p : processes) {
        p.destroy();
      }
      for (Process p : processes) {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      Loopback.deleteTree(tmp);
      Runtime.getRuntime().removeShutdownHook(cleanup);
    }
  }

  /** Whether {@code runs} holds the session of {@code s} at {@code repeat}. */
  private static boolean recorded(List<Run> runs, Setting s, int repeat) {
    return runs.stream().anyMatch(x -> x.nodes() == s.nodes() && x.projection() == s.projection()
        && x.repeat() == repeat);
  }

  /**
   * Whether the session of {@code s} at {@code repeat} is skipped given {@code runs}: a recorded
   * timed session always, a recorded warm-up once no timed session is left (while one is, the
   * warm-ups run again: the new process's JIT is cold).
   */
  private static boolean skipped(Grid g, List<Run> runs, Setting s, int repeat) {
    boolean timedLeft = runs.stream().filter(x -> x.repeat() > 0).count()
        < (long) g.repeats() * g.configurations().size();
    return recorded(runs, s, repeat) && (repeat > 0 || !timedLeft);
  }

  /** Whether the loop of {@link #run} would skip every session ({@code runs} only grows by a session run). */
  private static boolean nothingToRun(Grid g, List<Run> runs, int first) {
    for (int r = first; r <= g.repeats(); r++) {
      for (Setting s : g.configurations()) {
        if (!skipped(g, runs, s, r)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The algorithm settings: colluders T = 0 through DCA, local noise through the single node. */
  static ObjectNode algorithmConfig(Grid g, Setting s) {
    int nodes = s.nodes();
    ObjectNode c = MAPPER.createObjectNode();
    ObjectNode learner = c.putObject("learner");
    learner.put("kind", "mlp");
    ArrayNode hidden = learner.putArray("hidden");
    g.hidden().forEach(hidden::add);
    ObjectNode cs = c.putObject("crosssilo");
    cs.put("noise_split", nodes == 1 ? "local" : "colluders");
    if (nodes > 1) {
      cs.put("colluders", 0);
    }
    cs.put("sampling_rate", g.samplingRate());
    cs.put("rounds", g.rounds());
    if (s.projection() > 0) {
      cs.put("projection", s.projection());
    }
    return c;
  }

  private static Run session(Grid g, Setting s, int repeat, List<ComputeNodeEntry> nodes, List<Dataset> shards,
      Path certs, Path db) throws Exception {
    Dataset first = shards.get(0);
    int m = s.nodes();
    SessionConfig.Builder b = SessionConfig.newBuilder()
        .setAlgorithm("cross-silo")
        .setName("crosssilo-timing-m" + m + "-k" + s.projection())
        .setDataset("mnist")
        .setProtocol("dca")
        .addAllComputeNodes(nodes)
        .setParties(g.parties())
        .setMinContributors(g.parties())
        .setColludingFraction(0.5)
        .setMaxPoints(SessionFile.DEFAULT_MAX_POINTS)
        .setFeatures(first.dimension())
        .addAllLabels(first.labelSet().names())
        .setPrivacy(PrivacySpec.newBuilder().setEpsilon(EPSILON).setDelta(1e-5).setHonestFraction(0.5)
            .setProtection("record").setGroupSize(1))
        .setDeadlines(Deadlines.newBuilder().setEnrolmentSeconds(600).setRoundSeconds(600))
        .setSessionId(ByteString.copyFrom(new byte[16]))
        .setGraphNonceCommitment(ByteString.copyFrom(new byte[32]));
    AlgorithmSpec spec = Algorithms.named("cross-silo").configure(new StrictNode("the timing session",
        algorithmConfig(g, s), IllegalArgumentException::new), SessionPlan.common(b.build()));
    SessionConfig config = b.setAlgorithmConfig(SessionPlan.algorithmConfig(spec)).build();
    int port = Loopback.freePort();
    Coordinator.Settings settings = new Coordinator.Settings(config, "127.0.0.1", port,
        Tls.Files.in(certs, "coordinator"), "jdbc:h2:file:" + db.toAbsolutePath(), "", "", 1e6, 1, 16);
    ExecutorService pool = Executors.newFixedThreadPool(g.parties());
    try (Coordinator c = Coordinator.start(settings)) {
      List<Future<Participant.Result>> fs = new ArrayList<>();
      for (int i = 0; i < g.parties(); i++) {
        Dataset shard = shards.get(i);
        Tls.Files tls = Tls.Files.in(certs, "participant-" + (i + 1));
        fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + c.port(), tls,
            ParticipantPolicy.upTo(EPSILON), shard, null, 1800))));
      }
      Coordinator.Result r = c.await(1800, TimeUnit.SECONDS);
      if (!r.completed()) {
        throw new IllegalStateException("the session with " + s + " (repeat " + repeat + ") did not release: "
            + r.reason());
      }
      long bytes = 0;
      int answered = 0;
      for (Future<Participant.Result> f : fs) {
        Participant.Result pr = f.get(120, TimeUnit.SECONDS);
        bytes += pr.bytesSent() + pr.bytesReceived();
        answered++;
      }
      return new Run(m, s.projection(), repeat, r.seconds(), answered == 0 ? 0 : bytes / answered,
          meanUpload(r.parameters()), nodes(r.parameters()));
    } finally {
      pool.shutdownNow();
    }
  }

  /** The privacy target of the timing sessions (what they cost in time does not depend on it). */
  static final double EPSILON = 2;

  private static double meanUpload(Map<String, Object> p) {
    if (!(p.get("per_party") instanceof List<?> l) || l.isEmpty()) {
      return Double.NaN;
    }
    return l.stream().mapToDouble(x -> ((Number) ((Map<?, ?>) x).get("upload_seconds")).doubleValue()).average()
        .orElse(Double.NaN);
  }

  private static List<Node> nodes(Map<String, Object> p) {
    List<Node> out = new ArrayList<>();
    if (p.get("nodes") instanceof List<?> l) {
      for (Object x : l) {
        Map<?, ?> n = (Map<?, ?>) x;
        out.add(new Node(String.valueOf(n.get("node")), String.valueOf(n.get("receives")),
            ((Number) n.get("bytes_in")).longValue(), ((Number) n.get("bytes_out")).longValue(),
            ((Number) n.get("cpu_seconds")).doubleValue()));
      }
    }
    return out;
  }

  private static Process startNode(String helmetMain, String name, int port, Path certs, Path tmp)
      throws Exception {
    // This JVM's class path: the shaded jar under ./helmet, the module's classes and dependencies in tests.
    String jar = System.getProperty("java.class.path");
    // One thread per node, as a node with a machine of its own would give each party's share one
    // core here; the heap holds the last node's running sum and the shares in flight.
    return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
        "-XX:+UseSerialGC", "-cp", jar, helmetMain, "compute-node", "--name", name, "--listen",
        "127.0.0.1:" + port, "--cert", certs.resolve(name + ".pem").toString(), "--key",
        certs.resolve(name + "-key.pem").toString(), "--ca", certs.resolve("ca.pem").toString(), "--threads", "1")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(tmp.resolve(name + ".log").toFile()).start();
  }

  private static byte[] sha256(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return MessageDigest.getInstance("SHA-256")
          .digest(CertificateFactory.getInstance("X.509").generateCertificate(in).getEncoded());
    }
  }
}
