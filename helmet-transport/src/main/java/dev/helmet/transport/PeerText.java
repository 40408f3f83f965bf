package dev.helmet.transport;

import java.util.regex.Pattern;

/**
 * Text a peer chose (a certificate's names, a participant's Decline reason) on its way to a log, a
 * console or the status page: cut to size before anything else is done with it, and with every
 * control, format, line or paragraph separator or other invisible character (line breaks,
 * terminal escapes, bidi overrides) as a space, so a peer cannot forge log lines or rewrite a
 * terminal (the attacker's reads of security review turn 3, T3-8).
 */
final class PeerText {
  /** Unicode's "other" characters (control, format, unassigned, private use) and the two separators. */
  private static final Pattern INVISIBLE = Pattern.compile("[\\p{C}\\p{Zl}\\p{Zp}]");

  private PeerText() {}

  /** At most {@code max} characters of {@code text} (then "..."), cleaned. */
  static String printable(String text, int max) {
    return clean(text.length() > max ? text.substring(0, max) + "..." : text);
  }

  /** {@code text} with every invisible character as a space. */
  static String clean(String text) {
    return INVISIBLE.matcher(text).replaceAll(" ");
  }

  /** Whether {@code text} holds an invisible character. */
  static boolean hasInvisible(String text) {
    return INVISIBLE.matcher(text).find();
  }
}
