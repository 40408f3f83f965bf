package dev.helmet.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** One-line log records on standard error: time, level, message. Never secrets (the code logs none). */
final class Logging {
  /**
   * The libraries' loggers whose level is set here, held strongly: java.util.logging keeps loggers
   * weakly, and a collected logger would forget its level.
   */
  private static final java.util.List<Logger> QUIETED = new java.util.ArrayList<>();

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
    synchronized (QUIETED) {
      for (String name : new String[] {"io.grpc", "io.netty", "org.flywaydb", "org.eclipse.jetty", "io.javalin",
          "org.apache.spark", "org.apache.hadoop", "org.sparkproject"}) {
        Logger l = Logger.getLogger(name);
        l.setLevel(Level.WARNING);
        QUIETED.add(l);
      }
    }
  }
}
