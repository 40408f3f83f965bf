/** Splitting a data set among simulated parties: IID, one class per party, Dirichlet, uneven, natural. */
package dev.helmet.core.partition;
