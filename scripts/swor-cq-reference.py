#!/usr/bin/env python3
"""Reference eps for cross-silo SWOR: T steps of Dong, Roth and Su's C_q, revealed mixture over m.

An implementation independent of helmet-privacy's (numpy/scipy, a different construction of the
symmetrised pair) whose output the Java tests pin (SworFixedSizePairTest). Given m honest records of
the n_H in a fixed-size batch, a step is C_{q_m}(G_{2/sigma})-DP, q_m = m/n_H; its PLD is built here
from the remove direction P = (1-q) N(0, s^2) + q N(1, s^2) vs Q = N(0, s^2), s = sigma/2: the
positive losses L > 0 under P, their mirror (mass e^-u w(u) at -u) and an atom at 0 with the rest
(the slope -1 segment of C_q). The PLD of the revealed mixture is sum_m h(m) omega_m, composed T
times by FFT on a grid of width h; losses are rounded up ("pess") or down ("opt"), which brackets the
exact eps. Losses beyond +-cap go to infinity (pess) or are clamped (opt).

usage: swor-cq-reference.py n n_A b sigma T [h] [cap] [delta]
  e.g. swor-cq-reference.py 546 182 20 2.16137 200 2e-4 4
"""
import sys

import numpy as np
from scipy.stats import hypergeom, norm


def step_pld(n, n_a, b, sigma, h, cap, up):
    n_h = n - n_a
    s = sigma / 2
    k = int(round(2 * cap / h)) + 1
    zero = int(round(cap / h))
    pmf = np.zeros(k)
    inf = 0.0
    hm = hypergeom(n, n_h, b)
    ms = np.arange(max(0, b - n_a), min(b, n_h) + 1)
    w = hm.pmf(ms)
    w /= w.sum()
    y = np.linspace(-14 * s - 1, 14 * s + 2, 400001)
    dy = y[1] - y[0]
    rnd = (lambda v: np.ceil((v + cap) / h - 1e-9)) if up else (lambda v: np.floor((v + cap) / h + 1e-9))
    for m, wm in zip(ms, w):
        if wm < 1e-18:
            continue
        if m == 0:
            pmf[zero] += wm
            continue
        q = 1.0 if m >= n_h else min(1.0, np.nextafter(m / n_h, 1))
        loss = np.log1p(q * np.expm1((2 * y - 1) / (2 * s * s)))
        a = (1 - q) * norm.pdf(y, 0, s) + q * norm.pdf(y, 1, s)
        mass = a * dy / (a * dy).sum()
        pos = loss > 0
        u, mu = loss[pos], mass[pos]
        big = u > cap
        if up:
            inf += wm * mu[big].sum()
        ui = np.minimum(u, cap)
        keep = ~big if up else np.ones_like(big)
        np.add.at(pmf, rnd(ui[keep]).astype(int), wm * mu[keep])
        mirror = np.exp(-u) * mu
        np.add.at(pmf, rnd(np.maximum(-u, -cap)).astype(int), wm * mirror)
        pmf[zero] += wm * (1 - mu.sum() - mirror.sum())
    return pmf, inf, zero


def epsilon(pmf, inf, zero, h, steps, delta):
    k = len(pmf)
    size = 1
    while size < steps * (k - 1) + 1:
        size *= 2
    d = np.fft.irfft(np.fft.rfft(pmf, size) ** steps, size)[: steps * (k - 1) + 1]
    d = np.maximum(d, 0)
    losses = h * (np.arange(len(d)) - steps * zero)
    inf_t = 1 - (1 - inf) ** steps

    def delta_at(e):
        sel = losses > e
        return inf_t + np.sum(d[sel] * -np.expm1(e - losses[sel]))

    lo, hi = 0.0, 60.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if delta_at(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def main():
    a = sys.argv[1:]
    n, n_a, b, sigma, steps = int(a[0]), int(a[1]), int(a[2]), float(a[3]), int(a[4])
    h = float(a[5]) if len(a) > 5 else 2e-4
    cap = float(a[6]) if len(a) > 6 else 4.0
    delta = float(a[7]) if len(a) > 7 else 1e-5
    out = {}
    for up in (False, True):
        pmf, inf, zero = step_pld(n, n_a, b, sigma, h, cap, up)
        out["pess" if up else "opt"] = epsilon(pmf, inf, zero, h, steps, delta)
    print(f"n {n} n_A {n_a} b {b} sigma {sigma} T {steps} h {h} cap {cap} delta {delta}: "
          f"eps in [{out['opt']:.4f}, {out['pess']:.4f}]")


if __name__ == "__main__":
    main()
