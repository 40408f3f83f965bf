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

  /** The Skellam event, alone and Poisson-sampled over rounds, reads back equal. */
  @Test
  void skellamEventsRoundTrip() {
    SkellamDpEvent k = new SkellamDpEvent(432000.0 * (1 - 0x1p-48), Math.nextUp(Math.sqrt(20672)), 20672);
    DpEvent e = new SelfComposedDpEvent(new PoissonSampledDpEvent(0.004, k), 1000);
    assertEquals(e, DpEventJson.parse(DpEventJson.toString(e)));
    assertEquals("skellam", DpEventJson.toJson(k).get("type").asText());
    assertEquals(k.mu(), DpEventJson.toJson(k).get("mu").asDouble());
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"skellam\", \"mu\": 10, \"l2_sensitivity\": 2}"));
    assertTrue(a.getMessage().contains("l1_sensitivity"), a.getMessage());
    assertThrows(IllegalArgumentException.class, () -> DpEventJson.parse(
        "{\"type\": \"skellam\", \"mu\": 0, \"l2_sensitivity\": 2, \"l1_sensitivity\": 4}"));
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
