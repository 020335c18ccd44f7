package io.hami.sim;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Reads trace files by their extension: {@code .csv} as openb CSV, {@code .yaml}, {@code .yml} and
 * {@code .json} as Kubernetes objects.
 */
public final class TraceFiles {

  private TraceFiles() {}

  /** Short name of a pod trace file: its name without extension and without the openb prefix. */
  public static String traceName(Path file) {
    String n = file.getFileName().toString();
    int dot = n.lastIndexOf('.');
    if (dot > 0) {
      n = n.substring(0, dot);
    }
    return n.startsWith("openb_pod_list_") ? n.substring("openb_pod_list_".length()) : n;
  }

  public static List<TraceNode> readNodes(Path file) throws IOException, TraceFormatException {
    if (isCsv(file)) {
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        return OpenbCsv.readNodes(r, file.toString());
      }
    }
    return KubeObjects.readNodes(Files.readString(file, StandardCharsets.UTF_8), file.toString());
  }

  /**
   * Reads pods. Kubernetes pods ask for GPU cores and memory in device units, so their shares are
   * read against the device units of {@code nodesFile} when it is Kubernetes YAML.
   */
  public static List<TracePod> readPods(Path file, KubeObjects.DeviceUnits units)
      throws IOException, TraceFormatException {
    if (isCsv(file)) {
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        return OpenbCsv.readPods(r, file.toString());
      }
    }
    return KubeObjects.readPods(
        Files.readString(file, StandardCharsets.UTF_8), file.toString(), units);
  }

  /** Device units of a node file (the defaults for a CSV node list). */
  public static KubeObjects.DeviceUnits units(Path nodesFile)
      throws IOException, TraceFormatException {
    if (isCsv(nodesFile)) {
      return KubeObjects.DeviceUnits.DEFAULT;
    }
    return KubeObjects.units(
        Files.readString(nodesFile, StandardCharsets.UTF_8), nodesFile.toString());
  }

  private static boolean isCsv(Path file) {
    return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv");
  }
}
