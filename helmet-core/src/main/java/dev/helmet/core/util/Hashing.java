package dev.helmet.core.util;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 helpers, used to pin fetched public files (never to fingerprint private data: a digest of private data is a release). */
public final class Hashing {
  private Hashing() {}

  /** A fresh SHA-256 digest (always present in every JDK). */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  /** The lower-case hex SHA-256 of a file's bytes. */
  public static String sha256Hex(Path file) {
    MessageDigest md = sha256();
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      int r;
      while ((r = in.read(buf)) > 0) {
        md.update(buf, 0, r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
