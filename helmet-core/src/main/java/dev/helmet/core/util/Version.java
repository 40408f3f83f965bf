package dev.helmet.core.util;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The Helmet version, recorded in every model's provenance. */
public final class Version {
  private static final String VERSION = load();

  private Version() {}

  /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("/dev/helmet/core/version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
