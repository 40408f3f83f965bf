package dev.helmet.status;

import java.util.regex.Pattern;

/**
 * Withholds certificate subjects from the event details the status page shows (security review
 * turn 3, T3-4). A subject names a data holder (a hospital, a company): who takes part is the
 * coordinator operator's to know, and it stays in the coordinator's log and database, but the page
 * may be shown further (a screen, a monitoring system), so it shows {@code (subject withheld)}
 * instead. Events keep their party index, kind and reason.
 *
 * <p>Subjects reach details as {@code X500Principal.getName()} writes them (RFC 2253: {@code
 * CN=a,OU=b}, no space after a separator, a comma inside a value escaped as {@code \,}). A match
 * starts at an attribute type (the keywords RFC 2253 writes, {@code CN}, {@code OU}, ..., or an OID) followed by {@code =} and runs
 * over every following {@code ,TYPE=VALUE}; a value ends at an unescaped comma or at what Helmet
 * writes after a subject ({@code ": "}, {@code " ("}, {@code ")"}, {@code "; "}) or at the end. A
 * value that itself holds one of those separators shows its tail: keep certificate names simple.
 */
final class Subjects {
  static final String WITHHELD = "(subject withheld)";

  /** The keywords RFC 2253 output uses; every other attribute type is written as an OID. */
  private static final String TYPE = "(?:CN|C|L|ST|O|OU|STREET|DC|UID|[0-9]+(?:\\.[0-9]+)+)";
  private static final String VALUE = "(?:\\\\.|(?!: |; | \\()[^,\\\\)])*";
  private static final Pattern DN = Pattern.compile("(?<![A-Za-z0-9.=-])" + TYPE + "=" + VALUE
      + "(?:," + TYPE + "=" + VALUE + ")*");

  private Subjects() {}

  /**
   * A name in double quotes (how the coordinator writes a certificate a stranger presented: quotes
   * and backslashes inside escaped), withheld whole, whatever it holds.
   */
  private static final Pattern QUOTED = Pattern.compile("\"" + TYPE + "=(?:[^\"\\\\]|\\\\.)*\"");

  /** {@code detail} with every distinguished name in it replaced by {@link #WITHHELD}. */
  static String withhold(String detail) {
    return detail == null ? null : DN.matcher(QUOTED.matcher(detail).replaceAll(WITHHELD)).replaceAll(WITHHELD);
  }
}
