package dev.helmet.core.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * A 32-byte key that stays on this machine (a cache's, a ledger directory's): made once from
 * SecureRandom, owner-only, written under a temporary name and linked into place (never over an
 * existing key), so that two runs starting together agree on one key. Keyed digests under it name files after private data
 * without the name being a fingerprint of that data to anyone without the key.
 */
public final class LocalSecret {
  private LocalSecret() {}

  /** The key in {@code file}, made first if there is none. */
  public static byte[] of(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (!Files.isRegularFile(file)) {
      Files.createDirectories(dir);
      byte[] k = new byte[32];
      new SecureRandom().nextBytes(k);
      Path tmp = Files.createTempFile(dir, "key-", ".part");
      try {
        Files.write(tmp, k);
        try {
          Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
          // not a POSIX file system: the directory's own permissions apply
        }
        try {
          // A hard link to the complete file: atomic, and it fails if the name exists, so two runs
          // starting together both end up with the first key (a rename would replace it silently:
          // the attacker's read of the ledger fix saw 39 of 300 such races end on two keys).
          Files.createLink(file, tmp);
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // another run made it first: use theirs
        } catch (UnsupportedOperationException | IOException noLinks) {
          if (!Files.exists(file)) {
            try {
              Files.copy(tmp, file); // fails if the name exists meanwhile: then theirs is used
            } catch (java.nio.file.FileAlreadyExistsException raced) {
              // another run made it first
            }
          }
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
    byte[] k = Files.readAllBytes(file);
    if (k.length != 32) {
      throw new IOException(file + " is not a 32-byte key");
    }
    return k;
  }
}
