package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fluent node fixture: {@code MakeNode.named("n1").capacity("8", "32Gi", 110).obj()}. Allocatable
 * equals capacity unless set separately; the node is Ready.
 */
public final class MakeNode {
  private final NodeBuilder builder;
  private final Map<String, Quantity> capacity = new LinkedHashMap<>();
  private final Map<String, Quantity> allocatable = new LinkedHashMap<>();

  private MakeNode(String name) {
    builder =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withUid("node-" + name)
            .withResourceVersion("1")
            .addToLabels("kubernetes.io/hostname", name)
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .withNewStatus()
            .withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True").build())
            .endStatus();
  }

  public static MakeNode named(String name) {
    return new MakeNode(name);
  }

  /** Sets cpu, memory and pods capacity (and allocatable). */
  public MakeNode capacity(String cpu, String memory, int pods) {
    return resource("cpu", cpu).resource("memory", memory).resource("pods", String.valueOf(pods));
  }

  /** Sets a capacity (and allocatable) entry. */
  public MakeNode resource(String name, String quantity) {
    capacity.put(name, new Quantity(quantity));
    allocatable.put(name, new Quantity(quantity));
    return this;
  }

  /** Overrides only the allocatable amount of {@code name}. */
  public MakeNode allocatable(String name, String quantity) {
    allocatable.put(name, new Quantity(quantity));
    return this;
  }

  public MakeNode label(String key, String value) {
    builder.editMetadata().addToLabels(key, value).endMetadata();
    return this;
  }

  /** Sets the {@code topology.kubernetes.io/zone} label. */
  public MakeNode zone(String zone) {
    return label("topology.kubernetes.io/zone", zone);
  }

  public MakeNode annotation(String key, String value) {
    builder.editMetadata().addToAnnotations(key, value).endMetadata();
    return this;
  }

  public MakeNode resourceVersion(String rv) {
    builder.editMetadata().withResourceVersion(rv).endMetadata();
    return this;
  }

  /** Adds a taint; {@code effect} is NoSchedule, PreferNoSchedule or NoExecute. */
  public MakeNode taint(String key, String value, String effect) {
    builder
        .editSpec()
        .addToTaints(
            new TaintBuilder()
                .withKey(key)
                .withValue(value.isEmpty() ? null : value)
                .withEffect(effect)
                .build())
        .endSpec();
    return this;
  }

  /** Adds an image to {@code status.images}, known by {@code names}, of {@code sizeBytes}. */
  public MakeNode image(long sizeBytes, String... names) {
    builder
        .editStatus()
        .addNewImage()
        .withNames(List.of(names))
        .withSizeBytes(sizeBytes)
        .endImage()
        .endStatus();
    return this;
  }

  public MakeNode unschedulable(boolean value) {
    builder.editSpec().withUnschedulable(value).endSpec();
    return this;
  }

  /** Builds a new Node object; the builder may be reused. */
  public Node obj() {
    Node node = builder.build();
    node.getStatus().setCapacity(new LinkedHashMap<>(capacity));
    node.getStatus().setAllocatable(new LinkedHashMap<>(allocatable));
    return node;
  }
}
