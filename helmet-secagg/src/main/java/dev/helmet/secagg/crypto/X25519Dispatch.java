package dev.helmet.secagg.crypto;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.bouncycastle.math.ec.rfc7748.X25519;

/**
 * Chooses between BouncyCastle and {@link X25519Vector} for batches of X25519 agreements. Both give
 * the same bytes, so the choice changes only the speed.
 *
 * <p>System property {@code helmet.x25519}: {@code bc} (always BouncyCastle), {@code vector} (the
 * vector path whenever jdk.incubator.vector with 256-bit vectors is present, without waiting for
 * warm-up; for tests and benchmarks) or {@code auto} (the default): the vector path only when the
 * module is present, the preferred species has at least 256 bits, the JVM runs C2, and a background
 * warm-up (a daemon thread started on first use, at most about 2 s of CPU: a fixed number of calls,
 * then best-of-5 timings against BouncyCastle on the same thread) has shown the ladder faster than
 * BouncyCastle. Until then, and if any check fails, BouncyCastle.
 */
final class X25519Dispatch {
  private static final Logger LOG = Logger.getLogger(X25519Dispatch.class.getName());

  enum Mode { BC, VECTOR, AUTO }

  static final Mode MODE = parseMode(System.getProperty("helmet.x25519", "auto"));

  /** The warm-up's CPU budget. */
  private static final long WARMUP_CPU_NANOS = 2_000_000_000L;
  /** A wall-clock cap as well, in case thread CPU time is unavailable or the machine is busy. */
  private static final long WARMUP_WALL_NANOS = 10_000_000_000L;

  private static final boolean SUPPORTED = vectorSupported();
  private static final boolean C2 = c2Available();
  private static final AtomicBoolean WARMUP_STARTED = new AtomicBoolean();
  private static volatile boolean warm;
  /** Set if the vector path ever fails: everything after goes to BouncyCastle. */
  private static volatile boolean broken;
  private static final AtomicBoolean VECTOR_MODE_NOTICE = new AtomicBoolean();

  private X25519Dispatch() {}

