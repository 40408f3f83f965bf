package dev.helmet.transport.store;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import com.fasterxml.jackson.databind.JsonNode;
import dev.helmet.privacy.ledger.PrivacyCharge;
import org.flywaydb.core.Flyway;

/**
 * The coordinator's database: sessions, participants, round outcomes, drop and rejection events,
 * released models, and the privacy ledger. An embedded H2 file by default, PostgreSQL through a
 * JDBC URL; the schema is created and upgraded by versioned migrations (db/migration/V*.sql).
 *
 * <p>The ledger charges a data set's budget in steps: a session <em>reserves</em> its target (eps,
 * delta) before anyone trains, records its per-round charge once its plan is fixed and the count
 * of rounds released before the server can learn each round's sum, and finally either
 * <em>spends</em> the eps it achieved (in the same transaction that stores the released model),
 * or, if it aborts, spends exactly what its released rounds cost, or is <em>refunded</em> when it
 * released none. A released round is spent forever. Sessions compose by basic composition (eps and
 * delta add up), summed in decimal so that e.g. 0.1 + 0.2 + 0.7 fits a budget of 1. A coordinator
 * that stops mid-session finds the session on its next start ({@link #recover}) and settles it the
 * same way. A data set's budget is set once and changed only on purpose ({@link #setBudget}), each
 * change in its history.
 */
public final class Store implements AutoCloseable {
  /** A session's status. */
  public enum Status { ENROLLING, RUNNING, COMPLETED, ABORTED }

  /** A ledger entry's status. */
  public enum Charge { RESERVED, SPENT, REFUNDED }

  private final Sql sql;
  private final String url;

  private Store(Connection db, String url) {
    this.sql = new Sql(db);
    this.url = url;
  }

  /**
   * Opens (creating if needed) the database at {@code jdbcUrl} and brings its schema up to date.
   *
   * @throws StoreException if the database cannot be opened or migrated
   */
  public static Store open(String jdbcUrl, String user, String password) {
    boolean postgres = jdbcUrl.startsWith("jdbc:postgresql:");
    if (!postgres && !jdbcUrl.startsWith("jdbc:h2:")) {
      throw new StoreException("database URL must start with jdbc:h2: or jdbc:postgresql:. Provided value: "
          + redact(jdbcUrl));
    }
    Logger.getLogger("org.flywaydb").setLevel(Level.WARNING);
    String shown = redact(jdbcUrl);
    Path file = PrivateFiles.h2File(jdbcUrl);
    if (!postgres && !jdbcUrl.toUpperCase(java.util.Locale.ROOT).contains("DB_CLOSE_ON_EXIT")) {
      // H2 closes a database from its own shutdown hook by default, racing the coordinator's: on
      // Ctrl-C the abort (and the refund of the reservation) would find the database closed. The
      // coordinator closes it itself, after recording how the session ended.
      jdbcUrl = jdbcUrl + ";DB_CLOSE_ON_EXIT=FALSE";
    }
    try {
      if (file != null && file.getParent() != null && !Files.exists(file.getParent())) {
        // A new data directory is the coordinator's alone: it holds the ledger and who took part.
        PrivateFiles.createPrivateDirectories(file.getParent());
      }
      if (file != null) {
        // Created owner-only before H2 first writes it (H2 starts a new database in an empty file),
        // so the ledger is never readable by others, not even for a moment.
        PrivateFiles.createOwnerOnly(Path.of(file + ".mv.db"));
      }
      Flyway.configure()
          .dataSource(jdbcUrl, user, password)
          .locations("classpath:db/migration")
          .placeholders(Map.of("large_text", postgres ? "TEXT" : "CLOB"))
          .load()
          .migrate();
      Connection c = DriverManager.getConnection(jdbcUrl, user, password);
      c.setAutoCommit(true);
      if (!postgres) {
        // H2 flushes a commit to disk up to 500 ms later by default; a coordinator killed in that
        // window would lose a recorded released round (and refund it). Every commit is durable.
        try (java.sql.Statement st = c.createStatement()) {
          st.execute("SET WRITE_DELAY 0");
        }
      }
      if (file != null) {
        PrivateFiles.restrictToOwner(file);
      }
      return new Store(c, shown);
    } catch (SQLException | RuntimeException | IOException e) {
      for (Throwable c = e; c != null; c = c.getCause()) {
        // H2's DATABASE_ALREADY_OPEN_1: another process (a coordinator) holds the file.
        if (c instanceof SQLException q && q.getErrorCode() == 90020) {
          throw new DatabaseInUseException("the database " + shown + " is in use by another process, most likely "
              + "another coordinator (one coordinator per database): stop that one first, or give this session "
              + "its own database (database: url in the session file). Its status page shows what it runs", e);
        }
      }
      throw new StoreException("cannot open the database " + shown + ": " + e.getMessage(), e);
    }
  }

