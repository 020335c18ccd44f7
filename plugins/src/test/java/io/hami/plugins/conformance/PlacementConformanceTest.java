package io.hami.plugins.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.hami.model.Annotations;
import io.hami.model.pod.DeviceSelectors;
import io.hami.plugins.conformance.HamiRecords.Record;
import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceScores;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.FitReasons;
import io.hami.plugins.vgpu.GpuPolicy;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.NodePlacer;
import io.hami.plugins.vgpu.Placement;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.VendorRequest;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.AnnotationConsumer;
import tools.jackson.databind.JsonNode;

/**
 * Issue 19: HAMi v2.10's recorded placement answers (per-device fit, devices per container, node
 * score, device order) replayed through the vGPU plugin's classes, dynamic MIG included. Every
 * record agrees except the deliberate differences listed in {@link #DELIBERATE} with their reasons.
 */
final class PlacementConformanceTest {

  /** The functions that place devices, as opposed to scoring or ordering them. */
  private static final ImmutableSet<String> PLACEMENT =
      ImmutableSet.of("nvidia.Fit", "scheduler.fitInDevices", "scheduler.calcScore");

  /** A documented difference from HAMi, with the records it covers. */
  record Deliberate(String reason, Predicate<Record> covers) {}

  static final ImmutableList<Deliberate> DELIBERATE =
      ImmutableList.of(
          new Deliberate(
              "Kunlun XPUs are not a vendor of ours (HAMi's test node: kunlun devices and its"
                  + " topology node score)",
              r -> PLACEMENT.contains(r.fn()) && r.name().contains("_for_kunlun")),
          new Deliberate(
              "HAMi's namespace quota lives in its quota manager and is not part of the recorded"
                  + " input (ours: ResourceQuota objects, QuotaFitTest)",
              r -> PLACEMENT.contains(r.fn()) && r.name().startsWith("Test_ResourceQuota/")),
          new Deliberate(
              "requests of HAMi's test-only device types (mockA, mockB, a type without a device"
                  + " plugin); ours forms requests only for the vendors it knows",
              r ->
                  r.fn().equals("scheduler.fitInDevices")
                      && (r.name().equals("Test_fitInDevices_MultiTypePartition")
                          || r.name()
                              .equals(
                                  "Test_fitInDevices/device_type_the_different_from_request_type"))),
          new Deliberate(
              "a node without a register annotation, failed by HAMi's Filter before calcScore"
                  + " (ours: NodeUnregistered at Filter)",
              r ->
                  r.fn().equals("scheduler.calcScore")
                      && r.name().equals("TestFilterTemplateNodesMissingRegisterAnnotation")));

  /** Tolerance of float scores: HAMi computes in float32. */
  private static final double EPSILON = 1e-4;

  /**
   * The placer as HAMi scores devices: a container's requests count toward a device's score only
   * where the request type equals the device's model string ({@code scoreByVendor: false}). The
   * plugin's default ({@code true}, {@link io.hami.plugins.vgpu.VgpuArgs#DEFAULTS}) counts them on
   * every device of their vendor, a documented difference (protocol §11 trap 10).
   */
  private static final NodePlacer PLACER = new NodePlacer(false, DeviceFitter.QuotaCheck.NONE);

  /** The functions replayed, each with its comparison (null when ours agrees). */
  private static final ImmutableList<Replay> REPLAYS =
      ImmutableList.of(
          new Replay("nvidia.Fit", PlacementConformanceTest::fitDiff),
          new Replay("nvidia.assertNuma", PlacementConformanceTest::assertNumaDiff),
          new Replay("scheduler.fitInDevices", PlacementConformanceTest::fitInDevicesDiff),
          new Replay("scheduler.calcScore", PlacementConformanceTest::calcScoreDiff),
          new Replay("policy.ComputeScore", PlacementConformanceTest::computeScoreDiff),
          new Replay("policy.ComputeDefaultScore", PlacementConformanceTest::defaultScoreDiff),
          new Replay("policy.Less", PlacementConformanceTest::lessDiff));

