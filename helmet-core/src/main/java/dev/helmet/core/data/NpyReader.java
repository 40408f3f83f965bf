package dev.helmet.core.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Reads NumPy {@code .npy} arrays (format versions 1 to 3, C or Fortran order, little or big
 * endian, bool/int/uint/float dtypes) and {@code .npz} archives of them. Feature arrays are
 * {@code (n, p)} or {@code (n, d1, d2, ...)} (flattened); label arrays are {@code (n,)} or
 * {@code (n, 1)} of integers (floats only if every value is integral).
 */
final class NpyReader {
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
  private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
  private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

  private NpyReader() {}

  /** A parsed array: shape, dtype and the raw element bytes, read on demand in C order. */
  record NpyArray(String source, long[] shape, Dtype dtype, boolean fortran, ByteBuffer data) {
    long rows() {
      return shape.length == 0 ? 1 : shape[0];
    }

    long rowLength() {
      long r = 1;
      for (int i = 1; i < shape.length; i++) {
        r *= shape[i];
      }
      return r;
    }

    long count() {
      return rows() * rowLength();
    }

    /** Element {@code i} in C (row-major) order. */
    double get(long i) {
      if (!fortran || shape.length < 2) {
        return dtype.read(data, i);
      }
      // Fortran order stores multi-index (i0, i1, ...) at i0 + s0*(i1 + s1*(i2 ...)).
      long rest = i;
      long[] idx = new long[shape.length];
      for (int k = shape.length - 1; k >= 0; k--) {
        idx[k] = rest % shape[k];
        rest /= shape[k];
      }
      long f = 0;
      for (int k = shape.length - 1; k >= 0; k--) {
        f = f * shape[k] + idx[k];
      }
      return dtype.read(data, f);
    }
  }

  static Dataset readNpy(Path features, Path labels, ReadOptions options) {
    if (labels == null) {
      throw new DataFormatException(features.getFileName() + ": a .npy feature matrix needs a label "
          + "file (--labels FILE.npy), or use an .npz archive holding arrays x and y");
    }
    NpyArray x = parse(features.getFileName().toString(), mapOrRead(features));
    NpyArray y = parse(labels.getFileName().toString(), ByteBuffer.wrap(readAll(labels)));
    return toDataset(features.getFileName().toString(), x, y, null, options);
  }

  static Dataset readNpz(Path path, ReadOptions options) {
    String source = path.getFileName().toString();
    Map<String, NpyArray> arrays = new HashMap<>();
    try (ZipInputStream zin = new ZipInputStream(Files.newInputStream(path))) {
      ZipEntry e;
      while ((e = zin.getNextEntry()) != null) {
        String name = e.getName();
        if (name.endsWith(".npy")) {
          String key = name.substring(0, name.length() - 4);
          arrays.put(key, parse(source + ":" + name, ByteBuffer.wrap(zin.readAllBytes())));
        }
      }
    } catch (IOException e) {
      throw new DataFormatException(source + ": not a readable .npz archive: " + e.getMessage(), e);
    }
    NpyArray x = pick(arrays, source, "features", "x", "X", "features", "data");
    NpyArray y = pick(arrays, source, "labels", "y", "Y", "labels", "label", "target");
    NpyArray party = null;
    for (String k : List.of("party", "parties", "groups", "user", "users")) {
      if (arrays.containsKey(k)) {
        party = arrays.get(k);
        break;
      }
    }
    return toDataset(source, x, y, party, options);
  }

  private static NpyArray pick(Map<String, NpyArray> arrays, String source, String what, String... keys) {
    for (String k : keys) {
      if (arrays.containsKey(k)) {
        return arrays.get(k);
      }
    }
    throw new DataFormatException(source + ": no " + what + " array; expected one named "
        + String.join(" or ", keys) + ", found " + arrays.keySet());
  }

