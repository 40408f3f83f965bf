package dev.helmet.cli;

import dev.helmet.core.util.Progress;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Renders {@link Progress} on stderr: a bar with rate and ETA redrawn in place on a terminal;
 * otherwise (a log file) a start line, a line with the count, elapsed time and ETA at most once
 * every {@link #LOG_INTERVAL_NANOS} when work advances (an hours-long grid says how far it is), and
 * an end line. Thread-safe.
 */
final class ConsoleProgress implements Progress {
  private static final int WIDTH = 30;
  /** Least time between two progress lines in a log: 10 s (a minute's demo shows its progress). */
  static final long LOG_INTERVAL_NANOS = 10_000_000_000L;
  private final PrintStream out;
  private final long logInterval;
  private final boolean interactive;
  private final boolean enabled;
  private final AtomicLong done = new AtomicLong();
  private volatile String task = "";
  private volatile long total;
  private volatile long startNanos;
  private volatile long lastDraw;

  ConsoleProgress(PrintStream out, boolean enabled) {
    this(out, enabled, System.console() != null && !"dumb".equals(System.getenv("TERM")), LOG_INTERVAL_NANOS);
  }

  /** For tests: whether to draw in place, and the least time between log lines. */
  ConsoleProgress(PrintStream out, boolean enabled, boolean interactive, long logIntervalNanos) {
    this.out = out;
    this.enabled = enabled;
    this.interactive = interactive;
    this.logInterval = logIntervalNanos;
  }

  @Override
  public synchronized void start(String task, long total) {
    this.task = task;
    this.total = Math.max(1, total);
    this.done.set(0);
    this.startNanos = System.nanoTime();
    this.lastDraw = 0;
    if (!enabled) {
      return;
    }
    if (interactive) {
      draw();
    } else {
      out.println(task + " ...");
      lastDraw = startNanos;
    }
  }

  @Override
  public void advance(long steps) {
    long d = done.addAndGet(steps);
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (interactive) {
      if (now - lastDraw > 100_000_000L || d >= total) {
        synchronized (this) {
          lastDraw = now;
          draw();
        }
      }
    } else if (now - lastDraw >= logInterval && d < total) { // the end has its own line
      synchronized (this) {
        if (now - lastDraw >= logInterval) {
          lastDraw = now;
          logLine(Math.min(d, total));
        }
      }
    }
  }

  /** One line for a log: task, count, percentage, elapsed time and ETA. */
  private void logLine(long d) {
    double secs = (System.nanoTime() - startNanos) / 1e9;
    out.printf("%s: %d/%d (%.0f%%) after %s, ETA %s%n", task, d, total, 100.0 * d / total, duration(secs),
        eta(d, secs));
    out.flush();
  }

  @Override
  public synchronized void finish() {
    if (!enabled) {
      return;
    }
    double secs = (System.nanoTime() - startNanos) / 1e9;
    if (interactive) {
      draw();
      out.print("\n");
    } else {
      out.printf("%s: done in %.1f s%n", task, secs);
    }
    out.flush();
  }

  private void draw() {
    long d = Math.min(done.get(), total);
    double frac = (double) d / total;
    int filled = (int) Math.round(frac * WIDTH);
    double secs = (System.nanoTime() - startNanos) / 1e9;
    String eta = d < total && estimable(d) ? " ETA " + eta(d, secs) : "";
    out.printf("\r%-40s [%s%s] %d/%d %3.0f%% %s%s   ", truncate(task), "=".repeat(filled),
        " ".repeat(WIDTH - filled), d, total, 100 * frac, duration(secs), eta);
    out.flush();
  }

  /**
   * Whether {@code d} of the total is enough for an ETA: at least 1 %. From less the estimate is
   * mostly the start-up's cost (the network demo's first unit came after 1m48s of set-up, and its
   * ETA read 17997m46s).
   */
  private boolean estimable(long d) {
    return d > 0 && d * 100 >= total;
  }

  /** The time left at {@code d} done after {@code secs}, or "unknown" before 1 % is done. */
  private String eta(long d, double secs) {
    return estimable(d) ? duration(secs / d * (total - d)) : "unknown";
  }

  private static String truncate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }

  private static String duration(double secs) {
    long s = Math.round(secs);
    return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : String.format("%.1fs", secs);
  }
}
