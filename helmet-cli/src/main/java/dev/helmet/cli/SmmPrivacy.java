package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.accounting.SmmAccounting;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code helmet privacy ... --accountant smm}: the Skellam mixture mechanism's guarantee
 * ({@link SmmAccounting}) from public parameters, or the Skellam lambda for a target eps.
 */
final class SmmPrivacy {
  /** The paper's subsampling bound is not proven for SMM: its eps is labelled (privacy review turn 3, finding 5). */
  private static final java.util.function.Function<Subsampling, String> PAPER_CAVEAT = m -> m == Subsampling.PAPER
      ? " (UNPROVEN for SMM: --subsampling paper reproduces the paper's figures; the general bound is the guarantee)"
      : "";

  @Option(names = "--skellam-lambda", paramLabel = "L",
      description = "With --accountant smm: each client's Skellam parameter lambda (noise Sk(L, L) per coordinate).")
  Double lambda;

  @Option(names = "--clients", paramLabel = "N",
      description = "With --accountant smm: clients whose noise is in every released sum (Theorem 5 needs the "
          + "noise present in each sum; an expected number of sampled clients, the paper's |B| read as in its "
          + "Theorem 6, is not that).")
  Double clients;

  @Option(names = "--mixture-c", paramLabel = "C",
      description = "With --accountant smm: the mixture clip bound c on sum_j phi(|x_j|) (gamma^2 for unit L2 "
          + "sensitivity).")
  Double mixtureC;

  @Option(names = "--subsampling", paramLabel = "general|paper", defaultValue = "general",
      description = "With --accountant smm and --sampling-rate below 1: general (Zhu and Wang's bound for any "
          + "mechanism) or paper (the binomial expansion without its factor 3, as Bao et al. use it; proven only for "
          + "mechanisms such as the Gaussian, shown to reproduce the paper). Default: ${DEFAULT-VALUE}.")
  String subsampling;

  private Subsampling mode;

  void check(boolean smm) {
    if (!smm) {
      if (lambda != null || clients != null || mixtureC != null) {
        throw new IllegalArgumentException("--skellam-lambda, --clients and --mixture-c go with --accountant smm");
      }
      return;
    }
    mode = switch (subsampling.toLowerCase(Locale.ROOT)) {
      case "general" -> Subsampling.GENERAL;
      case "paper" -> Subsampling.PAPER;
      default -> throw new IllegalArgumentException("--subsampling must be general or paper. Provided value: "
          + subsampling);
    };
    if (clients == null || mixtureC == null) {
      throw new IllegalArgumentException("--accountant smm needs --clients N and --mixture-c C");
    }
    Checks.require(clients > 0 && Double.isFinite(clients), "--clients must be positive. Provided value: " + clients);
    Checks.require(mixtureC > 0 && Double.isFinite(mixtureC), "--mixture-c must be positive. Provided value: "
        + mixtureC);
  }

  private SmmAccounting.Params params(PrivacyCommand.Releases r, double perClient) {
    return new SmmAccounting.Params(perClient * clients, mixtureC, r.samplingRate, r.steps, r.delta, mode);
  }

  int epsilon(PrivacyCommand.Releases r, PrintWriter out) {
    if (lambda == null) {
      throw new IllegalArgumentException("--accountant smm needs --skellam-lambda L");
    }
    Checks.require(lambda > 0 && Double.isFinite(lambda), "--skellam-lambda must be positive. Provided value: "
        + lambda);
    print(r, SmmAccounting.epsilon(params(r, lambda)), lambda, out);
    return Main.OK;
  }

  int noise(PrivacyCommand.Releases r, double epsilon, PrintWriter out) {
    if (lambda != null) {
      throw new IllegalArgumentException("--skellam-lambda is what `privacy noise` computes; leave it out");
    }
    SmmAccounting.Result res = SmmAccounting.calibrate(params(r, 1), epsilon);
    print(r, res, res.event().lambda() / clients, out);
    return Main.OK;
  }

  private void print(PrivacyCommand.Releases r, SmmAccounting.Result res, double perClient, PrintWriter out) {
    if (r.json) {
      ObjectNode j = Json.object();
      j.put("accountant", "smm");
      Json.put(j, "epsilon", res.epsilon());
      j.put("delta", r.delta);
      j.put("order", res.order());
      j.put("delta_inf", res.deltaInfBound());
      j.put("delta_inf_clip", res.deltaInf());
      j.put("skellam_lambda", perClient);
      j.put("total_lambda", res.event().lambda());
      j.put("clients", clients);
      j.put("mixture_c", mixtureC);
      j.put("sampling_rate", r.samplingRate);
      j.put("steps", r.steps);
      j.put("subsampling", mode.name().toLowerCase(Locale.ROOT));
      j.put("neighbours", "add-remove");
      j.put("against", "anyone who sees the released sums" + PAPER_CAVEAT.apply(mode));
      j.put("relation", "add or remove one client");
      out.println(Json.print(j));
    } else {
      out.printf(Locale.ROOT, "epsilon = %.6f at delta = %s (order %d) for %d round(s) of the Skellam mixture mechanism "
          + "(q = %s, %s subsampling bound), Skellam lambda %.6g per client x %s clients, c = %s; L-infinity clip: "
          + "ceil|x_j| <= %d (valid below %.4g), against anyone who sees the released sums%s, for neighbours that "
          + "add or remove one client%n", res.epsilon(), Trainer.fmt(r.delta), res.order(), r.steps,
          Trainer.fmt(r.samplingRate), mode.name().toLowerCase(Locale.ROOT), perClient, Trainer.fmt(clients),
          Trainer.fmt(mixtureC), res.deltaInf(), res.deltaInfBound(), PAPER_CAVEAT.apply(mode));
    }
    out.flush();
  }
}
