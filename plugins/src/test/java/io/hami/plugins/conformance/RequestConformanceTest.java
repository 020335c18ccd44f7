package io.hami.plugins.conformance;

import static io.hami.plugins.conformance.Ledger.hami;

import io.hami.model.Decoded;
import io.hami.model.pod.DeviceSelectors;
import io.hami.model.pod.DeviceUsage;
import io.hami.model.pod.ScoringWeights;
import io.hami.model.pod.UsageCollapse;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.plugins.conformance.HamiRecords.Record;
import io.hami.plugins.vgpu.ConformanceProbe;
import io.hami.plugins.vgpu.GpuPolicy;
import io.hami.plugins.vgpu.PodGpuOptions;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import tools.jackson.databind.JsonNode;

/**
 * Replays HAMi v2.10's recorded calls of its request and selection helpers through ours: the
 * container request derived from resources, the use/no-use annotations, the usage collapse of init
 * containers, and the policy and weight annotations as the vGPU plugin reads them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class RequestConformanceTest {

  private static final long INT32_MAX = Integer.MAX_VALUE;

  private final Ledger ledger =
      new Ledger(
          new Ledger.Deliberate(
              "nvidia.GenerateResourceRequests",
              "gpu count or gpumem not usable (fractional, negative, past int32 after the memory"
                  + " factor): HAMi drops the container's device request, which its own tests call"
                  + " rejecting it; ours refuses the pod, naming the resource and value",
              RequestConformanceTest::deviceRequestUnusable),
          new Ledger.Deliberate(
              "nvidia.GenerateResourceRequests",
              "gpucores fractional, negative or past int32, or gpumem-percentage fractional: HAMi"
                  + " ignores the value or wraps it; ours refuses the pod, naming the resource and"
                  + " value",
              RequestConformanceTest::coresOrPercentageUnusable));

  @AfterAll
  void everyExceptionHit() {
    ledger.assertEveryExceptionHit();
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.CheckType")
  void checkType(Record r) {
    JsonNode in = r.in();
    ledger.check(
        r,
        r.out().asBoolean(),
        DeviceSelectors.typeAllowed(
            GoValues.strings(in.path("annos")),
            in.path("useKey").asString(),
            in.path("noUseKey").asString(),
            in.path("cardType").asString()));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.CheckUUID")
  void checkUuid(Record r) {
    JsonNode in = r.in();
    ledger.check(
        r,
        r.out().asBoolean(),
        DeviceSelectors.uuidAllowed(
            GoValues.strings(in.path("annos")),
            in.path("useKey").asString(),
            in.path("noUseKey").asString(),
            in.path("id").asString()));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.CollapseInitContainerUsage")
  void collapseInitContainerUsage(Record r) {
    ledger.check(r, hamiUsage(r.out()), collapse(r.in(), false));
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("device.AppContainersOnlyDeviceUsage")
  void appContainersOnlyDeviceUsage(Record r) {
    ledger.check(r, hamiUsage(r.out()), collapse(r.in(), true));
  }

  /** HAMi's collapsed usage by vendor, then by device; the order of the devices is not kept. */
  private static Map<String, Map<String, DeviceUsage>> hamiUsage(JsonNode out) {
    Map<String, Map<String, DeviceUsage>> m = new LinkedHashMap<>();
    out.properties().forEach(e -> m.put(e.getKey(), GoValues.usage(e.getValue())));
    return m;
  }

  private static Map<String, Map<String, DeviceUsage>> collapse(JsonNode in, boolean appOnly) {
    int inits = GoValues.initContainers(in.path("pod"));
    Map<String, Map<String, DeviceUsage>> m = new LinkedHashMap<>();
    GoValues.podDevices(in.path("raw"))
        .forEach((vendor, pd) -> m.put(vendor, UsageCollapse.collapse(pd, inits, appOnly)));
    return m;
  }

  @ParameterizedTest(name = "{0}")
  @HamiSource("nvidia.GenerateResourceRequests")
  void generateResourceRequests(Record r) {
    JsonNode c = r.in().path("config");
    RequestRule rule =
        new RequestRule(
            new ResourceNames(
                c.path("ResourceCountName").asString(),
                c.path("ResourceMemoryName").asString(),
                c.path("ResourceMemoryPercentageName").asString(),
                c.path("ResourceCoreName").asString(),
                ResourceNames.NVIDIA.priority()),
            "NVIDIA",
            c.path("MemoryFactor").asInt(),
            c.path("DefaultMemory").asInt(),
            c.path("DefaultCores").asInt());
    JsonNode out = r.out();
    Object hami =
        out.path("Nums").asInt() == 0
            ? "no request"
            : new ContainerRequest(
                out.path("Nums").asInt(),
                out.path("Type").asString(),
                out.path("Memreq").asInt(),
                out.path("MemPercentagereq").asInt(),
                out.path("Coresreq").asInt());
    Decoded<ContainerRequest> d = rule.derive(GoValues.resources(r.in().path("ctr")));
    Object ours =
        d.isOk()
            ? (d.orElse(ContainerRequest.none("NVIDIA")).isEmpty()
                ? "no request"
                : d.orElse(ContainerRequest.none("NVIDIA")))
            : Ledger.ERROR;
    ledger.check(r, hami, ours);
  }

  /** The container's quantity for the resource the config names in {@code field}, or null. */
  private static @Nullable String quantity(JsonNode in, String field) {
    return GoValues.resources(in.path("ctr")).get(in.path("config").path(field).asString());
  }

  /** The exact value of a quantity, or null when it does not parse. */
  private static @Nullable BigDecimal value(String q) {
    return Quantities.parse("", q).toOptional().orElse(null);
  }

  /** Whether a quantity is a whole number in {@code [0, max]}. */
  private static boolean whole(String q, long max) {
    BigDecimal v = value(q);
    return v != null
        && v.signum() >= 0
        && v.stripTrailingZeros().scale() <= 0
        && v.compareTo(BigDecimal.valueOf(max)) <= 0;
  }

  /** Whether the count, or the memory of a non-zero count, is unusable. */
  private static boolean deviceRequestUnusable(JsonNode in) {
    String count = quantity(in, "ResourceCountName");
    if (count == null) {
      return false;
    }
    if (!whole(count, INT32_MAX)) {
      return true;
    }
    String mem = quantity(in, "ResourceMemoryName");
    long factor = Math.max(in.path("config").path("MemoryFactor").asLong(), 1);
    return value(count).signum() > 0 && mem != null && !whole(mem, INT32_MAX / factor);
  }

  /** Whether a usable non-zero request carries unusable cores or percentage. */
  private static boolean coresOrPercentageUnusable(JsonNode in) {
    String count = quantity(in, "ResourceCountName");
    if (count == null || deviceRequestUnusable(in) || value(count).signum() == 0) {
      return false;
    }
    String cores = quantity(in, "ResourceCoreName");
    String pct = quantity(in, "ResourceMemoryPercentageName");
    BigDecimal p = pct == null ? null : value(pct);
    return (cores != null && !whole(cores, INT32_MAX))
        || (pct != null && (p == null || p.stripTrailingZeros().scale() > 0));
  }

  /** {@code [type fits, numa-bind]}: the fit's type check and the pod's NUMA binding. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("nvidia.checkType")
  void nvidiaCheckType(Record r) {
    JsonNode in = r.in();
    Object ours;
    try {
      PodGpuOptions opts =
          ConformanceProbe.optionsOf(GoValues.podWithAnnotations(in.path("annos")), "spread");
      ours =
          List.of(
              ConformanceProbe.typeFits(
                  opts,
                  in.path("reqType").asString(),
                  in.path("type").asString(),
                  in.path("mode").asString()),
              opts.numaBind());
    } catch (IllegalArgumentException e) {
      ours = Ledger.ERROR + " " + e.getMessage();
    }
    ledger.check(r, List.of(r.out().get(0).asBoolean(), r.out().get(1).asBoolean()), ours);
  }

  /** The policy HAMi reads is compared with ours as the device order and fit behaviour it gives. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("util.GetGPUSchedulerPolicyByPod")
  void getGpuSchedulerPolicyByPod(Record r) {
    JsonNode in = r.in();
    Object ours;
    try {
      ours =
          ConformanceProbe.optionsOf(
                  GoValues.podWithAnnotations(in.path("annos")), in.path("default").asString())
              .gpuPolicy();
    } catch (IllegalArgumentException e) {
      ours = Ledger.ERROR + " " + e.getMessage();
    }
    ledger.check(r, GpuPolicy.parse(r.out().asString()), ours);
  }

  /** {@code mutex} and {@code topology-aware} are asked of the behaviours they switch on. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("util.PolicyContains")
  void policyContains(Record r) {
    GpuPolicy p = GpuPolicy.parse(r.in().path("policy").asString());
    String name = r.in().path("name").asString();
    boolean ours =
        switch (name) {
          case "mutex" -> p.mutex();
          case "topology-aware" -> p.topologyAware();
          default -> p.names(name);
        };
    ledger.check(r, r.out().asBoolean(), ours);
  }

  /** Errors are compared by their text after HAMi's {@code invalid <annotation> "<value>": }. */
  @ParameterizedTest(name = "{0}")
  @HamiSource("util.ParseDeviceScoringWeights")
  void parseDeviceScoringWeights(Record r) {
    JsonNode out = r.out();
    JsonNode w = out.path("w");
    String err = out.path("err").asString("");
    Object hami =
        GoValues.isError(out.path("err"))
            ? Ledger.ERROR + " " + err.substring(err.lastIndexOf("\": ") + 3)
            : new ScoringWeights(
                w.path("Slot").asInt(), w.path("Core").asInt(), w.path("Memory").asInt());
    Decoded<ScoringWeights> d = ScoringWeights.decode(r.in().asString());
    Object ours = d.orElse(ScoringWeights.DEFAULT);
    if (!d.isOk()) {
      // Ours may say more after HAMi's words (the offending entry), never less.
      String message = d.failure().orElseThrow().message();
      ours =
          hami instanceof String h && message.startsWith(h.substring(Ledger.ERROR.length() + 1))
              ? h
              : Ledger.ERROR + " " + message;
    }
    ledger.check(r, hami, ours);
  }
}