  private static Dataset toDataset(String source, NpyArray x, NpyArray y, NpyArray party, ReadOptions options) {
    if (x.shape().length < 2) {
      throw new DataFormatException(x.source() + ": the feature array must have 2 or more dimensions "
          + "(rows x features); shape is " + shapeString(x.shape()));
    }
    checkVector(y, "label");
    long n = x.rows();
    if (y.count() != n) {
      throw new DataFormatException(y.source() + ": " + y.count() + " labels for " + n + " feature rows");
    }
    if (n == 0) {
      throw new DataFormatException(x.source() + ": no data rows");
    }
    long dim = x.rowLength();
    if (n * dim > Integer.MAX_VALUE - 8) {
      throw new DataFormatException(x.source() + ": more than 2^31 feature values do not fit in memory");
    }
    String[] partyIds = null;
    if (party != null) {
      checkVector(party, "party");
      if (party.count() != n) {
        throw new DataFormatException(party.source() + ": " + party.count() + " party ids for " + n + " rows");
      }
      partyIds = new String[(int) n];
      for (int i = 0; i < n; i++) {
        partyIds[i] = integralLabel(party, i);
      }
    }
    String[] names = new String[(int) n];
    for (int i = 0; i < n; i++) {
      names[i] = integralLabel(y, i);
    }
    LabelSet set = options.labelSet() != null
        ? options.labelSet()
        : LabelSet.fromObserved(new java.util.HashSet<>(java.util.Arrays.asList(names)));
    int[] labels = new int[(int) n];
    for (int i = 0; i < n; i++) {
      labels[i] = set.indexOf(names[i]);
      if (labels[i] < 0) {
        throw new DataFormatException(y.source() + " element " + i + ": unknown label '" + names[i]
            + "'; known labels are " + set.names());
      }
    }
    if (x.data().isDirect() && !x.fortran() && x.dtype().kind() == Kind.FLOAT && x.dtype().size() == 4) {
      // A memory-mapped float32 file in C order is the feature matrix as it is: no copy on the heap.
      return imageShaped(x, new Dataset(source, FeatureStore.mapped(x.data().asFloatBuffer()), labels, (int) dim, set,
          partyIds));
    }
    float[] features = new float[(int) (n * dim)];
    for (int i = 0; i < features.length; i++) {
      features[i] = (float) x.get(i);
    }
    return imageShaped(x, new Dataset(source, features, labels, (int) dim, set, partyIds));
  }

  /** An array of shape (n, height, width) holds images of that public shape. */
  private static Dataset imageShaped(NpyArray x, Dataset d) {
    long[] s = x.shape();
    return s.length == 3 ? d.withImageShape(new ImageShape((int) s[1], (int) s[2])) : d;
  }

  private static void checkVector(NpyArray a, String what) {
    boolean ok = a.shape().length == 1 || (a.shape().length == 2 && a.shape()[1] == 1);
    if (!ok) {
      throw new DataFormatException(a.source() + ": the " + what + " array must be a vector (n,) or (n, 1); "
          + "shape is " + shapeString(a.shape()));
    }
  }

  private static String integralLabel(NpyArray a, int i) {
    double v = a.get(i);
    if (v != Math.rint(v) || !Double.isFinite(v)) {
      throw new DataFormatException(a.source() + " element " + i + ": label " + v + " is not an integer");
    }
    return Long.toString((long) v);
  }

