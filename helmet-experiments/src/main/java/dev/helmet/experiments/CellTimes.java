package dev.helmet.experiments;

import java.util.Locale;

/**
 * How long an experiment's finished cells took, from the time each line of {@code cells.jsonl}
 * records: the wall time of the cell where it ran (paused time included) and the threads it ran
 * on. Lines written before cells kept their time have none and are counted apart, so a grid run
 * over several invocations or machines still reports what it cost.
 */
public final class CellTimes {
  private int timed;
  private int untimed;
  private int reused;
  private double seconds;
  private double threadSeconds;

  /** Adds a cell that took {@code cellSeconds} on {@code threads} threads. */
  void add(double cellSeconds, int threads) {
    timed++;
    seconds += cellSeconds;
    threadSeconds += cellSeconds * threads;
  }

  /** Adds a cell recorded without its time. */
  void addUntimed() {
    untimed++;
  }

  /** Adds a cell taken from another experiment's folder ({@code --reuse}): it ran there. */
  void addReused() {
    reused++;
  }

  /** Cells taken from other experiments. */
  public int reused() {
    return reused;
  }

  /** Cells with a time. */
  public int timed() {
    return timed;
  }

  /** Cells without one. */
  public int untimed() {
    return untimed;
  }

  /** The timed cells' wall times, added up. */
  public double seconds() {
    return seconds;
  }

  /** The timed cells' wall times times their threads, added up (at most the cores they kept busy). */
  public double threadSeconds() {
    return threadSeconds;
  }

  /** A paragraph for report.md, or "" when no cell is finished. */
  String markdown() {
    if (timed + untimed + reused == 0) {
      return "";
    }
    StringBuilder b = new StringBuilder("**Cell time.** ");
    if (reused > 0) {
      b.append(reused).append(reused == 1 ? " cell was" : " cells were").append(" taken from another experiment's "
          + "folder (`--reuse`: the same data, variant settings, repeat and eps; `reused_from` in `cells.jsonl` names "
          + "it), and ran there. ");
    }
    if (timed + untimed == 0) {
      return b.append("\n\n").toString();
    }
    if (timed == 0) {
      b.append("None of the ").append(untimed).append(" cells run for it carries its time (they were recorded "
          + "before cells kept it).");
    } else {
      b.append(String.format(Locale.ROOT, "%d finished cells took %s of cell time, %s of thread time (each cell's "
          + "wall time where it ran, times its threads; time the process was paused counts), %s a cell on average.",
          timed, duration(seconds), duration(threadSeconds), duration(seconds / timed)));
      if (untimed > 0) {
        b.append(" ").append(untimed).append(untimed == 1 ? " more cell was" : " more cells were")
            .append(" recorded before cells kept their time.");
      }
      b.append(" Cells run at once overlap, so the run's own wall time can be shorter.");
    }
    return b.append("\n\n").toString();
  }

  /** 42 s, 12.5 min or 3.2 h. */
  static String duration(double s) {
    if (s < 120) {
      return String.format(Locale.ROOT, "%.0f s", s);
    }
    if (s < 7200) {
      return String.format(Locale.ROOT, "%.1f min", s / 60);
    }
    return String.format(Locale.ROOT, "%.1f h", s / 3600);
  }
}
