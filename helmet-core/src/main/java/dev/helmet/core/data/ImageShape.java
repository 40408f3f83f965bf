package dev.helmet.core.data;

/**
 * The public shape of an image data set's rows: {@code height x width} grey values, row-major
 * (the order of IDX files and of a C-order {@code .npy} array of shape (n, height, width)).
 */
public record ImageShape(int height, int width) {
  public ImageShape {
    if (height <= 0 || width <= 0) {
      throw new IllegalArgumentException("an image shape needs a positive height and width. Provided value: "
          + height + "x" + width);
    }
  }

  /** Pixels per image. */
  public int pixels() {
    return Math.multiplyExact(height, width); // a shape from another party must not wrap to a small count
  }

  /** Parses {@code HxW} (also {@code H,W}), e.g. {@code 28x28}. */
  public static ImageShape parse(String text) {
    String[] parts = text.trim().toLowerCase(java.util.Locale.ROOT).split("[x,]");
    if (parts.length != 2) {
      throw new IllegalArgumentException("image shape must be HEIGHTxWIDTH, e.g. 28x28. Provided value: " + text);
    }
    try {
      return new ImageShape(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("image shape must be HEIGHTxWIDTH, e.g. 28x28. Provided value: " + text);
    }
  }

  @Override
  public String toString() {
    return height + "x" + width;
  }
}
