package dev.helmet.privacy.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@link DpEvent}s as JSON, so that what ran can be stored (a ledger, a database, a results file)
 * and accounted later by any accountant, as dp_accounting serialises its events. Numbers keep their
 * exact double value (Jackson writes the shortest decimal that reads back to the same double).
 *
 * <pre>
 * {"type": "gaussian", "noise_multiplier": 3.73}
 * {"type": "poisson_sampled", "sampling_probability": 0.01, "neighbours": "replace_one", "event": {...}}
 * {"type": "sampled_without_replacement", "source_dataset_size": 364, "sample_size": 14, "event": {...}}
 * {"type": "self_composed", "count": 100, "event": {...}}
 * {"type": "composed", "events": [{...}, {...}]}
 * {"type": "distributed_discrete_gaussian", "sigma": 40.2, "parties": 500, "l2_sensitivity": 1.1e4,
 *  "l1_sensitivity": 9.6e5, "dimension": 7850}
 * {"type": "skellam_mixture", "lambda": 1428, "c": 4096, "delta_inf": 4}
 * {"type": "skellam", "mu": 2.5e7, "l2_sensitivity": 161.2, "l1_sensitivity": 25985}
 * {"type": "slack", "slack": 1e-10, "event": {...}}
 * {"type": "mixture", "weights": [0.25, 0.75], "events": [{...}, {...}]}
 * {"type": "binomial", "trials": 1000000, "l1_sensitivity": 4096, "l2_sensitivity": 64,
 *  "linf_sensitivity": 64, "dimension": 65536}
 * {"type": "no_op"}
 * </pre>
 */
