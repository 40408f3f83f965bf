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

  /**
   * Sensitivities no vector can have are refused, naming both: ||x||_1 >= ||x||_2 >= max |x_j| for
   * every x, so an L1 below the L2 (or an L-infinity above it) is two arguments swapped, and
   * accounting the smaller figure as the L1 bound could under-report.
   */
  @Test
  void sensitivitiesNoVectorHasAreRefused() {
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"skellam\", \"mu\": 10, \"l2_sensitivity\": 4, \"l1_sensitivity\": 2}"));
    assertTrue(a.getMessage().contains("L1 sensitivity 2.0 is below L2 sensitivity 4.0"), a.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new DistributedDiscreteGaussianDpEvent(10, 5, 144, 12, 100));
    assertThrows(IllegalArgumentException.class, () -> new BinomialDpEvent(1000, 12, 144, 12, 100));
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
        () -> new BinomialDpEvent(1000, 300, 10, 11, 100));
    assertTrue(b.getMessage().contains("L-infinity sensitivity 11.0 is above L2 sensitivity 10.0"), b.getMessage());
    // Equal norms are possible (a vector with one non-zero coordinate) and accepted.
    assertEquals(3.0, new SkellamDpEvent(10, 3, 3).l1Sensitivity());
    assertEquals(3.0, new BinomialDpEvent(1000, 3, 3, 3, 1).lInfSensitivity());
    assertEquals(3.0, new DistributedDiscreteGaussianDpEvent(10, 5, 3, 3, 1).l1Sensitivity());
  }

  /** The cross-silo events (slack and revealed mixture) read back equal, nested in each other. */
  @Test
  void slackAndMixtureEventsRoundTrip() {
    DpEvent step = new PoissonSampledDpEvent(0.0107, new GaussianDpEvent(1), NeighbourRelation.REPLACE_ONE);
    DpEvent mixture = new MixtureDpEvent(new double[] {0.125, 0.5, 0.375},
        new DpEvent[] {new NoOpDpEvent(), step, new SlackDpEvent(1e-10, step)});
    DpEvent e = new SelfComposedDpEvent(new SlackDpEvent(1e-15, mixture), 1250);
    DpEvent back = DpEventJson.parse(DpEventJson.toString(e));
    assertEquals(e, back);
    assertEquals(e.hashCode(), back.hashCode());
    assertEquals("mixture", DpEventJson.toJson(mixture).get("type").asText());
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"mixture\", \"weights\": [1]}"));
    assertTrue(a.getMessage().contains("'weights' and 'events' must be arrays"), a.getMessage());
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
        () -> DpEventJson.parse("{\"type\": \"slack\", \"slack\": 2, \"event\": {\"type\": \"no_op\"}}"));
    assertTrue(b.getMessage().contains("slack must be in [0, 1]"), b.getMessage());
  }

  /**
   * SWOR's step (a fixed-size sample under replace-one) reads back equal, under dp_accounting's
   * field names; a sample larger than its population is refused naming it.
   */
  @Test
  void sampledWithoutReplacementRoundTripsAndRefusesAnImpossibleSample() {
    DpEvent w = new SampledWithoutReplacementDpEvent(364, 14, new GaussianDpEvent(1.153));
    DpEvent e = new MixtureDpEvent(new double[] {0.25, 0.75}, new DpEvent[] {new NoOpDpEvent(), w});
    assertEquals(e, DpEventJson.parse(DpEventJson.toString(e)));
    assertEquals(364, DpEventJson.toJson(w).get("source_dataset_size").asInt());
    assertEquals(14, DpEventJson.toJson(w).get("sample_size").asInt());
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class, () -> DpEventJson.parse(
        "{\"type\": \"sampled_without_replacement\", \"source_dataset_size\": 10, \"sample_size\": 11, "
            + "\"event\": {\"type\": \"gaussian\", \"noise_multiplier\": 1}}"));
    assertTrue(a.getMessage().contains("sample size must be in [1, population size 10]"), a.getMessage());
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
