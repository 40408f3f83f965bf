package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.experiments.bench.SummationBench;
import dev.helmet.secagg.summation.SummationOutcome;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet bench secagg}: one full secure-summation run with every party in this process, its
 * result checked against the exact sum ({@link SummationBench}), printed with the server's and the
 * mean party's time, the bytes, and where the time goes; plus baselines measured in the same run.
 */
@Command(name = "secagg", mixinStandardHelpOptions = true, sortOptions = false,
    description = "One full secure-aggregation run in-process (all parties and the server), checked against the "
        + "exact sum; --rounds repeats it. JSON keys include server_seconds, party_seconds (mean per party), "
        + "bytes_per_party, server_bytes, exact_sum (every round), rounds.")
final class SecAggBench implements Callable<Integer> {
  @Option(names = "--parties", paramLabel = "P", defaultValue = "1000", description = "Default: ${DEFAULT-VALUE}.")
  int parties;

  @Option(names = "--params", paramLabel = "D", defaultValue = "100000",
      description = "Vector length (model parameters). Default: ${DEFAULT-VALUE}.")
  int params;

  @Option(names = "--dropout", paramLabel = "F", defaultValue = "0",
      description = "Fraction of parties that drop. Default: ${DEFAULT-VALUE}.")
  double dropout;

  @Option(names = "--dropout-round", paramLabel = "R", defaultValue = "masked-input",
      description = "When they drop: masked-input (right after sharing their keys, the server's most expensive "
          + "case, as in Bonawitz et al.'s measurements) or random (any round). Default: ${DEFAULT-VALUE}.")
  String dropoutRound;

  @Option(names = "--protocol", paramLabel = "P", defaultValue = "secagg+",
      description = "secagg+, secagg, dca (additive shares to --compute-nodes compute nodes; compute-servers is its "
          + "old name, still accepted), groups or harary (pairwise masks in groups of --mask-group: the cross-silo "
          + "paper's Algorithm 4), or plain (no protection: the baseline). Default: ${DEFAULT-VALUE}.")
  String protocol;

  @Option(names = "--compute-nodes", paramLabel = "M", defaultValue = "2",
      description = "Compute nodes for --protocol dca. Default: ${DEFAULT-VALUE}.")
  int computeNodes;

  @Option(names = "--mask-group", paramLabel = "G", defaultValue = "2",
      description = "Group size for --protocol groups or harary. Default: ${DEFAULT-VALUE}.")
  int maskGroup;

  @Option(names = "--min-contributors", paramLabel = "M", defaultValue = "0",
      description = "Fewest contributors the summation accepts. 0: all but the dropouts, P - floor(F P). "
          + "Default: ${DEFAULT-VALUE}.")
  int minContributors;

  @Option(names = "--max-dropout", paramLabel = "D",
      description = "Dropout rate secure aggregation is sized for. Default: 1 - M / P, the dropouts the summation "
          + "tolerates.")
  Double maxDropout;

  @Option(names = "--colluding-fraction", paramLabel = "G", defaultValue = "0",
      description = "Fraction of parties that may collude with the server. 0: the server alone is the adversary "
          + "(as in Bonawitz et al.'s and Bell et al.'s measurements). Default: ${DEFAULT-VALUE}.")
  double colluding;

  @Option(names = "--ring-bits", paramLabel = "B", defaultValue = "32", description = "Default: ${DEFAULT-VALUE}.")
  int ringBits;

  @Option(names = "--rounds", paramLabel = "R", defaultValue = "1",
      description = "Full runs back to back in this JVM, each with fresh keys and masks (the same inputs and, "
          + "with --dropout, the same parties dropping); the summary is the last round's (after the first, the JIT "
          + "has compiled the hot code: the steady state of a long-running coordinator or participant). JSON adds "
          + "party_seconds_by_round, server_seconds_by_round, status_by_round and exact_by_round. "
          + "Default: ${DEFAULT-VALUE}.")
  int rounds;

  @Option(names = "--threads", paramLabel = "N", description = "Default: the number of processors.")
  Integer threads;

