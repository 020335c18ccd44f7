package io.hami.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reader of the openb CSV trace format of Alibaba's {@code cluster-trace-gpu-v2023}.
 *
 * <p>Columns are found by header name, so files with extra or fewer optional columns load too.
 * Nodes need {@code sn, cpu_milli, memory_mib, gpu, model}; pods need {@code name, cpu_milli,
 * memory_mib, num_gpu, gpu_milli} and may have {@code gpu_spec}. Other columns (qos, phase, times)
 * are ignored: the replay has no departures. Every error names the source, line and column.
 */
public final class OpenbCsv {

  private OpenbCsv() {}

  /** Reads a node list. */
  public static List<TraceNode> readNodes(Reader in, String source)
      throws IOException, TraceFormatException {
    List<TraceNode> nodes = new ArrayList<>();
    read(
        in,
        source,
        List.of("sn", "cpu_milli", "memory_mib", "gpu", "model"),
        row -> {
          int gpus = (int) row.integer("gpu", 0, 8);
          String model = row.text("model");
          if (gpus > 0 && model.isEmpty()) {
            throw row.error("model", model, "a node with GPUs needs a model");
          }
          nodes.add(
              new TraceNode(
                  row.text("sn"),
                  row.integer("cpu_milli", 0, Long.MAX_VALUE),
                  row.integer("memory_mib", 0, Long.MAX_VALUE),
                  gpus,
                  gpus == 0 ? "" : model));
        });
    return nodes;
  }

  /** Reads a pod list. */
  public static List<TracePod> readPods(Reader in, String source)
      throws IOException, TraceFormatException {
    List<TracePod> pods = new ArrayList<>();
    read(
        in,
        source,
        List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"),
        row -> {
          int gpus = (int) row.integer("num_gpu", 0, 8);
          int milli = (int) row.integer("gpu_milli", 0, Integer.MAX_VALUE);
          if (gpus > 0 && milli <= 0) {
            throw row.error("gpu_milli", Integer.toString(milli), "a GPU pod needs gpu_milli > 0");
          }
          if (milli > 1000) {
            throw row.error(
                "gpu_milli",
                Integer.toString(milli),
                "the share of each GPU is at most 1000 (a whole GPU); ask for more GPUs with num_gpu");
          }
          if (gpus == 0 && milli > 0) {
            throw row.error(
                "gpu_milli",
                Integer.toString(milli),
                "a share of a GPU needs num_gpu of 1 or more (num_gpu is 0)");
          }
          String spec = row.has("gpu_spec") ? row.text("gpu_spec") : "";
          pods.add(
              new TracePod(
                  row.text("name"),
                  (int) row.integer("cpu_milli", 0, Integer.MAX_VALUE),
                  row.integer("memory_mib", 0, Long.MAX_VALUE),
                  gpus,
                  milli,
                  gpus == 0 ? "" : spec,
                  gpus == 0 ? List.of() : models(spec)));
        });
    return pods;
  }

  /** The non-empty parts of a {@code |}-separated model list. */
  static List<String> models(String spec) {
    return Arrays.stream(spec.split("\\|")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private interface RowHandler {
    void accept(Row row) throws TraceFormatException;
  }

  private static void read(Reader in, String source, List<String> required, RowHandler handler)
      throws IOException, TraceFormatException {
    BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
    String header = r.readLine();
    if (header == null) {
      throw new TraceFormatException(source + ": empty file, expected a CSV header");
    }
    if (header.startsWith("\uFEFF")) {
      header = header.substring(1);
    }
    String[] names = header.split(",", -1);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < names.length; i++) {
      index.putIfAbsent(names[i].trim(), i);
    }
    for (String c : required) {
      if (!index.containsKey(c)) {
        throw new TraceFormatException(
            source + ": header lacks column '" + c + "' (has " + String.join(",", names) + ")");
      }
    }
    Row row = new Row(source, index);
    String line;
    int lineNo = 1;
    while ((line = r.readLine()) != null) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      row.reset(lineNo, line.split(",", -1));
      handler.accept(row);
    }
  }

  private static final class Row {
    private final String source;
    private final Map<String, Integer> index;
    private int line;
    private String[] cells = new String[0];

    Row(String source, Map<String, Integer> index) {
      this.source = source;
      this.index = index;
    }

    void reset(int line, String[] cells) {
      this.line = line;
      this.cells = cells;
    }

    boolean has(String column) {
      return index.containsKey(column);
    }

    String text(String column) throws TraceFormatException {
      Integer i = index.get(column);
      if (i == null) {
        // Required columns were checked against the header; others are asked for with has().
        throw error(column, "", "missing (no such column)");
      }
      if (i >= cells.length) {
        throw error(column, "", "missing (the row has " + cells.length + " cells)");
      }
      return cells[i].trim();
    }

    long integer(String column, long min, long max) throws TraceFormatException {
      String v = text(column);
      long x;
      try {
        x = Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw error(column, v, "not an integer");
      }
      if (x < min || x > max) {
        throw error(column, v, "out of range " + min + ".." + (max == Long.MAX_VALUE ? "" : max));
      }
      return x;
    }

    TraceFormatException error(String column, String value, String why) {
      return new TraceFormatException(
          source + " line " + line + ": column " + column + " = '" + value + "': " + why);
    }
  }
}
