/**
 * DP-SGD building blocks shared by the algorithms that release noisy sums of clipped per-record
 * gradients (dp-fl, cross-silo): the trained model and its server update, the clipped-gradient
 * kernels with Poisson sampling, the continuous noise's description.
 */
package dev.helmet.protocols.dpsgd;