  @Option(names = "--json", description = "Print JSON.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    SummationBench.Settings settings = new SummationBench.Settings(parties, params, dropout, dropoutRound, protocol,
        computeNodes, maskGroup, minContributors, maxDropout, colluding, ringBits, rounds, t);
    PrintWriter out = spec.commandLine().getOut();
    SummationBench.Outcome run = SummationBench.run(settings, new SummationBench.Listener() {
      @Override
      public void starting(String summation) {
        if (!json) {
          out.printf("%s: %d parties x %d parameters, %.0f %% dropout (%s), %d-bit ring, sized for %.0f %% "
              + "colluding parties ...%n", summation, parties, params, 100 * dropout, dropoutRound, ringBits,
              100 * colluding);
          out.flush();
        }
      }

      @Override
      public void round(int r, SummationOutcome o, boolean exact) {
        if (!json && rounds > 1) {
          out.printf("  round %-3d         %s, party %.4f s (mean), server %.2f s, sum %s%n", r + 1, o.status(),
              o.partySeconds(), o.serverSeconds(), exact ? "exact" : "NOT EXACT");
          out.flush();
        }
      }
    });
    SummationOutcome o = run.last();
    double plainSeconds = run.plainSeconds();
    boolean exact = run.exact();
    double prgMbps = run.prgMbPerSecond();
    ObjectNode j = Json.object();
    j.put("protocol", run.summation());
    j.put("parties", parties);
    j.put("params", params);
    j.put("dropout", dropout);
    j.put("min_contributors", run.minContributors());
    j.put("dropout_round", dropoutRound);
    j.put("status", o.status().name());
    if (o.abortReason() != null) {
      j.put("abort_reason", o.abortReason());
    }
    j.put("exact_sum", exact);
    j.put("contributors", o.contributors().size());
    j.put("server_seconds", o.serverSeconds());
    j.put("party_seconds", o.partySeconds());
    j.put("wall_seconds", o.seconds());
    j.put("bytes_per_party", o.bytesPerParty());
    j.put("server_bytes", o.serverBytes());
    j.set("parameters", Json.MAPPER.valueToTree(o.parameters()));
    ObjectNode prof = j.putObject("cpu_seconds_by_primitive");
    o.profile().forEach(prof::put);
    j.put("baseline_plain_sum_seconds", plainSeconds);
    j.put("baseline_aes_ctr_mb_per_s", prgMbps);
    j.put("server_vs_plain_sum", o.serverSeconds() / plainSeconds);
    j.put("rounds", rounds);
    j.set("party_seconds_by_round", Json.MAPPER.valueToTree(run.partySecondsByRound()));
    j.set("server_seconds_by_round", Json.MAPPER.valueToTree(run.serverSecondsByRound()));
    j.set("status_by_round", Json.MAPPER.valueToTree(run.statusByRound()));
    j.set("exact_by_round", Json.MAPPER.valueToTree(run.exactByRound()));
    if (json) {
      out.println(Json.print(j));
    } else {
      String sum = rounds == 1 ? (exact ? "exact" : "NOT EXACT")
          : (exact ? "exact in every round" : "NOT EXACT in some round") + "; the rest is the last round's";
      out.printf("  status            %s%s; sum %s%n", o.status(), o.abortReason() == null ? "" : " (" + o.abortReason()
          + ")", sum);
      out.printf("  parameters       %s; %d contributors%n", Trainer.describe(o.parameters()), o.contributors().size());
      out.printf("  server            %.2f s (%.1f x the %.2f s of summing the same vectors in the clear)%n",
          o.serverSeconds(), o.serverSeconds() / plainSeconds, plainSeconds);
      out.printf("  per party         %.3f s (mean)%n", o.partySeconds());
      out.printf("  bytes             %d per party, %d at the server%n", o.bytesPerParty(), o.serverBytes());
      out.printf("  wall time         %.1f s for all %d parties and the server on %d threads%n", o.seconds(), parties, t);
      out.printf("  where time goes   (CPU seconds, all parties and the server; AES-CTR runs at %.0f MB/s here)%n",
          prgMbps);
      for (Map.Entry<String, Double> e : o.profile().entrySet()) {
        out.printf("    %-16s %8.2f s%n", e.getKey(), e.getValue());
      }
    }
    out.flush();
    return Main.OK;
  }
}
