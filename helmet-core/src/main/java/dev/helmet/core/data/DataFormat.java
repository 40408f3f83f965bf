package dev.helmet.core.data;

import java.nio.file.Path;
import java.util.Locale;

/** The file formats Helmet reads. */
public enum DataFormat {
  /** Comma-separated values; one row per line, label column selectable, header optional. */
  CSV,
  /** Tab-separated values, otherwise as CSV. */
  TSV,
  /** LIBSVM / svmlight: {@code label index:value ...} with 1-based ascending indices. */
  LIBSVM,
  /** A NumPy {@code .npy} feature matrix; labels from a second {@code .npy} file. */
  NPY,
  /** A NumPy {@code .npz} archive holding arrays {@code x} and {@code y} (optionally {@code party}). */
  NPZ,
  /** The IDX format of MNIST, raw or gzipped; labels from a second IDX file. */
  IDX;

  /** Guesses the format from a file name; null if the name says nothing. */
  public static DataFormat fromFileName(Path path) {
    String n = path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (n.endsWith(".gz")) {
      n = n.substring(0, n.length() - 3);
    }
    if (n.endsWith(".csv")) {
      return CSV;
    }
    if (n.endsWith(".tsv") || n.endsWith(".tab")) {
      return TSV;
    }
    if (n.endsWith(".npy")) {
      return NPY;
    }
    if (n.endsWith(".npz")) {
      return NPZ;
    }
    if (n.endsWith(".svm") || n.endsWith(".libsvm") || n.endsWith(".svmlight") || n.endsWith("_scale")) {
      return LIBSVM;
    }
    if (n.contains("idx1") || n.contains("idx2") || n.contains("idx3") || n.endsWith(".idx")
        || n.endsWith("-ubyte")) {
      return IDX;
    }
    return null;
  }

  /** Parses a user-given format name (case-insensitive). */
  public static DataFormat parse(String name) {
    try {
      return valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("format must be one of csv, tsv, libsvm, npy, npz, idx. "
          + "Provided value: " + name);
    }
  }
}
