package dev.helmet.core.features;

import dev.helmet.core.data.ImageShape;
import java.util.Map;

/** Builds the named image transforms from their recorded settings (defaults for missing ones). */
final class Transforms {
  private Transforms() {}

  static ImageTransform create(String id, ImageShape shape, Map<String, ?> settings) {
    return switch (id) {
      case "scatter" -> {
        int order = intSetting(settings, "order", 2);
        if (order != 2) {
          throw new IllegalArgumentException("scatter features of order " + order + " are not supported (order 2)");
        }
        yield new Scattering2D(shape, intSetting(settings, "J", Scattering2D.DEFAULT_J),
            intSetting(settings, "L", Scattering2D.DEFAULT_L),
            intSetting(settings, "groups", Scattering2D.DEFAULT_GROUPS));
      }
      case "hog" -> {
        Object norm = settings.get("norm");
        if (norm != null && !"L2-Hys".equals(norm.toString())) {
          throw new IllegalArgumentException("hog features with norm " + norm + " are not supported (L2-Hys)");
        }
        yield new Hog(shape, intSetting(settings, "cell", Hog.DEFAULT_CELL), intSetting(settings, "block",
            Hog.DEFAULT_BLOCK), intSetting(settings, "bins", Hog.DEFAULT_BINS));
      }
      default -> throw new IllegalArgumentException("unknown feature set " + id + " (known: " + FeatureStage.IDS + ")");
    };
  }

  static int intSetting(Map<String, ?> settings, String key, int fallback) {
    Object v = settings.get(key);
    if (v == null) {
      return fallback;
    }
    if (v instanceof Number n && n.doubleValue() == n.intValue()) {
      return n.intValue();
    }
    try {
      return Integer.parseInt(v.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("feature setting " + key + " must be an integer. Provided value: " + v);
    }
  }
}
