package dev.helmet.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command line in-process and captures what it prints. */
final class Cli {
  final int exit;
  final String out;
  final String err;

  private Cli(int exit, String out, String err) {
    this.exit = exit;
    this.out = out;
    this.err = err;
  }

  static Cli run(String... args) {
    CommandLine cl = Main.newCommandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Cli(code, out.toString(), err.toString());
  }

  /** The first line of stderr that reports an error. */
  String errorLine() {
    return err.lines().filter(l -> l.startsWith("helmet: error:")).findFirst().orElse("");
  }

  @Override
  public String toString() {
    return "exit " + exit + "\nout: " + out + "\nerr: " + err;
  }
}
