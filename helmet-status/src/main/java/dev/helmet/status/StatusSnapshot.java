package dev.helmet.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.Coordinator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The status page's final state as files: {@code PREFIX.json}, what {@code /api/status} answers,
 * and {@code PREFIX.html}, the page rendered without a script (a browser without JavaScript, a
 * screenshot, an archive). The live page disappears with the coordinator (issue 47, row 18); these
 * stay next to the model. Both hold exactly what the page shows ({@link StatusJson}: no
 * contribution, no weights, nothing computed from data beyond the released guarantee, and no
 * certificate subject, {@link Subjects}), and no access token.
 */
public final class StatusSnapshot {
  private StatusSnapshot() {}

  /**
   * Writes {@code PREFIX.json} and {@code PREFIX.html} (each whole or not at all: written aside,
   * then moved into place).
   *
   * @return the two files written, JSON first
   */
  public static List<Path> write(Coordinator c, Path prefix) throws IOException {
    ObjectNode status = StatusJson.of(c);
    Path json = sibling(prefix, ".json");
    Path html = sibling(prefix, ".html");
    replace(json, StatusJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(status) + "\n");
    replace(html, html(status));
    return List.of(json, html);
  }

  private static Path sibling(Path prefix, String suffix) {
    return prefix.resolveSibling(prefix.getFileName() + suffix);
  }

