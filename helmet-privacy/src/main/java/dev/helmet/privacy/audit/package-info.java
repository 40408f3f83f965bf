/**
 * Privacy auditing: empirical lower bounds on epsilon from a distinguishing test run on a
 * neighbouring pair of data sets (Jagielski, Ullman and Oprea 2020; Nasr et al. 2021). An audit can
 * expose a printed epsilon that does not hold; it can never certify one.
 */
package dev.helmet.privacy.audit;
