package dev.helmet.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of {@code helmet privacy ... --accountant cpsgd}, cpSGD's binomial mechanism's
 * calculator ({@code dev.helmet.privacy.calculator}, which checks them): its guarantee from public
 * parameters, or the binomial trials for a target eps.
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

  /** Adds the options given to {@code options}, by their names. */
  void putInto(Map<String, Object> options) {
    options.put("--binomial-trials", trials);
    options.put("--noise-clients", clients);
    options.put("--l2-sensitivity", l2);
    options.put("--l1-sensitivity", l1);
    options.put("--linf-sensitivity", lInf);
    options.put("--dimension", dimension);
  }
}
