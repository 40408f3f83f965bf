package dev.helmet.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of {@code helmet privacy ... --accountant smm}, the Skellam mixture mechanism's
 * calculator ({@code dev.helmet.privacy.calculator}, which checks them): its guarantee from public
 * parameters, or the Skellam lambda for a target eps.
 */
final class SmmPrivacy {
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

  /** Adds the options given to {@code options}, by their names. */
  void putInto(Map<String, Object> options) {
    options.put("--skellam-lambda", lambda);
    options.put("--clients", clients);
    options.put("--mixture-c", mixtureC);
    options.put("--subsampling", subsampling);
  }
}
