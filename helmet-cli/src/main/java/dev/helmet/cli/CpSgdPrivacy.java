package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.ApproxDpAccountant;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.mechanism.BinomialParameters;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code helmet privacy ... --accountant cpsgd}: cpSGD's binomial mechanism (its Theorem 1, Poisson
 * amplification, the better of linear and advanced composition; {@link ApproxDpAccountant}) from
 * public parameters, or the binomial trials for a target eps.
 */
final class CpSgdPrivacy {
  @Option(names = "--binomial-trials", paramLabel = "N",
      description = "With --accountant cpsgd: each client's binomial trials (noise Bin(N, 1/2) - N/2 per coordinate).")
  Long trials;

  @Option(names = "--noise-clients", paramLabel = "H",
      description = "With --accountant cpsgd: clients whose noise is in every released sum (the honest ones).")
  Integer clients;

  @Option(names = "--l2-sensitivity", paramLabel = "S2", description = "With --accountant cpsgd: L2 sensitivity of "
      + "one client's integer vector.")
  Double l2;

  @Option(names = "--l1-sensitivity", paramLabel = "S1", description = "With --accountant cpsgd: its L1 sensitivity.")
  Double l1;

  @Option(names = "--linf-sensitivity", paramLabel = "SI",
      description = "With --accountant cpsgd: its L-infinity sensitivity.")
  Double lInf;

  @Option(names = "--dimension", paramLabel = "D", description = "With --accountant cpsgd: coordinates released.")
  Integer dimension;

  void check(boolean cpsgd) {
    boolean any = trials != null || clients != null || l2 != null || l1 != null || lInf != null || dimension != null;
    if (!cpsgd) {
      Checks.require(!any, "--binomial-trials, --noise-clients, --l1/--l2/--linf-sensitivity and --dimension go "
          + "with --accountant cpsgd");
      return;
    }
    Checks.require(clients != null && l2 != null && l1 != null && lInf != null && dimension != null,
        "--accountant cpsgd needs --noise-clients, --l1-sensitivity, --l2-sensitivity, --linf-sensitivity and "
            + "--dimension");
    Checks.positive("noise clients", clients);
    Checks.positive("dimension", dimension);
  }

  private DpEvent event(PrivacyCommand.Releases r, long perClient) {
    long total;
    try {
      total = Math.multiplyExact(perClient, (long) clients);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("--binomial-trials x --noise-clients must be below 2^63. Provided: "
          + perClient + " x " + clients, e);
    }
    DpEvent round = new BinomialDpEvent(total, l1, l2, lInf, dimension);
    DpEvent e = r.samplingRate < 1 ? new PoissonSampledDpEvent(r.samplingRate, round) : round;
    return r.steps == 1 ? e : new SelfComposedDpEvent(e, r.steps);
  }

  int epsilon(PrivacyCommand.Releases r, PrintWriter out) {
    Checks.require(trials != null, "--accountant cpsgd needs --binomial-trials N");
    Checks.require(trials >= 2 && trials % 2 == 0, "--binomial-trials must be even and at least 2. Provided value: "
        + trials);
    double eps = new ApproxDpAccountant().compose(event(r, trials)).epsilon(r.delta);
    Checks.require(eps < Double.POSITIVE_INFINITY, "cpSGD's Theorem 1 gives no epsilon at delta " + r.delta
        + " for " + trials + " trials per client x " + clients + " clients: it needs N/4 >= max(23 ln(10 d / delta), "
        + "2 L-infinity) for the total N (after amplification, at the delta share each round gets); raise "
        + "--binomial-trials or delta, or let `privacy noise` find the trials");
    print(r, eps, trials, out);
    return Main.OK;
  }

  int noise(PrivacyCommand.Releases r, double epsilon, PrintWriter out) {
    Checks.require(trials == null, "--binomial-trials is what `privacy noise` computes; leave it out");
    // Searched over each client's standard deviation x (trials 4 x^2, rounded up to an even number).
    double x = Calibration.noiseMultiplier(s -> event(r, BinomialParameters.trialsForSigma(s)),
        ApproxDpAccountant::new, epsilon, r.delta);
    long n = BinomialParameters.trialsForSigma(x);
    print(r, new ApproxDpAccountant().compose(event(r, n)).epsilon(r.delta), n, out);
    return Main.OK;
  }

  private void print(PrivacyCommand.Releases r, double eps, long perClient, PrintWriter out) {
    if (r.json) {
      ObjectNode j = Json.object();
      j.put("accountant", "cpsgd");
      Json.put(j, "epsilon", eps);
      j.put("delta", r.delta);
      j.put("binomial_trials", perClient);
      j.put("noise_clients", clients);
      j.put("l1_sensitivity", l1);
      j.put("l2_sensitivity", l2);
      j.put("linf_sensitivity", lInf);
      j.put("dimension", dimension);
      j.put("sampling_rate", r.samplingRate);
      j.put("steps", r.steps);
      j.put("neighbours", "add-remove");
      j.put("against", "anyone who sees the released sums");
      j.put("relation", "add or remove one client");
      out.println(Json.print(j));
    } else {
      out.printf(Locale.ROOT, "epsilon = %.6f at delta = %s for %d round(s) of cpSGD's binomial mechanism (q = %s; "
          + "Theorem 1, Poisson amplification, the better of linear and advanced composition), %d trials per client x "
          + "%d clients, sensitivities L1 %s, L2 %s, L-infinity %s in %d coordinates, against anyone who sees the "
          + "released sums, for neighbours that add or remove one client%n", eps, Trainer.fmt(r.delta), r.steps,
          Trainer.fmt(r.samplingRate), perClient, clients, Trainer.fmt(l1), Trainer.fmt(l2), Trainer.fmt(lInf),
          dimension);
    }
    out.flush();
  }
}
