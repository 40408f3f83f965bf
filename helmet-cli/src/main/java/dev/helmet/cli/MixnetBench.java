package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.crosssilo.SworBatches;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet bench mixnet}: the setup of cross-silo's sampling without replacement (the token
 * mixnet and the joint seed, the same party code a networked session runs) for N parties of n
 * records each, in process.
 */
@Command(name = "mixnet", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Times the token mixnet and joint seed of cross-silo --sampling swor (the paper's Algorithm 2) in "
        + "one process: every party wraps its tokens in one X25519 + AES-GCM layer per party, the mixers open and "
        + "shuffle one after another, then commit-reveal. JSON keys: parties, records_per_party, tokens, seconds, "
        + "bytes_per_party.")
final class MixnetBench implements Callable<Integer> {
  @Option(names = "--parties", paramLabel = "N", defaultValue = "10", description = "Default: ${DEFAULT-VALUE}.")
  int parties;

  @Option(names = "--records", paramLabel = "n", defaultValue = "6000",
      description = "Records (tokens) per party. Default: ${DEFAULT-VALUE}.")
  int records;

  @Option(names = "--threads", paramLabel = "T", description = "Parties wrapping at once. Default: all cores.")
  Integer threads;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (parties < 1 || parties > 1000 || records < 1 || (long) parties * records > 10_000_000) {
      throw new IllegalArgumentException("--parties must be in [1, 1000] and --records in [1, 10^7 / parties]. "
          + "Provided values: " + parties + ", " + records);
    }
    int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (t < 1) {
      throw new IllegalArgumentException("--threads must be positive. Provided value: " + t);
    }
    int[] sizes = new int[parties];
    Arrays.fill(sizes, records);
    double[] r = SworBatches.benchmark(sizes, 1, t);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode j = Json.object();
      j.put("parties", parties);
      j.put("records_per_party", records);
      j.put("tokens", (long) parties * records);
      j.put("seconds", r[0]);
      j.put("bytes_per_party", (long) r[1]);
      out.println(Json.print(j));
    } else {
      out.printf(Locale.ROOT, "token mixnet and joint seed: %d parties x %d records: %.2f s, %d B per party%n",
          parties, records, r[0], (long) r[1]);
    }
    out.flush();
    return Main.OK;
  }
}
