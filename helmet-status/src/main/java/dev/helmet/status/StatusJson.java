package dev.helmet.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.CoordinatorStatus;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.SessionConfig;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The status page's data as JSON (the {@code /api/status} endpoint): the session's public
 * configuration, live enrolment and stage, recorded stage outcomes and events, the release's
 * guarantee and the data set's privacy ledger. Only what the coordinator already records or
 * publishes: no contribution, no model weights, nothing computed from private data beyond the
 * released guarantee, and no certificate subject ({@link Subjects}: in event details and in the
 * reasons sessions ended). Each section with an eps or delta also carries them as people read them
 * ({@code text}: {@link Guarantee#format}, rounded up; what is left rounded down), so the page, its
 * snapshot and the CLI print one form; the numbers beside keep the full double.
 */
final class StatusJson {
  static final ObjectMapper MAPPER = new ObjectMapper();
  /** The newest events shown (the database keeps them all). */
  static final int EVENTS = 200;

  private StatusJson() {}

  static ObjectNode of(Coordinator c) {
    CoordinatorStatus.Live live = c.live();
    SessionConfig cfg = c.config();
    Store store = c.store();
    ObjectNode j = MAPPER.createObjectNode();
    ObjectNode s = j.putObject("session");
    s.put("id", live.session());
    s.put("name", live.name());
    s.put("dataset", live.dataset());
    s.put("algorithm", live.algorithm());
    s.put("summation", cfg.getProtocol());
    s.put("parties", cfg.getParties());
    s.put("min_contributors", cfg.getMinContributors());
    s.put("target_epsilon", cfg.getPrivacy().getEpsilon());
    s.put("target_delta", cfg.getPrivacy().getDelta());
    s.putObject("text").put("target_epsilon", Guarantee.format(cfg.getPrivacy().getEpsilon()))
        .put("target_delta", Guarantee.format(cfg.getPrivacy().getDelta()));
    s.put("phase", live.phase());
    Map<String, Object> row = store.session(live.session());
    if (row != null) {
      s.put("status", String.valueOf(row.get("STATUS")));
      put(s, "reason", withheld(row.get("REASON")));
      put(s, "started_at", row.get("STARTED_AT"));
      put(s, "finished_at", row.get("FINISHED_AT"));
    }
    ObjectNode e = j.putObject("enrolment");
    e.put("joined", live.enrolled());
    e.put("expected", live.expectedParties());
    e.put("seconds_left", live.enrolmentSecondsLeft());
    ObjectNode st = j.putObject("stage");
    st.put("name", live.stage());
    st.put("round", live.round());
    st.put("rounds", live.rounds());
    st.put("seconds_left", live.stageSecondsLeft());
    st.put("expected", live.stageExpected());
    st.put("answered", live.stageAnswered());
    st.put("gone", live.gone());
    ArrayNode outcomes = j.putArray("stages");
    for (Map<String, Object> r : store.rounds(live.session())) {
      ObjectNode o = outcomes.addObject();
      o.put("stage", String.valueOf(r.get("ROUND")));
      o.put("expected", ((Number) r.get("EXPECTED")).intValue());
      o.put("answered", ((Number) r.get("ANSWERED")).intValue());
      put(o, "closed_at", r.get("CLOSED_AT"));
    }
    ArrayNode events = j.putArray("events");
    List<Map<String, Object>> all = store.events(live.session());
    j.put("events_total", all.size());
    for (Map<String, Object> ev : all.subList(Math.max(0, all.size() - EVENTS), all.size())) {
      ObjectNode o = events.addObject();
      put(o, "at", ev.get("AT"));
      put(o, "stage", ev.get("STAGE"));
      put(o, "party", ev.get("PARTY"));
      put(o, "kind", ev.get("KIND"));
      put(o, "reason", ev.get("REASON"));
      put(o, "detail", withheld(ev.get("DETAIL")));
    }
    Map<String, Object> rel = store.releaseSummary(live.session());
    if (rel == null) {
      j.putNull("release");
    } else {
      ObjectNode o = j.putObject("release");
      o.put("contributors", ((Number) rel.get("CONTRIBUTORS")).intValue());
      o.put("epsilon", ((Number) rel.get("EPSILON")).doubleValue());
      o.put("delta", ((Number) rel.get("DELTA")).doubleValue());
      o.putObject("text").put("epsilon", Guarantee.format(o.get("epsilon").asDouble()))
          .put("delta", Guarantee.format(o.get("delta").asDouble()));
      put(o, "released_at", rel.get("RELEASED_AT"));
      ArrayNode g = o.putArray("guarantees");
      for (String line : guarantees(store, live.session())) {
        g.add(line);
      }
    }
    j.set("ledger", ledger(store, live.dataset()));
    ArrayNode sessions = j.putArray("sessions");
    for (Map<String, Object> r : store.sessions()) {
      ObjectNode o = sessions.addObject();
      put(o, "id", r.get("ID"));
      put(o, "name", r.get("NAME"));
      put(o, "dataset", r.get("DATASET"));
      put(o, "status", r.get("STATUS"));
      put(o, "stage", r.get("STAGE"));
      put(o, "reason", withheld(r.get("REASON")));
      put(o, "started_at", r.get("STARTED_AT"));
      put(o, "finished_at", r.get("FINISHED_AT"));
    }
    return j;
  }

  /** The released model's guarantees in words, read once per session (a release never changes). */
  private static final Map<String, List<String>> GUARANTEES = new java.util.concurrent.ConcurrentHashMap<>();

  private static List<String> guarantees(Store store, String session) {
    return GUARANTEES.computeIfAbsent(session, id -> {
      try {
        var model = dev.helmet.protocols.model.ModelFile.fromJson(MAPPER.readTree(store.releasedModel(id)),
            "the released model of session " + id);
        return model.privacy().guarantees().stream().map(dev.helmet.privacy.ledger.Guarantee::describe).toList();
      } catch (java.io.IOException | RuntimeException e) {
        return List.of("(the released model's guarantee could not be read: " + e.getMessage() + ")");
      }
    });
  }

  /** The data set's budget, what is spent, reserved and left (eps; summed in decimal), and every entry. */
  private static ObjectNode ledger(Store store, String dataset) {
    ObjectNode l = MAPPER.createObjectNode();
    l.put("dataset", dataset);
    double[] budget = store.budget(dataset);
    BigDecimal spent = BigDecimal.ZERO;
    BigDecimal reserved = BigDecimal.ZERO;
    ArrayNode entries = l.putArray("entries");
    for (Map<String, Object> r : store.ledger(dataset)) {
      String status = String.valueOf(r.get("STATUS"));
      BigDecimal eps = BigDecimal.valueOf(((Number) r.get("EPSILON")).doubleValue());
      if (status.equals("SPENT")) {
        spent = spent.add(eps);
      } else if (status.equals("RESERVED")) {
        reserved = reserved.add(eps);
      }
      ObjectNode o = entries.addObject();
      put(o, "session", r.get("SESSION_ID"));
      o.put("status", status);
      o.put("epsilon", eps.doubleValue());
      o.put("delta", ((Number) r.get("DELTA")).doubleValue());
      o.put("released_rounds", ((Number) r.get("RELEASED_ROUNDS")).intValue());
      o.putObject("text").put("epsilon", Guarantee.format(eps.doubleValue()))
          .put("delta", Guarantee.format(o.get("delta").asDouble()));
      put(o, "updated_at", r.get("UPDATED_AT"));
    }
    ObjectNode text = MAPPER.createObjectNode();
    if (budget != null) {
      l.put("budget_epsilon", budget[0]);
      l.put("budget_delta", budget[1]);
      double left = BigDecimal.valueOf(budget[0]).subtract(spent).subtract(reserved).doubleValue();
      l.put("left_epsilon", left);
      text.put("budget_epsilon", Guarantee.format(budget[0])).put("budget_delta", Guarantee.format(budget[1]))
          .put("left_epsilon", Guarantee.formatLeft(left));
    }
    l.put("spent_epsilon", spent.doubleValue());
    l.put("reserved_epsilon", reserved.doubleValue());
    text.put("spent_epsilon", Guarantee.format(spent.doubleValue()))
        .put("reserved_epsilon", Guarantee.format(reserved.doubleValue()));
    l.set("text", text);
    String relation = store.relation(dataset);
    if (relation == null) {
      l.putNull("relation");
    } else {
      l.put("relation", relation);
    }
    l.put("note", "eps against anyone holding the released models, per the data set's neighbouring relation, summed "
        + "over sessions (basic composition); a reservation becomes spent when a round is released and is refunded "
        + "when nothing was");
    return l;
  }

  /** Free text from the database with every certificate subject withheld; null stays null. */
  private static String withheld(Object text) {
    return text == null ? null : Subjects.withhold(text.toString());
  }

  private static void put(ObjectNode o, String key, Object v) {
    if (v == null) {
      o.putNull(key);
    } else if (v instanceof Number n && !(v instanceof BigDecimal)) {
      if (v instanceof Integer || v instanceof Long) {
        o.put(key, n.longValue());
      } else {
        o.put(key, n.doubleValue());
      }
    } else {
      o.put(key, timestamp(v));
    }
  }

  private static String timestamp(Object v) {
    if (v instanceof java.sql.Timestamp t) {
      return t.toInstant().toString();
    }
    return String.valueOf(v);
  }
}