  /** The JDBC URL with any password parameter removed, for messages. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^;&]*", "$1***");
  }

  /** The database, for messages. */
  public String describe() {
    return redact(url);
  }

  /** Records a new session run in ENROLLING status. */
  public synchronized void createSession(String id, String name, String dataset, String digest, String config) {
    sql.update("INSERT INTO sessions (id, name, dataset, config_digest, config, status, stage, started_at) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", id, name, dataset, digest, config, Status.ENROLLING.name(), "ENROLMENT",
        now());
  }

  /**
   * Reserves (eps, delta) of {@code dataset}'s budget for session {@code id}; refuses if the
   * reservations and spends so far plus this one would exceed the budget. A data set seen for the
   * first time gets the budget ({@code budgetEps}, {@code budgetDelta}), recorded in its history; a
   * known data set keeps the budget it has, and a session that states another one is refused (a
   * budget changes only through {@link #setBudget}, so editing a session file cannot reset it).
   *
   * @param budgetEps the budget the session states, or NaN to use the data set's recorded one
   * @throws BudgetExceededException naming the data set, what is taken and what is left
   * @throws BudgetMismatchException if the session states a budget other than the recorded one, or
   *     none for a data set that has none
   */
  public synchronized void reserve(String id, String dataset, double eps, double delta, double budgetEps,
      double budgetDelta) {
    sql.inTransaction(() -> {
      // Lock the budget row so two coordinators sharing a database cannot both take the last of it.
      List<Map<String, Object>> rows = sql.query("SELECT epsilon, delta FROM budgets WHERE dataset = ? FOR UPDATE", dataset);
      double be;
      double bd;
      if (rows.isEmpty()) {
        if (Double.isNaN(budgetEps)) {
          throw new BudgetMismatchException("data set '" + dataset + "' has no privacy budget yet: give one in the "
              + "session file (budget: {epsilon: ..., delta: ...}) or with `helmet budget set`");
        }
        sql.update("INSERT INTO budgets (dataset, epsilon, delta) VALUES (?, ?, ?)", dataset, budgetEps, budgetDelta);
        sql.update("INSERT INTO budget_changes (dataset, epsilon, delta, reason, changed_at) VALUES (?, ?, ?, ?, ?)",
            dataset, budgetEps, budgetDelta, "first named by session " + id, now());
        be = budgetEps;
        bd = budgetDelta;
      } else {
        be = ((Number) rows.get(0).get("EPSILON")).doubleValue();
        bd = ((Number) rows.get(0).get("DELTA")).doubleValue();
        if (!Double.isNaN(budgetEps) && (be != budgetEps || bd != budgetDelta)) {
          throw new BudgetMismatchException(String.format("the session states the budget (eps = %s, delta = %s) for "
              + "data set '%s', whose budget is (eps = %s, delta = %s); a budget changes only with `helmet budget "
              + "set` (recorded in its history): remove `budget` from the session file or change it there",
              budgetEps, budgetDelta, dataset, be, bd));
        }
      }
      BigDecimal[] used = used(dataset);
      BigDecimal e = used[0].add(BigDecimal.valueOf(eps));
      BigDecimal d = used[1].add(BigDecimal.valueOf(delta));
      if (e.compareTo(BigDecimal.valueOf(be)) > 0 || d.compareTo(BigDecimal.valueOf(bd)) > 0) {
        throw new BudgetExceededException(String.format(
            "the privacy budget of data set '%s' is (eps = %s, delta = %s); sessions have taken (eps = %s, delta = %s)"
                + " and this one needs (eps = %s, delta = %s)", dataset, be, bd,
            used[0].toPlainString(), used[1].toPlainString(), eps, delta));
      }
      sql.update("INSERT INTO ledger (session_id, dataset, epsilon, delta, status, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
          id, dataset, eps, delta, Charge.RESERVED.name(), now());
    });
  }

  /** A data set's budget {eps, delta}, or null if it has none. */
  public synchronized double[] budget(String dataset) {
    List<Map<String, Object>> rows = sql.query("SELECT epsilon, delta FROM budgets WHERE dataset = ?", dataset);
    return rows.isEmpty() ? null : new double[] {((Number) rows.get(0).get("EPSILON")).doubleValue(),
        ((Number) rows.get(0).get("DELTA")).doubleValue()};
  }

