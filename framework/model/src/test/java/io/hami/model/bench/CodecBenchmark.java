package io.hami.model.bench;

import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Decode throughput of the two hottest annotations: an 8-GPU JSON register annotation (scheduler,
 * every node every 15 s) and a 4-container pod device annotation (scheduler accounting, node agent
 * Allocate).
 *
 * <p>Cases run round-robin in short slices so that a noisy machine affects them alike; the median
 * per case is printed in decodes per second, with a generic Jackson tree parse of the same JSON as
 * the in-process baseline.
 *
 * <p>Run: {@code mvn -o -q -pl framework/model exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.hami.model.bench.CodecBenchmark [-Dexec.args="<rounds> <seconds per slice>"]}
 */
public final class CodecBenchmark {

  private static volatile Object sink;

  private CodecBenchmark() {}

  /** Entry point; optional arguments: rounds (default 7) and seconds per slice (default 0.5). */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    double slice = args.length > 1 ? Double.parseDouble(args[1]) : 0.5;

    List<NodeDevice> gpus = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      gpus.add(
          NodeDevice.of(
              String.format("GPU-%08x-483b-b48f-d7e5-75fb19a52b%02d", 0x8dcd427f + i, i),
              i,
              10,
              81920,
              100,
              "NVIDIA A100-SXM4-80GB",
              i / 4,
              "hami-core",
              true));
    }
    String register = NodeDeviceJson.encode(gpus);
    String colon = NodeDeviceColon.encode(gpus);
    PodDevices pod =
        PodDevices.of(
            List.of(),
            List.of(new ContainerDevice(gpus.get(0).id(), "NVIDIA", 20000, 30)),
            List.of(
                new ContainerDevice(gpus.get(1).id(), "NVIDIA", 20000, 30),
                new ContainerDevice(gpus.get(2).id(), "NVIDIA", 40000, 50)),
            List.of(new ContainerDevice(gpus.get(3).id(), "NVIDIA", 8000, 0)));
    String podValue = PodDevicesCodec.encode(pod);
    JsonMapper jackson = JsonMapper.builder().build();

    check(NodeDeviceJson.decode(register).toOptional().orElseThrow().equals(gpus), "JSON decode");
    check(NodeDeviceColon.decode(colon).toOptional().orElseThrow().equals(gpus), "colon decode");
    check(PodDevicesCodec.decode(podValue).toOptional().orElseThrow().size() == 5, "pod decode");

    Map<String, Supplier<?>> cases = new LinkedHashMap<>();
    cases.put("baseline: Jackson readTree, 8-GPU JSON", () -> jackson.readTree(register));
    cases.put("NodeDeviceJson.decode, 8-GPU JSON", () -> NodeDeviceJson.decode(register));
    cases.put("NodeDeviceColon.decode, 8-GPU colon form", () -> NodeDeviceColon.decode(colon));
    cases.put("PodDevicesCodec.decode, 4 containers", () -> PodDevicesCodec.decode(podValue));
    cases.put("NodeDeviceJson.encode, 8 GPUs", () -> NodeDeviceJson.encode(gpus));
    cases.put("PodDevicesCodec.encode, 4 containers", () -> PodDevicesCodec.encode(pod));

    System.out.printf(
        "register annotation: %d bytes (JSON), %d bytes (colon); pod annotation: %d bytes%n",
        register.length(), colon.length(), podValue.length());
    System.out.printf("%d rounds x %.1f s per case, median shown%n", rounds, slice);
    for (Supplier<?> op : cases.values()) {
      measure(op, slice); // warm-up
    }
    Map<String, double[]> results = new LinkedHashMap<>();
    cases.keySet().forEach(k -> results.put(k, new double[rounds]));
    for (int r = 0; r < rounds; r++) {
      for (var e : cases.entrySet()) {
        results.get(e.getKey())[r] = measure(e.getValue(), slice);
      }
    }
    double baseline = median(results.get("baseline: Jackson readTree, 8-GPU JSON"));
    for (var e : results.entrySet()) {
      double m = median(e.getValue());
      System.out.printf("%-42s %,13.0f ops/s  (%.2fx baseline)%n", e.getKey(), m, m / baseline);
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what + " gave an unexpected result");
    }
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  private static double measure(Supplier<?> op, double seconds) {
    long ops = 0;
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long now;
    do {
      for (int i = 0; i < 200; i++) {
        sink = op.get();
      }
      ops += 200;
      now = System.nanoTime();
    } while (now < end);
    return ops / ((now - start) / 1e9);
  }
}
