package dev.helmet.core.data;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Parses R's binary serialisation format, versions 2 and 3, as written by {@code save()} (an
 * {@code RDX2}/{@code RDX3} header) or {@code saveRDS()}, in the XDR (big-endian) encoding and
 * compressed with gzip, bzip2 or xz (detected from the magic bytes, as R itself does).
 *
 * <p>Written from the format's description in "R Internals" (section "Serialization Formats"):
 * every item starts with a 32-bit flags word whose low byte is the type, bit 8 "is object", bit 9
 * "has attributes", bit 10 "has tag" and bits 12+ the "levels" (character encoding for strings).
 * Only the types a data frame is made of are built; symbols go into the reference table so later
 * back-references resolve. Anything else (closures, environments, byte code, S4 objects) is
 * refused with the type's name and byte offset: a data file has no business holding code.
 *
 * <p>Allocation grows with the bytes actually read, so a forged length cannot make the reader
 * reserve gigabytes before the truncation is noticed.
 */
final class RdaParser {
  private static final int REFSXP = 255;
  private static final int NILVALUE_SXP = 254;
  private static final int GLOBALENV_SXP = 253;
  private static final int UNBOUNDVALUE_SXP = 252;
  private static final int MISSINGARG_SXP = 251;
  private static final int BASENAMESPACE_SXP = 250;
  private static final int EMPTYENV_SXP = 242;
  private static final int BASEENV_SXP = 241;
  private static final int ALTREP_SXP = 238;
  private static final int MAX_DEPTH = 200;

  private final String source;
  private final InputStream in;
  private long pos;
  private final List<RObject> refs = new ArrayList<>();
  private int depth;

  private RdaParser(String source, InputStream in) {
    this.source = source;
    this.in = in;
  }

  /**
   * Reads the single top-level object of a serialised stream (for an {@code .rda} file: the
   * pairlist of saved objects, tagged with their names).
   *
   * @param source the file name, for messages
   */
  static RObject parse(String source, InputStream raw) throws IOException {
    RdaParser p = new RdaParser(source, decompress(source, raw));
    p.header();
    RObject o = p.item();
    // Read the compressed container to its end so its own checks (xz index and CRC, gzip CRC and
    // length) run: a damaged tail must not pass just because the objects ended before it.
    p.in.transferTo(OutputStream.nullOutputStream());
    return o;
  }

  /** Wraps {@code raw} in the decompressor its magic bytes name, or returns it as it is. */
  static InputStream decompress(String source, InputStream raw) throws IOException {
    BufferedInputStream b = new BufferedInputStream(raw, 1 << 16);
    b.mark(8);
    byte[] m = b.readNBytes(6);
    b.reset();
    if (m.length >= 2 && (m[0] & 0xff) == 0x1f && (m[1] & 0xff) == 0x8b) {
      return new BufferedInputStream(new GZIPInputStream(b, 1 << 16), 1 << 16);
    }
    if (m.length >= 3 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h') {
      return new BufferedInputStream(new BZip2CompressorInputStream(b), 1 << 16);
    }
    if (m.length >= 6 && (m[0] & 0xff) == 0xFD && m[1] == '7' && m[2] == 'z' && m[3] == 'X' && m[4] == 'Z'
        && m[5] == 0) {
      return new BufferedInputStream(new XZInputStream(b), 1 << 16);
    }
    return b;
  }

