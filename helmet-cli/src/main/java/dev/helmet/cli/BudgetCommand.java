package dev.helmet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.store.DatabaseInUseException;
import dev.helmet.transport.store.Store;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet budget show|set}: a data set's privacy budget in the coordinator's database. A
 * budget is recorded the first time a session names the data set and changes only here, each
 * change recorded with its reason, so editing a session file cannot reset it.
 */
@Command(
    name = "budget",
    mixinStandardHelpOptions = true,
    description = "Show or change a data set's privacy budget in the coordinator's database (the one the session "
        + "file names).",
    subcommands = {BudgetCommand.Show.class, BudgetCommand.Set.class})
final class BudgetCommand extends GroupCommand {

  /** Where the database is and which data set. */
  static final class Target {
    @Option(names = "--config", paramLabel = "SESSION.yaml", required = true,
        description = "The session file: names the database and (unless --dataset is given) the data set.")
    Path config;

    @Option(names = "--dataset", paramLabel = "NAME", description = "The data set. Default: the session file's.")
    String dataset;

    Coordinator.Settings settings() {
      return SessionFile.read(config);
    }

    String dataset(Coordinator.Settings s) {
      return dataset != null ? dataset : s.config().getDataset();
    }

    Store open(Coordinator.Settings s) {
      return Store.open(s.databaseUrl(), s.databaseUser(), s.databasePassword());
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "The data set's budget, what sessions have spent or reserved, and the budget's history.")
  static final class Show implements Callable<Integer> {
    @picocli.CommandLine.Mixin Target target = new Target();

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      // The same report as `ledger show`: from the database, or while a coordinator holds it,
      // through that coordinator's status page (each failure of which is exit 4, as for `ledger show`).
      ObjectNode report = CoordinatorLedger.report(target.config, target.dataset);
      String dataset = report.path("dataset").asText();
      JsonNode budget = report.path("budget");
      boolean none = budget.isNull() || budget.isMissingNode();
      JsonNode used = report.path("used");
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode j = Json.object();
        j.put("dataset", dataset);
        if (none) {
          j.putNull("budget");
        } else {
          j.putObject("budget").put("epsilon", budget.path("epsilon").asDouble())
              .put("delta", budget.path("delta").asDouble());
        }
        j.putObject("used").put("epsilon", used.path("epsilon").asDouble()).put("delta", used.path("delta").asDouble());
        j.set("neighbours", report.path("neighbours").isMissingNode() ? j.nullNode() : report.path("neighbours"));
        ArrayNode h = j.putArray("history");
        report.path("budget_history").forEach(h::add);
        j.put("source", report.path("source").asText());
        out.println(Json.print(j));
      } else if (none) {
        out.printf("data set '%s' has no privacy budget yet (a session file's `budget` sets the first one)%n", dataset);
      } else {
        JsonNode relation = report.path("neighbours");
        out.printf("data set '%s': budget (eps = %s, delta = %s); spent or reserved (eps = %s, delta = %s), by basic "
            + "composition of its sessions' guarantees%s%n", dataset, Trainer.fmt(budget.path("epsilon").asDouble()),
            Trainer.fmt(budget.path("delta").asDouble()), Trainer.fmtBound(used.path("epsilon").asDouble()),
            Trainer.fmtBound(used.path("delta").asDouble()), relation.isNull() || relation.isMissingNode() ? ""
                : " (neighbours: " + relation.asText() + "; every session of this data set is under it)");
        for (JsonNode row : report.path("budget_history")) {
          out.printf("  %s  (eps = %s, delta = %s)  %s%n", row.path("changed_at").asText(),
              Trainer.fmtBound(row.path("epsilon").asDouble()), Trainer.fmtBound(row.path("delta").asDouble()),
              row.path("reason").asText());
        }
        if (report.path("source").asText().startsWith("the running coordinator")) {
          out.printf("  (read from %s)%n", report.path("source").asText());
        }
      }
      out.flush();
      return Main.OK;
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = "Sets the data set's budget, recording the change and its reason in the ledger.")
  static final class Set implements Callable<Integer> {
    @picocli.CommandLine.Mixin Target target = new Target();

    @Option(names = "--epsilon", paramLabel = "E", required = true, description = "The total eps over all sessions.")
    double epsilon;

    @Option(names = "--delta", paramLabel = "D", required = true, description = "The total delta.")
    double delta;

    @Option(names = "--reason", paramLabel = "TEXT", required = true,
        description = "Why the budget changes (recorded in the budget's history).")
    String reason;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Coordinator.Settings s = target.settings();
      String dataset = target.dataset(s);
      try (Store store = openToWrite(s)) {
        double[] before = store.budget(dataset);
        store.setBudget(dataset, epsilon, delta, reason);
        BigDecimal[] used = store.used(dataset);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("data set '%s': budget %s (eps = %s, delta = %s); spent or reserved so far (eps = %s, delta = %s)%n",
            dataset, before == null ? "set to" : String.format("changed from (eps = %s, delta = %s) to",
                Trainer.fmtBound(before[0]), Trainer.fmtBound(before[1])), Trainer.fmtBound(epsilon),
            Trainer.fmtBound(delta), Trainer.fmtBound(used[0].doubleValue()), Trainer.fmtBound(used[1].doubleValue()));
        if (used[0].compareTo(BigDecimal.valueOf(epsilon)) > 0) {
          out.println("  note: more than the new budget is already spent; no further session can run on this data set");
        }
        out.flush();
      }
      return Main.OK;
    }

    /** The database, or why it cannot be changed now (a running coordinator holds it: exit 4). */
    private Store openToWrite(Coordinator.Settings s) {
      try {
        return target.open(s);
      } catch (DatabaseInUseException e) {
        throw new DatabaseInUseException(e.getMessage() + ". `helmet budget set` changes the database, so run it once "
            + "that coordinator stops (`helmet budget show` reads the budget while it runs)", e);
      }
    }
  }
}
