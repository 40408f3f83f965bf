package dev.helmet.core.util;

import java.util.SplittableRandom;

/** Fisher-Yates shuffles with seeded, recorded randomness (partitions, folds, epochs). */
public final class Shuffle {
  private Shuffle() {}

  /** Permutes {@code a} in place, uniformly at random. */
  public static void shuffle(int[] a, SplittableRandom rng) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /** A uniformly random permutation of {@code 0 .. n-1}. */
  public static int[] permutation(int n, SplittableRandom rng) {
    int[] a = identity(n);
    shuffle(a, rng);
    return a;
  }

  /** {@code 0 .. n-1} in order. */
  public static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }
}
