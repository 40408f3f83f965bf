package dev.helmet.core.data;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One object read from an R serialisation stream, holding only what data frames need: the
 * vector payload of its type, the tags of a pairlist, and the attributes by name. Everything R
 * could store beyond that (closures, environments, byte code) is refused by {@link RdaParser}
 * rather than modelled here, so a data file can never make the reader build arbitrary structure.
 */
final class RObject {
  // SEXPTYPE codes from R's serialisation format (R Internals, "Serialization Formats").
  static final int NILSXP = 0;
  static final int SYMSXP = 1;
  static final int LISTSXP = 2;
  static final int LANGSXP = 6;
  static final int CHARSXP = 9;
  static final int LGLSXP = 10;
  static final int INTSXP = 13;
  static final int REALSXP = 14;
  static final int STRSXP = 16;
  static final int VECSXP = 19;
  /** Stand-in type for the environments R writes as a single code (global, base, empty). */
  static final int ENVIRONMENT_MARKER = 4;

  /** R's integer NA. */
  static final int NA_INTEGER = Integer.MIN_VALUE;
  /** R's NA_real_: a NaN whose low word is 1954. */
  static final long NA_REAL_BITS = 0x7FF00000000007A2L;

  static final RObject NIL = new RObject(NILSXP, null, null, null, null, null);

  final int type;
  /** LGLSXP and INTSXP payload (NA as {@link #NA_INTEGER}). */
  final int[] ints;
  /** REALSXP payload. */
  final double[] reals;
  /** STRSXP payload (NA as null); for SYMSXP and CHARSXP the single name/text in {@code [0]}. */
  final String[] strings;
  /** VECSXP elements, or the CAR of each cell of a pairlist. */
  final List<RObject> elements;
  /** Pairlist tags, parallel to {@link #elements} (null where a cell has no tag). */
  final List<String> tags;
  private Map<String, RObject> attributes = Collections.emptyMap();

  private RObject(int type, int[] ints, double[] reals, String[] strings, List<RObject> elements, List<String> tags) {
    this.type = type;
    this.ints = ints;
    this.reals = reals;
    this.strings = strings;
    this.elements = elements;
    this.tags = tags;
  }

  static RObject ints(int type, int[] values) {
    return new RObject(type, values, null, null, null, null);
  }

  static RObject reals(double[] values) {
    return new RObject(REALSXP, null, values, null, null, null);
  }

  static RObject strings(int type, String[] values) {
    return new RObject(type, null, null, values, null, null);
  }

  static RObject vector(List<RObject> elements) {
    return new RObject(VECSXP, null, null, null, elements, null);
  }

  static RObject pairlist(int type, List<RObject> cars, List<String> tags) {
    return new RObject(type, null, null, null, cars, tags);
  }

  static RObject marker(int type) {
    return new RObject(type, null, null, null, null, null);
  }

  /** The attributes, in stream order; empty when the object has none. */
  Map<String, RObject> attributes() {
    return attributes;
  }

  /** Sets the attributes from a tagged pairlist as read after the object's payload. */
  void setAttributes(RObject pairlist) {
    if (pairlist == null || pairlist.type == NILSXP || pairlist.elements == null) {
      return;
    }
    Map<String, RObject> m = new LinkedHashMap<>();
    for (int i = 0; i < pairlist.elements.size(); i++) {
      String tag = pairlist.tags.get(i);
      if (tag != null) {
        m.put(tag, pairlist.elements.get(i));
      }
    }
    attributes = Collections.unmodifiableMap(m);
  }

  /** The attribute's strings, or null when it is absent or not a character vector. */
  String[] stringAttribute(String name) {
    RObject a = attributes.get(name);
    return a != null && a.type == STRSXP ? a.strings : null;
  }

  /** Whether attribute {@code class} contains {@code cls}. */
  boolean inherits(String cls) {
    String[] c = stringAttribute("class");
    if (c != null) {
      for (String s : c) {
        if (cls.equals(s)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The number of elements of a vector (0 for NULL and markers). */
  int length() {
    if (ints != null) {
      return ints.length;
    }
    if (reals != null) {
      return reals.length;
    }
    if (type == STRSXP) {
      return strings.length;
    }
    return elements == null ? 0 : elements.size();
  }

  /** The name R gives the type, for messages. */
  static String typeName(int type) {
    return switch (type) {
      case 0 -> "NULL";
      case 1 -> "symbol";
      case 2 -> "pairlist";
      case 3 -> "closure";
      case 4 -> "environment";
      case 5 -> "promise";
      case 6 -> "language";
      case 7 -> "special";
      case 8 -> "builtin";
      case 9 -> "CHARSXP";
      case 10 -> "logical";
      case 13 -> "integer";
      case 14 -> "double";
      case 15 -> "complex";
      case 16 -> "character";
      case 17 -> "...";
      case 19 -> "list";
      case 20 -> "expression";
      case 21 -> "bytecode";
      case 22 -> "externalptr";
      case 23 -> "weakref";
      case 24 -> "raw";
      case 25 -> "S4";
      default -> "type " + type;
    };
  }
}
