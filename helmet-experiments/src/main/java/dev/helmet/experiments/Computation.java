package dev.helmet.experiments;

import dev.helmet.core.util.Progress;
import java.nio.file.Path;
import java.util.List;

/**
 * How a computed preset, or a preset's networked form, runs: it checks the options it was given
 * (each says which do not apply), writes its tables, plots and report into the request's folder and
 * says what it wrote.
 */
@FunctionalInterface
public interface Computation {
  /**
   * Runs it.
   *
   * @throws IllegalArgumentException naming the option, if an option does not apply or is out of range
   */
  Result run(Request request) throws Exception;

  /**
   * The options of one run, as the command line gave them.
   *
   * @param out the folder the outputs go into (created)
   * @param quick the small grid (a CI run) instead of the paper's
   * @param dataset {@code --dataset}, or null if not given
   * @param features {@code --features}, or null if not given
   * @param threads {@code --threads}, or null if not given (each computation has its default)
   * @param cache where built-in data sets are cached
   * @param progress receives progress
   * @param helmetMain the class whose {@code main} is the {@code helmet} command line, for
   *     computations that start {@code helmet compute-node} processes on this JVM's class path
   */
  record Request(Path out, boolean quick, String dataset, String features, Integer threads, Path cache,
      Progress progress, String helmetMain) {
    /** {@code " --quick"} for the quick grid, else empty: the flag as a report's command line shows it. */
    public String quickFlag() {
      return quick ? " --quick" : "";
    }
  }

  /**
   * What a run wrote.
   *
   * @param summary one line: the preset and what ran ({@code "smm-sum: 36 runs"})
   * @param seconds how long it took
   * @param tables the result tables written
   * @param report the report
   * @param plots the plots, each without its .png/.svg extension
   */
  record Result(String summary, double seconds, List<Path> tables, Path report, List<Path> plots) {
    public Result {
      tables = List.copyOf(tables);
      plots = List.copyOf(plots);
    }
  }
}