  private static Mode parseMode(String s) {
    switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "bc":
        return Mode.BC;
      case "vector":
        return Mode.VECTOR;
      case "auto":
      case "":
        return Mode.AUTO;
      default:
        LOG.warning("helmet.x25519=" + s + " is not bc, vector or auto; using auto");
        return Mode.AUTO;
    }
  }

  /** True when jdk.incubator.vector is loaded and its preferred species has at least 256 bits. */
  static boolean vectorSupported() {
    try {
      if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
        return false;
      }
      return X25519Vector.preferredBits() >= 256;
    } catch (Throwable t) { // LinkageError and the like: stay on BouncyCastle
      return false;
    }
  }

  /**
   * True when the JVM runs the C2 compiler. Conservative: any doubt (flags not readable, an
   * interpreter-only or client VM, tiered compilation stopped below level 4, JVMCI) gives false.
   */
  static boolean c2Available() {
    try {
      String info = System.getProperty("java.vm.info", "");
      if (info.contains("interpreted mode")) {
        return false;
      }
      String vmName = System.getProperty("java.vm.name", "");
      if (!vmName.contains("Server VM")) {
        return false;
      }
      for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
        String a = arg.trim();
        if (a.equals("-Xint") || a.equals("-XX:-UseCompiler") || a.equals("-XX:+UseJVMCICompiler")
            || a.equals("-XX:+EnableJVMCI") || a.equals("-XX:-UseC2")) {
          return false;
        }
        if (a.startsWith("-XX:TieredStopAtLevel=")) {
          int level = Integer.parseInt(a.substring("-XX:TieredStopAtLevel=".length()).trim());
          if (level < 4) {
            return false;
          }
        }
      }
      // The effective flags as well (they include JAVA_TOOL_OPTIONS and argument files).
      com.sun.management.HotSpotDiagnosticMXBean hs =
          ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      if (hs == null || !"true".equals(hs.getVMOption("UseCompiler").getValue())) {
        return false;
      }
      if ("true".equals(hs.getVMOption("TieredCompilation").getValue())
          && Integer.parseInt(hs.getVMOption("TieredStopAtLevel").getValue()) < 4) {
        return false;
      }
      return ManagementFactory.getCompilationMXBean() != null;
    } catch (Throwable t) {
      return false;
    }
  }

  /** Whether a batch of {@code n} agreements goes to the vector path now. */
  static boolean useVector(int n) {
    switch (MODE) {
      case BC:
        return false;
      case VECTOR:
        if (SUPPORTED && VECTOR_MODE_NOTICE.compareAndSet(false, true)) {
          LOG.warning("helmet.x25519=vector: the vector X25519 path is used without the C2 check and warm-up "
              + "(meant for tests and benchmarks)");
        }
        return SUPPORTED && !broken;
      default:
        return n >= 2 && SUPPORTED && C2 && warm && !broken;
    }
  }

  /**
   * Called before a run that will make about {@code agreements} X25519 agreements in this JVM (an
   * in-process simulation of many parties): from 20,000 on, in {@code auto} mode, warms the vector
   * path up now, synchronously and once per JVM, and enables it if it is then faster than
   * BouncyCastle. A participant's JVM, with a few hundred agreements per round, never pays for it
   * and stays on BouncyCastle (the warm-up costs more than it would save).
   */
  static void prepare(long agreements) {
    if (MODE != Mode.AUTO || agreements < 20_000 || !SUPPORTED || !C2 || warm) {
      return;
    }
    if (WARMUP_STARTED.compareAndSet(false, true)) {
      warmUp();
    }
  }

  /** For tests: whether the automatic warm-up has finished and enabled the vector path. */
  static boolean isWarm() {
    return warm;
  }

  /** Ladder calls (of 4 agreements each) before timing starts: enough for C2 to compile it. */
  private static final int WARMUP_CALLS = 400;

  /**
   * Warms the ladder up and enables it if it is then faster than BouncyCastle. First a fixed number
   * of calls on dummy inputs (C2 compiles the ladder meanwhile), then rounds of timing: the best of
   * 5 chunks of the ladder against the best of 5 chunks of BouncyCastle, per agreement, both on this
   * thread. Best-of times are robust to other work on the machine; a ladder left in the Java
   * fallback (10-80 times slower) never passes. Retried until the CPU or wall-clock cap, then stays
   * on BouncyCastle. The inputs are public constants.
   */
  private static void warmUp() {
    try {
      java.lang.management.ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
      boolean cpu = tmx.isCurrentThreadCpuTimeSupported();
      long cpu0 = cpu ? tmx.getCurrentThreadCpuTime() : 0;
      long wall0 = System.nanoTime();
      int lanes = X25519Vector.LANES;
      byte[] k = new byte[32 * lanes];
      byte[] u = new byte[32 * lanes];
      byte[] r = new byte[32 * lanes];
      byte[] one = new byte[32];
      for (int i = 0; i < k.length; i++) {
        k[i] = (byte) (i * 37 + 11);
        u[i] = (byte) (i * 101 + 3);
      }
      for (int i = 0; i < WARMUP_CALLS; i++) {
        X25519Vector.scalarMult(k, u, r);
        System.arraycopy(r, 0, u, 0, 32); // keep the inputs changing
        if (overCap(tmx, cpu, cpu0, wall0)) {
          LOG.fine("X25519 vector path not enabled: warm-up cap reached before timing");
          return;
        }
      }
      while (!overCap(tmx, cpu, cpu0, wall0)) {
        double vector = Double.MAX_VALUE;
        double bc = Double.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) {
          long t0 = System.nanoTime();
          for (int i = 0; i < 4; i++) {
            X25519Vector.scalarMult(k, u, r);
            System.arraycopy(r, 0, u, 0, 32);
          }
          vector = Math.min(vector, (System.nanoTime() - t0) / (4.0 * lanes));
          long b0 = System.nanoTime();
          for (int i = 0; i < 4 * lanes; i++) {
            X25519.scalarMult(k, 32 * (i % lanes), u, 32 * (i % lanes), one, 0);
          }
          bc = Math.min(bc, (System.nanoTime() - b0) / (4.0 * lanes));
        }
        if (vector < bc) {
          warm = true;
          double v = vector;
          double b = bc;
          LOG.fine(() -> String.format("X25519 vector path enabled: %.1f us per agreement (BouncyCastle %.1f us)",
              v / 1e3, b / 1e3));
          return;
        }
      }
      LOG.fine("X25519 vector path not enabled: not faster than BouncyCastle within the warm-up cap");
    } catch (Throwable t) {
      LOG.log(Level.FINE, "X25519 vector warm-up failed; staying on BouncyCastle", t);
    }
  }

  private static boolean overCap(java.lang.management.ThreadMXBean tmx, boolean cpu, long cpu0, long wall0) {
    long used = cpu ? tmx.getCurrentThreadCpuTime() - cpu0 : System.nanoTime() - wall0;
    return used > WARMUP_CPU_NANOS || System.nanoTime() - wall0 > WARMUP_WALL_NANOS;
  }

  /**
   * Agreements of {@code secret} with each of {@code publicKeys} (all already 32 bytes), in order,
   * into {@code out[i]}; {@code ok[i]} is false where the result is all zero. No validation here.
   */
  static void agreeAll(byte[] secret, List<byte[]> publicKeys, byte[][] out, boolean[] ok) {
    if (!onVector(publicKeys.size(), out, () -> agreeAllVector(secret, publicKeys, out, ok))) {
      agreeAllBc(secret, publicKeys, out, ok);
    }
  }

  /**
   * Runs {@code vector} if the vector path is in use for {@code n} agreements; returns whether it
   * did. A fault of the vector path (never expected) must not fail a round: what it wrote is
   * zeroed, the path is switched off for this JVM, and the caller redoes the batch on BouncyCastle.
   */
  private static boolean onVector(int n, byte[][] out, Runnable vector) {
    if (!useVector(n)) {
      return false;
    }
    try {
      vector.run();
      return true;
    } catch (RuntimeException | LinkageError e) {
      for (byte[] o : out) {
        if (o != null) {
          java.util.Arrays.fill(o, (byte) 0);
        }
      }
      java.util.Arrays.fill(out, null);
      broken = true;
      LOG.log(Level.WARNING, "the vector X25519 path failed; using BouncyCastle from now on", e);
      return false;
    }
  }

  /** {@link #agreeAll} on BouncyCastle. */
  static void agreeAllBc(byte[] secret, List<byte[]> publicKeys, byte[][] out, boolean[] ok) {
    for (int i = 0; i < publicKeys.size(); i++) {
      out[i] = new byte[X25519.POINT_SIZE];
      ok[i] = X25519.calculateAgreement(secret, 0, publicKeys.get(i), 0, out[i], 0);
    }
  }

  /** {@link #agreeAll} on the vector path (callers check {@link #vectorSupported()} first). */
  static void agreeAllVector(byte[] secret, List<byte[]> publicKeys, byte[][] out, boolean[] ok) {
    pairsVector(i -> secret, publicKeys::get, publicKeys.size(), out, ok);
  }

  /**
   * Agreements of each of {@code secrets} with the one {@code publicKey} (32 bytes), in order: many
   * senders' ephemeral keys with one recipient (an onion layer sealed for many elements), or with
   * the base point u = 9 for their public keys (RFC 7748: the public key is X25519(k, 9)).
   */
  static void agreeEach(List<byte[]> secrets, byte[] publicKey, byte[][] out, boolean[] ok) {
    if (onVector(secrets.size(), out, () -> agreeEachVector(secrets, publicKey, out, ok))) {
      return;
    }
    for (int i = 0; i < secrets.size(); i++) {
      out[i] = new byte[X25519.POINT_SIZE];
      ok[i] = X25519.calculateAgreement(secrets.get(i), 0, publicKey, 0, out[i], 0);
    }
  }

  /** {@link #agreeEach} on the vector path (callers check {@link #vectorSupported()} first). */
  static void agreeEachVector(List<byte[]> secrets, byte[] publicKey, byte[][] out, boolean[] ok) {
    pairsVector(secrets::get, i -> publicKey, secrets.size(), out, ok);
  }

  /**
   * X25519(k_i, u_i) for i in [0, n), four lanes at a time: the same ladder, with its
   * secret-independent control flow and memory access, whether the lanes share a scalar or not.
   */
  private static void pairsVector(java.util.function.IntFunction<byte[]> secretAt,
      java.util.function.IntFunction<byte[]> publicAt, int n, byte[][] out, boolean[] ok) {
    int lanes = X25519Vector.LANES;
    byte[] k = new byte[32 * lanes];
    byte[] u = new byte[32 * lanes];
    byte[] r = new byte[32 * lanes];
    try {
      for (int base = 0; base < n; base += lanes) {
        int m = Math.min(lanes, n - base);
        for (int l = 0; l < lanes; l++) {
          if (l < m) {
            System.arraycopy(secretAt.apply(base + l), 0, k, 32 * l, 32);
            System.arraycopy(publicAt.apply(base + l), 0, u, 32 * l, 32);
          } else { // padding: the base point (u = 9), a public dummy input; its result is discarded
            java.util.Arrays.fill(u, 32 * l, 32 * l + 32, (byte) 0);
            u[32 * l] = 9;
          }
        }
        X25519Vector.scalarMult(k, u, r);
        for (int l = 0; l < m; l++) {
          byte[] o = new byte[32];
          System.arraycopy(r, 32 * l, o, 0, 32);
          int acc = 0;
          for (byte x : o) {
            acc |= x;
          }
          out[base + l] = o;
          ok[base + l] = acc != 0;
        }
      }
    } finally {
      java.util.Arrays.fill(k, (byte) 0);
      java.util.Arrays.fill(r, (byte) 0);
    }
  }
}
