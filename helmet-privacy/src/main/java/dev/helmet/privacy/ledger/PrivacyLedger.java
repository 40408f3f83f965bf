package dev.helmet.privacy.ledger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The privacy record every released model carries: what mechanism ran, on which neighbour
 * relation and protected unit, how it was accounted, the resulting (eps, delta), and the inputs of
 * that computation ({@code details}: sensitivity, noise multiplier, noise std, ...), so anyone can
 * recompute the guarantee.
 *
 * @param mechanism the mechanism, e.g. {@code helmet-blind-averaging}
 * @param neighbours the neighbour relation the sensitivity is stated for
 * @param unit the protected unit: record, group of N records, user
 * @param event the DpEvent that was accounted, in words
 * @param accountant the accountant used
 * @param epsilon the guaranteed eps at {@code delta} for what was actually released
 * @param delta delta
 * @param details the formula's inputs, in insertion order; values are numbers, strings or booleans
 */
public record PrivacyLedger(
    String mechanism,
    String neighbours,
    String unit,
    String event,
    String accountant,
    double epsilon,
    double delta,
    Map<String, Object> details) {

  public PrivacyLedger {
    details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }
}
