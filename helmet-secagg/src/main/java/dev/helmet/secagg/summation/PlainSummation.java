package dev.helmet.secagg.summation;

import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.List;

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
  public SummationOutcome run(SummationSpec spec, List<long[]> inputs) {
    long start = System.nanoTime();
    if (inputs.size() != spec.parties()) {
      throw new IllegalArgumentException(inputs.size() + " inputs for " + spec.parties() + " parties");
    }
    FixedPointEncoding enc = spec.encoding();
    long[] sum = new long[spec.length()];
    List<Integer> contributors = new ArrayList<>();
    List<SummationOutcome.Drop> dropped = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      String problem = problem(inputs.get(i), spec);
      if (problem != null) {
        dropped.add(new SummationOutcome.Drop(i, SummationOutcome.DropReason.MALFORMED_INPUT, problem));
        continue;
      }
      enc.addInto(sum, inputs.get(i));
      contributors.add(i);
    }
    long message = (long) spec.length() * enc.bytesPerValue();
    double seconds = (System.nanoTime() - start) / 1e9;
    if (contributors.size() < spec.threshold()) {
      return new SummationOutcome(SummationOutcome.Status.ABORTED_TOO_FEW_CONTRIBUTORS, null, contributors,
          dropped, message, message * inputs.size(), seconds);
    }
    return new SummationOutcome(SummationOutcome.Status.COMPLETED, sum, contributors, dropped, message,
        message * inputs.size(), seconds);
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
