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
 * <p><b>cpSGD</b> (Agarwal, Suresh, Yu, Kumar, McMahan, NeurIPS 2018; {@link
 * dev.helmet.privacy.mechanism.BinomialEncoder}) on the same pipeline, with exact centred binomial
 * noise. A shifted binomial has support the unshifted one lacks, so it has no Renyi curve; its
 * guarantee is the (eps, delta) bound of their Theorem 1 ({@link
 * dev.helmet.privacy.accounting.BinomialMechanismDp}, checked against an independent
 * implementation's golden values), composed over rounds by {@link
 * dev.helmet.privacy.accounting.ApproxDpAccountant} as Bao et al. do: amplification by Poisson
 * sampling, then the better of linear and advanced composition. That is loose, which is part of
 * why the paper finds cpSGD far behind.
 *
 * <p><b>Cross-silo projection.</b> {@link dev.helmet.privacy.mechanism.GaussianProjection} is the
 * Johnson-Lindenstrauss projection of Heikkila et al. (Sec. 2.2 and 3.5), generated column by
 * column from a public seed. {@link
 * dev.helmet.privacy.mechanism.GaussianProjection#addClippedProjections} clips each vector's
 * projection to a bound, a sensitivity that holds for any P and any data; {@link
 * dev.helmet.privacy.accounting.ProjectionSensitivity}'s r(k, delta') chooses that bound.
 *
 * <p>Rounding and noise are secure by default; the rotation's signs and the projection are public.
 */
package dev.helmet.privacy.mechanism;
