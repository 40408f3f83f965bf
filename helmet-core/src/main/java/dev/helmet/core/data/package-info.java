/**
 * Labelled data in memory ({@link dev.helmet.core.data.Dataset}), the readers for CSV/TSV,
 * LIBSVM, NumPy and IDX files ({@link dev.helmet.core.data.DataReader}), and the built-in data sets
 * fetched through package clients with pinned checksums ({@link dev.helmet.core.data.BuiltinDataset}),
 * among them tabular sets read from R data files ({@link dev.helmet.core.data.RdaReader}) and ARFF
 * ({@link dev.helmet.core.data.ArffReader}) into a {@link dev.helmet.core.data.DataTable} and encoded as
 * {@link dev.helmet.core.data.TabularData}.
 */
package dev.helmet.core.data;
