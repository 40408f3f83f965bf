package dev.helmet.cli;

import java.net.InetAddress;
import java.net.ServerSocket;

/** Helpers of the tests that run a coordinator and participants on loopback. */
final class Loopback {
  private Loopback() {}

  /** A port free on 127.0.0.1 right now. */
  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * Runs a command (a participant) until the coordinator it names answers: at most 100 tries, 100 ms
   * apart, while the coordinator is still starting. Returns the last run.
   */
  static Cli onceReachable(String... args) throws InterruptedException {
    Cli c = null;
    for (int attempt = 0; attempt < 100; attempt++) {
      c = Cli.run(args);
      if (!c.err.contains("cannot reach")) {
        break;
      }
      Thread.sleep(100);
    }
    return c;
  }
}
