package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.ApproxDpAccountant;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.mechanism.BinomialParameters;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code cpsgd}: T rounds of cpSGD's binomial mechanism (its Theorem 1, Poisson amplification, the
 * better of linear and advanced composition; {@link ApproxDpAccountant}) with H clients' noise in
 * every sum. The free parameter is each client's binomial trials ({@code --binomial-trials}),
 * searched over each client's standard deviation x (trials 4 x^2, rounded up to an even number).
 */
final class CpSgdCalculator implements PrivacyCalculator {
  private static final String TRIALS = "--binomial-trials";
  private static final String CLIENTS = "--noise-clients";
  private static final String L1 = "--l1-sensitivity";
  private static final String L2 = "--l2-sensitivity";
  private static final String LINF = "--linf-sensitivity";
  private static final String DIMENSION = "--dimension";

  @Override
  public String name() {
    return "cpsgd";
  }

  @Override
  public String summary() {
    return "cpsgd (cpSGD's binomial mechanism, (eps, delta) accounting; see --binomial-trials)";
  }

  @Override
  public String parameter() {
    return TRIALS;
  }

  @Override
  public List<String> options() {
    return List.of(TRIALS, CLIENTS, L2, L1, LINF, DIMENSION);
  }

  @Override
  public List<String> exclusiveOptions() {
    return options();
  }

  @Override
  public String misuse() {
    return "--binomial-trials, --noise-clients, --l1/--l2/--linf-sensitivity and --dimension go with --accountant cpsgd";
  }

  @Override
  public void validate(CalculatorInput in) {
    Checks.require(in.has(CLIENTS) && in.has(L2) && in.has(L1) && in.has(LINF) && in.has(DIMENSION),
        "--accountant cpsgd needs --noise-clients, --l1-sensitivity, --l2-sensitivity, --linf-sensitivity and "
            + "--dimension");
    Checks.positive("noise clients", in.integer(CLIENTS));
    Checks.positive("dimension", in.integer(DIMENSION));
  }

  @Override
  public Calculation bind(CalculatorInput input, NeighbourRelation relation) {
    CalculatorInput in = ClientRounds.check(name(), input, relation);
    int clients = in.integer(CLIENTS);
    double l1 = in.real(L1);
    double l2 = in.real(L2);
    double lInf = in.real(LINF);
    int dimension = in.integer(DIMENSION);
    return new Calculation() {
      @Override
      public double delta() {
        return in.delta();
      }

      /** {@code perClient} trials for each of the clients: Bin(N H, 1/2) in every sum. */
      @Override
      public DpEvent event(double perClient) {
        long trials = (long) perClient;
        long total;
        try {
          total = Math.multiplyExact(trials, (long) clients);
        } catch (ArithmeticException e) {
          throw new IllegalArgumentException("--binomial-trials x --noise-clients must be below 2^63. Provided: "
              + trials + " x " + clients, e);
        }
        DpEvent round = new BinomialDpEvent(total, l1, l2, lInf, dimension);
        DpEvent e = in.samplingRate() < 1 ? new PoissonSampledDpEvent(in.samplingRate(), round) : round;
        return in.steps() == 1 ? e : new SelfComposedDpEvent(e, in.steps());
      }

      @Override
      public Supplier<PrivacyAccountant> accountants() {
        return ApproxDpAccountant::new;
      }

      @Override
      public Calibration.Search search() {
        return Calibration.Search.noiseMultiplier(x -> event(BinomialParameters.trialsForSigma(x)));
      }

      @Override
      public double value(double x) {
        return BinomialParameters.trialsForSigma(x);
      }

      @Override
      public double given() {
        Long trials = in.whole(TRIALS);
        Checks.require(trials != null, "--accountant cpsgd needs --binomial-trials N");
        Checks.require(trials >= 2 && trials % 2 == 0, "--binomial-trials must be even and at least 2. Provided "
            + "value: " + trials);
        return trials;
      }

      @Override
      public String noEpsilon(double perClient) {
        return "cpSGD's Theorem 1 gives no epsilon at delta " + in.delta() + " for " + (long) perClient
            + " trials per client x " + clients + " clients: it needs N/4 >= max(23 ln(10 d / delta), 2 L-infinity) "
            + "for the total N (after amplification, at the delta share each round gets); raise --binomial-trials or "
            + "delta, or let `privacy noise` find the trials";
      }

      @Override
      public Report epsilonReport(double perClient, double epsilon) {
        return report((long) perClient, epsilon);
      }

      @Override
      public Report noiseReport(double perClient, double target, double epsilon) {
        return report((long) perClient, epsilon);
      }

      private Report report(long perClient, double eps) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("accountant", "cpsgd");
        j.put("epsilon", eps);
        j.put("delta", in.delta());
        j.put("binomial_trials", perClient);
        j.put("noise_clients", clients);
        j.put("l1_sensitivity", l1);
        j.put("l2_sensitivity", l2);
        j.put("linf_sensitivity", lInf);
        j.put("dimension", dimension);
        j.put("sampling_rate", in.samplingRate());
        j.put("steps", in.steps());
        j.put("neighbours", "add-remove");
        j.put("against", ClientRounds.AGAINST);
        j.put("relation", ClientRounds.RELATION);
        return new Report(j, String.format(Locale.ROOT, "epsilon = %.6f at delta = %s for %d round(s) of cpSGD's "
            + "binomial mechanism (q = %s; Theorem 1, Poisson amplification, the better of linear and advanced "
            + "composition), %d trials per client x %d clients, sensitivities L1 %s, L2 %s, L-infinity %s in %d "
            + "coordinates, against %s, for neighbours that %s", eps, dev.helmet.core.util.Numbers.fmt(in.delta()), in.steps(),
            dev.helmet.core.util.Numbers.fmt(in.samplingRate()), perClient, clients, dev.helmet.core.util.Numbers.fmt(l1), dev.helmet.core.util.Numbers.fmt(l2), dev.helmet.core.util.Numbers.fmt(lInf), dimension,
            ClientRounds.AGAINST, ClientRounds.RELATION));
      }
    };
  }
}
