package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuiltinDatasetTest {
  @TempDir Path cache;

  @Test
  void namesResolveCaseInsensitively() {
    assertEquals(BuiltinDataset.MNIST, BuiltinDataset.byId("MNIST"));
    assertEquals(BuiltinDataset.FASHION_MNIST, BuiltinDataset.byId("fashion-mnist"));
    assertNull(BuiltinDataset.byId("cifar10"));
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
