package dev.helmet.core.features;

import dev.helmet.core.data.DataFormatException;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.Float32Npy;
import dev.helmet.core.util.Progress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;

/**
 * Computed features kept on disk, in {@code CACHE/features/}, as float32 {@code .npy} files mapped
 * back into memory (off the Java heap). A file's name is the feature set and a keyed digest
 * (HMAC-SHA256) of the settings and of the input's values, so a changed input or setting never
 * meets stale features.
 *
 * <p>The name is derived from possibly private data, so it is keyed: the key is 32 random bytes
 * from SecureRandom in {@code CACHE/features.key} (owner-only), and without it a file name does not
 * let anyone test guesses of a record, should it ever leave the machine. It never goes into a model
 * file, report, log line or any other output. The cached features are as private as the data;
 * deleting the directory loses nothing that cannot be recomputed.
 *
 * <p>A file is written under a temporary name and renamed when complete, so an interrupted run
 * leaves no partial file behind under a real name; a file that does not map to the expected shape
 * is recomputed.
 */
final class FeatureCache {
  private static final System.Logger LOG = System.getLogger(FeatureCache.class.getName());
  /** Bump when the computation changes in a way the settings do not show. */
  private static final String FORMAT = "helmet-features-v1";

  private FeatureCache() {}

  /**
   * The features of {@code data} from the cache, computing and storing them on a miss; null when the
   * cache cannot be written (then the caller computes them in memory).
   */
  static Dataset loadOrCompute(Path cacheDir, FeatureStage stage, Dataset data, String name, int threads,
      Progress progress) {
    int outDim = stage.transform().outputDimension();
    Path dir = cacheDir.resolve("features");
    // The lookup digests every input value: timed as its own task, so a cache hit shows its cost.
    progress.start(stage.id() + " features of " + data.size() + " images: looking in the cache", 1);
    Path file;
    try {
      file = dir.resolve(stage.id() + "-" + key(secret(dir), stage, data) + ".npy");
    } catch (IOException | UncheckedIOException e) {
      progress.finish();
      LOG.log(System.Logger.Level.WARNING, "cannot use the feature cache in " + dir + " (" + e.getMessage()
          + "); computing " + stage.id() + " features in memory");
      return null;
    }
    try {
      if (Files.isRegularFile(file)) {
        Float32Npy.Matrix m = Float32Npy.map(file);
        if (m.rows() == data.size() && m.cols() == outDim) {
          progress.advance(1);
          return data.withMappedFeatures(name, m.values(), outDim);
        }
      }
    } catch (DataFormatException | UncheckedIOException e) {
      LOG.log(System.Logger.Level.WARNING, "recomputing the damaged feature cache file " + file + ": "
          + e.getMessage());
    } finally {
      progress.finish();
    }
    Path tmp = null;
    try {
      Files.createDirectories(dir);
      tmp = Files.createTempFile(dir, stage.id() + "-", ".npy.part");
      try (Float32Npy.Writer w = Float32Npy.open(tmp, data.size(), outDim)) {
        stage.computeBlocks(data, threads, progress, (block, from, rows) -> w.write(block, 0, rows * outDim));
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      tmp = null;
      Float32Npy.Matrix m = Float32Npy.map(file);
      return data.withMappedFeatures(name, m.values(), outDim);
    } catch (IOException | UncheckedIOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot keep " + stage.id() + " features in " + dir + " ("
          + e.getMessage() + "); computing them in memory");
      return null;
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // best effort: a stray .part file is never read
        }
      }
    }
  }

  /** This cache's key ({@link dev.helmet.core.util.LocalSecret}), beside the features directory. */
  static byte[] secret(Path dir) throws IOException {
    Files.createDirectories(dir);
    return dev.helmet.core.util.LocalSecret.of(dir.resolveSibling("features.key"));
  }

  /**
   * HMAC-SHA256 under {@code secret} of the format, the stage's settings, the shape and every input
   * value (first 32 hex digits).
   */
  static String key(byte[] secret, FeatureStage stage, Dataset data) {
    javax.crypto.Mac mac;
    try {
      mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(secret, "HmacSHA256"));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is in every JDK", e);
    }
    mac.update((FORMAT + "\n" + stage.record() + "\n" + data.size() + "x" + data.dimension() + "\n")
        .getBytes(StandardCharsets.UTF_8));
    float[] row = new float[data.dimension()];
    ByteBuffer bytes = ByteBuffer.allocate(4 * data.dimension()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < data.size(); i++) {
      data.copyRow(i, row, 0);
      bytes.clear();
      for (float v : row) {
        bytes.putInt(Float.floatToIntBits(v));
      }
      mac.update(bytes.array());
    }
    return HexFormat.of().formatHex(mac.doFinal()).substring(0, 32);
  }
}
