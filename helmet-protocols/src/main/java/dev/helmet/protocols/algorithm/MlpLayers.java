package dev.helmet.protocols.algorithm;

import dev.helmet.protocols.config.StrictNode;

/** The MLP's hidden layers as every algorithm that trains one reads them ({@code learner.hidden}). */
public final class MlpLayers {
  /** The paper's MLP (Bao et al. 2022): one hidden layer of 80 units. */
  public static final int[] DEFAULT = {80};

  private MlpLayers() {}

  /** learner.hidden: a list of widths, or (from the command line) widths separated by commas. */
  public static int[] hidden(StrictNode learner) {
    if (!learner.has("hidden")) {
      return DEFAULT.clone();
    }
    if (learner.json().get("hidden").isTextual()) {
      String text = learner.string("hidden", "");
      try {
        int[] w = java.util.Arrays.stream(text.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        for (int v : w) {
          if (v < 1 || v > 1 << 16) {
            throw new NumberFormatException();
          }
        }
        return w;
      } catch (NumberFormatException e) {
        throw learner.error("hidden", "must be layer widths from 1 to 65536 separated by commas, e.g. 80 or 128,64. "
            + "Provided value: " + text);
      }
    }
    return learner.integers("hidden", 1, 1 << 16).stream().mapToInt(Integer::intValue).toArray();
  }

  /** The layer widths: the features, the hidden widths, the classes. */
  public static int[] widths(int features, int[] hidden, int classes) {
    int[] w = new int[hidden.length + 2];
    w[0] = features;
    System.arraycopy(hidden, 0, w, 1, hidden.length);
    w[w.length - 1] = classes;
    return w;
  }
}
