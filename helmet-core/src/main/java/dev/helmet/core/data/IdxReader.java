package dev.helmet.core.data;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Reads the IDX format of MNIST and Fashion-MNIST (raw or gzipped): a 4-byte magic {@code 0 0
 * type ndims}, {@code ndims} big-endian sizes, then the values. A feature file has 2 or more
 * dimensions (flattened per row), a label file one. Unsigned-byte features (pixels) are scaled by
 * 1/255 into [0, 1], a fixed public transformation.
 */
final class IdxReader {
  private IdxReader() {}

  /** A parsed file: floats, or (unsigned-byte features) the bytes themselves, read as b / 255. */
  private record Idx(String source, int type, int[] dims, float[] values, byte[] pixels) {
    long count() {
      return values != null ? values.length : pixels.length;
    }
  }

  static Dataset read(Path features, Path labels, ReadOptions options) {
    if (labels == null) {
      throw new DataFormatException(features.getFileName() + ": an IDX image file needs its label file "
          + "(--labels FILE)");
    }
    Idx x = parse(features, true);
    Idx y = parse(labels, false);
    if (x.dims().length < 2) {
      throw new DataFormatException(x.source() + ": an IDX feature file needs 2 or more dimensions, has "
          + x.dims().length);
    }
    if (y.dims().length != 1) {
      throw new DataFormatException(y.source() + ": an IDX label file has 1 dimension, this one has "
          + y.dims().length);
    }
    int n = x.dims()[0];
    if (y.dims()[0] != n) {
      throw new DataFormatException(y.source() + ": " + y.dims()[0] + " labels for " + n + " feature rows in "
          + x.source());
    }
    int dim = (int) (x.count() / Math.max(1, n));
    LabelSet set = options.labelSet();
    String[] names = new String[n];
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < n; i++) {
      float v = y.values()[i];
      if (v != Math.rint(v)) {
        throw new DataFormatException(y.source() + " element " + i + ": label " + v + " is not an integer");
      }
      names[i] = Long.toString((long) v);
      seen.add(names[i]);
    }
    if (set == null) {
      set = LabelSet.fromObserved(seen);
    }
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = set.indexOf(names[i]);
      if (ids[i] < 0) {
        throw new DataFormatException(y.source() + " element " + i + ": unknown label '" + names[i]
            + "'; known labels are " + set.names());
      }
    }
    Dataset d = x.pixels() != null
        ? Dataset.ofUnsignedBytes(x.source(), x.pixels(), 255f, ids, dim, set)
        : new Dataset(x.source(), x.values(), ids, dim, set, null);
    // n x height x width: images of a public shape (the file's own header says so).
    return x.dims().length == 3 ? d.withImageShape(new ImageShape(x.dims()[1], x.dims()[2])) : d;
  }

  private static Idx parse(Path path, boolean scaleBytes) {
    String source = path.getFileName().toString();
    try (DataInputStream in = new DataInputStream(DataReader.openMaybeGzip(path))) {
      int magic = in.readInt();
      if ((magic >>> 16) != 0) {
        throw new DataFormatException(source + ": not an IDX file (bad magic 0x" + Integer.toHexString(magic) + ")");
      }
      int type = (magic >>> 8) & 0xff;
      int nd = magic & 0xff;
      if (nd < 1 || nd > 8) {
        throw new DataFormatException(source + ": IDX file with " + nd + " dimensions is not supported");
      }
      int[] dims = new int[nd];
      long count = 1;
      for (int i = 0; i < nd; i++) {
        dims[i] = in.readInt();
        if (dims[i] < 0) {
          throw new DataFormatException(source + ": negative IDX dimension " + dims[i]);
        }
        count *= dims[i];
        if (count > Integer.MAX_VALUE - 8) {
          throw new DataFormatException(source + ": IDX array too large");
        }
      }
      if (type == 0x08 && scaleBytes) {
        byte[] b = new byte[(int) count];
        in.readFully(b);
        return new Idx(source, type, dims, null, b);
      }
      float[] v = new float[(int) count];
      switch (type) {
        case 0x08 -> {
          byte[] b = new byte[(int) count];
          in.readFully(b);
          for (int i = 0; i < b.length; i++) {
            v[i] = b[i] & 0xff;
          }
        }
        case 0x09 -> {
          for (int i = 0; i < v.length; i++) {
            v[i] = in.readByte();
          }
        }
        case 0x0B -> {
          for (int i = 0; i < v.length; i++) {
            v[i] = in.readShort();
          }
        }
        case 0x0C -> {
          for (int i = 0; i < v.length; i++) {
            v[i] = in.readInt();
          }
        }
        case 0x0D -> {
          for (int i = 0; i < v.length; i++) {
            v[i] = in.readFloat();
          }
        }
        case 0x0E -> {
          for (int i = 0; i < v.length; i++) {
            v[i] = (float) in.readDouble();
          }
        }
        default -> throw new DataFormatException(source + ": unknown IDX value type 0x" + Integer.toHexString(type));
      }
      return new Idx(source, type, dims, v, null);
    } catch (EOFException e) {
      throw new DataFormatException(source + ": truncated IDX file (fewer values than its header announces)", e);
    } catch (IOException e) {
      throw new UncheckedIOException(source + ": cannot read: " + e.getMessage(), e);
    }
  }
}
