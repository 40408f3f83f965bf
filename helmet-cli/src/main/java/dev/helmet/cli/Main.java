package dev.helmet.cli;

import dev.helmet.core.data.DataUnavailableException;
import dev.helmet.core.util.Version;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code helmet} command. Exit codes: 0 success; 1 internal error; 2 invalid input (a bad
 * option value, a malformed data or model file, a participant's data or certificate that does not
 * fit); 3 a built-in data set is unavailable; 4 a networked session refused or aborted, or the
 * database held by a running coordinator.
 */
@Command(
    name = "helmet",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = "Differentially private distributed learning by blind averaging (Distributed DP-Helmet).",
    subcommands = {
      DemoCommand.class,
      TrainCommand.class,
      AuditCommand.class,
      AlgorithmsCommand.class,
      PredictCommand.class,
      PrivacyCommand.class,
      BenchCommand.class,
      DataCommand.class,
      CoordinatorCommand.class,
      ParticipantCommand.class,
      ComputeNodeCommand.class,
      BudgetCommand.class,
      LedgerCommand.class,
      ExperimentCommand.class,
      CertsCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Exit codes: 0 success, 1 internal error, 2 invalid input, 3 data set unavailable, 4 networked session "
          + "refused or aborted (nothing released), 5 an audit refuted the printed epsilon or found a "
          + "released field beyond the DP release that tells neighbouring data sets apart (a bug report)."
    })
public final class Main extends GroupCommand {
  /** Success. */
  public static final int OK = 0;
  /** A bug or an unexpected environment problem. */
  public static final int INTERNAL = 1;
  /** Invalid options, data or model files. */
  public static final int INVALID_INPUT = 2;
  /** A built-in data set is neither cached nor fetchable. */
  public static final int DATA_UNAVAILABLE = 3;
  /** A networked session was refused or aborted, or would exceed the privacy budget; nothing was released. */
  public static final int SESSION_FAILED = 4;
  /** {@code helmet audit} found an empirical lower bound above the printed epsilon: a bug report. */
  public static final int AUDIT_REFUTED = 5;


  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code (tests call this). */
  public static int run(String... args) {
    return newCommandLine().execute(args);
  }

  /** The configured command line. */
  public static CommandLine newCommandLine() {
    CommandLine cl = new CommandLine(new Main());
    // Every registered algorithm's parameters become options of the commands that run algorithms.
    for (String name : new String[] {"train", "demo", "audit"}) {
      CommandLine sub = cl.getSubcommands().get(name);
      AlgorithmOptions.install(sub.getCommandSpec());
      sub.setHelpFactory(AlgorithmOptions::help);
    }
    PartitionOptions.describeDefaults(cl.getSubcommands().get("train").getCommandSpec());
    cl.setExecutionExceptionHandler(Main::handle);
    cl.setParameterExceptionHandler(Main::handleParameter);
    return cl;
  }

  private static int handle(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    PrintWriter err = cl.getErr();
    if (e instanceof DataUnavailableException) {
      err.println("helmet: error: " + e.getMessage());
      return DATA_UNAVAILABLE;
    }
    if (e instanceof dev.helmet.transport.Participant.InvalidInputException) {
      // The participant's own data or settings do not fit the session: the fix is on its side.
      err.println("helmet: error: " + oneLine(e.getMessage()));
      return INVALID_INPUT;
    }
    if (e instanceof dev.helmet.transport.Participant.ParticipantException
        || e instanceof dev.helmet.transport.store.DatabaseInUseException
        || e instanceof dev.helmet.transport.store.BudgetExceededException
        || e instanceof dev.helmet.transport.store.BudgetMismatchException) {
      err.println("helmet: " + oneLine(e.getMessage()));
      return SESSION_FAILED;
    }
    if (e instanceof dev.helmet.transport.SessionFile.SessionFileException
        || e instanceof dev.helmet.experiments.ExperimentConfig.ConfigException) {
      err.println("helmet: error: " + oneLine(e.getMessage()));
      return INVALID_INPUT;
    }
    if (e instanceof dev.helmet.transport.store.StoreException) {
      err.println("helmet: error: " + oneLine(e.getMessage()));
      return INTERNAL;
    }
    if (e instanceof IllegalArgumentException || e instanceof java.io.UncheckedIOException
        || e instanceof java.io.IOException) {
      err.println("helmet: error: " + oneLine(e.getMessage()));
      return INVALID_INPUT;
    }
    if (e instanceof IllegalStateException && e.getMessage() != null) {
      err.println("helmet: error: " + oneLine(e.getMessage()));
      return INTERNAL;
    }
    err.println("helmet: internal error: " + e);
    e.printStackTrace(err);
    return INTERNAL;
  }

  private static int handleParameter(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    Throwable cause = e.getCause();
    String msg = cause instanceof IllegalArgumentException && cause.getMessage() != null
        ? cause.getMessage() : e.getMessage();
    err.println("helmet: error: " + oneLine(msg));
    err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    return INVALID_INPUT;
  }

  private static String oneLine(String s) {
    return s == null ? "(no message)" : s.replace('\n', ' ');
  }

  /** Prints the version from the build. */
  public static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"helmet " + Version.get()};
    }
  }
}
