package dev.helmet.core.data;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A matrix of little-endian float32 values as an uncompressed {@code .npy} file (format 1.0, C
 * order): written row by row, read back memory-mapped so the Java heap holds none of it. Used for
 * cached features; any numpy reads the files.
 */
public final class Float32Npy {
  private Float32Npy() {}

  /** A mapped matrix: {@code rows x cols} floats, read-only. */
  public record Matrix(int rows, int cols, FloatBuffer values) {}

  /** Writes {@code rows x cols} floats from {@code values} (row-major). */
  public static void write(Path file, float[] values, int rows, int cols) throws IOException {
    if ((long) rows * cols != values.length) {
      throw new IllegalArgumentException(values.length + " values do not form " + rows + " rows of " + cols);
    }
    try (Writer w = open(file, rows, cols)) {
      w.write(values, 0, values.length);
    }
  }

  /** Starts a file of {@code rows x cols} floats, to be filled in order with {@link Writer#write}. */
  public static Writer open(Path file, int rows, int cols) throws IOException {
    return new Writer(file, rows, cols);
  }

  /** Streams a matrix into a file row block by row block; {@link #close} checks that all rows came. */
  public static final class Writer implements AutoCloseable {
    private final DataOutputStream out;
    private final long expected;
    private final ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    private long written;

    private Writer(Path file, int rows, int cols) throws IOException {
      this.expected = (long) rows * cols;
      OutputStream raw = Files.newOutputStream(file);
      this.out = new DataOutputStream(new BufferedOutputStream(raw, 1 << 16));
      String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + rows + ", " + cols + "), }";
      int unpadded = 10 + dict.length() + 1;
      int padded = (unpadded + 63) / 64 * 64; // numpy aligns the data to 64 bytes
      String header = dict + " ".repeat(padded - unpadded) + "\n";
      out.write(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
      out.write(header.length() & 0xff);
      out.write(header.length() >>> 8);
      out.write(header.getBytes(StandardCharsets.US_ASCII));
    }

    /** Appends {@code values[from .. from + n)}. */
    public void write(float[] values, int from, int n) throws IOException {
      if (written + n > expected) {
        throw new IllegalStateException("more values than the " + expected + " the header announced");
      }
      for (int i = 0; i < n; ) {
        buf.clear();
        int k = Math.min(buf.capacity() / 4, n - i);
        for (int j = 0; j < k; j++) {
          buf.putFloat(values[from + i + j]);
        }
        out.write(buf.array(), 0, k * 4);
        i += k;
      }
      written += n;
    }

    @Override
    public void close() throws IOException {
      out.close();
      if (written != expected) {
        throw new IOException("wrote " + written + " of the " + expected + " values the header announced");
      }
    }
  }

  /** Maps a file written by {@link #write}; a file of another kind is a {@link DataFormatException}. */
  public static Matrix map(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size > Integer.MAX_VALUE - 64) {
        throw new DataFormatException(file.getFileName() + ": more than 2 GB cannot be mapped as one matrix");
      }
      ByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
      NpyReader.NpyArray a = NpyReader.parse(file.getFileName().toString(), mapped);
      if (a.shape().length != 2 || a.fortran() || a.dtype().kind() != NpyReader.Kind.FLOAT || a.dtype().size() != 4
          || a.dtype().order() != ByteOrder.LITTLE_ENDIAN) {
        throw new DataFormatException(file.getFileName() + ": not a C-order little-endian float32 matrix");
      }
      return new Matrix((int) a.shape()[0], (int) a.shape()[1], a.data().order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer());
    } catch (IOException e) {
      throw new UncheckedIOException(file.getFileName() + ": cannot read: " + e.getMessage(), e);
    }
  }
}
