package dev.helmet.transport;

import dev.helmet.core.testdata.TestData;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator in its own JVM, for the crash test: runs a session on the digits data with the
 * database at args[0] (args[1] parties, args[2] contributors, args[3] "dp-fl" or "helmet", args[4]
 * the port, optional) and prints "PORT n" once it listens. The tests kill it with SIGKILL, or stop
 * it with SIGTERM (its shutdown hook closes the coordinator, as the CLI's does).
 */
public final class CoordinatorProcess {
  private CoordinatorProcess() {}

  /** A DP-FL session of 5 rounds on the digits, add-or-remove neighbours with the RDP accountant. */
  static dev.helmet.transport.wire.SessionConfig dpflConfig(int parties, int min) {
    return Loopback.algorithm(Loopback.config(TestData.digits(), parties, min, 1e6), "dp-fl",
        "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, \"rounds\": 5, "
            + "\"learning_rate\": 2, \"noise_split\": \"honest\", \"accountant\": \"rdp\", "
            + "\"neighbours\": \"add-remove\", \"expected_batch\": " + 0.5 * 60 * parties + "}}")
        .build();
  }

  public static void main(String[] args) throws Exception {
    int parties = Integer.parseInt(args[1]);
    int min = Integer.parseInt(args[2]);
    var config = args.length > 3 && args[3].equals("dp-fl") ? dpflConfig(parties, min)
        : Loopback.config(TestData.digits(), parties, min, 1e6).build();
    Coordinator.Settings s = Loopback.settings(config, Path.of(args[0]), null, 1.5e6);
    if (args.length > 4) {
      s = Loopback.onPort(s, Integer.parseInt(args[4]));
    }
    try (Coordinator c = Coordinator.start(s)) {
      // As `helmet coordinator` does: SIGTERM (or Ctrl-C) closes the coordinator, which records the abort.
      Runtime.getRuntime().addShutdownHook(new Thread(c::close));
      System.out.println("PORT " + c.port());
      System.out.println("SESSION " + c.sessionId());
      System.out.flush();
      c.await(600, TimeUnit.SECONDS);
    }
  }
}
