/**
 * Labelled data in memory ({@link dev.helmet.core.data.Dataset}), the readers for CSV/TSV,
 * LIBSVM, NumPy and IDX files ({@link dev.helmet.core.data.DataReader}), and the built-in data sets
 * fetched through package clients with pinned checksums ({@link dev.helmet.core.data.BuiltinDataset}).
 */
package dev.helmet.core.data;
