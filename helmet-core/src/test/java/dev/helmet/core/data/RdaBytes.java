package dev.helmet.core.data;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * Writes R serialisation streams item by item from the format's description (R Internals,
 * "Serialization Formats"), for tests: no R is needed to make small {@code .rda} fixtures. Symbols
 * are written once and back-referenced afterwards, as R does.
 */
final class RdaBytes {
  static final int LISTSXP = 2;
  static final int LGLSXP = 10;
  static final int INTSXP = 13;
  static final int REALSXP = 14;
  static final int STRSXP = 16;
  static final int VECSXP = 19;
  static final int OBJECT = 1 << 8;
  static final int ATTR = 1 << 9;
  static final int TAG = 1 << 10;
  static final int NIL = 254;

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final DataOutputStream out = new DataOutputStream(bytes);
  private final Map<String, Integer> symbols = new HashMap<>();

  /** A stream with the {@code save()} header of format {@code version} (2 or 3). */
  static RdaBytes save(int version) {
    RdaBytes b = new RdaBytes();
    b.raw(("RDX" + version + "\nX\n").getBytes(StandardCharsets.US_ASCII));
    b.i(version).i(0x040201).i(version == 3 ? 0x030500 : 0x020300);
    if (version == 3) {
      b.i(5).raw("UTF-8".getBytes(StandardCharsets.US_ASCII));
    }
    return b;
  }

  RdaBytes i(int v) {
    try {
      out.writeInt(v);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  RdaBytes d(double v) {
    return i((int) (Double.doubleToRawLongBits(v) >>> 32)).i((int) Double.doubleToRawLongBits(v));
  }

  RdaBytes raw(byte[] b) {
    bytes.writeBytes(b);
    return this;
  }

  /** A CHARSXP (ASCII flag set), or NA_character_ for null. */
  RdaBytes chars(String s) {
    if (s == null) {
      return i(9).i(-1);
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return i(9 | (64 << 12)).i(b.length).raw(b);
  }

  /** A symbol: defined on first use, a reference (index in the high bits) afterwards. */
  RdaBytes sym(String name) {
    Integer ref = symbols.get(name);
    if (ref != null) {
      return i((ref << 8) | 255);
    }
    symbols.put(name, symbols.size() + 1);
    return i(1).chars(name);
  }

  /** The flags word of a pairlist cell with a tag (and attributes when {@code attr}). */
  RdaBytes cell() {
    return i(LISTSXP | TAG);
  }

  RdaBytes nil() {
    return i(NIL);
  }

  RdaBytes ints(int type, int flags, int... v) {
    i(type | flags).i(v.length);
    for (int x : v) {
      i(x);
    }
    return this;
  }

  RdaBytes reals(int flags, double... v) {
    i(REALSXP | flags).i(v.length);
    for (double x : v) {
      d(x);
    }
    return this;
  }

  RdaBytes strs(int flags, String... v) {
    i(STRSXP | flags).i(v.length);
    for (String s : v) {
      chars(s);
    }
    return this;
  }

  /** A factor column: codes (1-based, NA as MIN_VALUE), then levels and class attributes. */
  RdaBytes factor(String[] levels, boolean ordered, int... codes) {
    ints(INTSXP, OBJECT | ATTR, codes);
    cell().sym("levels").strs(0, levels);
    cell().sym("class");
    if (ordered) {
      strs(0, "ordered", "factor");
    } else {
      strs(0, "factor");
    }
    return nil();
  }

  /** Starts a data frame of {@code columns} columns; write the columns, then {@link #frameEnd}. */
  RdaBytes frameStart(int columns) {
    return i(VECSXP | OBJECT | ATTR).i(columns);
  }

  /** The attributes of a data frame: names, compact row names c(NA, -rows), class. */
  RdaBytes frameEnd(int rows, String... names) {
    cell().sym("names").strs(0, names);
    cell().sym("row.names").ints(INTSXP, 0, Integer.MIN_VALUE, -rows);
    cell().sym("class").strs(0, "data.frame");
    return nil();
  }

  byte[] bytes() {
    return bytes.toByteArray();
  }

  static byte[] gzip(byte[] b) {
    return compress(b, "gz");
  }

  static byte[] bzip2(byte[] b) {
    return compress(b, "bz2");
  }

  static byte[] xz(byte[] b) {
    return compress(b, "xz");
  }

  private static byte[] compress(byte[] b, String kind) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    try (OutputStream c = switch (kind) {
      case "gz" -> new GZIPOutputStream(o);
      case "bz2" -> new BZip2CompressorOutputStream(o);
      default -> new XZOutputStream(o, new LZMA2Options());
    }) {
      c.write(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return o.toByteArray();
  }
}
