package io.hami.sim;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
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
      return OpenbCsv.readNodes(new StringReader(text(file)), file.toString());
    }
    return KubeObjects.readNodes(text(file), file.toString());
  }

  /**
   * Reads pods. Kubernetes pods ask for GPU cores and memory in device units, so their shares are
   * read against the device units of {@code nodesFile} when it is Kubernetes YAML.
   */
  public static List<TracePod> readPods(Path file, KubeObjects.DeviceUnits units)
      throws IOException, TraceFormatException {
    if (isCsv(file)) {
      return OpenbCsv.readPods(new StringReader(text(file)), file.toString());
    }
    return KubeObjects.readPods(text(file), file.toString(), units);
  }

  /** Device units of a node file (the defaults for a CSV node list). */
  public static KubeObjects.DeviceUnits units(Path nodesFile)
      throws IOException, TraceFormatException {
    if (isCsv(nodesFile)) {
      return KubeObjects.DeviceUnits.DEFAULT;
    }
    return KubeObjects.units(text(nodesFile), nodesFile.toString());
  }

  /**
   * The file as UTF-8 text; a file that is not (a binary file, another encoding) is refused with
   * the line and byte where it stops being text.
   */
  static String text(Path file) throws IOException, TraceFormatException {
    byte[] bytes = Files.readAllBytes(file);
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = utf8.decode(in, out, true);
    if (r.isError()) {
      int at = in.position();
      int line = 1;
      for (int i = 0; i < at; i++) {
        if (bytes[i] == '\n') {
          line++;
        }
      }
      throw new TraceFormatException(
          String.format(
              Locale.ROOT,
              "%s:%d: not UTF-8 text (byte 0x%02x at offset %d); give an openb CSV or Kubernetes"
                  + " YAML/JSON",
              file,
              line,
              bytes[at] & 0xff,
              at));
    }
    utf8.flush(out);
    return out.flip().toString();
  }

  private static boolean isCsv(Path file) {
    return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv");
  }
}
