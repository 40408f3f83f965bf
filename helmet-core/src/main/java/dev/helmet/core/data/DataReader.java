package dev.helmet.core.data;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Reads a data file in any supported {@link DataFormat}: the one entry point for file data. */
public final class DataReader {
  private DataReader() {}

  /**
   * Reads {@code path} (and {@code options.labels()} for NPY/IDX).
   *
   * @throws DataFormatException when the file is missing, unreadable or malformed; the message
   *     names the file and the place
   */
  /**
   * Training and test data from files: the test file read with the training data's labels and
   * dimension, or, without one, a stratified holdout of {@code testFraction} drawn with {@code rng}.
   *
   * @param test the test file, or null
   */
  public static BuiltinDataset.TrainTest readTrainTest(Path train, ReadOptions trainOptions, Path test,
      ReadOptions testOptions, double testFraction, java.util.SplittableRandom rng) {
    Dataset tr = read(train, trainOptions);
    if (test != null) {
      Dataset t = read(test, testOptions.withLabelSet(tr.labelSet()).withDimension(tr.dimension()));
      return new BuiltinDataset.TrainTest(tr, t);
    }
    dev.helmet.core.eval.StratifiedKFold.Fold split = dev.helmet.core.eval.StratifiedKFold.holdout(tr.labels(),
        tr.numClasses(), testFraction, rng);
    return new BuiltinDataset.TrainTest(tr.subset(split.train(), tr.name() + " (train part)"),
        tr.subset(split.test(), tr.name() + " (held-out " + testFraction + ")"));
  }

  public static Dataset read(Path path, ReadOptions options) {
    requireReadable(path);
    if (options.labels() != null) {
      requireReadable(options.labels());
    }
    DataFormat format = options.format() != null ? options.format() : detect(path);
    Dataset d;
    try {
      d = switch (format) {
        case CSV -> CsvReader.read(path, ',', options);
        case TSV -> CsvReader.read(path, '\t', options);
        case LIBSVM -> LibsvmReader.read(path, options);
        case NPY -> NpyReader.readNpy(path, options.labels(), options);
        case NPZ -> NpyReader.readNpz(path, options);
        case IDX -> IdxReader.read(path, options.labels(), options);
      };
    } catch (UncheckedIOException e) {
      throw new DataFormatException(e.getMessage(), e);
    }
    if (options.dimension() > 0 && d.dimension() != options.dimension()) {
      throw new DataFormatException(path.getFileName() + ": rows have " + d.dimension()
          + " features, expected " + options.dimension());
    }
    return d;
  }

  private static void requireReadable(Path p) {
    if (!Files.exists(p)) {
      throw new DataFormatException(p + ": no such file");
    }
    if (Files.isDirectory(p)) {
      throw new DataFormatException(p + ": is a directory, not a data file");
    }
    if (!Files.isReadable(p)) {
      throw new DataFormatException(p + ": file is not readable (permission denied)");
    }
  }

  /** Format from the file name, else from the first bytes. */
  static DataFormat detect(Path path) {
    DataFormat byName = DataFormat.fromFileName(path);
    if (byName != null) {
      return byName;
    }
    try (InputStream in = openMaybeGzip(path)) {
      byte[] head = in.readNBytes(4096);
      if (head.length >= 6 && (head[0] & 0xff) == 0x93 && head[1] == 'N') {
        return DataFormat.NPY;
      }
      if (head.length >= 4 && head[0] == 'P' && head[1] == 'K') {
        return DataFormat.NPZ;
      }
      if (head.length >= 4 && head[0] == 0 && head[1] == 0 && head[2] >= 0x08 && head[3] >= 1 && head[3] <= 8) {
        return DataFormat.IDX;
      }
      String text = new String(head, StandardCharsets.UTF_8);
      String firstLine = text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).findFirst().orElse("");
      if (firstLine.matches("\\s*\\S+(\\s+\\d+:\\S+)+\\s*")) {
        return DataFormat.LIBSVM;
      }
      if (firstLine.contains("\t")) {
        return DataFormat.TSV;
      }
      if (firstLine.contains(",")) {
        return DataFormat.CSV;
      }
    } catch (IOException e) {
      throw new DataFormatException(path + ": cannot read: " + e.getMessage(), e);
    }
    throw new DataFormatException(path.getFileName() + ": cannot tell the format; name it with --format "
        + "csv|tsv|libsvm|npy|npz|idx");
  }

  /** Whether bytes {@code b0, b1} (as read, -1 at the end) are the gzip magic. */
  static boolean gzipMagic(int b0, int b1) {
    return b0 == 0x1f && b1 == 0x8b;
  }

  /** Opens a file, transparently gunzipping when it starts with the gzip magic. */
  static InputStream openMaybeGzip(Path path) throws IOException {
    BufferedInputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
    in.mark(2);
    int b0 = in.read();
    int b1 = in.read();
    in.reset();
    if (gzipMagic(b0, b1)) {
      return new GZIPInputStream(in, 1 << 16);
    }
    return in;
  }

  /** Opens a text file as UTF-8, gunzipping if needed. */
  static Reader openText(Path path) throws IOException {
    return new InputStreamReader(openMaybeGzip(path), StandardCharsets.UTF_8);
  }
}
