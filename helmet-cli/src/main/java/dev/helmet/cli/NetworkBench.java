package dev.helmet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet bench network}: runs {@link dev.helmet.experiments.network.NetworkBench} (a
 * coordinator in its own JVM, this jar's {@code helmet coordinator}, and P mutual-TLS participants
 * in this one) and prints its measurements. The coordinator runs with a fixed heap ({@code
 * --coordinator-heap}) far below parties x model size, so a run that completes shows the memory
 * bound.
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
    String jar = Path.of(NetworkBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    var settings = new dev.helmet.experiments.network.NetworkBench.Settings(participants, params, points, heap, direct,
        jar, Main.class.getName());
    Logging.configure(true);
    PrintWriter err = spec.commandLine().getErr();
    var o = dev.helmet.experiments.network.NetworkBench.run(settings, line -> {
      err.println(line);
      err.flush();
    });
    JsonNode result = o.coordinator();
    int completed = o.completed();
    double wall = o.wallSeconds();
    ObjectNode j = Json.object();
    j.put("participants", participants);
    j.put("params", params);
    j.put("status", result.path("status").asText("unknown"));
    j.put("completed_participants", completed);
    j.put("wall_seconds", wall);
    j.put("session_seconds", result.path("wall_seconds").asDouble(Double.NaN));
    j.put("coordinator_heap_limit", heap);
    j.put("coordinator_direct_memory_limit", direct);
    j.put("coordinator_peak_rss_bytes", o.peakRssBytes());
    j.put("coordinator_max_heap_after_gc_bytes", o.maxHeapAfterGcBytes());
    j.put("bytes_per_participant", completed == 0 ? 0 : (o.sent() + o.received()) / completed);
    j.put("bytes_sent_per_participant", completed == 0 ? 0 : o.sent() / completed);
    j.put("server_bytes", result.path("server_bytes").asLong());
    j.put("parties_times_model_bytes", (long) participants * params * 4);
    j.set("summation_parameters", result.path("summation_parameters"));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.print(j));
    } else {
      out.printf("%d participants x %d parameters over mutual TLS: %s in %.1f s (session %.1f s); coordinator peak "
          + "RSS %.0f MB, largest heap after GC %.0f MB, with -Xmx%s, direct %s (parties x model = %.0f MB); "
          + "%d B per participant%n", participants, params, j.get("status").asText(), wall,
          j.get("session_seconds").asDouble(),
          o.peakRssBytes() / 1e6, j.get("coordinator_max_heap_after_gc_bytes").asLong() / 1e6, heap, direct,
          (double) participants * params * 4 / 1e6, j.get("bytes_per_participant").asLong());
    }
    out.flush();
    return "completed".equals(j.get("status").asText()) ? Main.OK : Main.SESSION_FAILED;
  }
}
