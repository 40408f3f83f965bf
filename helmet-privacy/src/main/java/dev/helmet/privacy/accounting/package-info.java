/**
 * Accountants that turn {@link dev.helmet.privacy.event.DpEvent}s into (eps, delta) guarantees,
 * and the one calibration routine ({@link dev.helmet.privacy.accounting.Calibration}). Every bound
 * is rounded towards the safe side, with the reason stated where it happens.
 */
package dev.helmet.privacy.accounting;
