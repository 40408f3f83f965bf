package dev.helmet.core.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads LIBSVM / svmlight text: {@code label index:value index:value ... [# comment]}, indices
 * 1-based and strictly ascending, absent indices are zero. The dimension is the largest index
 * seen unless {@link ReadOptions#dimension()} fixes it (test data must match the training data).
 */
final class LibsvmReader {
  private LibsvmReader() {}

  static Dataset read(Path path, ReadOptions options) {
    String source = path.getFileName().toString();
    List<int[]> indices = new ArrayList<>();
    List<float[]> values = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    List<Integer> lineNumbers = new ArrayList<>();
    int maxIndex = 0;
    try (BufferedReader in = new BufferedReader(DataReader.openText(path))) {
      String line;
      int lineNo = 0;
      while ((line = in.readLine()) != null) {
        lineNo++;
        int hash = line.indexOf('#');
        if (hash >= 0) {
          line = line.substring(0, hash);
        }
        line = line.strip();
        if (line.isEmpty()) {
          continue;
        }
        String[] tok = line.split("\\s+");
        String where = "line " + lineNo;
        int[] idx = new int[tok.length - 1];
        float[] val = new float[tok.length - 1];
        int last = 0;
        for (int k = 1; k < tok.length; k++) {
          String t = tok[k];
          int colon = t.indexOf(':');
          if (colon <= 0 || colon == t.length() - 1) {
            throw new DataFormatException(source + " " + where + ": '" + t + "' is not index:value");
          }
          String is = t.substring(0, colon);
          if (is.equals("qid")) {
            throw new DataFormatException(source + " " + where + ": ranking files (qid:) are not supported");
          }
          int i;
          try {
            i = Integer.parseInt(is);
          } catch (NumberFormatException e) {
            throw new DataFormatException(source + " " + where + ": feature index '" + is + "' is not an integer");
          }
          if (i <= last) {
            throw new DataFormatException(source + " " + where + ": feature indices must be >= 1 and ascending; "
                + i + " follows " + last);
          }
          if (options.dimension() > 0 && i > options.dimension()) {
            throw new DataFormatException(source + " " + where + ": feature index " + i
                + " exceeds the expected dimension " + options.dimension());
          }
          last = i;
          idx[k - 1] = i - 1;
          val[k - 1] = CsvReader.parseFeature(t.substring(colon + 1), source, where, i - 1);
        }
        maxIndex = Math.max(maxIndex, last);
        indices.add(idx);
        values.add(val);
        labels.add(tok[0]);
        lineNumbers.add(lineNo);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(source + ": cannot read: " + e.getMessage(), e);
    }
    int dim = options.dimension() > 0 ? options.dimension() : maxIndex;
    if (dim == 0 && !labels.isEmpty()) {
      throw new DataFormatException(source + ": no row has any feature");
    }
    RowCollector rows = new RowCollector(source, options.labelSet(), false);
    for (int r = 0; r < labels.size(); r++) {
      float[] x = new float[dim];
      int[] idx = indices.get(r);
      float[] val = values.get(r);
      for (int k = 0; k < idx.length; k++) {
        x[idx[k]] = val[k];
      }
      rows.add(x, labels.get(r), null, "line " + lineNumbers.get(r));
    }
    return rows.build();
  }
}
