package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.ParticipantListener;
import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * A participant's phases on stderr: one line each for people, or with {@code --json} one JSON
 * object per line ({@code {"event": KIND, ...}}; the final summary stays on stdout), so a wrapper
 * can follow a participant without parsing prose.
 */
final class ParticipantProgress implements ParticipantListener {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
  private final PrintWriter err;
  private final boolean json;

  ParticipantProgress(PrintWriter err, boolean json) {
    this.err = err;
    this.json = json;
  }

  @Override
  public synchronized void event(String kind, Map<String, Object> f) {
    if (json) {
      ObjectNode j = Json.object();
      j.put("event", kind);
      f.forEach((k, v) -> j.set(k, Json.MAPPER.valueToTree(v)));
      err.println(j.toString());
    } else {
      String line = line(kind, f);
      if (line != null) {
        err.println(LocalTime.now().format(TIME) + " " + line);
      }
    }
    err.flush();
  }

  static String line(String kind, Map<String, Object> f) {
    return switch (kind) {
      case "connecting" -> "connecting to the coordinator at " + f.get("coordinator");
      case "waiting" -> String.format(Locale.ROOT, "%s; trying again in %.0f s%s", f.get("reason"),
          ((Number) f.get("retry_seconds")).doubleValue(), ((Number) f.get("seconds_left")).longValue() > 0
              ? " (gives up in " + f.get("seconds_left") + " s)" : "");
      case "lost" -> "session " + f.get("session") + ": " + f.get("reason") + "; waiting up to " + f.get("wait_seconds")
          + " s for the coordinator to open its next session (--wait)";
      case "session" -> String.format(Locale.ROOT, "session %s: %s, %s round(s), %s parties, target eps = %s, "
          + "delta = %s (the coordinator's figure; this party checks it against its own accounting at enrolment)",
          f.get("session"), f.get("algorithm"), f.get("rounds"), f.get("parties"), f.get("epsilon"), f.get("delta"));
      case "features" -> "computing " + f.get("stage") + " features of its " + f.get("rows") + " rows ...";
      case "preparing" -> "preparing " + f.get("algorithm") + " on its " + f.get("points") + " points (local work "
          + "on its own data) ...";
      case "training" -> String.format(Locale.ROOT, "%s: %s of %s, about %.0f s left", f.get("task"), f.get("done"),
          f.get("total"), ((Number) f.get("seconds_left")).doubleValue());
      case "prepared" -> Boolean.TRUE.equals(f.get("reused")) ? "the same settings as the session it lost: reusing "
          + "its local work; joining" : String.format(Locale.ROOT, "prepared in %.1f s; joining",
          ((Number) f.get("seconds")).doubleValue());
      case "joined" -> "joined; waiting for the other parties to enrol";
      case "enrolled" -> "waiting for enrolment: " + f.get("enrolled") + " of " + f.get("parties") + " parties joined";
      case "roster" -> String.format(Locale.ROOT, "enrolment closed: %s parties, this one party %s (its roster index, from 0); %s round(s); by its own "
          + "accounting the session spends at most eps = %s of its data (%s), against %s", f.get("parties"),
          f.get("party"), f.get("rounds"), Trainer.fmtBound(((Number) f.get("epsilon")).doubleValue()),
          f.get("neighbours"),
          f.getOrDefault("against", "anyone holding the released model"));
      case "setup" -> "setup step " + f.get("step") + " of " + f.get("steps") + " (the parties' exchange before "
          + "round 1): its turn";
      case "round" -> "round " + f.get("round") + " of " + f.get("rounds") + ": computing its input, then the "
          + "secure summation";
      case "sent" -> "round " + f.get("round") + ": its input has left (charged to its ledger)";
      case "outcome" -> "the coordinator ended the session: " + f.get("status")
          + (String.valueOf(f.get("reason")).isEmpty() ? "" : " (" + f.get("reason") + ")");
      default -> null;
    };
  }
}
