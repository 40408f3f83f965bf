package dev.helmet.transport.store;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.flywaydb.core.Flyway;

/**
 * The coordinator's database: sessions, participants, round outcomes, drop and rejection events,
 * released models, and the privacy ledger. An embedded H2 file by default, PostgreSQL through a
 * JDBC URL; the schema is created and upgraded by versioned migrations (db/migration/V*.sql).
 *
 * <p>The ledger charges a data set's budget in two steps: a session <em>reserves</em> its target
 * (eps, delta) before anyone trains, and either <em>spends</em> the eps it achieved (in the same
 * transaction that stores the released model) or is <em>refunded</em> when it ends without a
 * release. Sessions compose by basic composition (eps and delta add up), summed in decimal so that
 * e.g. 0.1 + 0.2 + 0.7 fits a budget of 1. A coordinator that stops mid-session finds the session
 * on its next start ({@link #recover}) and refunds it: nothing was released, since the release and
 * the spend are one transaction.
 */
public final class Store implements AutoCloseable {
  /** A session's status. */
  public enum Status { ENROLLING, RUNNING, COMPLETED, ABORTED }

  /** A ledger entry's status. */
  public enum Charge { RESERVED, SPENT, REFUNDED }

  private final Connection db;
  private final String url;

  private Store(Connection db, String url) {
    this.db = db;
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
    try {
      Flyway.configure()
          .dataSource(jdbcUrl, user, password)
          .locations("classpath:db/migration")
          .placeholders(Map.of("large_text", postgres ? "TEXT" : "CLOB"))
          .load()
          .migrate();
      Connection c = DriverManager.getConnection(jdbcUrl, user, password);
      c.setAutoCommit(true);
      return new Store(c, jdbcUrl);
    } catch (SQLException | RuntimeException e) {
      throw new StoreException("cannot open the database " + redact(jdbcUrl) + ": " + e.getMessage(), e);
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
    update("INSERT INTO sessions (id, name, dataset, config_digest, config, status, stage, started_at) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", id, name, dataset, digest, config, Status.ENROLLING.name(), "ENROLMENT",
        now());
  }

  /**
   * Reserves (eps, delta) of {@code dataset}'s budget for session {@code id}, setting the budget
   * to ({@code budgetEps}, {@code budgetDelta}) first; refuses if the reservations and spends so far
   * plus this one would exceed it.
   *
   * @throws BudgetExceededException naming the data set, what is taken and what is left
   */
  public synchronized void reserve(String id, String dataset, double eps, double delta, double budgetEps,
      double budgetDelta) {
    inTransaction(() -> {
      if (update("UPDATE budgets SET epsilon = ?, delta = ? WHERE dataset = ?", budgetEps, budgetDelta, dataset) == 0) {
        update("INSERT INTO budgets (dataset, epsilon, delta) VALUES (?, ?, ?)", dataset, budgetEps, budgetDelta);
      }
      // Lock the budget row so two coordinators sharing a database cannot both take the last of it.
      query("SELECT epsilon FROM budgets WHERE dataset = ? FOR UPDATE", dataset);
      BigDecimal[] used = used(dataset);
      BigDecimal e = used[0].add(BigDecimal.valueOf(eps));
      BigDecimal d = used[1].add(BigDecimal.valueOf(delta));
      if (e.compareTo(BigDecimal.valueOf(budgetEps)) > 0 || d.compareTo(BigDecimal.valueOf(budgetDelta)) > 0) {
        throw new BudgetExceededException(String.format(
            "the privacy budget of data set '%s' is (eps = %s, delta = %s); sessions have taken (eps = %s, delta = %s)"
                + " and this one needs (eps = %s, delta = %s)", dataset, budgetEps, budgetDelta,
            used[0].toPlainString(), used[1].toPlainString(), eps, delta));
      }
      update("INSERT INTO ledger (session_id, dataset, epsilon, delta, status, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
          id, dataset, eps, delta, Charge.RESERVED.name(), now());
    });
  }

  /** The (eps, delta) reserved or spent on {@code dataset}, summed in decimal. */
  public synchronized BigDecimal[] used(String dataset) {
    BigDecimal e = BigDecimal.ZERO;
    BigDecimal d = BigDecimal.ZERO;
    for (Map<String, Object> row : query("SELECT epsilon, delta FROM ledger WHERE dataset = ? AND status IN (?, ?)",
        dataset, Charge.RESERVED.name(), Charge.SPENT.name())) {
      e = e.add(BigDecimal.valueOf(((Number) row.get("EPSILON")).doubleValue()));
      d = d.add(BigDecimal.valueOf(((Number) row.get("DELTA")).doubleValue()));
    }
    return new BigDecimal[] {e, d};
  }

  /** Records an enrolled participant. */
  public synchronized void participant(String id, int party, String subject, int points) {
    update("INSERT INTO participants (session_id, party, subject, points, joined_at) VALUES (?, ?, ?, ?, ?)",
        id, party, subject, points, now());
  }

  /** Moves a session to {@code status} at {@code stage}. */
  public synchronized void stage(String id, Status status, String stage) {
    update("UPDATE sessions SET status = ?, stage = ? WHERE id = ?", status.name(), stage, id);
  }

  /** Records how a round ended. */
  public synchronized void roundOutcome(String id, String round, int expected, int answered) {
    update("INSERT INTO round_outcomes (session_id, round, expected, answered, closed_at) VALUES (?, ?, ?, ?, ?)",
        id, round, expected, answered, now());
  }

  /** Records a dropped party or a rejected message. */
  public synchronized void event(String id, String stage, Integer party, String kind, String reason, String detail) {
    update("INSERT INTO events (session_id, stage, party, kind, reason, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id, stage, party, kind, reason, truncate(detail), now());
  }

  /**
   * Stores the released model, charges the ledger the achieved (eps, delta) and completes the
   * session, in one transaction.
   */
  public synchronized void release(String id, String modelJson, int contributors, double eps, double delta) {
    inTransaction(() -> {
      update("INSERT INTO releases (session_id, model, contributors, epsilon, delta, released_at) VALUES (?, ?, ?, ?, ?, ?)",
          id, modelJson, contributors, eps, delta, now());
      if (update("UPDATE ledger SET epsilon = ?, delta = ?, status = ?, updated_at = ? WHERE session_id = ? AND status = ?",
          eps, delta, Charge.SPENT.name(), now(), id, Charge.RESERVED.name()) != 1) {
        throw new StoreException("session " + id + " has no reservation in the ledger; nothing was released");
      }
      update("UPDATE sessions SET status = ?, stage = ?, finished_at = ? WHERE id = ?", Status.COMPLETED.name(),
          "RELEASED", now(), id);
    });
  }

  /** Aborts a session: nothing is released and its reservation, if any, is refunded. */
  public synchronized void abort(String id, String reason) {
    inTransaction(() -> {
      update("UPDATE sessions SET status = ?, reason = ?, finished_at = ? WHERE id = ? AND status IN (?, ?)",
          Status.ABORTED.name(), truncate(reason), now(), id, Status.ENROLLING.name(), Status.RUNNING.name());
      update("UPDATE ledger SET status = ?, updated_at = ? WHERE session_id = ? AND status = ?", Charge.REFUNDED.name(),
          now(), id, Charge.RESERVED.name());
    });
  }

  /**
   * Aborts every session a previous coordinator left unfinished (it stopped mid-session) and
   * refunds its reservation; returns their ids.
   */
  public synchronized List<String> recover() {
    List<String> ids = new ArrayList<>();
    for (Map<String, Object> row : query("SELECT id, stage FROM sessions WHERE status IN (?, ?)",
        Status.ENROLLING.name(), Status.RUNNING.name())) {
      String id = (String) row.get("ID");
      abort(id, "the coordinator stopped during " + row.get("STAGE") + "; nothing was released");
      ids.add(id);
    }
    return ids;
  }

  /** One session's row (column names upper case), or null. */
  public synchronized Map<String, Object> session(String id) {
    List<Map<String, Object>> rows = query("SELECT * FROM sessions WHERE id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** One session's ledger entry, or null. */
  public synchronized Map<String, Object> ledgerEntry(String id) {
    List<Map<String, Object>> rows = query("SELECT * FROM ledger WHERE session_id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** One session's events, in order. */
  public synchronized List<Map<String, Object>> events(String id) {
    return query("SELECT * FROM events WHERE session_id = ? ORDER BY id", id);
  }

  /** One session's round outcomes. */
  public synchronized List<Map<String, Object>> rounds(String id) {
    return query("SELECT * FROM round_outcomes WHERE session_id = ? ORDER BY closed_at", id);
  }

  /** A released model's JSON, or null. */
  public synchronized String releasedModel(String id) {
    List<Map<String, Object>> rows = query("SELECT model FROM releases WHERE session_id = ?", id);
    return rows.isEmpty() ? null : (String) rows.get(0).get("MODEL");
  }

  /** Sessions, newest first. */
  public synchronized List<Map<String, Object>> sessions() {
    return query("SELECT id, name, dataset, status, stage, reason, started_at, finished_at FROM sessions "
        + "ORDER BY started_at DESC");
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException e) {
      throw new StoreException("closing the database: " + e.getMessage(), e);
    }
  }

  // ----- JDBC plumbing -----

  private interface Work {
    void run() throws SQLException;
  }

  private void inTransaction(Work work) {
    try {
      db.setAutoCommit(false);
      try {
        work.run();
        db.commit();
      } catch (SQLException | RuntimeException e) {
        db.rollback();
        throw e;
      } finally {
        db.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new StoreException("database error: " + e.getMessage(), e);
    }
  }

  private int update(String sql, Object... args) {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      bind(st, args);
      return st.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("database error: " + e.getMessage(), e);
    }
  }

  private List<Map<String, Object>> query(String sql, Object... args) {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      bind(st, args);
      try (ResultSet rs = st.executeQuery()) {
        List<Map<String, Object>> rows = new ArrayList<>();
        int cols = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 1; c <= cols; c++) {
            String label = rs.getMetaData().getColumnLabel(c).toUpperCase(java.util.Locale.ROOT);
            int type = rs.getMetaData().getColumnType(c);
            row.put(label, type == Types.CLOB || type == Types.LONGVARCHAR ? rs.getString(c) : rs.getObject(c));
          }
          rows.add(row);
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new StoreException("database error: " + e.getMessage(), e);
    }
  }

  private static void bind(PreparedStatement st, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a == null) {
        st.setNull(i + 1, Types.INTEGER);
      } else if (a instanceof Instant t) {
        st.setTimestamp(i + 1, Timestamp.from(t));
      } else {
        st.setObject(i + 1, a);
      }
    }
  }

  private static Instant now() {
    return Instant.now();
  }

  private static String truncate(String s) {
    return s == null || s.length() <= 2000 ? s : s.substring(0, 1997) + "...";
  }
}
