package dev.helmet.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** One-line log records on standard error: time, level, message. Never secrets (the code logs none). */
final class Logging {
  private Logging() {}

  static void configure(boolean quiet) {
    Logger root = Logger.getLogger("");
    for (var h : root.getHandlers()) {
      root.removeHandler(h);
    }
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(new Formatter() {
      @Override
      public String format(LogRecord r) {
        String msg = formatMessage(r);
        return String.format("%1$tT %2$s %3$s%n", r.getMillis(), r.getLevel().getName(), msg)
            + (r.getThrown() == null ? "" : "  " + r.getThrown() + System.lineSeparator());
      }
    });
    h.setLevel(Level.ALL);
    root.addHandler(h);
    root.setLevel(quiet ? Level.WARNING : Level.INFO);
    // Libraries speak only when something is wrong.
    Logger.getLogger("io.grpc").setLevel(Level.WARNING);
    Logger.getLogger("io.netty").setLevel(Level.WARNING);
    Logger.getLogger("org.flywaydb").setLevel(Level.WARNING);
    Logger.getLogger("org.eclipse.jetty").setLevel(Level.WARNING);
    Logger.getLogger("io.javalin").setLevel(Level.WARNING);
  }
}
