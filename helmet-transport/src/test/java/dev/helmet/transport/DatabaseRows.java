package dev.helmet.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Every row of every table of a coordinator's database as one JSON tree, {@code {TABLE: {KEY:
 * {COLUMN: value}}}}, for the artifact diff. Tables and columns come from the database's own
 * catalogue, so a table or column a migration adds is compared the day it exists. A row's key is
 * its primary key without the session id (fresh per run, so rows of two runs line up by what they
 * are: a round's name, a party's number), or its position when nothing else is left. A text column
 * that holds JSON (the released model, the privacy charge) is parsed, so a difference inside it
 * has a path; a protobuf text column (the published configuration) becomes an array of its lines.
 */
final class DatabaseRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DatabaseRows() {}

  /** The rows of the H2 database at {@code jdbcUrl} (the coordinator closed), each table's rows in primary-key order. */
  static ObjectNode of(String jdbcUrl) throws SQLException {
    ObjectNode out = JSON.createObjectNode();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "", "")) {
      List<String> tables = new ArrayList<>();
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT TABLE_NAME FROM "
          + "INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC' ORDER BY TABLE_NAME")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      for (String t : tables) {
        ObjectNode rows = out.putObject(t);
        List<String> key = primaryKey(c, t);
        String order = String.join(", ", key.stream().map(k -> "\"" + k + "\"").toList());
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM \"" + t + "\""
            + (order.isEmpty() ? "" : " ORDER BY " + order))) {
          ResultSetMetaData md = rs.getMetaData();
          for (int n = 0; rs.next(); n++) {
            ObjectNode row = JSON.createObjectNode();
            List<String> id = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
              String column = md.getColumnName(i);
              put(row, column, rs.getObject(i));
              if (key.contains(column) && !column.equalsIgnoreCase("SESSION_ID")) {
                id.add(String.valueOf(rs.getObject(i)));
              }
            }
            rows.set(id.isEmpty() ? Integer.toString(n) : String.join(",", id), row);
          }
        }
      }
    }
    return out;
  }

  /** The table's primary-key columns in key order (none when it has no key). */
  private static List<String> primaryKey(Connection c, String table) throws SQLException {
    List<String> cols = new ArrayList<>();
    try (ResultSet rs = c.getMetaData().getPrimaryKeys(null, "PUBLIC", table)) {
      List<String[]> keys = new ArrayList<>();
      while (rs.next()) {
        keys.add(new String[] {rs.getString("KEY_SEQ"), rs.getString("COLUMN_NAME")});
      }
      keys.sort((a, b) -> Integer.compare(Integer.parseInt(a[0]), Integer.parseInt(b[0])));
      keys.forEach(k -> cols.add(k[1]));
    }
    return cols;
  }

  private static void put(ObjectNode row, String column, Object v) throws SQLException {
    if (v == null) {
      row.putNull(column);
    } else if (v instanceof Number n) {
      row.set(column, JSON.valueToTree(n));
    } else if (v instanceof Boolean b) {
      row.put(column, b);
    } else {
      String text = v instanceof Clob clob ? clob.getSubString(1, (int) clob.length()) : v.toString();
      row.set(column, structured(text));
    }
  }

  /** JSON text as its tree; protobuf text format (a line "key: value" first) as its lines; else the text. */
  private static JsonNode structured(String text) {
    String t = text.strip();
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        return JSON.readTree(t);
      } catch (IOException e) {
        // not JSON after all: compared as text
      }
    }
    if (t.contains("\n") && t.matches("(?s)^[a-z_]+(: | \\{).*")) {
      ArrayNode lines = JSON.createArrayNode();
      t.lines().forEach(lines::add);
      return lines;
    }
    return JSON.getNodeFactory().textNode(text);
  }
}
