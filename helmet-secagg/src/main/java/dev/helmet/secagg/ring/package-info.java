/** Fixed-point encoding of real vectors into Z_{2^b} with an overflow bound from public parameters. */
package dev.helmet.secagg.ring;
