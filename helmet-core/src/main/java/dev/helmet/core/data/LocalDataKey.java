package dev.helmet.core.data;

import dev.helmet.core.util.LocalSecret;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A name for a data set as loaded, for files that must follow the data rather than its path (a
 * participant's default privacy ledger: the same records under another file name are the same
 * data, and spend the same budget). HMAC-SHA256 under a key that stays on this machine ({@link
 * LocalSecret}) of the shape and the multiset of records (each row's values and label, or numeric
 * target; their order does not count): a plain digest of private data would be a fingerprint of it,
 * and a file name is read by anyone who lists the directory. Records added, removed or changed make
 * another data set, with its own ledger.
 */
public final class LocalDataKey {
  private static final String FORMAT = "helmet-data-key-v2";

  private LocalDataKey() {}

  /** 32 hex digits naming {@code data}, under the key in {@code keyFile} (made if missing). */
  public static String of(Path keyFile, Dataset data) {
    Mac mac;
    try {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(LocalSecret.of(keyFile), "HmacSHA256"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or make the key " + keyFile + ": " + e.getMessage(), e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is in every JDK", e);
    }
    mac.update((FORMAT + "\n" + data.size() + "x" + data.dimension() + "\n" + (data.isRegression() ? "targets" : "labels")
        + "\n").getBytes(StandardCharsets.UTF_8));
    // The records as a multiset: each row's SHA-256 (its values and label), sorted, so the same
    // records in another order are the same data and share a ledger.
    java.security.MessageDigest sha = dev.helmet.core.util.Hashing.sha256();
    byte[][] rows = new byte[data.size()][];
    float[] row = new float[data.dimension()];
    ByteBuffer bytes = ByteBuffer.allocate(4 * data.dimension() + 8).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < data.size(); i++) {
      data.copyRow(i, row, 0);
      bytes.clear();
      for (float v : row) {
        bytes.putInt(Float.floatToIntBits(v));
      }
      bytes.putLong(data.isRegression() ? Double.doubleToLongBits(data.target(i)) : data.label(i));
      rows[i] = sha.digest(bytes.array());
    }
    java.util.Arrays.sort(rows, java.util.Arrays::compareUnsigned);
    for (byte[] r : rows) {
      mac.update(r);
    }
    return HexFormat.of().formatHex(mac.doFinal()).substring(0, 32);
  }
}
