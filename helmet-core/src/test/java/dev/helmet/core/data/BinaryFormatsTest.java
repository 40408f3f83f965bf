package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NumPy and IDX files, written here byte by byte from their published format descriptions. */
class BinaryFormatsTest {
  @TempDir Path dir;

  /** A .npy v1 image: magic, version, header length, the header dict padded to 64 bytes, data. */
  static byte[] npy(String descr, boolean fortran, long[] shape, ByteBuffer data, int major) {
    StringBuilder sh = new StringBuilder();
    for (int i = 0; i < shape.length; i++) {
      sh.append(shape[i]).append(shape.length == 1 ? "," : i < shape.length - 1 ? ", " : "");
    }
    String header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False")
        + ", 'shape': (" + sh + "), }";
    int pre = major == 1 ? 10 : 12;
    int total = pre + header.length() + 1;
    int pad = (64 - total % 64) % 64;
    header = header + " ".repeat(pad) + "\n";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0x93);
    out.writeBytes("NUMPY".getBytes(StandardCharsets.US_ASCII));
    out.write(major);
    out.write(0);
    ByteBuffer len = ByteBuffer.allocate(major == 1 ? 2 : 4).order(ByteOrder.LITTLE_ENDIAN);
    if (major == 1) {
      len.putShort((short) header.length());
    } else {
      len.putInt(header.length());
    }
    out.writeBytes(len.array());
    out.writeBytes(header.getBytes(StandardCharsets.US_ASCII));
    byte[] d = new byte[data.remaining()];
    data.get(d);
    out.writeBytes(d);
    return out.toByteArray();
  }

  static ByteBuffer floats(float... v) {
    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float f : v) {
      b.putFloat(f);
    }
    return b.flip();
  }

  static ByteBuffer longs(long... v) {
    ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long f : v) {
      b.putLong(f);
    }
    return b.flip();
  }

  @Test
  void npyFloat32MatrixWithInt64Labels() throws IOException {
    Path x = dir.resolve("x.npy");
    Path y = dir.resolve("y.npy");
    Files.write(x, npy("<f4", false, new long[] {3, 2}, floats(1, 2, 3, 4, 5, 6), 1));
    Files.write(y, npy("<i8", false, new long[] {3}, longs(0, 1, 0), 1));
    Dataset d = DataReader.read(x, ReadOptions.defaults().withLabels(y));
    assertEquals(3, d.size());
    assertEquals(2, d.dimension());
    assertEquals(4f, d.feature(1, 1));
    assertEquals(1, d.label(1));
    // An uncompressed float32 file is memory-mapped: none of its values are on the Java heap, and
    // rows, subsets and joins read the same values as a heap copy.
    assertEquals(0, d.featureHeapBytes());
    double[] row = new double[2];
    d.copyRow(2, row, 0);
    assertArrayEquals(new double[] {5, 6}, row);
    Dataset sub = d.subset(new int[] {2, 0}, "sub");
    assertEquals(5f, sub.feature(0, 0));
    assertEquals(2f, sub.feature(1, 1));
    assertEquals(6f, Dataset.concat("both", List.of(d, sub)).feature(3, 1));
  }

  @Test
  void mappedFloat32FilesAreStillCheckedForNonFiniteValues() throws IOException {
    Path x = dir.resolve("nan.npy");
    Path y = dir.resolve("nan-y.npy");
    Files.write(x, npy("<f4", false, new long[] {2, 2}, floats(1, 2, Float.NaN, 4), 1));
    Files.write(y, npy("<i8", false, new long[] {2}, longs(0, 1), 1));
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> DataReader.read(x, ReadOptions.defaults().withLabels(y)));
    assertTrue(e.getMessage().contains("row 2 feature 1"), e.getMessage());
  }

  @Test
  void npyFortranOrderBigEndianFloat64AndVersion2Header() throws IOException {
    ByteBuffer b = ByteBuffer.allocate(48).order(ByteOrder.BIG_ENDIAN);
    // Column-major storage of [[1, 2, 3], [4, 5, 6]].
    for (double v : new double[] {1, 4, 2, 5, 3, 6}) {
      b.putDouble(v);
    }
    b.flip();
    Path x = dir.resolve("x.npy");
    Path y = dir.resolve("y.npy");
    Files.write(x, npy(">f8", true, new long[] {2, 3}, b, 2));
    Files.write(y, npy("<i8", false, new long[] {2}, longs(7, 9), 1));
    Dataset d = DataReader.read(x, ReadOptions.defaults().withLabels(y));
    assertEquals(2f, d.feature(0, 1));
    assertEquals(6f, d.feature(1, 2));
    assertEquals(List.of("7", "9"), d.labelSet().names());
  }

  @Test
  void npzWithXYAndPartyArrays() throws IOException {
    Path z = dir.resolve("d.npz");
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(z))) {
      zip.putNextEntry(new ZipEntry("x.npy"));
      zip.write(npy("<f4", false, new long[] {2, 2}, floats(1, 2, 3, 4), 1));
      zip.putNextEntry(new ZipEntry("y.npy"));
      zip.write(npy("<i8", false, new long[] {2}, longs(1, 0), 1));
      zip.putNextEntry(new ZipEntry("party.npy"));
      zip.write(npy("<i8", false, new long[] {2}, longs(5, 6), 1));
    }
    Dataset d = DataReader.read(z, ReadOptions.defaults());
    assertEquals(2, d.size());
    assertEquals("6", d.party(1));
  }

  @Test
  void npyErrorsNameTheProblem() throws IOException {
    Path x = dir.resolve("x.npy");
    Path y = dir.resolve("y.npy");
    Files.write(x, npy("<f4", false, new long[] {3, 2}, floats(1, 2, 3, 4, 5, 6), 1));
    Files.write(y, npy("<i8", false, new long[] {2}, longs(0, 1), 1));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(x, ReadOptions.defaults().withLabels(y)))
        .getMessage().contains("2 labels for 3 feature rows"));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(x, ReadOptions.defaults()))
        .getMessage().contains("needs a label file"));
    Path bad = dir.resolve("bad.npy");
    Files.write(bad, "not numpy at all".getBytes(StandardCharsets.US_ASCII));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(bad, ReadOptions.defaults().withLabels(y)))
        .getMessage().contains("bad magic"));
    Path trunc = dir.resolve("t.npy");
    byte[] full = npy("<f4", false, new long[] {3, 2}, floats(1, 2, 3, 4, 5, 6), 1);
    Files.write(trunc, java.util.Arrays.copyOf(full, full.length - 4));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(trunc, ReadOptions.defaults().withLabels(y)))
        .getMessage().contains("truncated"));
    Path nan = dir.resolve("nan.npy");
    Files.write(nan, npy("<f4", false, new long[] {2, 1}, floats(1, Float.NaN), 1));
    assertThrows(DataFormatException.class, () -> DataReader.read(nan, ReadOptions.defaults().withLabels(y)));
    Path str = dir.resolve("s.npy");
    Files.write(str, npy("<U3", false, new long[] {2}, ByteBuffer.allocate(24), 1));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(x, ReadOptions.defaults().withLabels(str)))
        .getMessage().contains("unsupported dtype"));
  }

  static byte[] idx(int type, int[] dims, byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt((type << 8) | dims.length);
    for (int d : dims) {
      out.writeInt(d);
    }
    out.write(data);
    return bytes.toByteArray();
  }

  @Test
  void idxImagesScaleBytesToUnitIntervalRawOrGzipped() throws IOException {
    Path x = dir.resolve("imgs-idx3-ubyte");
    Path y = dir.resolve("labels-idx1-ubyte.gz");
    Files.write(x, idx(0x08, new int[] {2, 2, 2}, new byte[] {0, (byte) 255, 51, 0, 1, 2, 3, 4}));
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(y))) {
      out.write(idx(0x08, new int[] {2}, new byte[] {3, 7}));
    }
    Dataset d = DataReader.read(x, ReadOptions.defaults().withLabels(y));
    assertEquals(4, d.dimension());
    assertEquals(1f, d.feature(0, 1));
    assertEquals(0.2f, d.feature(0, 2), 1e-7);
    assertEquals(List.of("3", "7"), d.labelSet().names());
    // Pixels stay bytes (a quarter of the floats) and read as exactly the floats b / 255f.
    assertEquals(8, d.featureHeapBytes());
    assertEquals(51 / 255f, d.feature(0, 2));
    assertEquals(4 / 255f, d.subset(new int[] {1}, "one").feature(0, 3));
    // Joined with itself it stays bytes; joined with floats, every value reads the same as floats.
    assertEquals(16, Dataset.concat("twice", List.of(d, d)).featureHeapBytes());
    Dataset floats = new Dataset("f", new float[] {9, 8, 7, 6}, new int[] {0}, 4, d.labelSet(), null);
    Dataset mixed = Dataset.concat("mixed", List.of(d, floats));
    assertEquals(4L * 12, mixed.featureHeapBytes());
    assertEquals(51 / 255f, mixed.feature(0, 2));
    assertEquals(7f, mixed.feature(2, 2));
  }

  @Test
  void idxTruncatedOrMismatchedFilesAreRejected() throws IOException {
    Path x = dir.resolve("x-idx3-ubyte");
    Path y = dir.resolve("y-idx1-ubyte");
    Files.write(x, idx(0x08, new int[] {2, 2, 2}, new byte[] {0, 1, 2}));
    Files.write(y, idx(0x08, new int[] {2}, new byte[] {3, 7}));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(x, ReadOptions.defaults().withLabels(y)))
        .getMessage().contains("truncated IDX"));
    Files.write(x, idx(0x08, new int[] {3, 1, 1}, new byte[] {0, 1, 2}));
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(x, ReadOptions.defaults().withLabels(y)))
        .getMessage().contains("2 labels for 3 feature rows"));
  }
}
