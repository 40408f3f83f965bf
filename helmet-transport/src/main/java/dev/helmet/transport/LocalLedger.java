package dev.helmet.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.ledger.PrivacyCharge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;

/**
 * A participant's own privacy ledger for its data (a JSON file), so that it, the data holder, and
 * not only the coordinator, refuses sessions that would take its data past its budget, and so that
 * what its data spent is computed by itself, never taken from a coordinator's message.
 *
 * <p>A session is <em>reserved</em> at its target (eps, delta) before the participant joins. Just
 * before each masked input leaves (a round's contribution), the entry is <em>committed</em> with
 * the number of rounds sent and the per-round {@link PrivacyCharge} the participant derived from
 * the public plan it checked; from then on it can never be refunded. When the participant stops,
 * whatever the outcome, the entry is <em>spent</em> at its own accountant's eps for the rounds it
 * sent (the upper bound of what any release of them costs), or <em>refunded</em> if it sent none
 * (its data never left in any form). An entry left reserved or committed by a participant that
 * crashed keeps its full target. Sessions compose by basic composition, summed in decimal. Every
 * update replaces the file atomically, and each commit is on disk before the input is sent. Every
 * read-check-write holds the file exclusively, across threads and processes ({@link #locked}).
 */
public final class LocalLedger {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final double budgetEpsilon;
  private final double budgetDelta;

