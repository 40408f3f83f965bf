package dev.helmet.core.testdata;

import dev.helmet.core.data.DataReader;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The bundled real data sets (see testdata/README.md for sources and licences), copied out of the
 * class path into a temporary directory so tests can pass real file paths to the readers.
 */
public final class TestData {
  private static Path dir;

  private TestData() {}

  /** A file path for the bundled resource {@code name}, e.g. {@code "iris.csv"}. */
  public static synchronized Path path(String name) {
    try {
      if (dir == null) {
        dir = Files.createTempDirectory("helmet-testdata");
        dir.toFile().deleteOnExit();
      }
      Path p = dir.resolve(name);
      if (!Files.exists(p)) {
        try (InputStream in = TestData.class.getResourceAsStream(name)) {
          if (in == null) {
            throw new IllegalArgumentException("no bundled test data named " + name);
          }
          Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
        }
        p.toFile().deleteOnExit();
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Iris (150 x 4, 3 classes). */
  public static Dataset iris() {
    return DataReader.read(path("iris.csv"), ReadOptions.defaults().withSkipRows(1));
  }

  /** Wine (178 x 13, 3 classes). */
  public static Dataset wine() {
    return DataReader.read(path("wine_data.csv"), ReadOptions.defaults().withSkipRows(1));
  }

  /** Breast cancer Wisconsin (569 x 30, 2 classes). */
  public static Dataset breastCancer() {
    return DataReader.read(path("breast_cancer.csv"), ReadOptions.defaults().withSkipRows(1));
  }

  /** Digits (1797 x 64, 10 classes). */
  public static Dataset digits() {
    return DataReader.read(path("digits.csv.gz"), ReadOptions.defaults());
  }

  /** heart_scale (270 x 13, 2 classes, LIBSVM format). */
  public static Dataset heartScale() {
    return DataReader.read(path("heart_scale"), ReadOptions.defaults());
  }
}
