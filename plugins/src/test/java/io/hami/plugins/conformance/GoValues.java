package io.hami.plugins.conformance;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.DeviceUsage;
import io.hami.model.pod.PodDevices;
import io.hami.model.resource.ContainerResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Reads HAMi's Go values, as the records hold them (JSON with Go's field names), into our types. A
 * Go {@code nil} slice or map reads as empty.
 */
final class GoValues {
  private GoValues() {}

  /** Whether a recorded {@code error} is non-nil. */
  static boolean isError(JsonNode err) {
    return !err.isNull() && !err.isMissingNode();
  }

  /** A {@code map[string]string}. */
  static Map<String, String> strings(JsonNode m) {
    Map<String, String> out = new LinkedHashMap<>();
    m.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
    return out;
  }

  /** A {@code ContainerDevice}. */
  static ContainerDevice containerDevice(JsonNode d) {
    return new ContainerDevice(
        d.path("UUID").asString(),
        d.path("Type").asString(),
        d.path("Usedmem").asInt(),
        d.path("Usedcores").asInt());
  }

  /** A {@code ContainerDevices} slice. */
  static List<ContainerDevice> containerDevices(JsonNode a) {
    List<ContainerDevice> out = new ArrayList<>();
    a.forEach(d -> out.add(containerDevice(d)));
    return out;
  }

  /** A {@code PodSingleDevice}: one device list per container. */
  static PodDevices podSingle(JsonNode a) {
    List<List<ContainerDevice>> containers = new ArrayList<>();
    a.forEach(c -> containers.add(containerDevices(c)));
    return new PodDevices(containers);
  }

  /** A {@code PodDevices} map: vendor keyword → per-container device lists. */
  static Map<String, PodDevices> podDevices(JsonNode m) {
    Map<String, PodDevices> out = new LinkedHashMap<>();
    m.properties().forEach(e -> out.put(e.getKey(), podSingle(e.getValue())));
    return out;
  }

  /**
   * A collapsed {@code PodSingleDevice} (one entry whose devices carry {@code Slots}) as usage by
   * device UUID.
   */
  static Map<String, DeviceUsage> usage(JsonNode a) {
    Map<String, DeviceUsage> out = new LinkedHashMap<>();
    a.forEach(
        c ->
            c.forEach(
                d ->
                    out.put(
                        d.path("UUID").asString(),
                        new DeviceUsage(
                            d.path("Usedmem").asInt(),
                            d.path("Usedcores").asInt(),
                            d.path("Slots").asInt()))));
    return out;
  }

  /** A {@code DeviceInfo}, the fields the node register annotation carries. */
  static NodeDevice nodeDevice(JsonNode d) {
    List<MigProfile> profiles = new ArrayList<>();
    d.path("MIGProfiles").forEach(p -> profiles.add(migProfile(p)));
    return new NodeDevice(
        d.path("ID").asString(),
        d.path("Index").asInt(),
        d.path("Count").asInt(),
        d.path("Devmem").asInt(),
        d.path("Devcore").asInt(),
        d.path("Type").asString(),
        d.path("Numa").asInt(),
        d.path("Mode").asString(),
        profiles,
        d.path("Health").asBoolean());
  }

  /** A {@code []*DeviceInfo}. */
  static List<NodeDevice> nodeDevices(JsonNode a) {
    List<NodeDevice> out = new ArrayList<>();
    a.forEach(d -> out.add(nodeDevice(d)));
    return out;
  }

  private static MigProfile migProfile(JsonNode p) {
    List<MigPlacement> placements = new ArrayList<>();
    p.path("Placements")
        .forEach(
            pl ->
                placements.add(
                    new MigPlacement(pl.path("Start").asInt(), pl.path("Size").asInt())));
    return new MigProfile(
        p.path("Name").asString(),
        p.path("MemoryMB").asInt(),
        p.path("Core").asInt(),
        p.path("SliceCount").asInt(),
        p.path("InstanceCount").asInt(),
        placements);
  }

  /** A container's {@code resources} (limits and requests as quantity strings). */
  static ContainerResources resources(JsonNode ctr) {
    JsonNode r = ctr.path("resources");
    return new ContainerResources(strings(r.path("limits")), strings(r.path("requests")));
  }

  /** How many init containers a pod's API JSON lists. */
  static int initContainers(JsonNode pod) {
    return pod.path("spec").path("initContainers").size();
  }

  /** A pod with these annotations ({@code null}: none), named as HAMi's test pods are. */
  static Pod podWithAnnotations(JsonNode annos) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName("p")
        .withUid("uid-p")
        .withAnnotations(annos.isObject() ? strings(annos) : null)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }
}
