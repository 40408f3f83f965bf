/**
 * What the algorithms share and no single algorithm owns: honest-party arithmetic, the public input
 * settings of linear models, common defaults. An algorithm package may import this package, never
 * another algorithm's ({@code ArchitectureTest}).
 */
package dev.helmet.protocols.shared;