public final class DpEventJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DpEventJson() {}

  /** The event as a JSON object. */
  public static ObjectNode toJson(DpEvent event) {
    ObjectNode n = JSON.createObjectNode();
    if (event instanceof GaussianDpEvent g) {
      n.put("type", "gaussian");
      n.put("noise_multiplier", g.noiseMultiplier());
    } else if (event instanceof PoissonSampledDpEvent p) {
      n.put("type", "poisson_sampled");
      n.put("sampling_probability", p.samplingProbability());
      n.put("neighbours", p.neighbours().name().toLowerCase(Locale.ROOT));
      n.set("event", toJson(p.event()));
    } else if (event instanceof SampledWithoutReplacementDpEvent w) {
      n.put("type", "sampled_without_replacement");
      n.put("source_dataset_size", w.populationSize());
      n.put("sample_size", w.sampleSize());
      n.set("event", toJson(w.event()));
    } else if (event instanceof SelfComposedDpEvent s) {
      n.put("type", "self_composed");
      n.put("count", s.count());
      n.set("event", toJson(s.event()));
    } else if (event instanceof ComposedDpEvent c) {
      n.put("type", "composed");
      ArrayNode a = n.putArray("events");
      c.events().forEach(e -> a.add(toJson(e)));
    } else if (event instanceof DistributedDiscreteGaussianDpEvent d) {
      n.put("type", "distributed_discrete_gaussian");
      n.put("sigma", d.sigma());
      n.put("parties", d.parties());
      n.put("l2_sensitivity", d.l2Sensitivity());
      n.put("l1_sensitivity", d.l1Sensitivity());
      n.put("dimension", d.dimension());
    } else if (event instanceof SkellamMixtureDpEvent m) {
      n.put("type", "skellam_mixture");
      n.put("lambda", m.lambda());
      n.put("c", m.c());
      n.put("delta_inf", m.deltaInf());
    } else if (event instanceof SkellamDpEvent k) {
      n.put("type", "skellam");
      n.put("mu", k.mu());
      n.put("l2_sensitivity", k.l2Sensitivity());
      n.put("l1_sensitivity", k.l1Sensitivity());
    } else if (event instanceof BinomialDpEvent b) {
      n.put("type", "binomial");
      n.put("trials", b.trials());
      n.put("l1_sensitivity", b.l1Sensitivity());
      n.put("l2_sensitivity", b.l2Sensitivity());
      n.put("linf_sensitivity", b.lInfSensitivity());
      n.put("dimension", b.dimension());
    } else if (event instanceof SlackDpEvent s) {
      n.put("type", "slack");
      n.put("slack", s.slack());
      n.set("event", toJson(s.inner()));
    } else if (event instanceof MixtureDpEvent m) {
      n.put("type", "mixture");
      ArrayNode w = n.putArray("weights");
      ArrayNode a = n.putArray("events");
      for (int i = 0; i < m.size(); i++) {
        w.add(m.weight(i));
        a.add(toJson(m.component(i)));
      }
    } else if (event instanceof NoOpDpEvent) {
      n.put("type", "no_op");
    } else {
      throw new IllegalArgumentException("no JSON form for " + event.getClass().getSimpleName());
    }
    return n;
  }

  /** The event as a compact JSON string. */
  public static String toString(DpEvent event) {
    return toJson(event).toString();
  }

  /**
   * Parses an event.
   *
   * @throws IllegalArgumentException naming the first missing or malformed field
   */
  public static DpEvent fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a DP event is a JSON object");
    }
    String type = text(n, "type");
    try {
      return switch (type) {
        case "gaussian" -> new GaussianDpEvent(number(n, "noise_multiplier"));
        case "poisson_sampled" -> new PoissonSampledDpEvent(number(n, "sampling_probability"),
            fromJson(n.get("event")), relation(text(n, "neighbours")));
        case "sampled_without_replacement" -> new SampledWithoutReplacementDpEvent(
            integer(n, "source_dataset_size"), integer(n, "sample_size"), fromJson(n.get("event")));
        case "self_composed" -> new SelfComposedDpEvent(fromJson(n.get("event")), integer(n, "count"));
        case "composed" -> {
          JsonNode a = n.get("events");
          if (a == null || !a.isArray()) {
            throw new IllegalArgumentException("composed event: 'events' must be an array");
          }
          List<DpEvent> events = new ArrayList<>();
          a.forEach(e -> events.add(fromJson(e)));
          yield new ComposedDpEvent(events);
        }
        case "distributed_discrete_gaussian" -> new DistributedDiscreteGaussianDpEvent(number(n, "sigma"),
            integer(n, "parties"), number(n, "l2_sensitivity"), number(n, "l1_sensitivity"), integer(n, "dimension"));
        case "skellam_mixture" -> new SkellamMixtureDpEvent(number(n, "lambda"), number(n, "c"),
            integer(n, "delta_inf"));
        case "skellam" -> new SkellamDpEvent(number(n, "mu"), number(n, "l2_sensitivity"),
            number(n, "l1_sensitivity"));
        case "binomial" -> new BinomialDpEvent(longInteger(n, "trials"), number(n, "l1_sensitivity"),
            number(n, "l2_sensitivity"), number(n, "linf_sensitivity"), integer(n, "dimension"));
        case "slack" -> new SlackDpEvent(number(n, "slack"), fromJson(n.get("event")));
        case "mixture" -> mixture(n);
        case "no_op" -> new NoOpDpEvent();
        default -> throw new IllegalArgumentException("unknown DP event type '" + type + "'");
      };
    } catch (IllegalArgumentException e) {
      throw e.getMessage() != null && e.getMessage().startsWith(type + ": ") ? e
          : new IllegalArgumentException(type + ": " + e.getMessage(), e);
    }
  }

  /** Parses an event from its JSON text. */
  public static DpEvent parse(String json) {
    try {
      return fromJson(JSON.readTree(json));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("a DP event is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static MixtureDpEvent mixture(JsonNode n) {
    JsonNode w = n.get("weights");
    JsonNode a = n.get("events");
    if (w == null || !w.isArray() || a == null || !a.isArray()) {
      throw new IllegalArgumentException("mixture event: 'weights' and 'events' must be arrays");
    }
    double[] weights = new double[w.size()];
    for (int i = 0; i < weights.length; i++) {
      if (!w.get(i).isNumber() || !Double.isFinite(w.get(i).asDouble())) {
        throw new IllegalArgumentException("field 'weights' must hold finite numbers");
      }
      weights[i] = w.get(i).asDouble();
    }
    DpEvent[] events = new DpEvent[a.size()];
    for (int i = 0; i < events.length; i++) {
      events[i] = fromJson(a.get(i));
    }
    return new MixtureDpEvent(weights, events);
  }

  private static NeighbourRelation relation(String s) {
    for (NeighbourRelation r : NeighbourRelation.values()) {
      if (r.name().equalsIgnoreCase(s)) {
        return r;
      }
    }
    throw new IllegalArgumentException("neighbours must be add_or_remove_one or replace_one. Provided value: " + s);
  }

  private static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("field '" + key + "' must be a string");
    }
    return v.asText();
  }

  private static double number(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isNumber() || !Double.isFinite(v.asDouble())) {
      throw new IllegalArgumentException("field '" + key + "' must be a finite number");
    }
    return v.asDouble();
  }

  private static int integer(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new IllegalArgumentException("field '" + key + "' must be an integer");
    }
    return v.asInt();
  }

  private static long longInteger(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new IllegalArgumentException("field '" + key + "' must be an integer");
    }
    return v.asLong();
  }
}
