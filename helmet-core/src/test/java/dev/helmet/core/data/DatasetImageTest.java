package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.helmet.core.testdata.TestData;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A data set survives Java serialization through its image (what the Spark engine broadcasts). */
class DatasetImageTest {
  private static Dataset roundTrip(Dataset d) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(DatasetImage.of(d));
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return ((DatasetImage) in.readObject()).toDataset();
    }
  }

  private static void assertSame(Dataset a, Dataset b) {
    assertEquals(a.name(), b.name());
    assertEquals(a.size(), b.size());
    assertEquals(a.dimension(), b.dimension());
    assertEquals(a.labelSet(), b.labelSet());
    assertArrayEquals(a.labels(), b.labels());
    assertEquals(a.imageShape(), b.imageShape());
    assertEquals(a.featureHeapBytes(), b.featureHeapBytes(), "stored the same way (bytes stay bytes)");
    for (int i = 0; i < a.size(); i++) {
      for (int j = 0; j < a.dimension(); j++) {
        assertEquals(a.feature(i, j), b.feature(i, j));
      }
    }
  }

  @Test
  void floatsBytesAndTargetsSurvive() throws Exception {
    Dataset floats = TestData.digits();
    assertSame(floats, roundTrip(floats));
    byte[] pixels = new byte[6 * 4];
    for (int k = 0; k < pixels.length; k++) {
      pixels[k] = (byte) (k * 37);
    }
    Dataset bytes = Dataset.ofUnsignedBytes("px", pixels, 255f, new int[] {0, 1, 1, 0, 1, 0}, 4,
        LabelSet.of(List.of("a", "b"))).withImageShape(new ImageShape(2, 2));
    assertSame(bytes, roundTrip(bytes));
    Dataset regression = floats.withTargets(java.util.stream.IntStream.range(0, floats.size()).mapToDouble(i -> i * 0.5)
        .toArray());
    assertArrayEquals(regression.targets(), roundTrip(regression).targets());
  }
}
