package dev.helmet.transport;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second process on a participant's ledger, for {@link LocalLedgerTest}: it takes the ledger's
 * lock file as {@link LocalLedger} does, says "locked", and only then (after a pause) writes a
 * reservation of eps 1 into the ledger, and releases the lock after another pause. A process that
 * read the ledger without waiting for the lock would see nothing spent.
 *
 * <p>args: the ledger file, the pause in milliseconds
 */
public final class LedgerLockHolder {
  private LedgerLockHolder() {}

  public static void main(String[] args) throws Exception {
    Path ledger = Path.of(args[0]).toAbsolutePath().normalize();
    long pause = Long.parseLong(args[1]);
    Path lockFile = ledger.resolveSibling(ledger.getFileName() + ".lock");
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = ch.lock()) {
      System.out.println("locked");
      System.out.flush();
      Thread.sleep(pause);
      Files.writeString(ledger, "[{\"session\": \"other-run\", \"epsilon\": 1.0, \"delta\": 1e-5, \"status\": \"reserved\", "
          + "\"rounds\": 0, \"updated\": \"2026-12-02T00:00:00Z\"}]");
      Thread.sleep(pause);
    }
  }
}
