package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Quick preset runs that several CLI tests start from: each preset runs once per test JVM (the
 * test classes of a module share one), into a temporary folder removed when the JVM exits, and a
 * test that changes the folder works on its own copy ({@link #copy}).
 */
final class QuickRuns {
  private static final Map<String, Path> FINISHED = new HashMap<>();

  private QuickRuns() {}

  /**
   * The folder of {@code experiment run --preset PRESET --quick --out DIR --quiet}, run on first
   * use (and asserted to succeed); read it, or {@link #copy} it before changing anything.
   */
  static synchronized Path finished(String preset) throws IOException {
    Path dir = FINISHED.get(preset);
    if (dir == null) {
      dir = Files.createTempDirectory("helmet-quick-" + preset + "-");
      Path made = dir;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(made)));
      Cli run = Cli.run("experiment", "run", "--preset", preset, "--quick", "--out", dir.toString(), "--quiet");
      assertEquals(0, run.exit, run.toString());
      FINISHED.put(preset, dir);
    }
    return dir;
  }

  /** A copy of the finished quick run of {@code preset} in {@code to}, as its own run would have left it. */
  static void copy(String preset, Path to) throws IOException {
    copyTree(finished(preset), to);
  }

  /** Copies the folder {@code from} (files and subfolders) to {@code to}. */
  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary folder; the OS cleans it eventually
    }
  }
}
