package io.hami.cmd.cluster;

import com.google.common.base.Splitter;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks, from annotations alone, that no device is over-committed and that every pod reported
 * allocated holds each of its devices exactly once. Returns the violations; empty when none.
 */
public final class Invariants {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private Invariants() {}

  /** A device as its node registers it. */
  public record Registered(String uuid, int count, long devmem, long devcore) {}

  /** One device entry of a pod annotation: {@code uuid,type,mem,cores}. */
  public record Use(String uuid, String type, long mem, long cores) {}

  /** Parses {@code hami.io/vgpu-devices-allocated}: containers split by ';', devices by ':'. */
  public static List<List<Use>> parseDevices(String value) {
    List<List<Use>> containers = new ArrayList<>();
    String[] parts = value.split(";", -1);
    // The value ends with ';', which leaves one empty trailing part that is no container.
    int n = value.endsWith(";") ? parts.length - 1 : parts.length;
    for (int i = 0; i < n; i++) {
      List<Use> devices = new ArrayList<>();
      for (String d : Splitter.on(':').omitEmptyStrings().split(parts[i])) {
        List<String> f = new ArrayList<>(Splitter.on(',').splitToList(d));
        // Trailing empty fields do not count, so "a,b,1,2," still reads as four.
        while (!f.isEmpty() && f.get(f.size() - 1).isEmpty()) {
          f.remove(f.size() - 1);
        }
        if (f.size() != 4) {
          throw new IllegalArgumentException(
              "device entry \"" + d + "\" has " + f.size() + " fields, want 4");
        }
        devices.add(
            new Use(f.get(0), f.get(1), Long.parseLong(f.get(2)), Long.parseLong(f.get(3))));
      }
      containers.add(devices);
    }
    return containers;
  }

  public static Map<String, Registered> registered(Node node) {
    Map<String, Registered> out = new HashMap<>();
    Map<String, String> annos = node.getMetadata().getAnnotations();
    String reg = annos == null ? null : annos.get(Annotations.NODE_NVIDIA_REGISTER);
    if (reg == null) {
      return out;
    }
    JsonNode arr;
    try {
      arr = JSON.readTree(reg);
    } catch (RuntimeException e) {
      return out;
    }
    if (!arr.isArray()) {
      return out;
    }
    for (JsonNode d : arr) {
      String id = d.path("id").asString("");
      out.put(
          id,
          new Registered(
              id,
              d.path("count").asInt(0),
              d.path("devmem").asLong(0),
              d.path("devcore").asLong(0)));
    }
    return out;
  }

