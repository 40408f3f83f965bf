/** Whom the guarantees of a run protect against: the wording every printed epsilon carries. */
package dev.helmet.protocols.privacy;
