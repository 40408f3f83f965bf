package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The cap a participant reads the released model through (issue 13, finding 8): a gzip bomb (a
 * few KB that inflate to 64 MB) is refused at the cap, naming what was read; within the cap the
 * bytes come through unchanged.
 */
class BoundedTest {
  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(data);
    }
    return out.toByteArray();
  }

  @Test
  void aGzipBombStopsAtTheCap() throws Exception {
    byte[] bomb = gzip(new byte[64 << 20]);
    assertTrue(bomb.length < 100_000, "the bomb is small: " + bomb.length);
    try (InputStream in = Bounded.stream(new GZIPInputStream(new ByteArrayInputStream(bomb)), 1 << 20,
        "the released model")) {
      IOException e = assertThrows(IOException.class, in::readAllBytes);
      assertTrue(e.getMessage().equals("the released model exceeds 1048576 bytes"), e.getMessage());
    }
    byte[] small = "{\"weights\": []}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (InputStream in = Bounded.stream(new GZIPInputStream(new ByteArrayInputStream(gzip(small))), 1 << 20, "x")) {
      assertArrayEquals(small, in.readAllBytes());
    }
  }
}
