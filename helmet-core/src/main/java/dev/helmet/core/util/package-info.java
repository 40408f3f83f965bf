/** Small utilities shared by all modules: parameter checks, hashing, progress reporting. */
package dev.helmet.core.util;
