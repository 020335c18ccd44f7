package io.hami.plugins.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.FitReasons;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.NodePlacer;
import io.hami.plugins.vgpu.Placement;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Replays HAMi v2.10's recorded dynamic-MIG calls of {@code nvidia.Fit} and {@code
 * scheduler.fitInDevices} (records with a device in MIG mode) against the device fit and the node
 * placer: the verdict, the failure reasons, and the devices chosen with their MIG instances.
 */
final class MigConformanceTest {

  /** One disagreement, for the failure message. */
  record Diff(String fn, String name, String want, String got) {
    @Override
    public String toString() {
      return fn + " " + name + "\n    want " + want + "\n    got  " + got;
    }
  }

  @Test
  void nvidiaFit_agreesOnMigRecords() {
    List<Diff> diffs = new ArrayList<>();
    int n = 0;
    for (HamiRecords.Record r : HamiRecords.of("nvidia.Fit")) {
      JsonNode in = r.in();
      if (!GoMigConverter.anyMig(in.path("devices"))) {
        continue;
      }
      n++;
      String want = fitAnswer(r.out(), false);
      String got = ourFit(in);
      if (!want.equals(got)) {
        diffs.add(new Diff(r.fn(), r.name(), want, got));
      }
    }
    report("nvidia.Fit", n, diffs);
  }

  @Test
  void fitInDevices_agreesOnMigRecords() {
    List<Diff> diffs = new ArrayList<>();
    int n = 0;
    for (HamiRecords.Record r : HamiRecords.of("scheduler.fitInDevices")) {
      JsonNode in = r.in();
      JsonNode lists = in.path("node").path("Devices").path("DeviceLists");
      List<JsonNode> devs = new ArrayList<>();
      for (JsonNode dl : lists) {
        devs.add(dl.path("Device"));
      }
      if (!GoMigConverter.anyMig(devs)) {
        continue;
      }
      n++;
      String want = fitInDevicesAnswer(r.out());
      String got = ourFitInDevices(in, devs);
      // HAMi's fitInDevices returns the node-level count refusal as the bare code, where our
      // message counts it like the per-device codes; the code is what calcScore reads.
      if (want.equals("refused: NodeInsufficientDevice")) {
        got = got.replaceFirst("^refused: \\d+/\\d+ NodeInsufficientDevice$", want);
      }
      if (!want.equals(got)) {
        diffs.add(new Diff(r.fn(), r.name(), want, got));
      }
    }
    report("scheduler.fitInDevices", n, diffs);
  }

  /**
   * Records on nodes with a MIG GPU whose disagreement has a cause outside dynamic MIG, by {@code
   * "<fn> <case>"}. A fix elsewhere may make them agree; a new disagreement fails the test.
   */
  private static final ImmutableMap<String, String> KNOWN =
      ImmutableMap.of(
          "nvidia.Fit TestOracleRandomCalcScore/rand0144",
          "NumaNotFit counted under topology-aware plus numa-bind",
          "nvidia.Fit TestOracleRandomCalcScore/rand0274",
          "NumaNotFit counted under topology-aware plus numa-bind",
          "scheduler.fitInDevices TestOracleRandomCalcScore/rand0144",
          "NumaNotFit counted under topology-aware plus numa-bind",
          "scheduler.fitInDevices TestOracleRandomCalcScore/rand0274",
          "NumaNotFit counted under topology-aware plus numa-bind",
          "scheduler.fitInDevices TestOracleRandomCalcScore/rand0281",
          "two shared GPUs of equal score: Go's unstable sort orders them the other way");

  private static void report(String fn, int n, List<Diff> diffs) {
    System.out.println(fn + ": " + (n - diffs.size()) + "/" + n + " MIG records agree");
    diffs.forEach(
        d -> System.out.println(d + "\n    known: " + KNOWN.get(d.fn() + " " + d.name())));
    assertThat(n).isPositive();
    assertThat(diffs).allSatisfy(d -> assertThat(KNOWN).containsKey(d.fn() + " " + d.name()));
  }

  private static String fitAnswer(JsonNode out, boolean detailed) {
    if (!out.path("fit").asBoolean()) {
      return "refused: " + GoMigConverter.str(out.path("reason"));
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode d : out.path("result").path("NVIDIA")) {
      ids.add(GoMigConverter.answer(d, detailed));
    }
    return "fit: " + ids;
  }

  private static String ourFit(JsonNode in) {
    Map<String, String> annos = GoMigConverter.annotations(in.path("annos"));
    Set<String> cordoned = GoMigConverter.cordoned(in.path("nodeInfo").path("Node"));
    List<DeviceUsage> devices = GoMigConverter.devices(in.path("devices"), cordoned);
    VendorRequest req = GoMigConverter.request(in.path("request"));
    FitReasons reasons = new FitReasons(devices.size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            devices,
            req,
            GoMigConverter.filter(annos),
            GoMigConverter.policy(annos, in.path("defaultPolicy").asString("")),
            GoMigConverter.numaBind(annos),
            GoMigConverter.pairs(in.path("nodeInfo")),
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    if (picks == null) {
      return "refused: " + reasons.message();
    }
    List<String> ids = new ArrayList<>();
    for (DevicePick p : picks) {
      ids.add(GoMigConverter.answer(p, false));
    }
    return "fit: " + ids;
  }

  private static String fitInDevicesAnswer(JsonNode out) {
    if (!out.path("fit").asBoolean()) {
      return "refused: " + GoMigConverter.str(out.path("reason"));
    }
    JsonNode containers = out.path("devinput").path("NVIDIA");
    JsonNode last = containers.path(containers.size() - 1);
    List<String> ids = new ArrayList<>();
    for (JsonNode d : last) {
      ids.add(GoMigConverter.answer(d, true));
    }
    return "fit: " + ids;
  }

  private static String ourFitInDevices(JsonNode in, List<JsonNode> goDevices) {
    JsonNode pod = in.path("pod");
    Map<String, String> annos =
        GoMigConverter.annotations(pod.path("metadata").path("annotations"));
    Set<String> cordoned = GoMigConverter.cordoned(in.path("node").path("Node"));
    List<DeviceUsage> devices = new ArrayList<>();
    for (JsonNode d : goDevices) {
      devices.add(GoMigConverter.device(d, cordoned));
    }
    List<VendorRequest> reqs = new ArrayList<>();
    for (JsonNode r : in.path("requests")) {
      reqs.add(GoMigConverter.request(r));
    }
    PodGpuOptions opts =
        new PodGpuOptions(
            GoMigConverter.filter(annos),
            GoMigConverter.policy(annos, in.path("defaultPolicy").asString("")),
            PodGpuOptions.DEFAULT.nodePolicy(),
            GoMigConverter.weights(in.path("weights")),
            GoMigConverter.numaBind(annos));
    NodeDevices node =
        new NodeDevices(
            "n", ImmutableList.copyOf(devices), GoMigConverter.pairs(in.path("nodeInfo")), null, 0);
    Placement p =
        new NodePlacer(false, DeviceFitter.QuotaCheck.NONE)
            .place(node, PodRequests.of(List.of(reqs), 0), opts, null);
    if (!p.fits()) {
      return "refused: " + p.reasons();
    }
    List<String> ids = new ArrayList<>();
    for (DevicePick d : p.containers().get(0)) {
      ids.add(GoMigConverter.answer(d, true));
    }
    return "fit: " + ids;
  }
}
