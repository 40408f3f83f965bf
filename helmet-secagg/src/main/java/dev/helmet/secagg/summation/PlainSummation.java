package dev.helmet.secagg.summation;

import dev.helmet.core.util.Progress;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Summation in the clear: the server receives every party's vector. NOT private against the
 * server; it exists to compare against the secure protocols and to test the rest of the pipeline.
 */
public final class PlainSummation implements SecureSummation {

  @Override
  public String name() {
    return "plain";
  }

  @Override
  public boolean revealsInputs() {
    return true;
  }

  @Override
  public SummationOutcome run(SummationSpec spec, IntFunction<long[]> inputs, Progress progress) {
    long start = System.nanoTime();
    FixedPointEncoding enc = spec.encoding();
    long[] sum = new long[spec.length()];
    List<Integer> contributors = new ArrayList<>();
    List<SummationOutcome.Drop> dropped = new ArrayList<>();
    for (int i = 0; i < spec.parties(); i++) {
      long[] in = inputs.apply(i);
      String problem = problem(in, spec);
      if (problem != null) {
        dropped.add(new SummationOutcome.Drop(i, "input", "MALFORMED_INPUT", problem));
        continue;
      }
      enc.addInto(sum, in);
      contributors.add(i);
    }
    long message = spec.packedBytes();
    double seconds = (System.nanoTime() - start) / 1e9;
    boolean ok = contributors.size() >= spec.threshold();
    return new SummationOutcome(ok ? SummationOutcome.Status.COMPLETED : SummationOutcome.Status.ABORTED,
        ok ? sum : null, contributors, dropped,
        ok ? null : "TOO_FEW_SURVIVORS: " + contributors.size() + " contributors, " + spec.threshold() + " needed",
        message, message * contributors.size(), seconds, seconds, 0, Map.of(), Map.of());
  }

  /** Why an input is malformed, or null. */
  static String problem(long[] input, SummationSpec spec) {
    if (input == null) {
      return "no input";
    }
    if (input.length != spec.length()) {
      return "vector of length " + input.length + ", expected " + spec.length();
    }
    for (int j = 0; j < input.length; j++) {
      if (!spec.encoding().inRing(input[j])) {
        return "element " + j + " is outside the " + spec.encoding().ringBits() + "-bit ring";
      }
    }
    return null;
  }
}