  /**
   * Sets a data set's budget on purpose (the operator's command), recording the change and its
   * reason in the budget's history.
   */
  public synchronized void setBudget(String dataset, double eps, double delta, String reason) {
    if (!(eps > 0) || !Double.isFinite(eps) || !(delta >= 0 && delta < 1)) {
      throw new IllegalArgumentException("a budget needs eps > 0 (finite) and delta in [0, 1). Provided values: "
          + eps + ", " + delta);
    }
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("a budget change needs a reason (it is recorded in the ledger)");
    }
    sql.inTransaction(() -> {
      if (sql.update("UPDATE budgets SET epsilon = ?, delta = ? WHERE dataset = ?", eps, delta, dataset) == 0) {
        sql.update("INSERT INTO budgets (dataset, epsilon, delta) VALUES (?, ?, ?)", dataset, eps, delta);
      }
      sql.update("INSERT INTO budget_changes (dataset, epsilon, delta, reason, changed_at) VALUES (?, ?, ?, ?, ?)",
          dataset, eps, delta, truncate(reason), now());
    });
  }

  /** A data set's budget history, oldest first. */
  public synchronized List<Map<String, Object>> budgetHistory(String dataset) {
    return sql.query("SELECT epsilon, delta, reason, changed_at FROM budget_changes WHERE dataset = ? ORDER BY id", dataset);
  }

  /**
   * Records what session {@code id} costs per released round (from its public plan), before any
   * round can be released.
   */
  public synchronized void charge(String id, PrivacyCharge charge) {
    if (sql.update("UPDATE ledger SET charge = ?, updated_at = ? WHERE session_id = ? AND status = ?",
        charge.toJson().toString(), now(), id, Charge.RESERVED.name()) != 1) {
      throw new StoreException("session " + id + " has no reservation in the ledger");
    }
  }

  /**
   * The neighbouring relation and unit a data set's budget is spent under ("replace one record, per
   * record"), or null while nothing with a plan was charged to it.
   */
  public synchronized String relation(String dataset) {
    for (Map<String, Object> row : sql.query("SELECT charge FROM ledger WHERE dataset = ? AND status IN (?, ?) AND charge "
        + "IS NOT NULL", dataset, Charge.RESERVED.name(), Charge.SPENT.name())) {
      PrivacyCharge c = PrivacyCharge.fromJson(parse(row.get("CHARGE").toString()));
      return c.relation();
    }
    return null;
  }

  /**
   * Why session {@code id}'s {@code charge} cannot be added to what its data set already spent or
   * reserved under another neighbouring relation or protected unit (their epsilons do not add up),
   * or null.
   */
  public synchronized String relationConflict(String id, String dataset, PrivacyCharge charge) {
    for (Map<String, Object> row : sql.query("SELECT session_id, charge FROM ledger WHERE dataset = ? AND session_id <> ? "
        + "AND status IN (?, ?) AND charge IS NOT NULL", dataset, id, Charge.RESERVED.name(), Charge.SPENT.name())) {
      PrivacyCharge other = PrivacyCharge.fromJson(parse(row.get("CHARGE").toString()));
      if (!other.sameRelation(charge)) {
        return "data set " + dataset + "'s budget is spent under '" + other.neighbours() + "' per " + other.unit()
            + " (session " + row.get("SESSION_ID") + "); this session's guarantee is under '" + charge.neighbours()
            + "' per " + charge.unit() + ", and the two do not add up";
      }
    }
    return null;
  }

  /**
   * Records that {@code rounds} rounds of session {@code id} are (about to be) released: called
   * before the server can learn a round's sum, so a crash in between charges it (conservative).
   */
  public synchronized void roundsReleased(String id, int rounds) {
    if (sql.update("UPDATE ledger SET released_rounds = ?, updated_at = ? WHERE session_id = ? AND status = ?", rounds,
        now(), id, Charge.RESERVED.name()) != 1) {
      throw new StoreException("session " + id + " has no reservation in the ledger; no round may be released");
    }
  }

  /** The (eps, delta) reserved or spent on {@code dataset}, summed in decimal. */
  public synchronized BigDecimal[] used(String dataset) {
    BigDecimal e = BigDecimal.ZERO;
    BigDecimal d = BigDecimal.ZERO;
    for (Map<String, Object> row : sql.query("SELECT epsilon, delta FROM ledger WHERE dataset = ? AND status IN (?, ?)",
        dataset, Charge.RESERVED.name(), Charge.SPENT.name())) {
      e = e.add(BigDecimal.valueOf(((Number) row.get("EPSILON")).doubleValue()));
      d = d.add(BigDecimal.valueOf(((Number) row.get("DELTA")).doubleValue()));
    }
    return new BigDecimal[] {e, d};
  }

  /** Records an enrolled participant. */
  public synchronized void participant(String id, int party, String subject, int points) {
    sql.update("INSERT INTO participants (session_id, party, subject, points, joined_at) VALUES (?, ?, ?, ?, ?)",
        id, party, subject, points, now());
  }

  /** Moves a session to {@code status} at {@code stage}. */
  public synchronized void stage(String id, Status status, String stage) {
    sql.update("UPDATE sessions SET status = ?, stage = ? WHERE id = ?", status.name(), stage, id);
  }

  /** Records how a round ended. */
  public synchronized void roundOutcome(String id, String round, int expected, int answered) {
    sql.update("INSERT INTO round_outcomes (session_id, round, expected, answered, closed_at) VALUES (?, ?, ?, ?, ?)",
        id, round, expected, answered, now());
  }

  /** Records a dropped party or a rejected message. */
  public synchronized void event(String id, String stage, Integer party, String kind, String reason, String detail) {
    sql.update("INSERT INTO events (session_id, stage, party, kind, reason, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id, stage, party, kind, reason, truncate(detail), now());
  }

  /**
   * Stores the released model, charges the ledger the achieved (eps, delta) and completes the
   * session, in one transaction.
   */
  public synchronized void release(String id, String modelJson, int contributors, double eps, double delta) {
    sql.inTransaction(() -> {
      sql.update("INSERT INTO releases (session_id, model, contributors, epsilon, delta, released_at) VALUES (?, ?, ?, ?, ?, ?)",
          id, modelJson, contributors, eps, delta, now());
      if (sql.update("UPDATE ledger SET epsilon = ?, delta = ?, status = ?, updated_at = ? WHERE session_id = ? AND status = ?",
          eps, delta, Charge.SPENT.name(), now(), id, Charge.RESERVED.name()) != 1) {
        throw new StoreException("session " + id + " has no reservation in the ledger; nothing was released");
      }
      sql.update("UPDATE sessions SET status = ?, stage = ?, finished_at = ? WHERE id = ?", Status.COMPLETED.name(),
          "RELEASED", now(), id);
    });
  }

  /**
   * Aborts a session. Its charge becomes exactly the rounds it released (computed from the stored
   * per-round charge; a released round is spent forever), or a refund if it released none.
   *
   * @return the eps charged (0 for a refund)
   */
  public synchronized double abort(String id, String reason) {
    double[] charged = new double[1];
    sql.inTransaction(() -> {
      sql.update("UPDATE sessions SET status = ?, reason = ?, finished_at = ? WHERE id = ? AND status IN (?, ?)",
          Status.ABORTED.name(), truncate(reason), now(), id, Status.ENROLLING.name(), Status.RUNNING.name());
      List<Map<String, Object>> rows = sql.query("SELECT epsilon, delta, charge, released_rounds FROM ledger "
          + "WHERE session_id = ? AND status = ?", id, Charge.RESERVED.name());
      if (rows.isEmpty()) {
        return;
      }
      Map<String, Object> row = rows.get(0);
      int rounds = ((Number) row.get("RELEASED_ROUNDS")).intValue();
      if (rounds == 0) {
        sql.update("UPDATE ledger SET status = ?, updated_at = ? WHERE session_id = ?", Charge.REFUNDED.name(), now(), id);
        return;
      }
      double eps;
      double delta;
      Object json = row.get("CHARGE");
      if (json == null) {
        // Released without a stored charge (cannot happen through the coordinator): keep the whole reservation.
        eps = ((Number) row.get("EPSILON")).doubleValue();
        delta = ((Number) row.get("DELTA")).doubleValue();
      } else {
        PrivacyCharge c = PrivacyCharge.fromJson(parse(json.toString()));
        eps = c.epsilon(Math.min(rounds, c.plannedRounds()));
        delta = c.delta(rounds);
      }
      sql.update("UPDATE ledger SET epsilon = ?, delta = ?, status = ?, updated_at = ? WHERE session_id = ?", eps, delta,
          Charge.SPENT.name(), now(), id);
      charged[0] = eps;
    });
    return charged[0];
  }

  /**
   * Aborts every session a previous coordinator left unfinished (it stopped mid-session): a
   * session that released rounds is charged exactly those, one that released none is refunded.
   * Returns a line per session saying which.
   */
  public synchronized List<String> recover() {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : sql.query("SELECT s.id, s.stage, l.released_rounds FROM sessions s LEFT JOIN ledger l "
        + "ON l.session_id = s.id WHERE s.status IN (?, ?)", Status.ENROLLING.name(), Status.RUNNING.name())) {
      String id = (String) row.get("ID");
      Number released = (Number) row.get("RELEASED_ROUNDS");
      int k = released == null ? 0 : released.intValue();
      String what = k == 0 ? "nothing was released; its reservation is refunded"
          : k + " round(s) were released and are charged";
      double eps = abort(id, "the coordinator stopped during " + row.get("STAGE") + "; " + what);
      out.add("session " + id + " was left unfinished by a previous coordinator: recorded as aborted; " + what
          + (k == 0 ? "" : " (eps = " + eps + ")"));
    }
    return out;
  }

  /**
   * The operator settles a session a crashed coordinator left unfinished, without starting a new
   * one: as {@link #recover} does at a coordinator's start, charged exactly the rounds the
   * coordinator recorded as released (it records a round before computing its sum), refunded if
   * none; the session's reason records the operator's.
   *
   * @return the eps charged (0 for a refund)
   * @throws IllegalStateException if the session is unknown or already finished
   */
  public synchronized double settleStale(String id, String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("settling a session needs a reason (it is recorded in the database)");
    }
    Map<String, Object> s = session(id);
    if (s == null) {
      throw new IllegalStateException("no session " + id + " in " + describe());
    }
    String status = String.valueOf(s.get("STATUS"));
    if (!status.equals(Status.ENROLLING.name()) && !status.equals(Status.RUNNING.name())) {
      throw new IllegalStateException("session " + id + " is " + status.toLowerCase(java.util.Locale.ROOT)
          + "; only an unfinished session can be settled");
    }
    Map<String, Object> entry = ledgerEntry(id);
    int k = entry == null ? 0 : ((Number) entry.get("RELEASED_ROUNDS")).intValue();
    return abort(id, "settled by the operator (" + reason.strip() + ") after the coordinator stopped during "
        + s.get("STAGE") + "; " + (k == 0 ? "nothing was released; its reservation is refunded"
            : k + " round(s) were released and are charged"));
  }

  /** One session's row (column names upper case), or null. */
  public synchronized Map<String, Object> session(String id) {
    List<Map<String, Object>> rows = sql.query("SELECT * FROM sessions WHERE id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** One session's ledger entry, or null. */
  public synchronized Map<String, Object> ledgerEntry(String id) {
    List<Map<String, Object>> rows = sql.query("SELECT * FROM ledger WHERE session_id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** One session's events, in order. */
  public synchronized List<Map<String, Object>> events(String id) {
    return sql.query("SELECT * FROM events WHERE session_id = ? ORDER BY id", id);
  }

  /** One session's enrolled participants (party, subject, the points each claimed), by party. */
  public synchronized List<Map<String, Object>> participants(String id) {
    return sql.query("SELECT party, subject, points FROM participants WHERE session_id = ? ORDER BY party", id);
  }

  /** One session's round outcomes. */
  public synchronized List<Map<String, Object>> rounds(String id) {
    return sql.query("SELECT * FROM round_outcomes WHERE session_id = ? ORDER BY closed_at", id);
  }

  /** A session's release without the model (contributors, epsilon, delta, released_at), or null. */
  public synchronized Map<String, Object> releaseSummary(String id) {
    List<Map<String, Object>> rows = sql.query("SELECT contributors, epsilon, delta, released_at FROM releases "
        + "WHERE session_id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** A data set's ledger entries (session, eps, delta, status, released rounds, last change), oldest change first. */
  public synchronized List<Map<String, Object>> ledger(String dataset) {
    return sql.query("SELECT session_id, epsilon, delta, status, released_rounds, updated_at FROM ledger "
        + "WHERE dataset = ? ORDER BY updated_at, session_id", dataset);
  }

  /** A released model's JSON, or null. */
  public synchronized String releasedModel(String id) {
    List<Map<String, Object>> rows = sql.query("SELECT model FROM releases WHERE session_id = ?", id);
    return rows.isEmpty() ? null : (String) rows.get(0).get("MODEL");
  }

  /** Sessions, newest first. */
  public synchronized List<Map<String, Object>> sessions() {
    return sql.query("SELECT id, name, dataset, status, stage, reason, started_at, finished_at FROM sessions "
        + "ORDER BY started_at DESC");
  }

  @Override
  public synchronized void close() {
    sql.close();
  }

  private static JsonNode parse(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new StoreException("a stored privacy charge is not JSON: " + e.getMessage(), e);
    }
  }

  private static Instant now() {
    return Instant.now();
  }

  private static String truncate(String s) {
    return s == null || s.length() <= 2000 ? s : s.substring(0, 1997) + "...";
  }
}
