/**
 * Vectors of ring elements: fixed-point encoding of real vectors into Z_{2^b} with an overflow
 * bound from public parameters, and the bit-packed wire form of a vector (b bits per element).
 */
package dev.helmet.secagg.ring;