  private void header() throws IOException {
    byte[] first = readBytes(2, "the format header");
    if (first[0] == 'R' && first[1] == 'D') {
      byte[] rest = readBytes(3, "the RData header");
      String magic = "RD" + new String(rest, StandardCharsets.US_ASCII);
      if (!magic.equals("RDX2\n") && !magic.equals("RDX3\n")) {
        throw error(0, "header '" + printable(magic) + "' is not RDX2 or RDX3 (an ASCII save, RDA2/RDA3, or "
            + "a native binary save, RDB2/RDB3, is not supported; re-save with save(..., ascii = FALSE))");
      }
      first = readBytes(2, "the format header");
    }
    String format = new String(first, StandardCharsets.US_ASCII);
    if (!format.equals("X\n")) {
      throw error(pos - 2, "format '" + printable(format) + "' is not XDR binary ('X\\n'); this is not an R "
          + "data file, or an ASCII/native one, which is not supported");
    }
    int version = readInt("the serialisation version");
    if (version != 2 && version != 3) {
      throw error(pos - 4, "serialisation format version " + version + " is not supported (only 2 and 3)");
    }
    readInt("the writer's R version");
    readInt("the minimal reader R version");
    if (version == 3) {
      int n = readInt("the native encoding's length");
      if (n < 0 || n > 256) {
        throw error(pos - 4, "native encoding name of length " + n);
      }
      readBytes(n, "the native encoding");
    }
  }

  private RObject item() throws IOException {
    if (++depth > MAX_DEPTH) {
      throw error(pos, "objects nested more than " + MAX_DEPTH + " deep");
    }
    try {
      return itemBody();
    } finally {
      depth--;
    }
  }

  private RObject itemBody() throws IOException {
    long at = pos;
    int flags = readInt("an item's flags");
    int type = flags & 0xff;
    boolean hasAttr = (flags & (1 << 9)) != 0;
    boolean hasTag = (flags & (1 << 10)) != 0;
    int levels = flags >>> 12;
    switch (type) {
      case NILVALUE_SXP:
        return RObject.NIL;
      case GLOBALENV_SXP, EMPTYENV_SXP, BASEENV_SXP, BASENAMESPACE_SXP, UNBOUNDVALUE_SXP, MISSINGARG_SXP:
        return RObject.marker(RObject.ENVIRONMENT_MARKER);
      case REFSXP: {
        int index = flags >>> 8;
        if (index == 0) {
          index = readInt("a reference index");
        }
        if (index < 1 || index > refs.size()) {
          throw error(at, "reference to object " + index + " but only " + refs.size() + " are defined");
        }
        return refs.get(index - 1);
      }
      case ALTREP_SXP:
        return altrep(at);
      case RObject.SYMSXP: {
        RObject name = item();
        if (name.type != RObject.CHARSXP || name.strings[0] == null) {
          throw error(at, "a symbol whose name is a " + RObject.typeName(name.type));
        }
        RObject sym = RObject.strings(RObject.SYMSXP, name.strings);
        refs.add(sym);
        return sym;
      }
      case RObject.LISTSXP, RObject.LANGSXP:
        return pairlist(type, hasAttr, hasTag);
      case RObject.CHARSXP:
        return RObject.strings(RObject.CHARSXP, new String[] {charsxp(levels)});
      case RObject.LGLSXP, RObject.INTSXP:
        return withAttributes(RObject.ints(type, readInts(length(at), at)), hasAttr);
      case RObject.REALSXP:
        return withAttributes(RObject.reals(readDoubles(length(at), at)), hasAttr);
      case RObject.STRSXP: {
        int n = length(at);
        List<String> s = new ArrayList<>(Math.min(n, 1 << 16));
        for (int i = 0; i < n; i++) {
          long elementAt = pos;
          int f = readInt("a string's flags");
          if ((f & 0xff) != RObject.CHARSXP) {
            throw error(elementAt, "element " + (i + 1) + " of a character vector is a "
                + RObject.typeName(f & 0xff) + ", expected a string (CHARSXP)");
          }
          s.add(charsxp(f >>> 12));
        }
        return withAttributes(RObject.strings(RObject.STRSXP, s.toArray(new String[0])), hasAttr);
      }
      case RObject.VECSXP: {
        int n = length(at);
        List<RObject> e = new ArrayList<>(Math.min(n, 1 << 12));
        for (int i = 0; i < n; i++) {
          e.add(item());
        }
        return withAttributes(RObject.vector(e), hasAttr);
      }
      default:
        throw error(at, "an object of type " + RObject.typeName(type) + " (SEXPTYPE " + type
            + "), which a data file of data frames does not hold; only NULL, logical, integer, double, "
            + "character, list and pairlist objects are supported");
    }
  }