  private static void replace(Path file, String text) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The page for {@code s} (the JSON of {@link StatusJson#of}) as static HTML: the live page's sections, no script. */
  static String html(JsonNode s) {
    JsonNode ses = s.path("session");
    JsonNode e = s.path("enrolment");
    JsonNode st = s.path("stage");
    JsonNode rel = s.path("release");
    JsonNode l = s.path("ledger");
    StringBuilder b = new StringBuilder(8192);
    String status = ses.path("status").isMissingNode() ? ses.path("phase").asText() : ses.path("status").asText();
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Helmet coordinator: ")
        .append(esc(ses.path("name").asText())).append("</title>\n<style>\n")
        .append("  body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 72em; }\n")
        .append("  h1 { font-size: 1.4em; margin-bottom: 0.2em; }\n")
        .append("  h2 { font-size: 1.1em; margin-top: 1.4em; border-bottom: 1px solid #ddd; }\n")
        .append("  .muted { color: #666; }\n")
        .append("  table { border-collapse: collapse; font-size: 0.9em; }\n")
        .append("  td, th { padding: 0.15em 0.8em 0.15em 0; text-align: left; vertical-align: top; }\n")
        .append("  .DROP { color: #b00; } .REJECT { color: #a60; } .LEFT { color: #666; }\n")
        .append("</style>\n</head>\n<body>\n");
    b.append("<h1>Helmet coordinator <b>").append(esc(status)).append("</b></h1>\n");
    b.append("<div class=\"muted\">").append(esc(sessionLine(ses))).append("</div>\n");
    b.append("<div class=\"muted\">the session's final state, written when it ended")
        .append(ses.path("finished_at").isTextual() ? " (" + esc(ses.path("finished_at").asText()) + ")" : "")
        .append("; certificate subjects are withheld</div>\n");
    b.append("<h2>Enrolment</h2>\n<div>").append(e.path("joined").asInt()).append(" of ")
        .append(e.path("expected").asInt()).append(" parties joined; enrolment closed</div>\n");
    b.append("<h2>Last stage</h2>\n<div>").append(esc(st.path("name").asText()));
    if (st.path("rounds").asInt() > 0) {
      b.append(" (round ").append(st.path("round").asInt() + 1).append(" of ").append(st.path("rounds").asInt())
          .append(")");
    }
    b.append("</div>\n<h2>Released model</h2>\n<div>");
    if (rel.isObject()) {
      b.append("released the model of ").append(rel.path("contributors").asInt()).append(" contributors at ")
          .append(esc(rel.path("released_at").asText())).append(":</div>\n<ul>\n");
      for (JsonNode g : rel.path("guarantees")) {
        b.append("<li>").append(esc(g.asText())).append("</li>\n");
      }
      b.append("</ul>\n");
    } else {
      b.append("nothing released</div>\n");
    }
    b.append("<h2>Privacy ledger</h2>\n<div>").append(esc(ledgerLine(l))).append("</div>\n");
    b.append(chart(l));
    b.append("<h2>Stages</h2>\n");
    List<List<String>> rows = new ArrayList<>();
    for (JsonNode o : s.path("stages")) {
      rows.add(List.of(o.path("stage").asText(), o.path("answered").asInt() + " of " + o.path("expected").asInt(),
          text(o.path("closed_at"))));
    }
    table(b, List.of("stage", "answered", "closed"), rows, -1);
    b.append("<h2>Sessions in this database</h2>\n");
    rows = new ArrayList<>();
    for (JsonNode o : s.path("sessions")) {
      String id = o.path("id").asText();
      rows.add(List.of(text(o.path("started_at")), o.path("name").asText() + " (" + id.substring(0,
          Math.min(8, id.length())) + ")", text(o.path("dataset")), text(o.path("status")), text(o.path("stage")),
          text(o.path("reason"))));
    }
    table(b, List.of("started", "name", "data set", "status", "stage", "why it ended"), rows, -1);
    b.append("<h2>Events</h2>\n<div class=\"muted\">").append(s.path("events_total").asInt()).append(" event(s)")
        .append(s.path("events_total").asInt() > s.path("events").size()
            ? ", the newest " + s.path("events").size() + " shown" : "").append("</div>\n");
    rows = new ArrayList<>();
    List<JsonNode> events = new ArrayList<>();
    s.path("events").forEach(events::add);
    for (int i = events.size() - 1; i >= 0; i--) {
      JsonNode o = events.get(i);
      rows.add(List.of(text(o.path("at")), text(o.path("stage")), text(o.path("party")), text(o.path("kind")),
          text(o.path("reason")), text(o.path("detail"))));
    }
    table(b, List.of("at", "stage", "party", "kind", "reason", "detail"), rows, 3);
    b.append("</body>\n</html>\n");
    return b.toString();
  }

  /** The session's public settings in one line, as the live page writes them. */
  static String sessionLine(JsonNode ses) {
    JsonNode t = ses.path("text");
    return "session " + ses.path("name").asText() + " (" + ses.path("id").asText() + ") on "
        + ses.path("dataset").asText() + ": " + ses.path("algorithm").asText() + " through "
        + ses.path("summation").asText() + ", " + ses.path("parties").asLong() + " parties (at least "
        + ses.path("min_contributors").asLong() + " contributors), target eps = " + t.path("target_epsilon").asText()
        + ", delta = " + t.path("target_delta").asText()
        + (ses.path("reason").isTextual() ? "; ended: " + ses.path("reason").asText() : "");
  }

  /** The ledger in one line, as the live page writes it. */
  static String ledgerLine(JsonNode l) {
    JsonNode t = l.path("text");
    return "data set " + l.path("dataset").asText() + (l.path("relation").isTextual()
        ? " (" + l.path("relation").asText() + ")" : "") + ": budget eps = " + t.path("budget_epsilon").asText("-")
        + ", spent " + t.path("spent_epsilon").asText() + ", reserved " + t.path("reserved_epsilon").asText()
        + ", left " + t.path("left_epsilon").asText("-") + " (" + l.path("note").asText() + ")";
  }

  /**
   * What each spent session cost, cumulated, against the budget: a step line with axes (x: the
   * sessions, oldest first; y: eps from 0 to the budget), as the live page draws it.
   */
  static String chart(JsonNode l) {
    double budget = l.path("budget_epsilon").asDouble(0);
    List<Double> spent = new ArrayList<>();
    for (JsonNode e : l.path("entries")) {
      if (e.path("status").asText().equals("SPENT")) {
        spent.add(e.path("epsilon").asDouble());
      }
    }
    if (!(budget > 0) || spent.isEmpty()) {
      return "";
    }
    int w = 480;
    int h = 160;
    int left = 48;
    int right = 12;
    int top = 18;
    int bottom = 34;
    StringBuilder pts = new StringBuilder();
    double x0 = left;
    double y = h - bottom;
    pts.append(fmt(x0)).append(',').append(fmt(y));
    double total = 0;
    for (int i = 0; i < spent.size(); i++) {
      total += spent.get(i);
      double x = left + (w - left - right) * (i + 1.0) / spent.size();
      pts.append(' ').append(fmt(x)).append(',').append(fmt(y));
      y = h - bottom - (h - top - bottom) * Math.min(1, total / budget);
      pts.append(' ').append(fmt(x)).append(',').append(fmt(y));
    }
    String budgetText = l.path("text").path("budget_epsilon").asText();
    StringBuilder b = new StringBuilder();
    b.append("<svg width=\"").append(w).append("\" height=\"").append(h)
        .append("\" role=\"img\" aria-label=\"eps spent, cumulated over the sessions, against the budget\" ")
        .append("font-size=\"11\" font-family=\"system-ui, sans-serif\">\n");
    // axes
    b.append("<line x1=\"").append(left).append("\" y1=\"").append(top).append("\" x2=\"").append(left)
        .append("\" y2=\"").append(h - bottom).append("\" stroke=\"#444\"/>\n");
    b.append("<line x1=\"").append(left).append("\" y1=\"").append(h - bottom).append("\" x2=\"").append(w - right)
        .append("\" y2=\"").append(h - bottom).append("\" stroke=\"#444\"/>\n");
    // the budget line and the y ticks
    b.append("<line x1=\"").append(left).append("\" y1=\"").append(top).append("\" x2=\"").append(w - right)
        .append("\" y2=\"").append(top).append("\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\n");
    b.append("<text x=\"").append(left - 4).append("\" y=\"").append(top + 4).append("\" text-anchor=\"end\">")
        .append(esc(budgetText)).append("</text>\n");
    b.append("<text x=\"").append(left - 4).append("\" y=\"").append(h - bottom + 4)
        .append("\" text-anchor=\"end\">0</text>\n");
    b.append("<text x=\"").append(w - right).append("\" y=\"").append(top - 5)
        .append("\" text-anchor=\"end\" fill=\"#b00\">budget eps = ").append(esc(budgetText)).append("</text>\n");
    b.append("<text x=\"12\" y=\"").append((top + h - bottom) / 2).append("\" transform=\"rotate(-90 12 ")
        .append((top + h - bottom) / 2).append(")\" text-anchor=\"middle\">eps spent</text>\n");
    // x ticks: the first and the last session
    b.append("<text x=\"").append(fmt(left + (w - left - right) / (double) spent.size())).append("\" y=\"")
        .append(h - bottom + 14).append("\" text-anchor=\"middle\">1</text>\n");
    if (spent.size() > 1) {
      b.append("<text x=\"").append(w - right).append("\" y=\"").append(h - bottom + 14)
          .append("\" text-anchor=\"middle\">").append(spent.size()).append("</text>\n");
    }
    b.append("<text x=\"").append((left + w - right) / 2).append("\" y=\"").append(h - 4)
        .append("\" text-anchor=\"middle\">sessions that spent eps, oldest first</text>\n");
    b.append("<polyline points=\"").append(pts).append("\" fill=\"none\" stroke=\"#3a7bd5\" stroke-width=\"2\"/>\n");
    b.append("</svg>\n");
    return b.toString();
  }

  private static void table(StringBuilder b, List<String> head, List<List<String>> rows, int classColumn) {
    b.append("<table><thead><tr>");
    for (String h : head) {
      b.append("<th>").append(esc(h)).append("</th>");
    }
    b.append("</tr></thead><tbody>\n");
    for (List<String> r : rows) {
      b.append("<tr>");
      for (int i = 0; i < r.size(); i++) {
        b.append(i == classColumn ? "<td class=\"" + esc(r.get(i)) + "\">" : "<td>").append(esc(r.get(i)))
            .append("</td>");
      }
      b.append("</tr>\n");
    }
    b.append("</tbody></table>\n");
  }

  private static String text(JsonNode v) {
    return v == null || v.isNull() || v.isMissingNode() ? "" : v.asText();
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** HTML-escaped text (element content and quoted attribute values). */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(ch);
      }
    }
    return b.toString();
  }
}