  private static byte[] readAll(Path p) {
    try {
      if (Files.size(p) > Integer.MAX_VALUE - 64) {
        throw new DataFormatException(p.getFileName() + ": .npy files over 2 GiB are not supported; "
            + "split the data into several files");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(p.getFileName() + ": cannot read: " + e.getMessage(), e);
    }
    try (InputStream in = DataReader.openMaybeGzip(p)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(p.getFileName() + ": cannot read: " + e.getMessage(), e);
    }
  }

  /**
   * An uncompressed .npy file mapped read-only into memory (the operating system pages it; the Java
   * heap holds none of it); a gzipped one is read.
   */
  private static ByteBuffer mapOrRead(Path p) {
    try {
      boolean gzip;
      try (InputStream in = Files.newInputStream(p)) {
        gzip = DataReader.gzipMagic(in.read(), in.read());
      }
      long size = Files.size(p);
      if (gzip || size > Integer.MAX_VALUE - 64) {
        return ByteBuffer.wrap(readAll(p));
      }
      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
        return ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(p.getFileName() + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** Parses one .npy image (a heap or mapped buffer from position 0 to its limit). */
  static NpyArray parse(String source, ByteBuffer whole) {
    ByteBuffer buf = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int length = buf.limit();
    if (length < 10) {
      throw new DataFormatException(source + ": too short to be a .npy file");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (buf.get(i) != MAGIC[i]) {
        throw new DataFormatException(source + ": not a .npy file (bad magic)");
      }
    }
    int major = buf.get(6) & 0xff;
    int headerLen;
    int headerStart;
    if (major == 1) {
      headerLen = buf.getShort(8) & 0xffff;
      headerStart = 10;
    } else if (major == 2 || major == 3) {
      headerLen = buf.getInt(8);
      headerStart = 12;
    } else {
      throw new DataFormatException(source + ": unsupported .npy format version " + major);
    }
    if (headerLen < 0 || headerStart + headerLen > length) {
      throw new DataFormatException(source + ": truncated .npy header");
    }
    byte[] headerBytes = new byte[headerLen];
    buf.get(headerStart, headerBytes);
    String header = new String(headerBytes,
        major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    String descr = group(DESCR, header, source, "descr");
    boolean fortran = group(FORTRAN, header, source, "fortran_order").equals("True");
    String shapeText = group(SHAPE, header, source, "shape").trim();
    List<Long> dims = new ArrayList<>();
    for (String s : shapeText.split(",")) {
      if (!s.isBlank()) {
        try {
          dims.add(Long.parseLong(s.trim().replace("L", "")));
        } catch (NumberFormatException e) {
          throw new DataFormatException(source + ": malformed shape (" + shapeText + ")");
        }
      }
    }
    long[] shape = dims.stream().mapToLong(Long::longValue).toArray();
    long count = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new DataFormatException(source + ": negative dimension in shape (" + shapeText + ")");
      }
      count = Math.multiplyExact(count, d);
    }
    Dtype dtype = Dtype.parse(descr, source);
    int dataStart = headerStart + headerLen;
    long need = Math.multiplyExact(count, (long) dtype.size);
    if (length - dataStart < need) {
      throw new DataFormatException(source + ": truncated data: shape " + shapeString(shape) + " of "
          + descr + " needs " + need + " bytes, file has " + (length - dataStart));
    }
    ByteBuffer data = buf.slice(dataStart, (int) need).order(dtype.order);
    return new NpyArray(source, shape, dtype, fortran, data);
  }

  private static String group(Pattern p, String header, String source, String key) {
    Matcher m = p.matcher(header);
    if (!m.find()) {
      throw new DataFormatException(source + ": .npy header has no '" + key + "': " + header.trim());
    }
    return m.group(1);
  }

  private static String shapeString(long[] shape) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < shape.length; i++) {
      sb.append(shape[i]).append(i == 0 && shape.length == 1 ? "," : i < shape.length - 1 ? ", " : "");
    }
    return sb.append(')').toString();
  }

  enum Kind { BOOL, INT, UINT, FLOAT }

  record Dtype(Kind kind, int size, ByteOrder order) {
    static Dtype parse(String descr, String source) {
      if (descr.length() < 3) {
        throw new DataFormatException(source + ": unsupported dtype '" + descr + "'");
      }
      char endian = descr.charAt(0);
      ByteOrder order = switch (endian) {
        case '<', '|', '=' -> ByteOrder.LITTLE_ENDIAN;
        case '>' -> ByteOrder.BIG_ENDIAN;
        default -> throw new DataFormatException(source + ": unsupported dtype '" + descr + "'");
      };
      char k = descr.charAt(1);
      int size;
      try {
        size = Integer.parseInt(descr.substring(2));
      } catch (NumberFormatException e) {
        throw new DataFormatException(source + ": unsupported dtype '" + descr + "'");
      }
      Kind kind = switch (k) {
        case 'b' -> Kind.BOOL;
        case 'i' -> Kind.INT;
        case 'u' -> Kind.UINT;
        case 'f' -> Kind.FLOAT;
        default -> throw new DataFormatException(source + ": unsupported dtype '" + descr
            + "'; use bool, int, uint, float32 or float64");
      };
      boolean ok = switch (kind) {
        case BOOL -> size == 1;
        case INT, UINT -> size == 1 || size == 2 || size == 4 || size == 8;
        case FLOAT -> size == 4 || size == 8;
      };
      if (!ok) {
        throw new DataFormatException(source + ": unsupported dtype '" + descr.toLowerCase(Locale.ROOT) + "'");
      }
      return new Dtype(kind, size, order);
    }

    double read(ByteBuffer b, long i) {
      int at = (int) (i * size);
      return switch (kind) {
        case BOOL -> b.get(at) != 0 ? 1 : 0;
        case INT -> switch (size) {
          case 1 -> b.get(at);
          case 2 -> b.getShort(at);
          case 4 -> b.getInt(at);
          default -> b.getLong(at);
        };
        case UINT -> switch (size) {
          case 1 -> b.get(at) & 0xff;
          case 2 -> b.getShort(at) & 0xffff;
          case 4 -> b.getInt(at) & 0xffffffffL;
          default -> unsignedLong(b.getLong(at));
        };
        case FLOAT -> size == 4 ? b.getFloat(at) : b.getDouble(at);
      };
    }

    private static double unsignedLong(long v) {
      return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }
  }
}
