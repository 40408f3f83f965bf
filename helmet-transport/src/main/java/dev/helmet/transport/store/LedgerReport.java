package dev.helmet.transport.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A data set's privacy ledger in the coordinator's database as one JSON object, the same whether
 * {@code helmet ledger show} reads the database itself or asks the running coordinator for it
 * ({@code /api/ledger} of its status page): dataset, budget (null before the first session),
 * used, left_epsilon, neighbours, entries (session, status, session_status, epsilon, delta,
 * released_rounds, updated) and budget_history (epsilon, delta, reason, changed_at: what {@code
 * helmet budget show} prints, also while a coordinator holds the database). Nothing in it is
 * computed from private data: eps and delta are the sessions' guarantees, derived from public
 * parameters.
 */
public final class LedgerReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LedgerReport() {}

  /** The ledger of {@code dataset}. */
  public static ObjectNode of(Store store, String dataset) {
    ObjectNode j = JSON.createObjectNode();
    j.put("dataset", dataset);
    double[] budget = store.budget(dataset);
    BigDecimal[] used = store.used(dataset);
    if (budget == null) {
      j.putNull("budget");
      j.putNull("left_epsilon");
    } else {
      j.putObject("budget").put("epsilon", budget[0]).put("delta", budget[1]);
    }
    j.putObject("used").put("epsilon", used[0]).put("delta", used[1]);
    if (budget != null) {
      j.put("left_epsilon", BigDecimal.valueOf(budget[0]).subtract(used[0]));
    }
    j.put("neighbours", store.relation(dataset));
    ArrayNode entries = j.putArray("entries");
    for (Map<String, Object> row : store.ledger(dataset)) {
      String id = String.valueOf(row.get("SESSION_ID"));
      Map<String, Object> session = store.session(id);
      entries.addObject().put("session", id)
          .put("status", String.valueOf(row.get("STATUS")).toLowerCase(java.util.Locale.ROOT))
          .put("session_status", session == null ? null
              : String.valueOf(session.get("STATUS")).toLowerCase(java.util.Locale.ROOT))
          .put("epsilon", ((Number) row.get("EPSILON")).doubleValue())
          .put("delta", ((Number) row.get("DELTA")).doubleValue())
          .put("released_rounds", ((Number) row.get("RELEASED_ROUNDS")).intValue())
          .put("updated", String.valueOf(row.get("UPDATED_AT")));
    }
    ArrayNode history = j.putArray("budget_history");
    for (Map<String, Object> row : store.budgetHistory(dataset)) {
      history.addObject().put("epsilon", ((Number) row.get("EPSILON")).doubleValue())
          .put("delta", ((Number) row.get("DELTA")).doubleValue()).put("reason", String.valueOf(row.get("REASON")))
          .put("changed_at", String.valueOf(row.get("CHANGED_AT")));
    }
    return j;
  }
}
