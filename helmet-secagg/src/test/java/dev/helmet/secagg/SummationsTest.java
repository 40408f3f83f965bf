package dev.helmet.secagg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.util.Progress;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class SummationsTest {
  /** Every registered summation sums the same small inputs to the same total. */
  @Test
  void everyRegisteredSummationSumsTheInputs() {
    FixedPointEncoding enc = new FixedPointEncoding(64, 20);
    int w = 6;
    int d = 5;
    long[][] inputs = new long[w][];
    long[] expected = new long[d];
    for (int i = 0; i < w; i++) {
      double[] x = new double[d];
      for (int j = 0; j < d; j++) {
        x[j] = (i + 1) * 0.25 - j;
      }
      inputs[i] = enc.encode(x);
      for (int j = 0; j < d; j++) {
        expected[j] = (expected[j] + inputs[i][j]) & enc.mask();
      }
    }
    for (Summations.Entry e : Summations.all()) {
      SecureSummation s = Summations.make(e.name(), Summations.Settings.defaults());
      SummationOutcome out = s.run(new SummationSpec(w, d, enc, w), i -> inputs[i].clone(), Progress.NONE);
      assertEquals(SummationOutcome.Status.COMPLETED, out.status(), e.name());
      long[] sum = out.sum().clone();
      for (int j = 0; j < d; j++) {
        sum[j] &= enc.mask();
      }
      assertArrayEquals(expected, sum, e.name());
    }
  }

  @Test
  void namesAndAliasesFindTheirEntryAndUnknownNamesListTheRegisteredOnes() {
    assertEquals("dca", Summations.find("compute-servers").name());
    assertEquals("secagg+", Summations.find(" SecAgg+ ").name());
    assertEquals(List.of("secagg+", "secagg", "dca", "groups", "harary", "plain"),
        Summations.all().stream().map(Summations.Entry::name).toList());
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
        () -> Summations.make("mixnet", Summations.Settings.defaults()));
    assertTrue(x.getMessage().contains("'mixnet'") && x.getMessage().contains("secagg+, secagg, dca (or "
        + "compute-servers), groups, harary, plain"), x.getMessage());
  }
}
