package dev.helmet.protocols.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.util.Checks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The artifact diff: every released artifact of a run on D against the same artifact of a run on
 * D' with the same seeds and the same noise, field by field, so that anything that differs other
 * than the DP release itself is reported with its path.
 *
 * <p>A difference is a {@link Finding} unless the artifact's owner declares its path part of the
 * release ({@code released}: the model's parameters, and what is computed from them and public data
 * alone, such as a test accuracy). Such a declaration is a claim the diff cannot check; the
 * argument for each one is beside it where it is made. A JSON artifact is compared by tree (objects
 * by key, arrays by index, numbers exactly); a text artifact by line; bytes by position. Paths name
 * the artifact first: {@code model.json:/privacy/records}, {@code report.txt:12}. A field or line
 * present on one side only is never the release's, nor a line that the predicate accepts on one side
 * only.
 */
public final class ArtifactDiff {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One difference.
   *
   * @param path the artifact and the place in it
   * @param onD the value on D ({@code <absent>} when only D' has it)
   * @param onNeighbour the value on D'
   * @param released whether the owner declared the path part of the release
   */
  public record Difference(String path, String onD, String onNeighbour, boolean released) {
    @Override
    public String toString() {
      return path + ": " + abbreviate(onD) + " -> " + abbreviate(onNeighbour) + (released ? " (release)" : "");
    }
  }

  private final List<Difference> differences = new ArrayList<>();
  private final Set<String> compared = new LinkedHashSet<>();

  /** The artifacts compared so far, by name. */
  public Set<String> compared() {
    return Set.copyOf(compared);
  }

  /** Every difference found, the release's among them. */
  public List<Difference> differences() {
    return List.copyOf(differences);
  }

  /** The differences outside the declared release: what the diff reports. */
  public List<Difference> findings() {
    return differences.stream().filter(d -> !d.released()).toList();
  }

  /**
   * Compares two JSON documents.
   *
   * @param artifact its name ({@code model.json}, {@code --json})
   * @param released the JSON pointers ({@code /weights/0}) that are the release or computed from it
   *     and public data alone
   */
  public ArtifactDiff json(String artifact, String onD, String onNeighbour, Predicate<String> released) {
    return json(artifact, read(artifact, onD), read(artifact, onNeighbour), released);
  }

  /** As above, for parsed trees. */
  public ArtifactDiff json(String artifact, JsonNode onD, JsonNode onNeighbour, Predicate<String> released) {
    Checks.notNull("artifact", artifact);
    compared.add(artifact);
    tree(artifact, "", onD, onNeighbour, released);
    return this;
  }

  /**
   * Compares two texts line by line ({@code released} takes the line, 1-based number and text on
   * D, as "12:text"). Texts of different lengths differ at every line past the shorter one.
   */
  public ArtifactDiff text(String artifact, String onD, String onNeighbour, Predicate<String> released) {
    compared.add(artifact);
    String[] a = onD.split("\n", -1);
    String[] b = onNeighbour.split("\n", -1);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "<absent>";
      String y = i < b.length ? b[i] : "<absent>";
      if (!x.equals(y)) {
        // Both sides' lines must be the release's: a line present or different on one side only is not.
        differences.add(new Difference(artifact + ":" + (i + 1), x, y, i < a.length && i < b.length
            && released.test((i + 1) + ":" + x) && released.test((i + 1) + ":" + y)));
      }
    }
    return this;
  }

  /** Compares two byte strings: the first differing offset and the lengths, released or not as a whole. */
  public ArtifactDiff bytes(String artifact, byte[] onD, byte[] onNeighbour, boolean released) {
    compared.add(artifact);
    int n = Math.min(onD.length, onNeighbour.length);
    for (int i = 0; i < n; i++) {
      if (onD[i] != onNeighbour[i]) {
        differences.add(new Difference(artifact + "@" + i, onD.length + " bytes", onNeighbour.length + " bytes",
            released));
        return this;
      }
    }
    if (onD.length != onNeighbour.length) {
      differences.add(new Difference(artifact + "@" + n, onD.length + " bytes", onNeighbour.length + " bytes",
          released));
    }
    return this;
  }

  private void tree(String artifact, String pointer, JsonNode a, JsonNode b, Predicate<String> released) {
    if (a == null || b == null || a.getNodeType() != b.getNodeType() || !(a.isObject() || a.isArray())) {
      if (!same(a, b)) {
        differences.add(new Difference(artifact + ":" + (pointer.isEmpty() ? "/" : pointer), show(a), show(b),
            a != null && b != null && released.test(pointer)));
      }
      return;
    }
    if (a.isObject()) {
      Set<String> keys = new LinkedHashSet<>();
      a.fieldNames().forEachRemaining(keys::add);
      b.fieldNames().forEachRemaining(keys::add);
      for (String k : keys) {
        tree(artifact, pointer + "/" + k.replace("~", "~0").replace("/", "~1"), a.get(k), b.get(k), released);
      }
    } else {
      Iterator<JsonNode> x = a.elements();
      Iterator<JsonNode> y = b.elements();
      for (int i = 0; x.hasNext() || y.hasNext(); i++) {
        tree(artifact, pointer + "/" + i, x.hasNext() ? x.next() : null, y.hasNext() ? y.next() : null, released);
      }
    }
  }

  private static boolean same(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.isNumber() && b.isNumber()) {
      // Exactly: 1 and 1.0 are one number, 0.30000000000000004 and 0.3 are two.
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static String show(JsonNode n) {
    return n == null ? "<absent>" : n.toString();
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  private static JsonNode read(String artifact, String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(artifact + " is not JSON: " + e.getMessage(), e);
    }
  }
}
