package dev.helmet.transport;

import dev.helmet.core.testdata.TestData;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator in its own JVM, for the crash test: runs a session on the digits data with the
 * database at args[0] and prints "PORT n" once it listens. The test kills it with SIGKILL.
 */
public final class CoordinatorProcess {
  private CoordinatorProcess() {}

  public static void main(String[] args) throws Exception {
    var config = Loopback.config(TestData.digits(), Integer.parseInt(args[1]), Integer.parseInt(args[2]), 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, Path.of(args[0]), null, 1.5e6))) {
      System.out.println("PORT " + c.port());
      System.out.println("SESSION " + c.sessionId());
      System.out.flush();
      c.await(600, TimeUnit.SECONDS);
    }
  }
}
