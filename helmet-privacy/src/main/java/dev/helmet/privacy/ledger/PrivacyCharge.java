package dev.helmet.privacy.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Memo;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.DpEventJson;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run costs its data, per released round, computed from public parameters only: the
 * {@link DpEvent} of one round, the accountant that composes it, and the deltas. A coordinator
 * charges its ledger, and every party its own, with this same arithmetic: a party derives the
 * charge from the plan it checked and never takes anyone's number for it.
 *
 * <p>k released rounds cost {@code (eps(k), delta)} with {@code eps(k) = accountant(k x
 * perRound).epsilon(mechanismDelta)}; the part {@code delta - mechanismDelta} pays for the clamp
 * tails of all planned rounds (charged whole even when fewer rounds ran: conservative). Zero
 * released rounds cost nothing: the data never left in any form.
 *
 * @param accountant the accountant's name ({@link Accountants#named})
 * @param perRound the event of one released round
 * @param plannedRounds the rounds the run may release
 * @param mechanismDelta the delta at which eps is computed
 * @param delta the delta charged (at least {@code mechanismDelta})
 * @param neighbours the neighbouring relation, in words
 * @param unit the protected unit
 */
public record PrivacyCharge(String accountant, DpEvent perRound, int plannedRounds, double mechanismDelta,
    double delta, String neighbours, String unit) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public PrivacyCharge {
    Accountants.named(accountant); // names a known accountant
    Checks.notNull("per-round event", perRound);
    Checks.positive("planned rounds", plannedRounds);
    Checks.require(mechanismDelta > 0 && mechanismDelta <= delta && delta < 1,
        "deltas must satisfy 0 < mechanism delta <= delta < 1. Provided values: " + mechanismDelta + ", " + delta);
    Checks.notNull("neighbours", neighbours);
    Checks.notNull("unit", unit);
  }

  /** The neighbouring relation and protected unit in words: "replace one record, per record". */
  public String relation() {
    return neighbours + ", per " + unit;
  }

  /**
   * Whether epsilons of this charge and {@code other} add up: the same neighbouring relation and
   * protected unit (an add-or-remove eps is not a replace-one eps).
   */
  public boolean sameRelation(PrivacyCharge other) {
    return neighbours.equals(other.neighbours) && unit.equals(other.unit);
  }

  /**
   * eps after {@code rounds} released rounds (0 for none).
   *
   * @throws IllegalArgumentException if {@code rounds} is negative or above the planned rounds
   */
  public double epsilon(int rounds) {
    Checks.require(rounds >= 0 && rounds <= plannedRounds, "released rounds must be in [0, " + plannedRounds
        + "]. Provided value: " + rounds);
    if (rounds == 0) {
      return 0;
    }
    return EPSILONS.get(new Rounds(this, rounds));
  }

  private record Rounds(PrivacyCharge charge, int rounds) {}

  /** Memoised: every simulated party derives the same charge (and PLD compositions are costly). */
  private static final Memo<Rounds, Double> EPSILONS = new Memo<>(256,
      k -> Accountants.named(k.charge().accountant()).get().compose(k.charge().perRound(), k.rounds())
          .epsilon(k.charge().mechanismDelta()));

  /** delta after {@code rounds} released rounds (0 for none). */
  public double delta(int rounds) {
    return rounds == 0 ? 0 : delta;
  }

  /** The charge of all planned rounds. */
  public double epsilon() {
    return epsilon(plannedRounds);
  }

  /** The event of {@code rounds} released rounds. */
  public DpEvent event(int rounds) {
    return rounds == 1 ? perRound : new SelfComposedDpEvent(perRound, rounds);
  }

  /**
   * The charge of running every one of {@code charges} to completion on the same data (e.g. every
   * candidate of a hyperparameter search whose winner is released): their events composed, at the
   * first one's delta, of which the clamp tails of all of them are paid first. All must use one
   * accountant.
   */
  public static PrivacyCharge composition(List<PrivacyCharge> charges) {
    Checks.require(!charges.isEmpty(), "nothing to compose");
    PrivacyCharge first = charges.get(0);
    List<DpEvent> events = new ArrayList<>();
    double tails = 0;
    for (PrivacyCharge c : charges) {
      Checks.require(c.accountant.equals(first.accountant), "charges to compose use different accountants ("
          + first.accountant + ", " + c.accountant + ")");
      Checks.require(c.neighbours.equals(first.neighbours) && c.unit.equals(first.unit),
          "charges to compose protect different units or neighbours");
      events.add(c.event(c.plannedRounds));
      tails += c.delta - c.mechanismDelta;
    }
    // The tails add (a union bound over the events that a clamp fires); the rest is the mechanism's.
    double mechanism = first.delta - tails;
    Checks.require(mechanism > 0, "the clamp tails of " + charges.size() + " runs use up delta " + first.delta);
    return new PrivacyCharge(first.accountant, events.size() == 1 ? events.get(0) : new ComposedDpEvent(events), 1,
        mechanism, first.delta, first.neighbours, first.unit);
  }

  /** As JSON (stored with ledger entries, so the charge can be recomputed by anyone). */
  public ObjectNode toJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("accountant", accountant);
    n.set("per_round", DpEventJson.toJson(perRound));
    n.put("planned_rounds", plannedRounds);
    n.put("mechanism_delta", mechanismDelta);
    n.put("delta", delta);
    n.put("neighbours", neighbours);
    n.put("unit", unit);
    return n;
  }

  /**
   * Parses {@link #toJson}.
   *
   * @throws IllegalArgumentException naming the first bad field
   */
  public static PrivacyCharge fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a privacy charge is a JSON object");
    }
    return new PrivacyCharge(text(n, "accountant"), DpEventJson.fromJson(n.get("per_round")),
        n.path("planned_rounds").asInt(-1), number(n, "mechanism_delta"), number(n, "delta"), text(n, "neighbours"),
        text(n, "unit"));
  }

  private static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("privacy charge: field '" + key + "' must be a string");
    }
    return v.asText();
  }

  private static double number(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isNumber()) {
      throw new IllegalArgumentException("privacy charge: field '" + key + "' must be a number");
    }
    return v.asDouble();
  }
}
