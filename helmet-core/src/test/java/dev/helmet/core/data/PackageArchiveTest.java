package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.util.Hashing;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch says what it fetches and how long it took, gives up after its timeout, and every failure
 * names the manual fallback (issue 47 item 5: an offline participant waited 3 min 39 s in silence).
 * The package clients are stand-ins (sleep, cp, false), so no test touches a network.
 */
class PackageArchiveTest {
  private static final byte[] CONTENT = "pinned bytes".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  /** A .tgz holding package/data.bin, as npm pack writes one. */
  private Path archive(Path where) throws IOException {
    Files.createDirectories(where.getParent());
    try (OutputStream raw = Files.newOutputStream(where);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(raw))) {
      TarArchiveEntry e = new TarArchiveEntry("package/data.bin");
      e.setSize(CONTENT.length);
      tar.putArchiveEntry(e);
      tar.write(CONTENT);
      tar.closeArchiveEntry();
    }
    return where;
  }

  private PackageArchive fake(String[] command, Path archive) {
    return new PackageArchive("fake", command, "fake-1.0.tgz", Hashing.sha256Hex(archive), "package/",
        Map.of("data.bin", java.util.HexFormat.of().formatHex(Hashing.sha256().digest(CONTENT))));
  }

  @Test
  void aClientThatHangsIsStoppedAtItsTimeoutAndTheMessageNamesTheManualFallback() throws IOException {
    Path cache = dir.resolve("cache");
    PackageArchive a = fake(new String[] {"sleep", "600"}, archive(dir.resolve("elsewhere/fake-1.0.tgz")));
    List<String> notices = new ArrayList<>();
    DataUnavailableException e = assertThrows(DataUnavailableException.class, () -> a.ensure(cache, 1, notices::add));
    String m = e.getMessage();
    assertTrue(m.contains("'sleep 600' did not finish within 1 s"), m);
    assertTrue(m.contains("HELMET_FETCH_TIMEOUT"), m);
    // The fallback: the command to run by hand, and where its archive or the files go.
    assertTrue(m.contains("run `sleep 600` by hand") && m.contains("fake-1.0.tgz it writes into " + cache), m);
    assertTrue(m.contains("data.bin") && m.contains(cache.resolve("fake").toString()), m);
    // Said before it starts, with its timeout.
    assertEquals(1, notices.size(), notices.toString());
    assertTrue(notices.get(0).startsWith("fetching fake") && notices.get(0).contains("sleep 600")
        && notices.get(0).contains("at most 1 s"), notices.toString());
    assertFalse(Files.exists(cache.resolve("fake/data.bin")));
  }

  @Test
  void aFetchSaysWhatItFetchesAndWhatItGotInOneLineBeforeAndOneAfter() throws IOException {
    Path source = archive(dir.resolve("elsewhere/fake-1.0.tgz"));
    Path cache = dir.resolve("cache");
    List<String> notices = new ArrayList<>();
    Path got = fake(new String[] {"cp", source.toString(), "."}, source).ensure(cache, 60, notices::add);
    assertArrayEquals(CONTENT, Files.readAllBytes(got.resolve("data.bin")));
    assertEquals(2, notices.size(), notices.toString());
    assertTrue(notices.get(0).startsWith("fetching fake (once, into " + cache.resolve("fake") + "): cp "),
        notices.toString());
    assertTrue(notices.get(1).matches("fetched fake: fake-1\\.0\\.tgz, [0-9.]+ MB in [0-9.]+ s"), notices.toString());
    // Cached now: nothing more is fetched, or said.
    fake(new String[] {"false"}, source).ensure(cache, 60, notices::add);
    assertEquals(2, notices.size(), notices.toString());
  }

  @Test
  void anArchiveFetchedByHandIntoTheCacheNeedsNoClient() throws IOException {
    Path cache = dir.resolve("cache");
    Path byHand = archive(cache.resolve("fake-1.0.tgz"));
    List<String> notices = new ArrayList<>();
    Path got = fake(new String[] {"no-such-package-client"}, byHand).ensure(cache, 60, notices::add);
    assertArrayEquals(CONTENT, Files.readAllBytes(got.resolve("data.bin")));
    assertTrue(notices.get(0).contains(byHand + " (put there by hand)"), notices.toString());
  }

  @Test
  void aFailingClientIsReportedWithItsExitCodeAndTheFallback() throws IOException {
    Path cache = dir.resolve("cache");
    PackageArchive a = fake(new String[] {"false"}, archive(dir.resolve("elsewhere/fake-1.0.tgz")));
    DataUnavailableException e = assertThrows(DataUnavailableException.class, () -> a.ensure(cache, 60, s -> { }));
    assertTrue(e.getMessage().contains("'false' failed with exit code 1")
        && e.getMessage().contains("run `false` by hand"), e.getMessage());
  }

  @Test
  void theTimeoutComesFromASystemPropertyAndABadOneIsNamed() {
    String before = System.getProperty(PackageArchive.TIMEOUT_PROPERTY);
    try {
      System.setProperty(PackageArchive.TIMEOUT_PROPERTY, "7");
      assertEquals(7, PackageArchive.fetchTimeoutSeconds());
      System.setProperty(PackageArchive.TIMEOUT_PROPERTY, "soon");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, PackageArchive::fetchTimeoutSeconds);
      assertTrue(e.getMessage().contains("-Dhelmet.fetch.timeout") && e.getMessage().contains("soon"), e.getMessage());
    } finally {
      if (before == null) {
        System.clearProperty(PackageArchive.TIMEOUT_PROPERTY);
      } else {
        System.setProperty(PackageArchive.TIMEOUT_PROPERTY, before);
      }
    }
  }
}
