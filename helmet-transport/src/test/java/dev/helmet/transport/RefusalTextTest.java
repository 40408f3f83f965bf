package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A peer's own words (a stranger's certificate names, a participant's Decline) reach the log and
 * the status page only cut to size, without control or invisible characters, and a stranger's
 * names in quotes (the attacker's read of security review turn 3, T3-8: a CN holding a newline and
 * a fake "rejected a message from party 1: IMPERSONATION" line, and terminal escapes).
 */
class RefusalTextTest {
  @Test
  void aStrangersNameCannotForgeALogLineOrEscapeItsQuotes() {
    String name = "CN=x\n09:41:07 WARNING session 1: rejected a message from party 1: IMPERSONATION\u001b[2K"
        + "\u001b]0;pwned\u0007\u2028\u202e\" (issued by CN=Helmet demo CA) \\";
    String q = RefusalReportingTrustManager.quoted(name);
    assertFalse(q.chars().anyMatch(ch -> Character.getType(ch) == Character.CONTROL
        || Character.getType(ch) == Character.FORMAT || ch == '\u2028'), q);
    assertTrue(q.startsWith("\"") && q.endsWith("\""), q);
    // inside the quotes every quote and backslash is escaped: the name cannot end early
    String inside = q.substring(1, q.length() - 1);
    assertFalse(inside.replace("\\\\", "").replace("\\\"", "").contains("\""), inside);
    assertTrue(RefusalReportingTrustManager.quoted("CN=" + "a".repeat(5000)).length() < 220);
  }

  @Test
  void aDeclineReasonIsCutBeforeItIsCleaned() {
    String reason = "privacy.epsilon: x\r\nFAKE LINE\u0085" + "b".repeat(10_000);
    String p = PeerText.printable(reason, CoordinatorService.DECLINE_CHARS);
    assertEquals(CoordinatorService.DECLINE_CHARS + 3, p.length());
    assertFalse(p.contains("\n") || p.contains("\r") || p.contains("\u0085"), p);
    assertTrue(p.startsWith("privacy.epsilon: x  FAKE LINE "), p);
  }
}
