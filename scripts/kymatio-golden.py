#!/usr/bin/env python3
# Golden values for dev.helmet.core.features.Scattering2D: runs Kymatio's own Scattering2D (the
# NumPy frontend) on a few fixed inputs and writes input and output as plain text to
# helmet-core/src/test/resources/features/scattering2d-<case>.txt, which Scattering2DTest compares
# with the Java transform.
#
# Kymatio is not a dependency of the project; take its source from a checkout:
#   git -C /path/to/kymatio archive <commit> kymatio | tar -x -C /tmp/kym
#   KYMATIO_COMMIT=$(git -C /path/to/kymatio rev-parse <commit>) python3 scripts/kymatio-golden.py /tmp/kym
# (the first argument, or the environment variable KYMATIO_SRC, is the directory that holds the
# kymatio package; if it is a git checkout its HEAD is used as the commit). Needs numpy and scipy.
# The committed files came from kymatio 0.4.0.dev0, commit 11552ed5533d566e6c60d77eecccb37dfb229dec.
# We import the 2-D frontend module directly: `import kymatio.numpy` also loads the 3-D
# scattering, which needs scipy's sph_harm (gone from recent scipy).
#
# Inputs (float32 values, computed in float64 by Kymatio as the Java side does) are integer
# formulas, so they are exact and reproducible anywhere; they are stored in the files too.
#   pattern: x[r][c] = ((3 r^2 + 7 c + 5 r c) mod 256) / 255
#   lcg:     a 32-bit LCG (s = 1664525 s + 1013904223 mod 2^32), byte b = s >> 24 per pixel in
#            row-major order, x = b / 255 if b >= 128 else 0 (MNIST-like: about half background)
import os
import subprocess
import sys

import numpy as np

SRC = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KYMATIO_SRC", "/tmp/kym")
sys.path.insert(0, SRC)
from kymatio.scattering2d.frontend.numpy_frontend import ScatteringNumPy2D  # noqa: E402
from kymatio.version import version as KYMATIO_VERSION  # noqa: E402


def commit():
    if os.environ.get("KYMATIO_COMMIT"):
        return os.environ["KYMATIO_COMMIT"]
    try:
        return subprocess.run(["git", "-C", SRC, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def pattern(h, w):
    x = np.zeros((h, w), np.float32)
    for r in range(h):
        for c in range(w):
            x[r, c] = np.float32((3 * r * r + 7 * c + 5 * r * c) % 256) / np.float32(255)
    return x


def lcg(h, w, seed):
    x = np.zeros((h, w), np.float32)
    s = seed
    for r in range(h):
        for c in range(w):
            s = (1664525 * s + 1013904223) % (1 << 32)
            b = s >> 24
            x[r, c] = np.float32(b) / np.float32(255) if b >= 128 else np.float32(0)
    return x


CASES = [
    # name, input, J, L, description
    ("pattern28", pattern(28, 28), 2, 8, "pattern 28x28"),
    ("lcg28", lcg(28, 28, 12345), 2, 8, "lcg seed 12345, 28x28"),
    ("lcg20x32", lcg(20, 32, 777), 2, 8, "lcg seed 777, 20x32 (non-square)"),
    ("pattern17x13-J1-L4", pattern(17, 13), 1, 4, "pattern 17x13 (odd sizes: uneven padding)"),
    ("lcg8x11-J3-L6", lcg(8, 11, 99), 3, 6, "lcg seed 99, 8x11 (padding wider than the image)"),
]


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helmet-core", "src", "test",
                           "resources", "features")
    os.makedirs(out_dir, exist_ok=True)
    rev = commit()
    print(f"kymatio {KYMATIO_VERSION}, commit {rev}")
    for name, x, J, L, desc in CASES:
        h, w = x.shape
        s = ScatteringNumPy2D(J, (h, w), L=L)
        y = s.scattering(x.astype(np.float64))
        lines = [f"# Kymatio Scattering2D (numpy frontend) golden values: {desc}",
                 f"# kymatio {KYMATIO_VERSION}, commit {rev}; written by scripts/kymatio-golden.py",
                 f"shape {h} {w}", f"J {J}", f"L {L}", f"input {h * w}"]
        for r in range(h):
            lines.append(" ".join("%.9g" % v for v in x[r]))
        c, oh, ow = y.shape
        lines.append(f"output {c} {oh} {ow}")
        for k in range(c):
            lines.append(" ".join("%.8g" % v for v in y[k].ravel()))
        path = os.path.join(out_dir, f"scattering2d-{name}.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{name}: {h}x{w} J={J} L={L} -> {c}x{oh}x{ow}, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
