package dev.helmet.transport.store;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** The coordinator's database files: where an embedded database lives, readable by its owner only. */
final class PrivateFiles {
  private PrivateFiles() {}

  /** The database file an embedded H2 URL names (without its .mv.db suffix), or null. */
  static Path h2File(String jdbcUrl) {
    if (!jdbcUrl.startsWith("jdbc:h2:file:")) {
      return null;
    }
    String p = jdbcUrl.substring("jdbc:h2:file:".length());
    int semi = p.indexOf(';');
    return Path.of(semi < 0 ? p : p.substring(0, semi)).toAbsolutePath();
  }

  static void createPrivateDirectories(Path dir) throws IOException {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.createDirectories(dir);
    }
  }

  /** Makes the database's files readable and writable by their owner only (where POSIX permissions exist). */
  static void restrictToOwner(Path file) throws IOException {
    if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    String prefix = file.getFileName().toString() + ".";
    try (var files = Files.list(file.getParent())) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (p.getFileName().toString().startsWith(prefix) && Files.isRegularFile(p)) {
          Files.setPosixFilePermissions(p,
              PosixFilePermissions.fromString("rw-------"));
        }
      }
    }
  }

  /** Creates {@code file} empty and readable by its owner only, unless it exists. */
  static void createOwnerOnly(Path file) throws IOException {
    if (Files.exists(file) || !FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // another process created it first; restrictToOwner tightens it after opening
    }
  }
}