  /**
   * What one pod holds per device UUID, as {@code {mem, cores, slots}} (protocol §6.5): init
   * containers run one at a time, so they count by their peak with one slot; app containers run
   * together and count by their sum; the pod holds the larger of the two.
   *
   * @param initCount how many leading entries are init containers
   */
  public static Map<String, long[]> podUsage(List<List<Use>> containers, int initCount) {
    Map<String, long[]> init = new HashMap<>();
    Map<String, long[]> app = new HashMap<>();
    for (int i = 0; i < containers.size(); i++) {
      boolean isInit = i < initCount;
      for (Use u : containers.get(i)) {
        long[] t = (isInit ? init : app).computeIfAbsent(u.uuid(), k -> new long[3]);
        if (isInit) {
          t[0] = Math.max(t[0], u.mem());
          t[1] = Math.max(t[1], u.cores());
          t[2] = 1;
        } else {
          t[0] += u.mem();
          t[1] += u.cores();
          t[2] += 1;
        }
      }
    }
    Map<String, long[]> out = new HashMap<>(app);
    init.forEach(
        (uuid, i) ->
            out.merge(
                uuid,
                i,
                (a, b) ->
                    new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.max(a[2], b[2])}));
    return out;
  }

  /**
   * How many leading annotation entries are init containers: all of them when the annotation has
   * one entry per container; none otherwise (a writer that drops empty entries), which counts every
   * entry as an app container and can only over-count.
   */
  private static int initContainers(Pod pod, int entries) {
    int init =
        pod.getSpec().getInitContainers() == null ? 0 : pod.getSpec().getInitContainers().size();
    int apps = pod.getSpec().getContainers() == null ? 0 : pod.getSpec().getContainers().size();
    return entries == init + apps ? init : 0;
  }

  /** Checks the nodes named and every live pod assigned to them. */
  public static List<String> check(KubernetesClient client, Set<String> nodeNames) {
    List<String> violations = new ArrayList<>();
    Map<String, Map<String, Registered>> devicesByNode = new HashMap<>();
    for (String n : nodeNames) {
      Node node = client.nodes().withName(n).get();
      if (node == null) {
        violations.add("node " + n + " does not exist");
        continue;
      }
      devicesByNode.put(n, registered(node));
    }
    Map<String, long[]> used = new HashMap<>(); // uuid -> {mem, cores, slots}
    Map<String, String> uuidNode = new HashMap<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      Map<String, String> a = pod.getMetadata().getAnnotations();
      if (a == null
          || !nodeNames.contains(a.get(Annotations.VGPU_NODE))
          || PodPhases.isTerminal(pod)) {
        continue;
      }
      String id = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      String node = a.get(Annotations.VGPU_NODE);
      String allocated = a.get(Annotations.VGPU_DEVICES_ALLOCATED);
      if (allocated == null) {
        violations.add(
            id + ": assigned to " + node + " without " + Annotations.VGPU_DEVICES_ALLOCATED);
        continue;
      }
      List<List<Use>> containers;
      try {
        containers = parseDevices(allocated);
      } catch (RuntimeException e) {
        violations.add(
            id + ": " + Annotations.VGPU_DEVICES_ALLOCATED + " unreadable: " + e.getMessage());
        continue;
      }
      if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().equals(node)) {
        violations.add(
            id + ": bound to " + pod.getSpec().getNodeName() + " but annotated for " + node);
      }
      for (List<Use> c : containers) {
        Set<String> seen = new HashSet<>();
        for (Use u : c) {
          if (!seen.add(u.uuid())) {
            violations.add(id + ": device " + u.uuid() + " appears twice in one container");
          }
          Map<String, Registered> registered = devicesByNode.get(node);
          // A node that is gone was reported above; its pods are the garbage collector's.
          if (registered != null && !registered.containsKey(u.uuid())) {
            violations.add(id + ": device " + u.uuid() + " is not registered on " + node);
          }
          uuidNode.put(u.uuid(), node);
        }
      }
      podUsage(containers, initContainers(pod, containers.size()))
          .forEach(
              (uuid, u) -> {
                long[] t = used.computeIfAbsent(uuid, k -> new long[3]);
                t[0] += u[0];
                t[1] += u[1];
                t[2] += u[2];
              });
      if ("success".equals(a.get(Annotations.BIND_PHASE))) {
        String toAllocate = a.getOrDefault(Annotations.VGPU_DEVICES_TO_ALLOCATE, "");
        if (!toAllocate.replace(";", "").isEmpty()) {
          violations.add(id + ": bind-phase success but devices left to allocate: " + toAllocate);
        }
        if (containers.stream().allMatch(List::isEmpty)) {
          violations.add(id + ": bind-phase success without any allocated device");
        }
      }
    }
    used.forEach(
        (uuid, t) -> {
          Registered r = devicesByNode.getOrDefault(uuidNode.get(uuid), Map.of()).get(uuid);
          if (r == null) {
            return;
          }
          if (t[0] > r.devmem()) {
            violations.add("device " + uuid + ": " + t[0] + " MiB allocated of " + r.devmem());
          }
          if (t[1] > r.devcore()) {
            violations.add("device " + uuid + ": " + t[1] + "% cores allocated of " + r.devcore());
          }
          if (t[2] > r.count()) {
            violations.add("device " + uuid + ": " + t[2] + " slots used of " + r.count());
          }
        });
    return violations;
  }
}