  /**
   * @param file the ledger file (created on first use)
   * @param budgetEpsilon the total eps this data may spend
   * @param budgetDelta the total delta
   */
  public LocalLedger(Path file, double budgetEpsilon, double budgetDelta) {
    if (!(budgetEpsilon > 0) || !Double.isFinite(budgetEpsilon) || !(budgetDelta >= 0 && budgetDelta < 1)) {
      throw new IllegalArgumentException("the local budget needs eps > 0 (finite) and delta in [0, 1)");
    }
    // A symbolic link is followed once, here: replacing the link itself on the first write would
    // split one ledger into two names with two lock files (the attacker's read of T3-6).
    Path real = file.toAbsolutePath().normalize();
    try {
      if (Files.isSymbolicLink(real)) {
        real = real.toRealPath();
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("the ledger " + file + " is a link that cannot be followed: " + e.getMessage(), e);
    }
    this.file = real;
    this.budgetEpsilon = budgetEpsilon;
    this.budgetDelta = budgetDelta;
  }

  /** What the data has spent or has reserved: {eps, delta}. */
  public BigDecimal[] used() {
    return locked(() -> used(read()));
  }

  /** {eps, delta} of the entries that are not refunded. */
  private BigDecimal[] used(ArrayNode all) {
    BigDecimal e = BigDecimal.ZERO;
    BigDecimal d = BigDecimal.ZERO;
    for (JsonNode s : all) {
      if (!"refunded".equals(s.path("status").asText())) {
        e = e.add(amount(s, "epsilon"));
        d = d.add(amount(s, "delta"));
      }
    }
    return new BigDecimal[] {e, d};
  }

  /**
   * Why {@code charge} cannot be added to what this data already spent, or null: epsilons of
   * different neighbouring relations or protected units do not add up (an add-or-remove eps is not
   * a replace-one eps), so a budget is spent under one relation and unit.
   */
  public String relationConflict(PrivacyCharge charge) {
    return locked(() -> {
      for (JsonNode s : read()) {
        if (!"refunded".equals(s.path("status").asText()) && s.has("charge")) {
          PrivacyCharge other = PrivacyCharge.fromJson(s.get("charge"));
          if (!other.sameRelation(charge)) {
            return "this data's budget is spent under '" + other.neighbours() + "' per " + other.unit() + " (session "
                + s.path("session").asText() + "); this session's guarantee is under '" + charge.neighbours() + "' per "
                + charge.unit() + ", and the two do not add up";
          }
        }
      }
      return null;
    });
  }

  /**
   * Charges a session's target before joining, or says why not.
   *
   * @return null if charged, else the reason for refusing
   * @throws IllegalArgumentException if eps or delta is negative or not finite
   */
  public String reserve(String session, double epsilon, double delta) {
    return locked(() -> {
      check(epsilon, delta);
      ArrayNode all = read();
      BigDecimal[] used = used(all);
      if (used[0].add(BigDecimal.valueOf(epsilon)).compareTo(BigDecimal.valueOf(budgetEpsilon)) > 0
          || used[1].add(BigDecimal.valueOf(delta)).compareTo(BigDecimal.valueOf(budgetDelta)) > 0) {
        return String.format("the local budget (eps = %s, delta = %s) has (eps = %s, delta = %s) spent or reserved; this "
            + "session needs (eps = %s, delta = %s); the ledger is %s (`helmet participant --budget-epsilon E` "
            + "raises the total this data may spend)", budgetEpsilon, budgetDelta, used[0].toPlainString(),
            used[1].toPlainString(), epsilon, delta, file);
      }
      for (JsonNode n : all) {
        if (session.equals(n.path("session").asText())) {
          throw new IllegalArgumentException("session " + session + " is already in the ledger " + file
              + "; a session is joined once");
        }
      }
      ObjectNode s = all.addObject();
      s.put("session", session);
      s.put("epsilon", epsilon);
      s.put("delta", delta);
      s.put("status", "reserved");
      s.put("rounds", 0);
      s.put("updated", Instant.now().toString());
      write(all);
      return null;
    });
  }

  /**
   * Records, before the {@code rounds}-th contribution leaves, that {@code rounds} rounds were sent
   * and what each costs (the participant's own derivation). The entry keeps counting its reserved
   * target until it is settled, and can no longer be refunded.
   *
   * @throws IllegalStateException if the session was not reserved, or the charge of the rounds
   *     sent would exceed the reservation (the plan is not the one the participant agreed to)
   */
  public void commit(String session, PrivacyCharge charge, int rounds) {
    locked(() -> {
      Checks.positive("rounds", rounds);
      ArrayNode all = read();
      ObjectNode o = open(all, session);
      if (rounds > charge.plannedRounds()) {
        throw new IllegalStateException("session " + session + ": round " + rounds + " was not planned (the plan has "
            + charge.plannedRounds() + ")");
      }
      // The rounds sent may cost no more than was reserved (the participant checked its plan against
      // the session's target to the same 1e-9 relative tolerance before it joined).
      double reserved = o.path("epsilon").asDouble();
      if (charge.epsilon(rounds) > reserved * (1 + 1e-9)) {
        throw new IllegalStateException("session " + session + ": " + rounds + " round(s) cost eps = "
            + charge.epsilon(rounds) + ", more than the " + reserved + " reserved");
      }
      o.set("charge", charge.toJson());
      o.put("rounds", rounds);
      o.put("status", "committed");
      if (o.path("setup").asText().equals("started")) {
        // A setup is finished only when an input that depends on it leaves: a coordinator that
        // lets the setup's last step complete and then drops the session has still aborted it.
        o.put("setup", "finished");
        o.put("setup_updated", Instant.now().toString());
      }
      o.put("updated", Instant.now().toString());
      write(all);
      return null;
    });
  }

  /**
   * Settles a session when this participant stops taking part, whatever the outcome: spent at its
   * own eps for the rounds it sent, or refunded if it sent none.
   *
   * @return the eps charged (0 for a refund)
   */
  public double settle(String session) {
    return locked(() -> {
      ArrayNode all = read();
      ObjectNode o = open(all, session);
      int rounds = o.path("rounds").asInt(0);
      double eps = 0;
      if (rounds == 0 || !o.has("charge")) {
        o.put("status", "refunded");
      } else {
        PrivacyCharge c = PrivacyCharge.fromJson(o.get("charge"));
        eps = c.epsilon(rounds);
        check(eps, c.delta(rounds));
        o.put("epsilon", eps);
        o.put("delta", c.delta(rounds));
        o.put("status", "spent");
      }
      o.put("updated", Instant.now().toString());
      write(all);
      return eps;
    });
  }

  /**
   * Marks that a session's setup (a board protocol before round 0, e.g. cross-silo's token mixnet)
   * started. It counts as finished only once this party's first input that depends on it leaves
   * ({@link #commit} marks it): a setup whose session ends before that was aborted, whatever step
   * it reached, since the coordinator saw the reveals and may restart to choose among joint seeds
   * (security review turn 3, T3-10, and its attacker's read: a coordinator that let the last step
   * complete and then dropped the session was not counted). {@link #abortedSetups} counts them.
   * The mark survives settling.
   *
   * @param finished false when the setup starts (true only for tests and tools)
   */
  public void markSetup(String session, boolean finished) {
    locked(() -> {
      ArrayNode all = read();
      ObjectNode o = open(all, session);
      o.put("setup", finished ? "finished" : "started");
      o.put("setup_updated", Instant.now().toString());
      write(all);
      return null;
    });
  }

  /** The sessions (other than {@code except}) whose setup started within {@code window} and never finished. */
  public List<String> abortedSetups(java.time.Duration window, String except) {
    Instant since = Instant.now().minus(window);
    return locked(() -> {
      List<String> out = new java.util.ArrayList<>();
      for (JsonNode n : read()) {
        String id = n.path("session").asText();
        if (!id.equals(except) && n.path("setup").asText().equals("started")) {
          Instant at;
          try {
            at = Instant.parse(n.path("setup_updated").asText());
          } catch (java.time.format.DateTimeParseException e) {
            at = Instant.now(); // an unreadable time counts as recent: the conservative side
          }
          if (!at.isBefore(since)) {
            out.add(id);
          }
        }
      }
      return out;
    });
  }

  /** Every entry as stored (session, epsilon, delta, status, rounds, updated, ...), oldest first. */
  public List<JsonNode> entries() {
    return locked(() -> {
      List<JsonNode> out = new java.util.ArrayList<>();
      read().forEach(out::add);
      return out;
    });
  }

  /**
   * The operator settles an entry a crashed participant left open: as {@link #settle} (spent at
   * this party's own eps for the rounds it committed, since those inputs may have been released;
   * refunded only if it committed none, so nothing about its data left), recorded as settled by the
   * operator with the reason.
   *
   * @return the eps charged (0 for a refund)
   * @throws IllegalStateException if the session has no open entry
   */
  public double settleStale(String session, String reason) {
    return locked(() -> {
      if (reason == null || reason.isBlank()) {
        throw new IllegalArgumentException("settling an entry needs a reason (it is recorded in the ledger)");
      }
      double eps = settle(session);
      ArrayNode all = read();
      for (JsonNode n : all) {
        if (session.equals(n.path("session").asText())) {
          ((ObjectNode) n).put("settled_by", "operator").put("reason", reason);
        }
      }
      write(all);
      return eps;
    });
  }

  /** Per ledger file in this JVM: the lock each process holds its file lock under. */
  private static final java.util.concurrent.ConcurrentHashMap<Path, java.util.concurrent.locks.ReentrantLock> LOCKS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Runs {@code work} holding the ledger exclusively: a lock per file within this JVM and, across
   * processes, an OS file lock on {@code FILE.lock} (two runs of one data holder on one ledger each
   * read, check and write it whole, so neither can double-reserve the budget or lose the other's
   * entry: security review turn 3, T3-6). Reentrant: a locked method may call another.
   */
  private <T> T locked(java.util.function.Supplier<T> work) {
    Path key = file.toAbsolutePath().normalize();
    java.util.concurrent.locks.ReentrantLock lock = LOCKS.computeIfAbsent(key, k -> new java.util.concurrent.locks.ReentrantLock());
    lock.lock();
    try {
      if (lock.getHoldCount() > 1) {
        return work.get(); // this thread holds the file lock already
      }
      Path lockFile = key.resolveSibling(key.getFileName() + ".lock");
      try {
        Files.createDirectories(key.getParent());
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lockFile,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock held = ch.lock()) {
          return work.get();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot lock the ledger " + file + " (" + lockFile + "): " + e.getMessage(), e);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The budget this ledger was opened with: {eps, delta}. */
  public double[] budget() {
    return new double[] {budgetEpsilon, budgetDelta};
  }

  private ObjectNode open(ArrayNode all, String session) {
    for (JsonNode n : all) {
      String st = n.path("status").asText();
      if (session.equals(n.path("session").asText()) && (st.equals("reserved") || st.equals("committed"))) {
        return (ObjectNode) n;
      }
    }
    throw new IllegalStateException("session " + session + " has no open entry in the ledger " + file);
  }

  private static void check(double epsilon, double delta) {
    if (!(epsilon >= 0) || !Double.isFinite(epsilon) || !(delta >= 0) || !(delta < 1)) {
      throw new IllegalArgumentException("a ledger charge needs finite eps >= 0 and delta in [0, 1). Provided values: "
          + epsilon + ", " + delta);
    }
  }

  /** An entry's amount; a corrupt (non-finite or negative) one is an error, never a credit. */
  private BigDecimal amount(JsonNode s, String key) {
    JsonNode v = s.get(key);
    if (v == null || !v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0) {
      throw new IllegalArgumentException("the ledger " + file + " has an entry (session "
          + s.path("session").asText() + ") whose " + key + " is not a finite number >= 0: " + v);
    }
    return BigDecimal.valueOf(v.asDouble());
  }

  private ArrayNode read() {
    if (!Files.exists(file)) {
      return JSON.createArrayNode();
    }
    try {
      JsonNode n = JSON.readTree(file.toFile());
      if (n == null || !n.isArray()) {
        throw new IllegalArgumentException("the ledger " + file + " is not a JSON list of sessions");
      }
      return (ArrayNode) n;
    } catch (IOException e) {
      throw new IllegalArgumentException("the ledger " + file + " cannot be read: " + e.getMessage(), e);
    }
  }

  private void write(ArrayNode all) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".ledger", ".tmp");
      try (java.io.FileOutputStream out = new java.io.FileOutputStream(tmp.toFile())) {
        out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(all));
        out.getFD().sync(); // on disk before it replaces the ledger: a commit precedes the input it charges
      }
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the ledger " + file + ": " + e.getMessage(), e);
    }
  }
}
