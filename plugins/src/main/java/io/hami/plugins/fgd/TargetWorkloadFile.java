package io.hami.plugins.fgd;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a target workload from a pod list in the openb CSV format: one row per pod with {@code
 * cpu_milli}, {@code num_gpu}, {@code gpu_milli} (thousandths of a card per GPU) and optionally
 * {@code gpu_spec} (allowed models joined by {@code |}). Each pod becomes a shape asking for its
 * share of a card in memory and cores alike.
 */
public final class TargetWorkloadFile {

  private TargetWorkloadFile() {}

  /** Reads the shapes of the pods listed in {@code file}. */
  public static List<HamiShape> read(Path file) throws IOException {
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = r.readLine();
      if (header == null) {
        throw new IOException(file + ": empty file, expected a CSV header");
      }
      Map<String, Integer> col = new HashMap<>();
      String[] names = header.replace("\uFEFF", "").split(",", -1);
      for (int i = 0; i < names.length; i++) {
        col.putIfAbsent(names[i].trim(), i);
      }
      int cpuCol = column(col, "cpu_milli", file);
      int gpusCol = column(col, "num_gpu", file);
      int milliCol = column(col, "gpu_milli", file);
      List<HamiShape> out = new ArrayList<>();
      String line;
      int n = 1;
      while ((line = r.readLine()) != null) {
        n++;
        if (line.isBlank()) {
          continue;
        }
        String[] c = line.split(",", -1);
        int cpu = integer(c, cpuCol, file, n, "cpu_milli");
        int gpus = integer(c, gpusCol, file, n, "num_gpu");
        int milli = integer(c, milliCol, file, n, "gpu_milli");
        if (gpus > Fragmentation.MAX_GPUS || (gpus > 0 && (milli <= 0 || milli > 1000))) {
          throw new IOException(
              file
                  + " line "
                  + n
                  + ": num_gpu "
                  + gpus
                  + " with gpu_milli "
                  + milli
                  + " is not a valid request (0..8 GPUs of 1..1000 milli)");
        }
        Integer specCol = col.get("gpu_spec");
        String spec = specCol != null && specCol < c.length ? c[specCol].trim() : "";
        out.add(
            HamiShape.ofShare(
                cpu == 0 ? 100 : cpu,
                gpus,
                milli,
                Arrays.stream(spec.split("\\|")).filter(s -> !s.isBlank()).toList()));
      }
      if (out.isEmpty()) {
        throw new IOException(file + ": no pods");
      }
      return out;
    }
  }

  private static int column(Map<String, Integer> col, String name, Path file) throws IOException {
    Integer i = col.get(name);
    if (i == null) {
      throw new IOException(file + ": header lacks column '" + name + "'");
    }
    return i;
  }

  private static int integer(String[] cells, int i, Path file, int line, String column)
      throws IOException {
    String v = i < cells.length ? cells[i].trim() : "";
    try {
      int x = Integer.parseInt(v);
      if (x < 0) {
        throw new NumberFormatException();
      }
      return x;
    } catch (NumberFormatException e) {
      throw new IOException(
          file + " line " + line + ": column " + column + " = '" + v + "' is not an integer >= 0");
    }
  }
}
