package dev.helmet.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;

/**
 * A participant's own privacy ledger for its data (a JSON file), so that it, the data holder, and
 * not only the coordinator, refuses sessions that would take its data past its budget. A session is
 * charged its target (eps, delta) when the participant joins; the charge becomes the achieved eps
 * when the model is released, and is removed only when the coordinator reports an abort. A
 * participant that stops without hearing the outcome keeps the full charge: it cannot know whether
 * the sum was released. Sessions compose by basic composition, summed in decimal. Every update
 * replaces the file atomically.
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
    if (!(budgetEpsilon > 0) || !(budgetDelta >= 0 && budgetDelta < 1)) {
      throw new IllegalArgumentException("the local budget needs eps > 0 and delta in [0, 1)");
    }
    this.file = file;
    this.budgetEpsilon = budgetEpsilon;
    this.budgetDelta = budgetDelta;
  }

  /** What the data has spent or has reserved: {eps, delta}. */
  public synchronized BigDecimal[] used() {
    BigDecimal e = BigDecimal.ZERO;
    BigDecimal d = BigDecimal.ZERO;
    for (JsonNode s : read()) {
      if (!"refunded".equals(s.path("status").asText())) {
        e = e.add(BigDecimal.valueOf(s.path("epsilon").asDouble()));
        d = d.add(BigDecimal.valueOf(s.path("delta").asDouble()));
      }
    }
    return new BigDecimal[] {e, d};
  }

  /**
   * Charges a session's target before joining, or says why not.
   *
   * @return null if charged, else the reason for refusing
   */
  public synchronized String reserve(String session, double epsilon, double delta) {
    BigDecimal[] used = used();
    if (used[0].add(BigDecimal.valueOf(epsilon)).compareTo(BigDecimal.valueOf(budgetEpsilon)) > 0
        || used[1].add(BigDecimal.valueOf(delta)).compareTo(BigDecimal.valueOf(budgetDelta)) > 0) {
      return String.format("the local budget (eps = %s, delta = %s) has (eps = %s, delta = %s) spent or reserved; this "
          + "session needs (eps = %s, delta = %s)", budgetEpsilon, budgetDelta, used[0].toPlainString(),
          used[1].toPlainString(), epsilon, delta);
    }
    ArrayNode all = read();
    ObjectNode s = all.addObject();
    s.put("session", session);
    s.put("epsilon", epsilon);
    s.put("delta", delta);
    s.put("status", "reserved");
    s.put("updated", Instant.now().toString());
    write(all);
    return null;
  }

  /** Records the outcome: the achieved (eps, delta) if released, a refund if the session aborted. */
  public synchronized void settle(String session, boolean released, double epsilon, double delta) {
    ArrayNode all = read();
    for (JsonNode n : all) {
      if (session.equals(n.path("session").asText()) && "reserved".equals(n.path("status").asText())) {
        ObjectNode o = (ObjectNode) n;
        if (released) {
          o.put("epsilon", epsilon);
          o.put("delta", delta);
          o.put("status", "spent");
        } else {
          o.put("status", "refunded");
        }
        o.put("updated", Instant.now().toString());
      }
    }
    write(all);
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
      JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), all);
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
