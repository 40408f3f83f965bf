package dev.helmet.privacy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrivacyChargeTest {
  /**
   * k released rounds cost the accountant's eps of k rounds; none costs nothing. Golden value: the
   * analytic Gaussian with sigma = 3.7306316348 is (1, 1e-5)-DP (SPEC 1.4).
   */
  @Test
  void chargesTheReleasedRoundsWithTheNamedAccountant() {
    PrivacyCharge one = new PrivacyCharge("gaussian", new GaussianDpEvent(3.7306316348), 1, 1e-5, 1e-5,
        "replace one record", "record");
    assertEquals(1.0, one.epsilon(1), 1e-6);
    assertEquals(0, one.epsilon(0));
    assertEquals(0, one.delta(0));
    PrivacyCharge sgd = new PrivacyCharge("rdp", new PoissonSampledDpEvent(0.04, new GaussianDpEvent(1.5)), 2250, 1e-5,
        1e-5, "add or remove one record", "record");
    assertEquals(new RdpAccountant().compose(new PoissonSampledDpEvent(0.04, new GaussianDpEvent(1.5)), 1000)
        .epsilon(1e-5), sgd.epsilon(1000), 0);
    assertTrue(sgd.epsilon(1000) < sgd.epsilon(2250));
    assertThrows(IllegalArgumentException.class, () -> sgd.epsilon(2251), "more rounds than planned");
    assertThrows(IllegalArgumentException.class, () -> sgd.epsilon(-1));
  }

  @Test
  void roundTripsThroughJson() {
    PrivacyCharge c = new PrivacyCharge("pld", new PoissonSampledDpEvent(0.008, new GaussianDpEvent(1)), 1250,
        0.99e-5, 1e-5, "replace one record", "record");
    assertEquals(c, PrivacyCharge.fromJson(c.toJson()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrivacyCharge.fromJson(c.toJson().put("accountant", "moments")));
    assertTrue(e.getMessage().contains("accountant"), e.getMessage());
  }

  /**
   * Running k candidates on the same data costs their composition: four Gaussian releases at eps
   * 0.5 compose to about eps 1.07 (a mu of 2 mu_0), with their clamp tails paid from delta first.
   */
  @Test
  void composingCandidatesCostsTheirComposition() {
    double sigma = dev.helmet.privacy.accounting.Calibration.noiseMultiplier(GaussianDpEvent::new,
        GaussianAccountant::new, 0.5, 1e-5);
    PrivacyCharge one = new PrivacyCharge("gaussian", new GaussianDpEvent(sigma), 1, 1e-5 - 1e-9, 1e-5,
        "replace one record", "record");
    PrivacyCharge four = PrivacyCharge.composition(List.of(one, one, one, one));
    double exact = new GaussianAccountant().compose(new GaussianDpEvent(sigma), 4).epsilon(1e-5 - 4e-9);
    assertEquals(exact, four.epsilon(1), 1e-12);
    assertTrue(four.epsilon(1) > 1.0 && four.epsilon(1) < 1.15, "4 x eps 0.5: " + four.epsilon(1));
    assertThrows(IllegalArgumentException.class, () -> PrivacyCharge.composition(List.of(one,
        new PrivacyCharge("rdp", new GaussianDpEvent(sigma), 1, 1e-5, 1e-5, "replace one record", "record"))));
  }
}
