package dev.helmet.privacy.calculator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.accounting.SmmAccounting;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The registry of privacy calculators and its one routine: names, refusals, golden values, round trips. */
class PrivacyCalculatorsTest {
  private static CalculatorInput input(double delta, Double q, Integer steps, Object... options) {
    Map<String, Object> o = new HashMap<>();
    for (int i = 0; i < options.length; i += 2) {
      o.put((String) options[i], options[i + 1]);
    }
    return new CalculatorInput(delta, 1, 1, q, steps, "add-remove", o);
  }

  /** The SMM artifact README's example: |B| = 240, lambda 5.95, c = 4096, q = 240/60000, 1000 rounds. */
  private static CalculatorInput smm(Double lambda, String subsampling) {
    return input(1e-5, 0.004, 1000, "--skellam-lambda", lambda, "--clients", 240.0, "--mixture-c", 4096.0,
        "--subsampling", subsampling);
  }

  /** cpSGD with unit sensitivities in one coordinate, one client (private-attribution/ipa's golden values). */
  private static CalculatorInput cpsgd(Long trials) {
    return input(1e-6, null, null, "--binomial-trials", trials, "--noise-clients", 1, "--l1-sensitivity", 1.0,
        "--l2-sensitivity", 1.0, "--linf-sensitivity", 1.0, "--dimension", 1);
  }

  @Test
  void everyCalculatorIsRegisteredByName() {
    assertEquals(List.of("gaussian", "rdp", "pld", "smm", "cpsgd"), PrivacyCalculators.names());
    for (PrivacyCalculator c : PrivacyCalculators.all()) {
      assertEquals(c, PrivacyCalculators.named(c.name().toUpperCase(java.util.Locale.ROOT)));
      assertTrue(c.options().contains(c.parameter()), c.name() + " reads its free parameter");
      assertTrue(c.options().containsAll(c.exclusiveOptions()), c.name());
      assertTrue(PrivacyCalculators.summaries().contains(c.summary()), c.name());
    }
    assertEquals("gaussian", PrivacyCalculators.defaultName(false));
    assertEquals("rdp", PrivacyCalculators.defaultName(true));
  }

