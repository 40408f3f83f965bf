/** The public input transformation (clipping or normalising, intercept) and the design matrix it yields. */
package dev.helmet.core.preprocess;
