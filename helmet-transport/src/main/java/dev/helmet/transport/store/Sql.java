package dev.helmet.transport.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JDBC plumbing under {@link Store}: statements with bound arguments, rows as maps of upper-case
 * column labels, and transactions that roll back on any failure. Every SQL error becomes a {@link
 * StoreException}. Not thread-safe on its own: {@link Store} serialises its callers.
 */
final class Sql {
  private final Connection db;

  Sql(Connection db) {
    this.db = db;
  }

  /** Closes the connection. */
  void close() {
    try {
      db.close();
    } catch (SQLException e) {
      throw new StoreException("closing the database: " + e.getMessage(), e);
    }
  }

  /** Work done in one transaction. */
  interface Work {
    void run() throws SQLException;
  }

  /** Runs {@code work} in one transaction: committed if it completes, rolled back if it throws. */
  void inTransaction(Work work) {
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

  /** Executes an insert, update or delete with {@code args} bound; the count of rows changed. */
  int update(String sql, Object... args) {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      bind(st, args);
      return st.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("database error: " + e.getMessage(), e);
    }
  }

  /** Runs a query with {@code args} bound; each row maps upper-case column labels to values (text as String). */
  List<Map<String, Object>> query(String sql, Object... args) {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      bind(st, args);
      try (ResultSet rs = st.executeQuery()) {
        List<Map<String, Object>> rows = new ArrayList<>();
        int cols = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 1; c <= cols; c++) {
            String label = rs.getMetaData().getColumnLabel(c).toUpperCase(Locale.ROOT);
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
}
