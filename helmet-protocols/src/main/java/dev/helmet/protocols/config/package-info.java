/**
 * Strict reading of configuration trees: unknown keys and out-of-range values are refused with the
 * path and the key they concern.
 */
package dev.helmet.protocols.config;