  record Replay(String fn, Function<Record, @Nullable String> diff) {}

  /** The parameters of a test: every record of one HAMi function. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ArgumentsSource(RecordsOf.Provider.class)
  @interface RecordsOf {
    String value();

    /** Reads the records named by {@link RecordsOf}. */
    final class Provider implements ArgumentsProvider, AnnotationConsumer<RecordsOf> {
      private String fn = "";

      @Override
      public void accept(RecordsOf recordsOf) {
        fn = recordsOf.value();
      }

      @Override
      public Stream<? extends Arguments> provideArguments(ExtensionContext context) {
        return HamiRecords.of(fn).stream().map(Arguments::of);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("nvidia.Fit")
  void fit(Record r) {
    check(r, PlacementConformanceTest::fitDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("nvidia.assertNuma")
  void assertNuma(Record r) {
    check(r, PlacementConformanceTest::assertNumaDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("scheduler.fitInDevices")
  void fitInDevices(Record r) {
    check(r, PlacementConformanceTest::fitInDevicesDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("scheduler.calcScore")
  void calcScore(Record r) {
    check(r, PlacementConformanceTest::calcScoreDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("policy.ComputeScore")
  void computeScore(Record r) {
    check(r, PlacementConformanceTest::computeScoreDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("policy.ComputeDefaultScore")
  void computeDefaultScore(Record r) {
    check(r, PlacementConformanceTest::defaultScoreDiff);
  }

  @ParameterizedTest(name = "{0}")
  @RecordsOf("policy.Less")
  void less(Record r) {
    check(r, PlacementConformanceTest::lessDiff);
  }

  /**
   * Counts per function: replayed, agreed and deliberate. Every deliberate difference still covers
   * a record, and no other record disagrees.
   */
  @Test
  void tally() {
    StringBuilder report = new StringBuilder("HAMi v2.10 placement conformance\n");
    List<String> disagreements = new ArrayList<>();
    Map<String, Integer> deliberate = new TreeMap<>();
    for (Replay replay : REPLAYS) {
      int agreed = 0;
      int exceptions = 0;
      List<Record> records = HamiRecords.of(replay.fn());
      for (Record r : records) {
        String diff;
        try {
          diff = replay.diff().apply(r);
        } catch (RuntimeException e) {
          diff = "threw " + e;
        }
        String why = deliberate(r);
        if (why != null) {
          exceptions++;
          deliberate.merge(why, 1, Integer::sum);
        } else if (diff == null) {
          agreed++;
        } else {
          disagreements.add(replay.fn() + " " + r.name() + ": " + diff);
        }
      }
      report.append(
          String.format(
              "%-27s replayed %5d  agreed %5d  deliberate %d%n",
              replay.fn(), records.size(), agreed, exceptions));
    }
    deliberate.forEach((why, n) -> report.append(String.format("  deliberate %3d: %s%n", n, why)));
    System.out.print(report);
    disagreements.forEach(System.out::println);
    assertThat(deliberate)
        .as("deliberate differences that cover no record")
        .hasSize(DELIBERATE.size());
    assertThat(disagreements).as(report.toString()).isEmpty();
  }

  private static void check(Record r, Function<Record, @Nullable String> diff) {
    String why = deliberate(r);
    assumeFalse(why != null, () -> "deliberate: " + why);
    assertThat(diff.apply(r)).as("%s (%s)", r.name(), r.site()).isNull();
  }

  private static @Nullable String deliberate(Record r) {
    for (Deliberate d : DELIBERATE) {
      if (d.covers().test(r)) {
        return d.reason();
      }
    }
    return null;
  }

  private static @Nullable String differ(Object ours, Object hami) {
    return ours.equals(hami) ? null : "ours " + ours + ", HAMi " + hami;
  }

  private static @Nullable String differ(double ours, double hami) {
    return Math.abs(ours - hami) <= EPSILON * Math.max(1, Math.abs(hami))
        ? null
        : "ours " + ours + ", HAMi " + hami;
  }

  // nvidia.Fit: one request on a node's devices of its type, already sorted by the caller.

  private static @Nullable String fitDiff(Record r) {
    JsonNode in = r.in();
    Map<String, String> annos = GoDevices.stringMap(in.path("annos"));
    PodGpuOptions opts = GoDevices.options(annos, in.path("defaultPolicy").asString(""));
    List<DeviceUsage> devices = GoDevices.devices(in.path("devices"), in.path("nodeInfo"));
    VendorRequest req = GoDevices.request(in.path("request"));
    FitReasons reasons = new FitReasons(devices.size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            devices,
            req,
            opts.filter(),
            opts.gpuPolicy(),
            opts.numaBind(),
            GoDevices.pairs(in.path("nodeInfo")),
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    JsonNode out = r.out();
    if (picks == null) {
      return differ("no fit: " + reasons.message(), outcome(out));
    }
    // HAMi's Fit leaves a MIG instance's request in the pick; its AddResourceUsage then writes the
    // profile's memory and cores, which the fitInDevices and calcScore records show and ours
    // matches. Here a MIG pick is compared by device only.
    Set<String> mig = new HashSet<>();
    devices.stream().filter(DeviceUsage::migMode).forEach(d -> mig.add(d.id()));
    return differ(
        "fit " + byDeviceOnMig(GoDevices.picks(picks), mig),
        outcome(out).equals("fit")
            ? "fit " + byDeviceOnMig(GoDevices.goPicks(out.path("result").path(req.vendor())), mig)
            : outcome(out));
  }

  /** Picks in the {@link GoDevices#picks} form, those on a MIG-mode device cut to the device. */
  private static List<String> byDeviceOnMig(List<String> picks, Set<String> migDevices) {
    List<String> out = new ArrayList<>();
    for (String p : picks) {
      String id = p.substring(0, p.indexOf('/'));
      out.add(migDevices.contains(id) ? id + "/mig" : p);
    }
    return out;
  }

  private static String outcome(JsonNode out) {
    return out.path("fit").asBoolean() ? "fit" : "no fit: " + out.path("reason").asString("");
  }

  // nvidia.assertNuma: whether the pod binds its devices to one NUMA node.

  private static @Nullable String assertNumaDiff(Record r) {
    Map<String, String> annos = GoDevices.stringMap(r.in().path("annos"));
    return differ(DeviceSelectors.flag(annos, Annotations.NVIDIA_NUMA_BIND), r.out().asBoolean());
  }

  // scheduler.fitInDevices: one container's requests on one node.

  private static @Nullable String fitInDevicesDiff(Record r) {
    JsonNode in = r.in();
    PodGpuOptions opts =
        GoDevices.options(
                GoDevices.annotations(in.path("pod")), in.path("defaultPolicy").asString(""))
            .withWeights(GoDevices.weights(in.path("weights")));
    NodeDevices node = GoDevices.node("node", in.path("node"), in.path("nodeInfo"));
    List<VendorRequest> reqs = GoDevices.requests(in.path("requests"));
    Placement p = PLACER.place(node, PodRequests.of(List.of(reqs), 0), opts, null);
    JsonNode out = r.out();
    if (!p.fits()) {
      return differ("no fit: " + p.reasons(), outcome(out));
    }
    List<String> hami = new ArrayList<>();
    for (VendorRequest q : reqs) {
      JsonNode ofType = out.path("devinput").path(q.vendor());
      hami.addAll(GoDevices.goPicks(ofType.path(ofType.size() - 1)));
    }
    return differ(
        "fit " + GoDevices.picks(p.containers().get(0)),
        outcome(out).equals("fit") ? "fit " + hami : outcome(out));
  }

  // scheduler.calcScore: every node's fit, devices per container and node score.

  private static @Nullable String calcScoreDiff(Record r) {
    JsonNode in = r.in();
    JsonNode task = in.path("task");
    PodGpuOptions opts;
    try {
      opts = GoDevices.options(GoDevices.annotations(task), in.path("defaultPolicy").asString(""));
    } catch (IllegalArgumentException e) {
      return r.out().path("err").isNull() ? "ours refused the pod: " + e.getMessage() : null;
    }
    if (!r.out().path("err").isNull()) {
      return "HAMi refused the pod: " + r.out().path("err").asString("");
    }
    List<List<VendorRequest>> containers = new ArrayList<>();
    for (JsonNode c : in.path("reqs")) {
      containers.add(GoDevices.requests(c));
    }
    PodRequests reqs = PodRequests.of(containers, task.path("spec").path("initContainers").size());
    Map<String, String> ours = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : in.path("nodes").properties()) {
      NodeDevices node = GoDevices.node(e.getKey(), e.getValue(), e.getValue().path("NodeInfo"));
      Placement p = PLACER.place(node, reqs, opts, null);
      ours.put(e.getKey(), p.fits() ? fitted(node, p) : "no fit: " + p.reasons());
    }
    Map<String, String> hami = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : r.out().path("failedNodes").properties()) {
      hami.put(e.getKey(), "no fit: " + e.getValue().asString(""));
    }
    for (JsonNode s : r.out().path("list").path("NodeList")) {
      List<List<String>> perContainer = new ArrayList<>();
      for (int c = 0; c < containers.size(); c++) {
        List<String> picks = new ArrayList<>();
        for (JsonNode ofType : s.path("Devices")) {
          picks.addAll(GoDevices.goPicks(ofType.path(c)));
        }
        perContainer.add(picks);
      }
      String id = s.path("NodeID").asString("");
      String mine = ours.get(id);
      float score = s.path("Score").floatValue();
      // The node score is compared within the tolerance, the devices exactly.
      hami.put(
          id,
          mine != null && mine.startsWith("score ") && differ(scoreOf(mine), score) == null
              ? mine
              : "score " + score + " " + perContainer);
    }
    return differ(ours, hami);
  }

  private static String fitted(NodeDevices node, Placement p) {
    List<List<String>> perContainer = new ArrayList<>();
    for (List<DevicePick> c : p.containers()) {
      perContainer.add(GoDevices.picks(c));
    }
    return "score " + node.nodeScore() + " " + perContainer;
  }

  private static double scoreOf(String fitted) {
    return Double.parseDouble(fitted.substring("score ".length(), fitted.indexOf(' ', 6)));
  }

  // policy.ComputeScore: one device's score for one container's requests.

  private static @Nullable String computeScoreDiff(Record r) {
    JsonNode in = r.in();
    DeviceUsage d = GoDevices.device(in.path("ds").path("Device"));
    float ours =
        DeviceScores.device(
            d,
            GoDevices.requests(in.path("requests")),
            GoDevices.weights(in.path("weights")),
            false);
    return differ(ours, r.out().doubleValue());
  }

  // policy.ComputeDefaultScore: the node score before placement.

  private static @Nullable String defaultScoreDiff(Record r) {
    float ours = DeviceScores.node(GoDevices.deviceList(r.in().path("devices")));
    return differ(ours, r.out().doubleValue());
  }

  // policy.Less: whether device a sorts before device b.

  private static @Nullable String lessDiff(Record r) {
    JsonNode in = r.in();
    JsonNode a = in.path("a");
    JsonNode b = in.path("b");
    GpuPolicy policy = GpuPolicy.parse(in.path("policy").asString(""));
    boolean less =
        policy.compare(
                GoDevices.device(a.path("Device")),
                a.path("Score").floatValue(),
                GoDevices.device(b.path("Device")),
                b.path("Score").floatValue(),
                in.path("numaBind").asBoolean())
            < 0;
    return differ(less, r.out().asBoolean());
  }
}
