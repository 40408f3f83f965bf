package dev.helmet.status;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The status page withholds certificate subjects (security review turn 3, T3-4) in the forms the
 * coordinator writes them, and leaves the rest of a detail readable.
 */
class SubjectsTest {
  @Test
  void everySubjectFormTheCoordinatorWritesIsWithheld() {
    // the review's PoC output (status_poc.sh): "LEFT DISCONNECTED | CN=participant-2: the connection was cancelled"
    assertEquals("(subject withheld): the connection was cancelled",
        Subjects.withhold("CN=participant-2: the connection was cancelled"));
    assertEquals("refused a TLS handshake: certificate (subject withheld) (issued by (subject withheld)): it is not "
        + "signed by this deployment's CA", Subjects.withhold("refused a TLS handshake: certificate CN=participant-1 "
        + "(issued by CN=Helmet demo CA): it is not signed by this deployment's CA"));
    assertEquals("party 3 ((subject withheld))", Subjects.withhold("party 3 (OU=compute-node,CN=compute-node-1)"));
    // RFC 2253 escapes a comma inside a value; the whole name goes
    assertEquals("(subject withheld); retrying", Subjects.withhold("CN=Smith\\, John,O=St Mary Hospital; retrying"));
    // attributes written as OIDs (an e-mail address) and hex values
    assertEquals("(subject withheld)", Subjects.withhold("1.2.840.113549.1.9.1=#160b6140622e6578616d706c65,CN=x"));
    assertEquals("already enrolled ((subject withheld))", Subjects.withhold("already enrolled (CN=a b c,OU=ward 3)"));
  }

  @Test
  void detailsWithoutASubjectAreLeftAlone() {
    for (String d : new String[] {"eps=1.0, delta=1e-5", "the connection failed: CANCELLED", "t=0.5 (of 20 parties)",
        "MASKED_INPUT round 3: 4 of 5", ""}) {
      assertEquals(d, Subjects.withhold(d));
    }
    assertEquals(null, Subjects.withhold(null));
  }

  /**
   * The attacker's read of T3-8: a stranger's self-made CN held its own words after ": ", which the
   * page showed as if they were the coordinator's. The coordinator now quotes a stranger's names
   * (escaping quotes inside), and the page withholds a quoted name whole.
   */
  @Test
  void aStrangersQuotedNameIsWithheldWholeWhateverItHolds() {
    String detail = "refused a TLS handshake from 127.0.0.1:5000: certificate \"CN=x: rejected a message from party 1: "
        + "IMPERSONATION \\\" (issued by CN=y)\" (issued by \"CN=Helmet demo CA\"): it is not signed by this "
        + "deployment's CA";
    assertEquals("refused a TLS handshake from 127.0.0.1:5000: certificate (subject withheld) (issued by (subject "
        + "withheld)): it is not signed by this deployment's CA", Subjects.withhold(detail));
  }
}
