package dev.helmet.experiments.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.Tls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The coordinator memory benchmark: a coordinator in its own JVM ({@code helmet coordinator}, on
 * loopback) and P participants in this one, each with its own mutual-TLS gRPC connection, on a
 * softmax model of D parameters (synthetic data: 10 classes, D / 10 - 1 features). Measures the
 * end-to-end wall time, the coordinator's peak resident memory (sampled from /proc every 50 ms),
 * its largest heap after a collection and the bytes per participant. The coordinator runs with a
 * fixed heap far below parties x model size, so a run that completes shows the memory bound.
 */
public final class NetworkBench {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private NetworkBench() {}

  /**
   * What to run.
   *
   * @param params the model size D, a multiple of 10 of at least 20
   * @param points points per participant
   * @param heap the coordinator JVM's -Xmx
   * @param direct the coordinator JVM's -XX:MaxDirectMemorySize
   * @param classPath the class path the coordinator JVM runs with
   * @param mainClass the command-line entry point whose {@code coordinator --config FILE --json} it runs
   */
  public record Settings(int participants, int params, int points, String heap, String direct, String classPath,
      String mainClass) {
    /** Checks the sizes. */
    public Settings {
      if (params % 10 != 0 || params < 20) {
        throw new IllegalArgumentException("--params must be a multiple of 10 of at least 20. Provided value: "
            + params);
      }
      if (participants < 2 || participants > 5000) {
        throw new IllegalArgumentException("--participants must be in [2, 5000]. Provided value: " + participants);
      }
    }
  }

  /**
   * The run's measurements.
   *
   * @param coordinator the coordinator's own {@code --json} summary (empty if it printed none)
   * @param completed participants whose session completed
   * @param wallSeconds from the coordinator's start to its end
   * @param peakRssBytes the coordinator's peak resident memory
   * @param maxHeapAfterGcBytes its largest heap occupancy right after a collection (-1: no GC log)
   * @param sent bytes the completed participants sent, in all
   * @param received bytes they received, in all
   */
  public record Outcome(JsonNode coordinator, int completed, double wallSeconds, long peakRssBytes,
      long maxHeapAfterGcBytes, long sent, long received) {}

  /** Runs the session; {@code lines} receives the progress and failure lines (stderr's). */
  public static Outcome run(Settings s, Consumer<String> lines) throws Exception {
    int features = s.params() / 10 - 1;
    Path tmp = Files.createTempDirectory("helmet-network-bench");
    Process coordinator = null;
    try {
      Path certs = tmp.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), s.participants(), Duration.ofDays(1));
      int port = Loopback.freePort();
      StringBuilder labels = new StringBuilder();
      for (int k = 0; k < 10; k++) {
        labels.append(k == 0 ? "" : ", ").append(k);
      }
      Path yaml = tmp.resolve("session.yaml");
      Files.writeString(yaml, String.join("\n",
          "name: network-bench",
          "dataset: synthetic",
          "parties: " + s.participants(),
          "min_contributors: " + s.participants(),
          "features: " + features,
          "labels: [" + labels + "]",
          "learner: {kind: softmax, epochs: 1}",
          "privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}",
          "deadlines: {enrolment_seconds: 600, round_seconds: 600}",
          "listen: 127.0.0.1:" + port,
          "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
          "budget: {epsilon: 1.0, delta: 1.0e-5}",
          ""), StandardCharsets.UTF_8);
      long start = System.nanoTime();
      List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx" + s.heap(), "-XX:MaxDirectMemorySize=" + s.direct(), "-XX:+UseSerialGC",
          "-Xlog:gc:file=" + tmp.resolve("gc.log"), "-Xlog:all=warning:stderr", "-cp", s.classPath(), s.mainClass(),
          "coordinator", "--config", yaml.toString(), "--json");
      coordinator = new ProcessBuilder(command).redirectError(tmp.resolve("coordinator.log").toFile()).start();
      long pid = coordinator.pid();
      AtomicLong peakRss = new AtomicLong();
      Thread sampler = new Thread(() -> {
        Path status = Path.of("/proc", String.valueOf(pid), "status");
        while (!Thread.currentThread().isInterrupted()) {
          try {
            for (String line : Files.readAllLines(status)) {
              if (line.startsWith("VmHWM:")) {
                peakRss.accumulateAndGet(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024, Math::max);
              }
            }
            Thread.sleep(50);
          } catch (IOException | NumberFormatException e) {
            return; // the process has ended
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "rss-sampler");
      sampler.setDaemon(true);
      sampler.start();
      Loopback.waitForPort(port, coordinator, "the coordinator");
      lines.accept(String.format("coordinator pid %d on port %d (-Xmx%s); starting %d participants", pid, port,
          s.heap(), s.participants()));
      SplittableRandom rng = new SplittableRandom(1);
      LabelSet labelSet = LabelSet.ofIntegers(10);
      ExecutorService pool = Executors.newFixedThreadPool(s.participants());
      List<Future<Participant.Result>> fs = new ArrayList<>();
      for (int i = 0; i < s.participants(); i++) {
        Dataset data = synthetic(rng.split(), s.points(), features, labelSet, "participant " + (i + 1));
        Tls.Files files = Tls.Files.in(certs, "participant-" + (i + 1));
        fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + port, files,
            ParticipantPolicy.upTo(1.0), data, null, 600))));
      }
      long sent = 0;
      long received = 0;
      int completed = 0;
      for (Future<Participant.Result> f : fs) {
        try {
          Participant.Result r = f.get(1800, TimeUnit.SECONDS);
          sent += r.bytesSent();
          received += r.bytesReceived();
          completed += r.completed() ? 1 : 0;
        } catch (java.util.concurrent.ExecutionException e) {
          lines.accept("helmet: a participant failed: " + e.getCause().getMessage());
        }
      }
      pool.shutdownNow();
      String out = new String(coordinator.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      coordinator.waitFor(60, TimeUnit.SECONDS);
      double wall = (System.nanoTime() - start) / 1e9;
      sampler.interrupt();
      JsonNode result = out.isBlank() ? MAPPER.createObjectNode() : MAPPER.readTree(out);
      return new Outcome(result, completed, wall, peakRss.get(), maxHeapAfterGc(tmp.resolve("gc.log")), sent,
          received);
    } finally {
      if (coordinator != null) {
        coordinator.destroyForcibly();
      }
      Loopback.deleteTree(tmp);
    }
  }

  /**
   * The largest heap occupancy right after a collection, from the unified GC log ("... 95M->41M(123M)"):
   * the live set plus what survived, a far better measure of what the coordinator holds than its
   * resident size, which follows the heap the JVM has committed.
   */
  public static long maxHeapAfterGc(Path log) {
    long max = 0;
    java.util.regex.Pattern p = java.util.regex.Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\(");
    try {
      for (String line : Files.readAllLines(log)) {
        java.util.regex.Matcher m = p.matcher(line);
        if (m.find()) {
          long v = Long.parseLong(m.group(3));
          long unit = switch (m.group(4)) {
            case "K" -> 1L << 10;
            case "M" -> 1L << 20;
            default -> 1L << 30;
          };
          max = Math.max(max, v * unit);
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return max;
  }

  private static Dataset synthetic(SplittableRandom rng, int n, int features, LabelSet labels, String name) {
    float[] x = new float[n * features];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      y[i] = rng.nextInt(labels.size());
      for (int j = 0; j < features; j++) {
        x[i * features + j] = (float) rng.nextGaussian();
      }
    }
    return new Dataset(name, x, y, features, labels, null);
  }
}
