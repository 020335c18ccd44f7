package io.hami.sim;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The openb traces shipped with the simulator (Alibaba cluster-trace-gpu-v2023; see SOURCE.md
 * beside them): the GPU node list and the pod lists named in {@link #POD_TRACES}.
 */
public final class BundledTraces {

  /** Pod traces shipped, by short name; {@code default} comes first. */
  public static final ImmutableList<String> POD_TRACES =
      ImmutableList.of("default", "cpu050", "gpushare40", "gpuspec10", "multigpu50");

  private static final String DIR = "/traces/openb/";
  private static final String NODES = "openb_node_list_gpu_node.csv";

  private BundledTraces() {}

  /** The bundled node list. */
  public static List<TraceNode> nodes() throws IOException, TraceFormatException {
    try (Reader r = open(NODES)) {
      return OpenbCsv.readNodes(r, "bundled " + NODES);
    }
  }

  /** The bundled pod trace of the given short name. */
  public static List<TracePod> pods(String name) throws IOException, TraceFormatException {
    if (!POD_TRACES.contains(name)) {
      throw new IllegalArgumentException(
          "no bundled pod trace '" + name + "'; bundled: " + String.join(", ", POD_TRACES));
    }
    String file = "openb_pod_list_" + name + ".csv";
    try (Reader r = open(file)) {
      return OpenbCsv.readPods(r, "bundled " + file);
    }
  }

  /** The bundled node list with the named pod trace. */
  public static Trace trace(String name) throws IOException, TraceFormatException {
    return new Trace(name, nodes(), pods(name));
  }

  private static Reader open(String file) throws IOException {
    InputStream in = BundledTraces.class.getResourceAsStream(DIR + file);
    if (in == null) {
      throw new IOException("bundled trace file missing from the classpath: " + DIR + file);
    }
    return new InputStreamReader(in, StandardCharsets.UTF_8);
  }
}
