package dev.helmet.privacy.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DpEventJsonTest {
  /** Every kind of event reads back equal to what was written (doubles exactly). */
  @Test
  void everyEventRoundTrips() {
    DpEvent e = new ComposedDpEvent(List.of(
        new SelfComposedDpEvent(new PoissonSampledDpEvent(0.0123456789, new GaussianDpEvent(1.0 / 3),
            NeighbourRelation.REPLACE_ONE), 1250),
        new PoissonSampledDpEvent(0.5, new GaussianDpEvent(2)),
        new DistributedDiscreteGaussianDpEvent(40.25, 500, 11234.5, 987654.25, 7850),
        new NoOpDpEvent(),
        new GaussianDpEvent(3.7306316348)));
    assertEquals(e, DpEventJson.parse(DpEventJson.toString(e)));
  }

  @Test
  void malformedEventsAreRefusedNamingTheField() {
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"gaussian\"}"));
    assertTrue(a.getMessage().contains("noise_multiplier"), a.getMessage());
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"laplace\", \"scale\": 1}"));
    assertTrue(b.getMessage().contains("unknown DP event type 'laplace'"), b.getMessage());
    IllegalArgumentException c = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"poisson_sampled\", \"sampling_probability\": 0.1, "
            + "\"neighbours\": \"swap\", \"event\": {\"type\": \"no_op\"}}"));
    assertTrue(c.getMessage().contains("neighbours"), c.getMessage());
    assertThrows(IllegalArgumentException.class, () -> DpEventJson.parse("{\"type\": \"gaussian\", "
        + "\"noise_multiplier\": -1}"));
  }
}
