/**
 * Privacy calculators by name, in the style of opacus' {@code create_accountant}: each {@link
 * dev.helmet.privacy.calculator.PrivacyCalculator} ({@code gaussian}, {@code rdp}, {@code pld},
 * {@code smm}, {@code cpsgd}) declares the options it reads, validates them, and maps them to a
 * {@link dev.helmet.privacy.event.DpEvent} and to the accountant that supports it; {@link
 * dev.helmet.privacy.calculator.PrivacyCalculators} is the registry and runs every calculator
 * through one routine: the accountant's eps for a given noise parameter, or {@link
 * dev.helmet.privacy.accounting.Calibration#smallest} for a target eps. {@code helmet privacy
 * epsilon|noise} is a thin command over it.
 */
package dev.helmet.privacy.calculator;
