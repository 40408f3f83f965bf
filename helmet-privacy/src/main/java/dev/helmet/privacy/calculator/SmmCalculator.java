package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.accounting.SmmAccounting;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code smm}: T rounds of the Skellam mixture mechanism (Bao et al., PVLDB 2022) with N clients'
 * noise in every sum and mixture clip bound c. The event is {@link SmmAccounting#event} (the clip
 * of the best order), accounted by RDP over the orders {@link SmmAccounting} tries; the free
 * parameter is each client's Skellam lambda ({@code --skellam-lambda}), calibrated through its total
 * over the N clients ({@link SmmAccounting#search}).
 */
final class SmmCalculator implements PrivacyCalculator {
  /** The paper's subsampling bound is not proven for SMM: its eps is labelled (privacy review turn 3, finding 5). */
  private static final String PAPER_CAVEAT = " (UNPROVEN for SMM: --subsampling paper reproduces the paper's figures;"
      + " the general bound is the guarantee)";

  private static final String LAMBDA = "--skellam-lambda";
  private static final String CLIENTS = "--clients";
  private static final String MIXTURE_C = "--mixture-c";
  private static final String SUBSAMPLING = "--subsampling";

  @Override
  public String name() {
    return "smm";
  }

  @Override
  public String summary() {
    return "smm (the Skellam mixture mechanism; see --skellam-lambda)";
  }

  @Override
  public String parameter() {
    return LAMBDA;
  }

  @Override
  public List<String> options() {
    return List.of(LAMBDA, CLIENTS, MIXTURE_C, SUBSAMPLING);
  }

  @Override
  public List<String> exclusiveOptions() {
    return List.of(LAMBDA, CLIENTS, MIXTURE_C);
  }

  @Override
  public void validate(CalculatorInput in) {
    subsampling(in);
    Double clients = in.real(CLIENTS);
    Double c = in.real(MIXTURE_C);
    if (clients == null || c == null) {
      throw new IllegalArgumentException("--accountant smm needs --clients N and --mixture-c C");
    }
    Checks.require(clients > 0 && Double.isFinite(clients), "--clients must be positive. Provided value: " + clients);
    Checks.require(c > 0 && Double.isFinite(c), "--mixture-c must be positive. Provided value: " + c);
  }

  private static Subsampling subsampling(CalculatorInput in) {
    String s = in.has(SUBSAMPLING) ? in.text(SUBSAMPLING) : "general";
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "general" -> Subsampling.GENERAL;
      case "paper" -> Subsampling.PAPER;
      default -> throw new IllegalArgumentException("--subsampling must be general or paper. Provided value: " + s);
    };
  }

  @Override
  public Calculation bind(CalculatorInput input, NeighbourRelation relation) {
    CalculatorInput in = ClientRounds.check(name(), input, relation);
    double clients = in.real(CLIENTS);
    double c = in.real(MIXTURE_C);
    Subsampling mode = subsampling(in);
    return new Calculation() {
      /** The run with total lambda {@code total}. */
      private SmmAccounting.Params params(double total) {
        return new SmmAccounting.Params(total, c, in.samplingRate(), in.steps(), in.delta(), mode);
      }

      @Override
      public double delta() {
        return in.delta();
      }

      @Override
      public DpEvent event(double perClient) {
        return SmmAccounting.event(params(perClient * clients));
      }

      @Override
      public Supplier<PrivacyAccountant> accountants() {
        return SmmAccounting.accountant(mode);
      }

      /** Over the total lambda, as the algorithm calibrates it. */
      @Override
      public Calibration.Search search() {
        return SmmAccounting.search(params(1));
      }

      @Override
      public double value(double total) {
        return total / clients;
      }

      @Override
      public double given() {
        Double lambda = in.real(LAMBDA);
        if (lambda == null) {
          throw new IllegalArgumentException("--accountant smm needs --skellam-lambda L");
        }
        Checks.require(lambda > 0 && Double.isFinite(lambda), "--skellam-lambda must be positive. Provided value: "
            + lambda);
        return lambda;
      }

      @Override
      public String noEpsilon(double perClient) {
        return SmmAccounting.noValidOrder(perClient * clients);
      }

      @Override
      public Report epsilonReport(double perClient, double epsilon) {
        return report(perClient, epsilon);
      }

      @Override
      public Report noiseReport(double perClient, double target, double epsilon) {
        return report(perClient, epsilon);
      }

      /** The eps with the order and clip that give it ({@link SmmAccounting#epsilon}, the same eps). */
      private Report report(double perClient, double epsilon) {
        SmmAccounting.Result res = SmmAccounting.epsilon(params(perClient * clients));
        String caveat = mode == Subsampling.PAPER ? PAPER_CAVEAT : "";
        String bound = mode.name().toLowerCase(Locale.ROOT);
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("accountant", "smm");
        j.put("epsilon", epsilon);
        j.put("delta", in.delta());
        j.put("order", res.order());
        j.put("delta_inf", res.deltaInfBound());
        j.put("delta_inf_clip", res.deltaInf());
        j.put("skellam_lambda", perClient);
        j.put("total_lambda", res.event().lambda());
        j.put("clients", clients);
        j.put("mixture_c", c);
        j.put("sampling_rate", in.samplingRate());
        j.put("steps", in.steps());
        j.put("subsampling", bound);
        j.put("neighbours", "add-remove");
        j.put("against", ClientRounds.AGAINST + caveat);
        j.put("relation", ClientRounds.RELATION);
        return new Report(j, String.format(Locale.ROOT, "epsilon = %.6f at delta = %s (order %d) for %d round(s) of "
            + "the Skellam mixture mechanism (q = %s, %s subsampling bound), Skellam lambda %.6g per client x %s "
            + "clients, c = %s; L-infinity clip: ceil|x_j| <= %d (valid below %.4g), against %s%s, for neighbours "
            + "that %s", epsilon, dev.helmet.core.util.Numbers.fmt(in.delta()), res.order(), in.steps(), dev.helmet.core.util.Numbers.fmt(in.samplingRate()), bound,
            perClient, dev.helmet.core.util.Numbers.fmt(clients), dev.helmet.core.util.Numbers.fmt(c), res.deltaInf(), res.deltaInfBound(), ClientRounds.AGAINST,
            caveat, ClientRounds.RELATION));
      }
    };
  }
}
