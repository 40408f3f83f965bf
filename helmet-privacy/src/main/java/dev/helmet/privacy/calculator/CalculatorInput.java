package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the user asked a calculator about: the options every calculator shares (what is released and
 * the target delta) and, by their command-line names ({@code --skellam-lambda}), the options that
 * only some calculators read, the free parameter among them ({@code --noise-multiplier}). Options
 * that were not given are absent; messages name the options as the command line does.
 *
 * @param delta the target delta
 * @param compositions K, unsampled releases composed
 * @param groupSize G, records protected together (sensitivity G)
 * @param samplingRate q, Poisson sampling per step or round; null when not given
 * @param steps T, sampled steps or rounds; null when not given
 * @param neighbours {@code add-remove} or {@code replace-one}, as given
 * @param options the other options given, by name (values Double, Integer, Long or String)
 */
public record CalculatorInput(double delta, int compositions, int groupSize, Double samplingRate, Integer steps,
    String neighbours, Map<String, Object> options) {
  public CalculatorInput {
    Checks.notNull("neighbours", neighbours);
    Map<String, Object> given = new LinkedHashMap<>();
    options.forEach((k, v) -> {
      if (v != null) {
        given.put(k, v);
      }
    });
    options = Collections.unmodifiableMap(given);
  }

  /** Whether option {@code name} was given. */
  public boolean has(String name) {
    return options.containsKey(name);
  }

  /** A real-valued option, or null. */
  public Double real(String name) {
    Object v = options.get(name);
    return v == null ? null : ((Number) v).doubleValue();
  }

  /** An int-valued option, or null. */
  public Integer integer(String name) {
    Object v = options.get(name);
    return v == null ? null : ((Number) v).intValue();
  }

  /** A long-valued option, or null. */
  public Long whole(String name) {
    Object v = options.get(name);
    return v == null ? null : ((Number) v).longValue();
  }

  /** A text option, or null. */
  public String text(String name) {
    Object v = options.get(name);
    return v == null ? null : v.toString();
  }

  /** Whether releases are Poisson-sampled (--sampling-rate given). */
  public boolean sampled() {
    return samplingRate != null;
  }

  /** This input with {@code samplingRate} and {@code steps} set. */
  CalculatorInput withSampling(double rate, int count) {
    return new CalculatorInput(delta, compositions, groupSize, rate, count, neighbours, options);
  }

  /** The checks of a sampling rate and its steps, once --sampling-rate is given. */
  void requireSampling() {
    Checks.require(samplingRate > 0 && samplingRate <= 1,
        "--sampling-rate must be in (0, 1]. Provided value: " + samplingRate);
    if (steps == null) {
      throw new IllegalArgumentException("--sampling-rate needs --steps (the number of sampled steps)");
    }
    Checks.positive("steps", steps);
  }
}
