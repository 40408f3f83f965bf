/**
 * Mechanisms that encode a client's contribution for secure aggregation over a small ring.
 *
 * <p><b>SMM.</b> The Skellam mixture mechanism (Bao et al., PVLDB 15(11), 2022, Algorithms 4-6)
 * with its randomized Walsh-Hadamard rotation ({@link
 * dev.helmet.privacy.mechanism.RandomizedHadamard}), its clip ({@link
 * dev.helmet.privacy.mechanism.MixtureClip}), exact stochastic rounding ({@link
 * dev.helmet.privacy.mechanism.StochasticRounding}), the client's encoder ({@link
 * dev.helmet.privacy.mechanism.SmmEncoder}) and the server's decoder ({@link
 * dev.helmet.privacy.mechanism.SmmDecoder}).
 *
 * <p><b>Its baselines</b> (Bao et al., Section 5): the distributed discrete Gaussian (Kairouz, Liu,
 * Steinke, ICML 2021; {@link dev.helmet.privacy.mechanism.DdgEncoder}) and the distributed Skellam
 * mechanism (Agarwal, Kairouz, Liu, NeurIPS 2021; {@link
 * dev.helmet.privacy.mechanism.SkellamEncoder}), both with L2 clipping, the same rotation, scaling
 * and conditional randomized rounding ({@link dev.helmet.privacy.mechanism.ConditionalRounding}),
 * decoded by {@link dev.helmet.privacy.mechanism.RoundedSumDecoder}.
 *
 * <p><b>cpSGD is not here.</b> cpSGD (Agarwal, Suresh, Yu, Kumar, McMahan, NeurIPS 2018) adds
 * binomial noise. A shifted binomial has support the unshifted one lacks, so its privacy loss is
 * infinite with positive probability and its Renyi divergence is infinite at every order above 1:
 * it has no RDP curve, and neither accountant here (RDP, or PLD for Gaussians) can compose it. Its
 * guarantee is an (eps, delta) bound for one release (their Theorem 1), valid only under conditions
 * on N p (1 - p) relative to d, delta and the L-infinity sensitivity, with constants (c_p, b_p,
 * d_p) that could not be checked against the paper's text from here. Training would then need
 * (eps, delta) amplification by Poisson sampling and advanced composition (Dwork, Rothblum, Vadhan
 * 2010; Kairouz, Oh, Viswanath 2015) over the rounds, which Bao et al. apply and which is loose. An
 * implementation whose per-release bound is unverified would not be an honest guarantee, so the
 * baseline is omitted; Bao et al. report it far below the others (error above 10^4, accuracy below
 * 20 %).
 *
 * <p><b>Cross-silo projection.</b> {@link dev.helmet.privacy.mechanism.GaussianProjection} is the
 * Johnson-Lindenstrauss projection of Heikkila et al. (Sec. 2.2 and 3.5), generated column by
 * column from a public seed; its sensitivity is {@link
 * dev.helmet.privacy.accounting.ProjectionSensitivity}'s.
 *
 * <p>Rounding and noise are secure by default; the rotation's signs and the projection are public.
 */
package dev.helmet.privacy.mechanism;