  private RObject withAttributes(RObject o, boolean hasAttr) throws IOException {
    if (hasAttr) {
      long at = pos;
      RObject a = item();
      if (a.type != RObject.LISTSXP && a.type != RObject.NILSXP) {
        throw error(at, "attributes are a " + RObject.typeName(a.type) + ", expected a pairlist");
      }
      o.setAttributes(a);
    }
    return o;
  }

  /** A pairlist: per cell attributes, tag, CAR, then the CDR, which is iterated, not recursed. */
  private RObject pairlist(int type, boolean hasAttr, boolean hasTag) throws IOException {
    List<RObject> cars = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    RObject firstAttributes = null;
    while (true) {
      if (hasAttr) {
        RObject a = item();
        if (firstAttributes == null) {
          firstAttributes = a;
        }
      }
      String tag = null;
      if (hasTag) {
        long at = pos;
        RObject t = item();
        if (t.type != RObject.SYMSXP && t.type != RObject.NILSXP) {
          throw error(at, "a pairlist tag is a " + RObject.typeName(t.type) + ", expected a symbol");
        }
        tag = t.type == RObject.SYMSXP ? t.strings[0] : null;
      }
      tags.add(tag);
      cars.add(item());
      long at = pos;
      int flags = readInt("a pairlist's next cell");
      int next = flags & 0xff;
      if (next == NILVALUE_SXP) {
        break;
      }
      if (next != type) {
        // R lets a CDR be any object, but the pairlists of data files (saved objects, attributes) end in NULL.
        throw error(at, "a pairlist ends in a " + RObject.typeName(next) + " instead of NULL");
      }
      hasAttr = (flags & (1 << 9)) != 0;
      hasTag = (flags & (1 << 10)) != 0;
    }
    RObject p = RObject.pairlist(type, cars, tags);
    if (firstAttributes != null && firstAttributes.type == RObject.LISTSXP) {
      p.setAttributes(firstAttributes);
    }
    return p;
  }

  /**
   * An ALTREP object (format version 3): class info, state, attributes. Only the classes that
   * stand for plain vectors in data files are expanded: compact integer/real sequences (row
   * names 1..n), wrapped vectors and deferred strings of integers.
   */
  private RObject altrep(long at) throws IOException {
    RObject info = item();
    RObject state = item();
    RObject attr = item();
    String cls = info.type == RObject.LISTSXP && !info.elements.isEmpty() && info.elements.get(0).type == RObject.SYMSXP
        ? info.elements.get(0).strings[0] : "?";
    RObject value;
    switch (cls) {
      case "compact_intseq", "compact_realseq" -> {
        if (state.type != RObject.REALSXP || state.reals.length != 3) {
          throw error(at, cls + " with a state that is not three numbers");
        }
        double n = state.reals[0];
        if (n < 0 || n > Integer.MAX_VALUE - 8 || n != Math.rint(n)) {
          throw error(at, cls + " of length " + n);
        }
        int len = (int) n;
        if (cls.equals("compact_intseq")) {
          int[] v = new int[len];
          for (int i = 0; i < len; i++) {
            v[i] = (int) (state.reals[1] + (long) i * (long) state.reals[2]);
          }
          value = RObject.ints(RObject.INTSXP, v);
        } else {
          double[] v = new double[len];
          for (int i = 0; i < len; i++) {
            v[i] = state.reals[1] + i * state.reals[2];
          }
          value = RObject.reals(v);
        }
      }
      case "wrap_integer", "wrap_logical", "wrap_real", "wrap_string", "wrap_list" -> {
        if (state.type != RObject.VECSXP || state.elements.isEmpty()) {
          throw error(at, cls + " with a state that is not a list");
        }
        value = state.elements.get(0);
      }
      case "deferred_string" -> {
        RObject arg = state.elements == null || state.elements.isEmpty() ? null : state.elements.get(0);
        if (arg == null || arg.type != RObject.INTSXP) {
          throw error(at, "deferred_string of something other than integers");
        }
        String[] s = new String[arg.ints.length];
        for (int i = 0; i < s.length; i++) {
          s[i] = arg.ints[i] == RObject.NA_INTEGER ? null : Integer.toString(arg.ints[i]);
        }
        value = RObject.strings(RObject.STRSXP, s);
      }
      default -> throw error(at, "an ALTREP object of class '" + cls + "', which is not supported");
    }
    if (attr.type == RObject.LISTSXP) {
      value.setAttributes(attr);
    }
    return value;
  }

