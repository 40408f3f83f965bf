package dev.helmet.transport;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** An input stream that fails once more than a set number of bytes has been read (a decompression cap). */
final class Bounded extends FilterInputStream {
  private final long limit;
  private final String what;
  private long read;

  private Bounded(InputStream in, long limit, String what) {
    super(in);
    this.limit = limit;
    this.what = what;
  }

  /** {@code in}, failing with an IOException naming {@code what} past {@code limit} bytes. */
  static InputStream stream(InputStream in, long limit, String what) {
    return new Bounded(in, limit, what);
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      count(1);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = super.read(b, off, len);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long k = super.skip(n);
    count(k);
    return k;
  }

  private void count(long n) throws IOException {
    read += n;
    if (read > limit) {
      throw new IOException(what + " exceeds " + limit + " bytes");
    }
  }
}