  @Test
  void anUnknownNameIsRefusedWithTheRegisteredOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrivacyCalculators.named("moments"));
    assertEquals("--accountant must be gaussian, rdp, pld, smm or cpsgd. Provided value: moments", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PrivacyCalculators.epsilon("foo",
        input(1e-5, null, null, "--noise-multiplier", 1.0)));
    assertEquals("--accountant must be gaussian, rdp, pld, smm or cpsgd. Provided value: foo", e.getMessage());
  }

  @Test
  void anotherCalculatorsOptionsAreRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrivacyCalculators.epsilon(null,
        input(1e-5, null, null, "--noise-multiplier", 1.0, "--clients", 3.0)));
    assertEquals("--skellam-lambda, --clients and --mixture-c go with --accountant smm", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PrivacyCalculators.epsilon("smm",
        input(1e-5, null, null, "--skellam-lambda", 50.0, "--clients", 10.0, "--mixture-c", 100.0,
            "--dimension", 3)));
    assertEquals("--binomial-trials, --noise-clients, --l1/--l2/--linf-sensitivity and --dimension go with "
        + "--accountant cpsgd", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PrivacyCalculators.noise("smm", smm(5.95, "general"), 3));
    assertEquals("--skellam-lambda is what `privacy noise` computes; leave it out", e.getMessage());
  }

  /** The analytic Gaussian's golden value (Balle and Wang 2018): sigma 3.7306316348 gives eps 1 at delta 1e-5. */
  @Test
  void theExactGaussianReproducesTheAnalyticGaussian() {
    Report e = PrivacyCalculators.epsilon(null, input(1e-5, null, null, "--noise-multiplier", 3.7306316348));
    assertEquals(1.0, (double) e.get("epsilon"), 1e-9);
    assertEquals("gaussian-exact", e.get("accountant"));
    Report n = PrivacyCalculators.noise(null, input(1e-5, null, null), 1);
    assertEquals(3.7306316348, (double) n.get("noise_multiplier"), 1e-8);
    Report group = PrivacyCalculators.noise("gaussian", new CalculatorInput(1e-5, 1, 4, null, null, "add-remove",
        Map.of()), 1);
    assertEquals(4 * 3.7306316348, (double) group.get("noise_multiplier"), 4e-8);
  }

  /** Opacus's golden DP-SGD value: sigma 1.5, q 0.04, 2250 steps, delta 1e-5, RDP: 7.32911117143 on its orders. */
  @Test
  void rdpReproducesOpacus() {
    Report r = PrivacyCalculators.epsilon(null, input(1e-5, 0.04, 2250, "--noise-multiplier", 1.5));
    assertEquals("rdp", r.get("accountant"));
    double eps = (double) r.get("epsilon");
    assertTrue(eps <= 7.32911117143 + 1e-9 && eps > 7.3, r.toString());
  }

  /**
   * The SMM artifact's example: eps about 3 at order 5 with the paper's subsampling (its README). The
   * RDP accountant on the calculator's event gives exactly {@link SmmAccounting}'s order search.
   */
  @Test
  void smmReproducesTheArtifactAndAgreesWithItsOrderSearch() {
    Report r = PrivacyCalculators.epsilon("smm", smm(5.95, "paper"));
    assertEquals(3.0, (double) r.get("epsilon"), 0.01);
    assertEquals(5, r.get("order"));
    SmmAccounting.Result direct = SmmAccounting.epsilon(new SmmAccounting.Params(240 * 5.95, 4096, 0.004, 1000, 1e-5,
        Subsampling.PAPER));
    assertEquals(direct.epsilon(), (double) r.get("epsilon"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrivacyCalculators.epsilon("smm", smm(0.01, "general")));
    assertTrue(e.getMessage().contains("Theorem 5"), e.getMessage());
  }

  /** ipa's golden values of cpSGD's Theorem 1: N = 2000 gives eps in (0.6375, 0.6376); eps 1 needs N = 1484. */
  @Test
  void cpsgdReproducesIpa() {
    double eps = (double) PrivacyCalculators.epsilon("cpsgd", cpsgd(2000L)).get("epsilon");
    assertTrue(eps > 0.6375 && eps < 0.6376, "eps " + eps);
    assertEquals(1484L, PrivacyCalculators.noise("cpsgd", cpsgd(null), 1).get("binomial_trials"));
  }

  /**
   * Every calculator's round trip is conservative: the parameter {@code noise} finds for a target
   * gives, through {@code epsilon}, an eps at most the target, and the eps {@code noise} reports is
   * that one.
   */
  @Test
  void everyCalculatorsRoundTripIsConservative() {
    double target = 2;
    check("gaussian", new CalculatorInput(1e-5, 3, 2, null, null, "add-remove", Map.of()), "--noise-multiplier",
        "noise_multiplier", target);
    check("rdp", input(1e-5, 0.01, 100), "--noise-multiplier", "noise_multiplier", target);
    check("pld", new CalculatorInput(1e-5, 1, 1, 0.01, 100, "replace-one", Map.of()), "--noise-multiplier",
        "noise_multiplier", target);
    check("smm", input(1e-5, 0.01, 100, "--clients", 100.0, "--mixture-c", 4096.0), "--skellam-lambda",
        "skellam_lambda", target);
    check("smm", input(1e-5, 0.01, 100, "--clients", 100.0, "--mixture-c", 4096.0, "--subsampling", "paper"),
        "--skellam-lambda", "skellam_lambda", target);
    check("cpsgd", input(1e-5, 0.1, 10, "--noise-clients", 10, "--l1-sensitivity", 30.0, "--l2-sensitivity", 5.0,
        "--linf-sensitivity", 3.0, "--dimension", 100), "--binomial-trials", "binomial_trials", target);
  }

  private static void check(String name, CalculatorInput in, String option, String key, double target) {
    Report n = PrivacyCalculators.noise(name, in, target);
    Number value = (Number) n.get(key);
    Map<String, Object> with = new HashMap<>(in.options());
    with.put(option, value);
    CalculatorInput given = new CalculatorInput(in.delta(), in.compositions(), in.groupSize(), in.samplingRate(),
        in.steps(), in.neighbours(), with);
    double back = (double) PrivacyCalculators.epsilon(name, given).get("epsilon");
    assertTrue(back <= target, name + ": " + value + " gives eps " + back + " above " + target);
    assertTrue(back > 0.9 * target || name.equals("cpsgd"), name + ": calibrated far below the target: " + back);
    if (!(n.get("epsilon").equals(target))) { // the Gaussian calculators print the target itself
      assertEquals(back, (double) n.get("epsilon"), 1e-12 * target, name);
    }
  }
}
