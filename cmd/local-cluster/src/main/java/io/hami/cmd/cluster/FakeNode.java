package io.hami.cmd.cluster;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Node object made by the harness in place of a kubelet: the object is created first, then its
 * capacity, allocatable, addresses and Ready condition are written through the status subresource,
 * as kubelet does.
 */
public final class FakeNode {
  private final String name;
  private final Map<String, String> labels = new LinkedHashMap<>();
  private final Map<String, Quantity> capacity = new LinkedHashMap<>();

  private FakeNode(String name) {
    this.name = requireNonNull(name);
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    capacity.put("cpu", new Quantity("16"));
    capacity.put("memory", new Quantity("64Gi"));
    capacity.put("ephemeral-storage", new Quantity("100Gi"));
    capacity.put("pods", new Quantity("110"));
  }

  /** A node with 16 CPUs, 64 GiB of memory, 110 pods and no extended resources. */
  public static FakeNode named(String name) {
    return new FakeNode(name);
  }

  public FakeNode label(String key, String value) {
    labels.put(key, value);
    return this;
  }

  /** Sets a resource in both capacity and allocatable, e.g. {@code ("nvidia.com/gpu", "8")}. */
  public FakeNode resource(String resource, String quantity) {
    capacity.put(resource, new Quantity(quantity));
    return this;
  }

  public String name() {
    return name;
  }

  /** The object as first created, without status. */
  public Node object() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(Map.copyOf(labels))
        .endMetadata()
        .build();
  }

  /** Creates the node and publishes its status; returns the node as the server now has it. */
  public Node register(KubernetesClient client) {
    client.nodes().resource(object()).create();
    Node ready = publishStatus(client);
    clearNotReadyTaint(client);
    return ready;
  }

  /**
   * Removes the {@code node.kubernetes.io/not-ready} taint that admission puts on every new node.
   * In a cluster the node lifecycle controller does this once the node is Ready; the harness runs
   * no node lifecycle controller.
   */
  public void clearNotReadyTaint(KubernetesClient client) {
    client
        .nodes()
        .withName(name)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .withTaints(
                        n.getSpec().getTaints() == null
                            ? List.of()
                            : n.getSpec().getTaints().stream()
                                .filter(t -> !t.getKey().startsWith("node.kubernetes.io/not-ready"))
                                .toList())
                    .endSpec()
                    .build());
  }

  /**
   * Writes capacity, allocatable, addresses and a fresh Ready condition through {@code
   * nodes/status}.
   */
  public Node publishStatus(KubernetesClient client) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    NodeCondition ready =
        new NodeConditionBuilder()
            .withType("Ready")
            .withStatus("True")
            .withReason("KubeletReady")
            .withMessage("fake node managed by the e2e harness")
            .withLastHeartbeatTime(now)
            .withLastTransitionTime(now)
            .build();
    return client
        .nodes()
        .withName(name)
        .editStatus(
            n ->
                new NodeBuilder(n)
                    .editOrNewStatus()
                    .withCapacity(Map.copyOf(capacity))
                    .withAllocatable(Map.copyOf(capacity))
                    .withConditions(ready)
                    .withAddresses(
                        new NodeAddressBuilder()
                            .withType("InternalIP")
                            .withAddress("127.0.0.1")
                            .build(),
                        new NodeAddressBuilder().withType("Hostname").withAddress(name).build())
                    .withNewNodeInfo()
                    .withArchitecture("amd64")
                    .withOperatingSystem("linux")
                    .withKubeletVersion("v0.0.0-hami-fake")
                    .withContainerRuntimeVersion("fake://0")
                    .withKernelVersion("")
                    .withOsImage("fake")
                    .withMachineID(name)
                    .withSystemUUID(name)
                    .withBootID(name)
                    .withKubeProxyVersion("")
                    .endNodeInfo()
                    .endStatus()
                    .build());
  }
}
