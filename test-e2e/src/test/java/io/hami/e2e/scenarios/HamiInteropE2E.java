package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.FakeNode;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Interop with HAMi v2.10 through its recorded answers (test resources {@code
 * conformance/hami-v2.10/}), on the real control plane: nodes whose register annotation HAMi's own
 * encoders wrote are decoded and placed on, and the device annotation the scheduler writes is, byte
 * for byte, the string HAMi's decoder was given for the same devices.
 *
 * <p>The nodes have no agent: a pod's node lock stays held after its binding, so each node takes
 * one pod.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class HamiInteropE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String GROUP = "e2e.hami.io/interop";
  private static final String TO_ALLOCATE = "hami.io/vgpu-devices-to-allocate";

  private final List<String> nodes = new ArrayList<>();

  @AfterEach
  void deleteNodes(KubernetesClient client) {
    nodes.forEach(n -> client.nodes().withName(n).delete());
    nodes.clear();
  }

  @Test
  void registersWrittenByHamisEncoders_areDecodedAndPlacedOn(
      KubernetesClient client, TestNamespace ns) throws Exception {
    // JSON (MarshalNodeDevices, what v2.8+ device plugins write) and the colon form
    // (EncodeNodeDevices, older plugins), each a node of NVIDIA GPUs HAMi would place on.
    List<JsonNode> registers = new ArrayList<>();
    registers.addAll(usableRegisters("device.MarshalNodeDevices", 3));
    registers.addAll(usableRegisters("device.EncodeNodeDevices", 3));
    assertThat(registers).hasSize(6);
    for (int i = 0; i < registers.size(); i++) {
      JsonNode r = registers.get(i);
      String node = ns.name() + "-hami-" + i;
      long count = 0;
      long minMem = Long.MAX_VALUE;
      Set<String> ids = new LinkedHashSet<>();
      for (JsonNode d : r.path("in")) {
        count += d.path("Count").asLong();
        minMem = Math.min(minMem, d.path("Devmem").asLong());
        ids.add(d.path("ID").asString());
      }
      bareNode(client, node, r.path("out").asString(), count);
      String pod = "on-hami-" + i;
      create(client, ns, pod, node, List.of(new Ask(1, minMem / 2, 10)));
      Pod bound = awaitAnnotated(client, ns, pod);
      System.out.printf(
          "e2e: %s (%s) -> %s %s%n",
          r.path("case").asString(),
          r.path("fn").asString(),
          bound.getSpec().getNodeName(),
          bound.getMetadata().getAnnotations().get(TO_ALLOCATE));
      assertThat(bound.getSpec().getNodeName()).isEqualTo(node);
      String uuid = bound.getMetadata().getAnnotations().get(TO_ALLOCATE).split(",", 2)[0];
      assertThat(ids).as("the device comes from HAMi's register").contains(uuid);
    }
  }

  @Test
  void writtenDeviceAnnotations_areWhatHamisDecoderReads(KubernetesClient client, TestNamespace ns)
      throws Exception {
    List<Case> cases = forcedDecoderCases(6);
    assertThat(cases).hasSizeGreaterThanOrEqualTo(6);
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      String node = ns.name() + "-dec-" + i;
      StringBuilder register = new StringBuilder("[");
      int index = 0;
      for (String uuid : c.uuids()) {
        register
            .append(index == 0 ? "" : ",")
            .append("{\"id\":\"")
            .append(uuid)
            .append("\",\"index\":")
            .append(index++)
            .append(",\"count\":10,\"devmem\":16384,\"devcore\":100,")
            .append("\"type\":\"NVIDIA-A100\",\"mode\":\"hami-core\",\"health\":true}");
      }
      bareNode(client, node, register.append(']').toString(), 10L * c.uuids().size());
      String pod = "dec-" + i;
      create(client, ns, pod, node, c.asks());
      Pod bound = awaitAnnotated(client, ns, pod);
      String written = bound.getMetadata().getAnnotations().get(TO_ALLOCATE);
      System.out.printf(
          "e2e: %s: HAMi decodes %s, we wrote %s%n", c.name(), c.annotation(), written);
      assertThat(written).as(c.name()).isEqualTo(c.annotation());
    }
  }

  /** One container's request: {@code nums} GPUs with {@code mem} MiB and {@code cores}% each. */
  private record Ask(int nums, long mem, long cores) {}

  /** A decoder record whose devices a pod's requests can only get one way on a node of its GPUs. */
  private record Case(String name, String annotation, Set<String> uuids, List<Ask> asks) {}

  /**
   * Decoder records of NVIDIA-only pods where every container takes every GPU of the node, each
   * with the same memory and cores: the placement is forced, so the annotation must match.
   */
  private static List<Case> forcedDecoderCases(int limit) throws IOException {
    Map<String, Case> out = new LinkedHashMap<>();
    for (JsonNode r : records("device.DecodePodDevices")) {
      String value = r.path("in").path("annos").path(TO_ALLOCATE).asString("");
      JsonNode pd = r.path("out").path("pd");
      if (!r.path("out").path("err").isNull()
          || value.isEmpty()
          || !value.endsWith(";")
          || pd.size() != 1
          || !pd.has("NVIDIA")) {
        continue;
      }
      List<JsonNode> containers = new ArrayList<>();
      pd.path("NVIDIA").forEach(containers::add);
      if (!containers.isEmpty() && containers.get(containers.size() - 1).isEmpty()) {
        containers.remove(containers.size() - 1);
      }
      Set<String> uuids = new LinkedHashSet<>();
      List<Ask> asks = new ArrayList<>();
      boolean usable = !containers.isEmpty();
      // Only strings in HAMi's own encoding: a decoder input with extra fields is no encoder
      // output.
      StringBuilder canonical = new StringBuilder();
      for (JsonNode c : containers) {
        for (JsonNode d : c) {
          canonical
              .append(d.path("UUID").asString())
              .append(',')
              .append(d.path("Type").asString())
              .append(',')
              .append(d.path("Usedmem").asLong())
              .append(',')
              .append(d.path("Usedcores").asLong())
              .append(':');
        }
        canonical.append(';');
      }
      usable &= canonical.toString().equals(value);
      for (JsonNode c : containers) {
        Set<String> own = new LinkedHashSet<>();
        Set<String> shapes = new LinkedHashSet<>();
        for (JsonNode d : c) {
          own.add(d.path("UUID").asString());
          shapes.add(d.path("Usedmem").asLong() + "/" + d.path("Usedcores").asLong());
          usable &= d.path("Type").asString().equals("NVIDIA") && d.path("Usedmem").asLong() > 0;
        }
        usable &= !c.isEmpty() && own.size() == c.size() && shapes.size() == 1;
        uuids.addAll(own);
        if (usable) {
          JsonNode d = c.get(0);
          asks.add(new Ask(c.size(), d.path("Usedmem").asLong(), d.path("Usedcores").asLong()));
        }
      }
      long memOnOneGpu = 0;
      long coresOnOneGpu = 0;
      for (Ask a : asks) {
        usable &= a.nums() == uuids.size();
        memOnOneGpu += a.mem();
        coresOnOneGpu += a.cores();
      }
      if (usable && memOnOneGpu <= 16384 && coresOnOneGpu <= 100 && !out.containsKey(value)) {
        out.put(value, new Case(r.path("case").asString(), value, uuids, asks));
      }
    }
    return out.values().stream().limit(limit).toList();
  }

  /** Encoder records of healthy NVIDIA GPUs with room for a pod. */
  private static List<JsonNode> usableRegisters(String fn, int limit) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (JsonNode r : records(fn)) {
      JsonNode devices = r.path("in");
      if (!devices.isArray() || devices.isEmpty()) {
        continue;
      }
      boolean usable = true;
      Set<String> ids = new LinkedHashSet<>();
      for (JsonNode d : devices) {
        usable &=
            d.path("Type").asString().contains("NVIDIA")
                && d.path("Health").asBoolean()
                && d.path("Count").asLong() > 0
                && d.path("Devmem").asLong() >= 1000
                && d.path("Devcore").asLong() >= 10
                && d.path("Mode").asString("").equals("hami-core");
        ids.add(d.path("ID").asString());
      }
      if (usable && ids.size() == devices.size() && seen.add(r.path("out").asString())) {
        out.add(r);
        if (out.size() == limit) {
          break;
        }
      }
    }
    return out;
  }

  private static List<JsonNode> records(String fn) throws IOException {
    String resource = "/conformance/hami-v2.10/" + fn + ".jsonl.gz";
    List<JsonNode> out = new ArrayList<>();
    try (InputStream raw = HamiInteropE2E.class.getResourceAsStream(resource)) {
      assertThat(raw).as(resource).isNotNull();
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(new GZIPInputStream(raw), StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }

  private void bareNode(KubernetesClient client, String name, String register, long count) {
    FakeNode.named(name)
        .label(GROUP, "true")
        .resource("nvidia.com/gpu", Long.toString(count))
        .register(client);
    nodes.add(name);
    client
        .nodes()
        .withName(name)
        .edit(
            n -> {
              n.getMetadata().setAnnotations(Map.of(Annotations.NODE_NVIDIA_REGISTER, register));
              return n;
            });
  }

  private static void create(
      KubernetesClient client, TestNamespace ns, String name, String node, List<Ask> asks) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("hami-scheduler")
            .withTerminationGracePeriodSeconds(GpuPods.TERMINATION_GRACE_SECONDS)
            .withNodeSelector(Map.of("kubernetes.io/hostname", node))
            .endSpec();
    for (int i = 0; i < asks.size(); i++) {
      Ask a = asks.get(i);
      Map<String, Quantity> limits = new LinkedHashMap<>();
      limits.put("nvidia.com/gpu", new Quantity(Integer.toString(a.nums())));
      limits.put("nvidia.com/gpumem", new Quantity(Long.toString(a.mem())));
      if (a.cores() > 0) {
        limits.put("nvidia.com/gpucores", new Quantity(Long.toString(a.cores())));
      }
      b.editSpec()
          .addToContainers(
              new ContainerBuilder()
                  .withName("c" + i)
                  .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
                  .withNewResources()
                  .withLimits(limits)
                  .endResources()
                  .build())
          .endSpec();
    }
    client.pods().inNamespace(ns.name()).resource(b.build()).create();
  }

  /** Waits until the pod is bound with its device annotation written. */
  private static Pod awaitAnnotated(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> client.pods().inNamespace(ns.name()).withName(name).get(),
            p ->
                p != null
                    && p.getSpec().getNodeName() != null
                    && p.getMetadata().getAnnotations() != null
                    && p.getMetadata().getAnnotations().containsKey(TO_ALLOCATE));
  }
}
