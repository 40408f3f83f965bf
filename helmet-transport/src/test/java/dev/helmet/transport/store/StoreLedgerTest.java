package dev.helmet.transport.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.ledger.PrivacyCharge;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator's ledger: released rounds are spent forever; a budget changes only on purpose. */
class StoreLedgerTest {
  private static final PrivacyCharge CHARGE = new PrivacyCharge("gaussian", new GaussianDpEvent(5), 10, 1e-5, 1e-5,
      "add or remove one record", "record");

  private static Store open(Path dir) {
    return Store.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "", "");
  }

  private static void session(Store s, String id) {
    s.createSession(id, "test", "digits", "00", "config");
  }

  /**
   * A data set's budget is spent under one neighbouring relation and unit: an add-or-remove eps and
   * a replace-one eps do not add up, so a session under the other relation is refused before any
   * round of it is released (issue 12: budgets summed eps across relations).
   */
  @Test
  void epsilonsOfDifferentRelationsAreNotAdded(@TempDir Path dir) {
    try (Store s = open(dir)) {
      session(s, "a");
      s.reserve("a", "digits", 2, 1e-5, 10, 1e-3);
      s.charge("a", CHARGE);
      session(s, "b");
      s.reserve("b", "digits", 2, 1e-5, Double.NaN, Double.NaN);
      assertNull(s.relationConflict("b", "digits", CHARGE), "the same relation adds up");
      PrivacyCharge replaceOne = new PrivacyCharge("gaussian", new GaussianDpEvent(5), 10, 1e-5, 1e-5,
          "replace one record", "record");
      String why = s.relationConflict("b", "digits", replaceOne);
      assertTrue(why != null && why.contains("'add or remove one record'") && why.contains("'replace one record'"), why);
      assertNull(s.relationConflict("b", "other-data", replaceOne), "another data set has its own budget");
      s.abort("a", "nothing released");
      assertNull(s.relationConflict("b", "digits", replaceOne), "a refunded session spent nothing");
    }
  }

  /**
   * The coordinator's database is readable by its owner only, also in a folder that already exists
   * (the file is created owner-only before H2 writes it, then every file of it is tightened).
   */
  @Test
  void theDatabaseIsTheOwnersAlone(@TempDir Path dir) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.FileSystems.getDefault().supportedFileAttributeViews()
        .contains("posix"), "POSIX permissions");
    try (Store s = open(dir)) {
      session(s, "a");
    }
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        java.nio.file.Files.getPosixFilePermissions(dir.resolve("db.mv.db"))));
  }

  /** Release 0.1 refunded an aborted session whatever it had released. */
  @Test
  void anAbortChargesExactlyTheReleasedRoundsAndRefundsOnlyWhenNoneWas(@TempDir Path dir) {
    try (Store s = open(dir)) {
      session(s, "a");
      s.reserve("a", "digits", 2, 1e-5, 10, 1e-3);
      s.charge("a", CHARGE);
      assertEquals(0, s.abort("a", "aborted before any round"));
      assertEquals("REFUNDED", s.ledgerEntry("a").get("STATUS"));

      session(s, "b");
      s.reserve("b", "digits", 2, 1e-5, Double.NaN, Double.NaN);
      s.charge("b", CHARGE);
      s.roundsReleased("b", 1);
      s.roundsReleased("b", 2);
      s.roundsReleased("b", 3);
      double eps = s.abort("b", "aborted in round 4");
      assertEquals(CHARGE.epsilon(3), eps, 0);
      Map<String, Object> b = s.ledgerEntry("b");
      assertEquals("SPENT", b.get("STATUS"));
      assertEquals(CHARGE.epsilon(3), ((Number) b.get("EPSILON")).doubleValue(), 0);
      assertEquals(0, s.used("digits")[0].compareTo(java.math.BigDecimal.valueOf(CHARGE.epsilon(3))));
    }
  }

  /** A coordinator that stopped mid-session is settled on the next start by the same rule. */
  @Test
  void recoveryChargesTheRoundsAStoppedCoordinatorReleased(@TempDir Path dir) {
    try (Store s = open(dir)) {
      session(s, "crashed-after-two");
      s.reserve("crashed-after-two", "digits", 2, 1e-5, 10, 1e-3);
      s.charge("crashed-after-two", CHARGE);
      s.roundsReleased("crashed-after-two", 2);
      session(s, "crashed-in-enrolment");
      s.reserve("crashed-in-enrolment", "digits", 2, 1e-5, Double.NaN, Double.NaN);
    }
    try (Store s = open(dir)) {
      List<String> lines = s.recover();
      assertEquals(2, lines.size(), lines::toString);
      assertEquals("SPENT", s.ledgerEntry("crashed-after-two").get("STATUS"));
      assertEquals(CHARGE.epsilon(2), ((Number) s.ledgerEntry("crashed-after-two").get("EPSILON")).doubleValue(), 0);
      assertEquals("REFUNDED", s.ledgerEntry("crashed-in-enrolment").get("STATUS"));
      assertTrue(String.valueOf(s.session("crashed-after-two").get("REASON")).contains("2 round(s) were released"));
    }
  }

  /**
   * A data set's budget is set once: a session stating another one is refused (release 0.1
   * overwrote the budget with every session file), and only {@link Store#setBudget} changes it,
   * recorded with its reason.
   */
  @Test
  void aBudgetIsSetOnceAndChangedOnlyOnPurpose(@TempDir Path dir) {
    try (Store s = open(dir)) {
      session(s, "a");
      s.reserve("a", "digits", 1, 1e-5, 2, 1e-4);
      session(s, "b");
      BudgetMismatchException e = assertThrows(BudgetMismatchException.class,
          () -> s.reserve("b", "digits", 1, 1e-5, 20, 1e-4));
      assertTrue(e.getMessage().contains("helmet budget set"), e.getMessage());
      s.reserve("b", "digits", 1, 1e-5, Double.NaN, Double.NaN); // the recorded budget (2, 1e-4)
      session(s, "c");
      assertThrows(BudgetExceededException.class, () -> s.reserve("c", "digits", 0.5, 1e-5, Double.NaN, Double.NaN));
      session(s, "d");
      BudgetMismatchException none = assertThrows(BudgetMismatchException.class,
          () -> s.reserve("d", "unknown-data", 0.5, 1e-5, Double.NaN, Double.NaN));
      assertTrue(none.getMessage().contains("has no privacy budget"), none.getMessage());

      s.setBudget("digits", 3, 1e-4, "a second cohort joined the data set");
      s.reserve("c", "digits", 0.5, 1e-5, Double.NaN, Double.NaN);
      List<Map<String, Object>> history = s.budgetHistory("digits");
      assertEquals(2, history.size());
      assertTrue(String.valueOf(history.get(0).get("REASON")).contains("first named by session a"));
      assertEquals("a second cohort joined the data set", history.get(1).get("REASON"));
      assertThrows(IllegalArgumentException.class, () -> s.setBudget("digits", 3, 1e-4, " "));
      assertNull(s.budget("unknown-data"));
    }
  }
}
