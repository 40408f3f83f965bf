package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuiltinDatasetTest {
  @TempDir Path cache;

  @Test
  void namesResolveCaseInsensitively() {
    assertEquals(BuiltinDataset.MNIST, BuiltinDataset.byId("MNIST"));
    assertEquals(BuiltinDataset.FASHION_MNIST, BuiltinDataset.byId("fashion-mnist"));
    assertNull(BuiltinDataset.byId("cifar10"));
    assertEquals(BuiltinDataset.BREAST_CANCER, BuiltinDataset.byId("Breast-Cancer"));
  }

  @Test
  void aTamperedTabularFileIsRefusedBeforeItIsParsed() throws IOException {
    Path dir = cache.resolve("servo");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("Servo.rda"), "RDX2\nX\n");
    DataUnavailableException e = assertThrows(DataUnavailableException.class,
        () -> BuiltinDataset.SERVO.loadTabular(cache));
    assertTrue(e.getMessage().contains("Servo.rda has SHA-256"), e.getMessage());
  }

  @Test
  void imageAndTabularLoadersRefuseTheOtherKind() {
    assertThrows(DataFormatException.class, () -> BuiltinDataset.MNIST.loadTabular(cache));
    assertTrue(BuiltinDataset.OZONE.isRegression());
    assertEquals(List.of(), BuiltinDataset.OZONE.classes());
    assertEquals(List.of("neg", "pos"), BuiltinDataset.PIMA.classes());
  }

  @Test
  void aCachedFileWithTheWrongChecksumIsRefusedAndNamed() throws IOException {
    Path dir = cache.resolve("mnist");
    Files.createDirectories(dir);
    for (String f : new String[] {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte"}) {
      Files.writeString(dir.resolve(f), "tampered");
    }
    DataUnavailableException e = assertThrows(DataUnavailableException.class, () -> BuiltinDataset.MNIST.load(cache));
    assertTrue(e.getMessage().contains("SHA-256") && e.getMessage().contains("pinned"), e.getMessage());
  }
}
