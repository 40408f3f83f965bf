package dev.helmet.core.util;

/**
 * Receives progress of long work (parties trained, folds evaluated). Library code reports through
 * this interface so that it never depends on a terminal; the CLI renders it as a progress bar.
 * Implementations must be thread-safe: parties are trained in parallel.
 */
public interface Progress {
  /** A listener that ignores everything. */
  Progress NONE = new Progress() {
    @Override
    public void start(String task, long total) {}

    @Override
    public void advance(long steps) {}

    @Override
    public void finish() {}
  };

  /** Starts a task of {@code total} steps; replaces any earlier task. */
  void start(String task, long total);

  /** Marks {@code steps} more steps as done. */
  void advance(long steps);

  /** Ends the current task. */
  void finish();
}
