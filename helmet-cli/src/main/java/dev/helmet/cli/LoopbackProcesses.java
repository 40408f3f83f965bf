package dev.helmet.cli;

import dev.helmet.experiments.network.Loopback;
import java.io.IOException;
import java.nio.file.Path;

/** The commands' access to {@link Loopback} (a free port, waiting for a process, removing a folder). */
final class LoopbackProcesses {
  private LoopbackProcesses() {}

  /** {@link Loopback#freePort}. */
  static int freePort() throws IOException {
    return Loopback.freePort();
  }

  /** {@link Loopback#waitForPort}. */
  static void waitForPort(int port, Process p, String what) throws InterruptedException {
    Loopback.waitForPort(port, p, what);
  }

  /** {@link Loopback#deleteTree}. */
  static void deleteTree(Path dir) {
    Loopback.deleteTree(dir);
  }
}