  private String charsxp(int levels) throws IOException {
    long at = pos;
    int n = readInt("a string's length");
    if (n == -1) {
      return null; // NA_character_
    }
    if (n < 0) {
      throw error(at, "string of negative length " + n);
    }
    byte[] b = readBytes(n, "a string of " + n + " bytes");
    boolean latin1 = (levels & (1 << 2)) != 0;
    return new String(b, latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
  }

  private int length(long at) throws IOException {
    int n = readInt("a vector's length");
    if (n == -1) {
      long hi = readInt("a long vector's length") & 0xffffffffL;
      long lo = readInt("a long vector's length") & 0xffffffffL;
      long len = (hi << 32) | lo;
      throw error(at, "a long vector of " + len + " elements, more than this reader holds");
    }
    if (n < 0) {
      throw error(at, "vector of negative length " + n);
    }
    return n;
  }

  private int[] readInts(int n, long at) throws IOException {
    int[] v = new int[Math.min(n, 1 << 16)];
    for (int i = 0; i < n; i++) {
      if (i == v.length) {
        v = Arrays.copyOf(v, (int) Math.min(n, 2L * v.length));
      }
      v[i] = readInt("element " + (i + 1) + " of " + n + " of the vector at byte " + at);
    }
    return v;
  }

  private double[] readDoubles(int n, long at) throws IOException {
    double[] v = new double[Math.min(n, 1 << 16)];
    for (int i = 0; i < n; i++) {
      if (i == v.length) {
        v = Arrays.copyOf(v, (int) Math.min(n, 2L * v.length));
      }
      long hi = readInt("element " + (i + 1) + " of " + n + " of the vector at byte " + at) & 0xffffffffL;
      long lo = readInt("element " + (i + 1) + " of " + n + " of the vector at byte " + at) & 0xffffffffL;
      v[i] = Double.longBitsToDouble((hi << 32) | lo);
    }
    return v;
  }

  private int readInt(String what) throws IOException {
    int b0 = in.read();
    int b1 = in.read();
    int b2 = in.read();
    int b3 = in.read();
    if ((b0 | b1 | b2 | b3) < 0) {
      throw truncated(what);
    }
    pos += 4;
    return (b0 << 24) | (b1 << 16) | (b2 << 8) | b3;
  }

  private byte[] readBytes(int n, String what) throws IOException {
    byte[] b = in.readNBytes(n);
    if (b.length < n) {
      pos += b.length;
      throw truncated(what);
    }
    pos += n;
    return b;
  }

  private DataFormatException truncated(String what) {
    return new DataFormatException(source + ": truncated at byte " + pos + " of the uncompressed stream while "
        + "reading " + what);
  }

  private DataFormatException error(long at, String problem) {
    return new DataFormatException(source + " byte " + at + " of the uncompressed stream: " + problem);
  }

  private static String printable(String s) {
    return s.replace("\n", "\\n").replaceAll("[^\\x20-\\x7e\\\\]", "?");
  }

  /** Turns a decompressor's complaint about a damaged stream into a clear message. */
  static DataFormatException damaged(String source, IOException e) {
    String kind = e instanceof EOFException ? "ends early" : "is damaged";
    return new DataFormatException(source + ": the compressed stream " + kind + ": " + e.getMessage(), e);
  }
}
