package dev.helmet.cli;

import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How a run executes and reports. */
final class RunOptions {
  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the partition, the holdout split and the local shuffles (the privacy noise is "
          + "always fresh from SecureRandom). Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--threads", paramLabel = "N",
      description = "Worker threads. Default: the number of processors.")
  Integer threads;

  @Option(names = "--protocol", paramLabel = "plain", defaultValue = "plain",
      description = "Summation protocol. plain: in the clear, for comparison only. Default: ${DEFAULT-VALUE}.")
  String protocol;

  @Option(names = "--ring-bits", paramLabel = "B", defaultValue = "0",
      description = "Summation ring Z_2^B: 32, 64, or 0 to choose (32 when it keeps 20 fractional bits). "
          + "Default: ${DEFAULT-VALUE}.")
  int ringBits;

  @Option(names = "--reference", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Also train the non-private centralized reference on the pooled data. Default: on.")
  boolean reference;

  @Option(names = "--noise-draws", paramLabel = "K", defaultValue = "1",
      description = "Evaluate K independent noise draws on the same trained local models and report mean, sd "
          + "and min accuracy (a measurement of the noise's effect; only the first release is written). "
          + "Default: ${DEFAULT-VALUE}.")
  int noiseDraws;

  @Option(names = {"-o", "--model-out"}, paramLabel = "FILE",
      description = "Where to write the released model (JSON).")
  Path modelOut;

  @Option(names = "--json", description = "Print one JSON object instead of the human summary.")
  boolean json;

  @Option(names = {"-q", "--quiet"}, description = "No progress output.")
  boolean quiet;

  int threads() {
    int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (t < 1) {
      throw new IllegalArgumentException("threads must be >= 1. Provided value: " + t);
    }
    return t;
  }

  SecureSummation summation() {
    if (ringBits != 0 && ringBits != 32 && ringBits != 64) {
      throw new IllegalArgumentException("ring bits must be 0, 32 or 64. Provided value: " + ringBits);
    }
    return switch (protocol.toLowerCase(Locale.ROOT)) {
      case "plain" -> new PlainSummation();
      default -> throw new IllegalArgumentException("protocol must be plain. Provided value: " + protocol);
    };
  }
}
