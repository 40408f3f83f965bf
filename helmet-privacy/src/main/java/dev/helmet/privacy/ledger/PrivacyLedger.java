package dev.helmet.privacy.ledger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The privacy record every released model carries: what mechanism ran, on which neighbour
 * relation and protected unit, how it was accounted, the resulting (eps, delta), and the inputs of
 * that computation ({@code details}: sensitivity, noise multiplier, noise std, ...), so anyone can
 * recompute the guarantee.
 *
 * <p>{@code epsilon} and {@code delta} are the guarantee of the released model; {@code guarantees}
 * lists every guarantee of the run with whom it holds against, the released model's first (e.g. a
 * summation in the clear adds a much weaker one against the server, which saw each party's noised
 * input).
 *
 * @param mechanism the mechanism, e.g. {@code helmet-blind-averaging}
 * @param neighbours the neighbour relation the sensitivity is stated for
 * @param unit the protected unit: record, group of N records, user
 * @param event the DpEvent that was accounted, in words
 * @param accountant the accountant used
 * @param epsilon the guaranteed eps at {@code delta} for what was actually released
 * @param delta delta
 * @param details the formula's inputs, in insertion order; values are numbers, strings or booleans
 * @param guarantees every guarantee and whom it protects against (the released model's first);
 *     empty: only the released model's, against anyone holding it
 */
public record PrivacyLedger(
    String mechanism,
    String neighbours,
    String unit,
    String event,
    String accountant,
    double epsilon,
    double delta,
    Map<String, Object> details,
    List<Guarantee> guarantees) {

  /** Whom the released model's guarantee holds against when nothing more is said. */
  public static final String AGAINST_MODEL_HOLDERS = "anyone holding the released model";

  public PrivacyLedger {
    details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    guarantees = guarantees == null || guarantees.isEmpty()
        ? List.of(new Guarantee(AGAINST_MODEL_HOLDERS, neighbours, unit, epsilon, delta))
        : List.copyOf(guarantees);
  }

  /** A ledger whose only guarantee is the released model's, against anyone holding it. */
  public PrivacyLedger(String mechanism, String neighbours, String unit, String event, String accountant,
      double epsilon, double delta, Map<String, Object> details) {
    this(mechanism, neighbours, unit, event, accountant, epsilon, delta, details, List.of());
  }
}
