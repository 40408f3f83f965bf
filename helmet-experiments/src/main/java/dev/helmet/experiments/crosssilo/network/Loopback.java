package dev.helmet.experiments.crosssilo.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the networked timing needs to run processes on loopback: a free port, waiting for a process
 * to listen, and removing a temporary folder. (The CLI's {@code LoopbackProcesses} does the same for
 * {@code bench network} and {@code demo --network}, which are still in the CLI.)
 */
final class Loopback {
  private Loopback() {}

  /** A port free on loopback right now (the OS's choice). */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Waits up to 60 s until {@code p} (named {@code what} in errors) accepts connections on loopback. */
  static void waitForPort(int port, Process p, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException(what + " exited with code " + p.exitValue() + " before listening");
      }
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException(what + " did not start listening on port " + port + " within 60 s");
  }

  /** Deletes a temporary folder and everything in it, as far as it can (the OS removes the rest). */
  static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder; the OS cleans it eventually
    }
  }
}
