package dev.helmet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.transport.Certificates;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.Tls;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet bench network}: a coordinator in its own JVM ({@code helmet coordinator}) and P
 * participants in this one, each with its own mutual-TLS gRPC connection, on a softmax model of D
 * parameters (synthetic data: 10 classes, D / 10 - 1 features). Reports the end-to-end wall time,
 * the coordinator's peak resident memory (sampled from /proc every 50 ms) and the bytes per
 * participant. The coordinator runs with a fixed heap ({@code --coordinator-heap}) far below
 * parties x model size, so a run that completes shows the memory bound.
 */
@Command(name = "network", mixinStandardHelpOptions = true, sortOptions = false,
    description = "One networked session on loopback: coordinator process + P mutual-TLS participants.")
final class NetworkBench implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--participants", paramLabel = "P", defaultValue = "1000", description = "Default: ${DEFAULT-VALUE}.")
  int participants;

  @Option(names = "--params", paramLabel = "D", defaultValue = "61450",
      description = "Model size, a multiple of 10 (10 classes). Default: ${DEFAULT-VALUE}.")
  int params;

  @Option(names = "--points", paramLabel = "N", defaultValue = "5",
      description = "Points per participant. Default: ${DEFAULT-VALUE}.")
  int points;

  @Option(names = "--coordinator-heap", paramLabel = "SIZE", defaultValue = "256m",
      description = "The coordinator JVM's -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap;

  @Option(names = "--coordinator-direct", paramLabel = "SIZE", defaultValue = "512m",
      description = "The coordinator JVM's -XX:MaxDirectMemorySize (network buffers: TLS and HTTP/2 per "
          + "connection, plus the outbound budget). Default: ${DEFAULT-VALUE}.")
  String direct;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (params % 10 != 0 || params < 20) {
      throw new IllegalArgumentException("--params must be a multiple of 10 of at least 20. Provided value: " + params);
    }
    if (participants < 2 || participants > 5000) {
      throw new IllegalArgumentException("--participants must be in [2, 5000]. Provided value: " + participants);
    }
    Logging.configure(true);
    PrintWriter err = spec.commandLine().getErr();
    int features = params / 10 - 1;
    Path tmp = Files.createTempDirectory("helmet-network-bench");
    Process coordinator = null;
    try {
      Path certs = tmp.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), participants, Duration.ofDays(1));
      int port = LoopbackProcesses.freePort();
      StringBuilder labels = new StringBuilder();
      for (int k = 0; k < 10; k++) {
        labels.append(k == 0 ? "" : ", ").append(k);
      }
      Path yaml = tmp.resolve("session.yaml");
      Files.writeString(yaml, String.join("\n",
          "name: network-bench",
          "dataset: synthetic",
          "parties: " + participants,
          "min_contributors: " + participants,
          "features: " + features,
          "labels: [" + labels + "]",
          "learner: {kind: softmax, epochs: 1}",
          "privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}",
          "deadlines: {enrolment_seconds: 600, round_seconds: 600}",
          "listen: 127.0.0.1:" + port,
          "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
          "budget: {epsilon: 1.0, delta: 1.0e-5}",
          ""), StandardCharsets.UTF_8);
      String jar = Path.of(NetworkBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
      long start = System.nanoTime();
      coordinator = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx" + heap, "-XX:MaxDirectMemorySize=" + direct, "-XX:+UseSerialGC",
          "-Xlog:gc:file=" + tmp.resolve("gc.log"), "-Xlog:all=warning:stderr", "-cp", jar, Main.class.getName(),
          "coordinator", "--config",
          yaml.toString(), "--json")
          .redirectError(tmp.resolve("coordinator.log").toFile()).start();
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
      LoopbackProcesses.waitForPort(port, coordinator, "the coordinator");
      err.printf("coordinator pid %d on port %d (-Xmx%s); starting %d participants%n", pid, port, heap, participants);
      err.flush();
      SplittableRandom rng = new SplittableRandom(1);
      LabelSet labelSet = LabelSet.ofIntegers(10);
      ExecutorService pool = Executors.newFixedThreadPool(participants);
      List<Future<Participant.Result>> fs = new ArrayList<>();
      for (int i = 0; i < participants; i++) {
        Dataset data = synthetic(rng.split(), points, features, labelSet, "participant " + (i + 1));
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
          err.println("helmet: a participant failed: " + e.getCause().getMessage());
        }
      }
      pool.shutdownNow();
      String out = new String(coordinator.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      coordinator.waitFor(60, TimeUnit.SECONDS);
      double wall = (System.nanoTime() - start) / 1e9;
      sampler.interrupt();
      JsonNode result = out.isBlank() ? Json.object() : Json.MAPPER.readTree(out);
      ObjectNode j = Json.object();
      j.put("participants", participants);
      j.put("params", params);
      j.put("status", result.path("status").asText("unknown"));
      j.put("completed_participants", completed);
      j.put("wall_seconds", wall);
      j.put("session_seconds", result.path("wall_seconds").asDouble(Double.NaN));
      j.put("coordinator_heap_limit", heap);
      j.put("coordinator_direct_memory_limit", direct);
      j.put("coordinator_peak_rss_bytes", peakRss.get());
      j.put("coordinator_max_heap_after_gc_bytes", maxHeapAfterGc(tmp.resolve("gc.log")));
      j.put("bytes_per_participant", completed == 0 ? 0 : (sent + received) / completed);
      j.put("bytes_sent_per_participant", completed == 0 ? 0 : sent / completed);
      j.put("server_bytes", result.path("server_bytes").asLong());
      j.put("parties_times_model_bytes", (long) participants * params * 4);
      j.set("summation_parameters", result.path("summation_parameters"));
      PrintWriter o = spec.commandLine().getOut();
      if (json) {
        o.println(Json.print(j));
      } else {
        o.printf("%d participants x %d parameters over mutual TLS: %s in %.1f s (session %.1f s); coordinator peak "
            + "RSS %.0f MB, largest heap after GC %.0f MB, with -Xmx%s, direct %s (parties x model = %.0f MB); "
            + "%d B per participant%n", participants, params, j.get("status").asText(), wall,
            j.get("session_seconds").asDouble(),
            peakRss.get() / 1e6, j.get("coordinator_max_heap_after_gc_bytes").asLong() / 1e6, heap, direct,
            (double) participants * params * 4 / 1e6, j.get("bytes_per_participant").asLong());
      }
      o.flush();
      return "completed".equals(j.get("status").asText()) ? Main.OK : Main.SESSION_FAILED;
    } finally {
      if (coordinator != null) {
        coordinator.destroyForcibly();
      }
      LoopbackProcesses.deleteTree(tmp);
    }
  }

  /**
   * The largest heap occupancy right after a collection, from the unified GC log ("... 95M->41M(123M)"):
   * the live set plus what survived, a far better measure of what the coordinator holds than its
   * resident size, which follows the heap the JVM has committed.
   */
  static long maxHeapAfterGc(Path log) {
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
