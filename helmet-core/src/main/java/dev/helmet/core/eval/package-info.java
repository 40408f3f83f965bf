/** Evaluation: accuracy, macro-F1, confusion matrix, repeated stratified k-fold cross-validation. */
package dev.helmet.core.eval;
