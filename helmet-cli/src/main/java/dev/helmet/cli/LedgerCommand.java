package dev.helmet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.LocalLedger;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet ledger show|settle}: a participant's own privacy ledger ({@code --ledger FILE}, as
 * {@code participant --ledger} keeps it) or a coordinator's ({@code --config SESSION.yaml}: the
 * database it names, read through the running coordinator while one holds it).
 */
@Command(
    name = "ledger",
    mixinStandardHelpOptions = true,
    description = "Show a privacy ledger, a participant's own (--ledger FILE) or a coordinator's (--config "
        + "SESSION.yaml, also while the coordinator runs), or settle an entry a crashed participant or coordinator "
        + "left open.",
    subcommands = {LedgerCommand.Show.class, LedgerCommand.Settle.class})
final class LedgerCommand extends GroupCommand {

  /** A participant's ledger file and the budget it is checked against, or a coordinator's session file. */
  static final class Target {
    @Option(names = "--ledger", paramLabel = "FILE", description = "A participant's ledger (participant --ledger).")
    Path file;

    @Option(names = "--config", paramLabel = "SESSION.yaml",
        description = "A coordinator's session file: the ledger in the database it names (while a coordinator holds "
            + "an H2 database, read through that coordinator's status page).")
    Path config;

    @Option(names = "--dataset", paramLabel = "NAME", description = "With --config: the data set. Default: the "
        + "session file's.")
    String dataset;

    @Option(names = "--budget-epsilon", paramLabel = "E", defaultValue = "1",
        description = "With --ledger: the data's eps budget, as given to the participant. Default: ${DEFAULT-VALUE}.")
    double budgetEpsilon;

    @Option(names = "--budget-delta", paramLabel = "D", defaultValue = "1e-4",
        description = "With --ledger: the data's delta budget. Default: ${DEFAULT-VALUE}.")
    double budgetDelta;

    /** Whether it names a coordinator's ledger (checks that exactly one of --ledger, --config is given). */
    boolean coordinator() {
      if ((file == null) == (config == null)) {
        throw new IllegalArgumentException("give either --ledger FILE (a participant's ledger) or --config "
            + "SESSION.yaml (a coordinator's)");
      }
      if (config == null && dataset != null) {
        throw new IllegalArgumentException("--dataset goes with --config (a participant's ledger is of its own data)");
      }
      return config != null;
    }

    LocalLedger open() {
      if (!Files.exists(file)) {
        throw new IllegalArgumentException(file + ": no such ledger (a participant creates it with --ledger FILE)");
      }
      return new LocalLedger(file, budgetEpsilon, budgetDelta);
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Every session in the ledger (reserved, committed, spent or refunded), what is used and what is "
          + "left.")
  static final class Show implements Callable<Integer> {
    @Mixin Target target = new Target();

    @Option(names = "--json", description = "Print one JSON object (keys: ledger, budget, used, left, entries).")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (target.coordinator()) {
        ObjectNode j = CoordinatorLedger.report(target.config, target.dataset);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          out.println(Json.print(j));
        } else {
          CoordinatorLedger.print(j, out);
        }
        out.flush();
        return Main.OK;
      }
      LocalLedger l = target.open();
      BigDecimal[] used = l.used();
      double[] budget = l.budget();
      BigDecimal left = BigDecimal.valueOf(budget[0]).subtract(used[0]);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode j = Json.object();
        j.put("ledger", target.file.toString());
        j.putObject("budget").put("epsilon", budget[0]).put("delta", budget[1]);
        j.putObject("used").put("epsilon", used[0].doubleValue()).put("delta", used[1].doubleValue());
        j.put("left_epsilon", left.doubleValue());
        var a = j.putArray("entries");
        l.entries().forEach(a::add);
        out.println(Json.print(j));
      } else {
        out.printf(Locale.ROOT, "ledger %s: budget eps = %s, delta = %s; used eps = %s, delta = %s; left eps = %s%n",
            target.file, Trainer.fmtBound(budget[0]), Trainer.fmtBound(budget[1]),
            Trainer.fmtBound(used[0].doubleValue()), Trainer.fmtBound(used[1].doubleValue()),
            Trainer.fmtLeft(left.doubleValue()));
        for (JsonNode e : l.entries()) {
          String st = e.path("status").asText();
          out.printf(Locale.ROOT, "  %-32s %-9s eps = %s, delta = %s, %d round(s) sent, %s%s%n",
              e.path("session").asText(), st, Trainer.fmtBound(e.path("epsilon").asDouble()),
              Trainer.fmtBound(e.path("delta").asDouble()),
              e.path("rounds").asInt(), e.path("updated").asText(),
              st.equals("reserved") || st.equals("committed") ? "  (open: `helmet ledger settle` if its participant "
                  + "is gone)" : "");
        }
      }
      out.flush();
      return Main.OK;
    }
  }

  @Command(name = "settle", mixinStandardHelpOptions = true,
      description = "Settle an entry a crashed participant left open (--ledger): spent at the participant's own eps for "
          + "the rounds it committed (their inputs may have been released), refunded only if it committed none "
          + "(nothing about its data left). Or a session a crashed coordinator left unfinished (--config; the "
          + "coordinator's next start does the same): charged exactly the rounds it recorded as released (it records "
          + "a round before computing its sum), refunded if none. Recorded as settled by the operator, with the "
          + "reason.")
  static final class Settle implements Callable<Integer> {
    @Mixin Target target = new Target();

    @Option(names = "--session", paramLabel = "ID", required = true, description = "The session (hex id).")
    String session;

    @Option(names = "--reason", paramLabel = "TEXT", required = true, description = "Why (recorded).")
    String reason;

    @Option(names = "--json", description = "Print one JSON object (keys: session, epsilon, status).")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      double eps;
      if (target.coordinator()) {
        eps = CoordinatorLedger.settle(target.config, session, reason);
      } else {
        LocalLedger l = target.open();
        try {
          eps = l.settleStale(session, reason);
        } catch (IllegalStateException e) {
          throw new IllegalArgumentException(e.getMessage() + " (`helmet ledger show` lists the open ones)", e);
        }
      }
      String status = eps == 0 ? "refunded" : "spent";
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode j = Json.object();
        j.put("session", session);
        j.put("epsilon", eps);
        j.put("status", status);
        out.println(Json.print(j));
      } else {
        out.printf(Locale.ROOT, "session %s settled: %s%n", session, target.config != null
            ? (eps == 0 ? "refunded (the coordinator released nothing)" : "spent eps = " + Trainer.fmtBound(eps)
                + " for the rounds the coordinator released")
            : eps == 0 ? "refunded (no input of this party left)" : "spent eps = " + Trainer.fmtBound(eps)
                + " for the rounds it sent");
      }
      out.flush();
      return Main.OK;
    }
  }
}
