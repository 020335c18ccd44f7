package io.hami.cmd.explain;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.hami.model.Annotations;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Fabric8 objects for the explain tests. */
final class Fixtures {
  static final Instant NOW = Instant.parse("2026-11-29T14:00:00Z");

  private Fixtures() {}

  /** A GPU pod in {@code ns} with init container {@code setup} and app container {@code cuda}. */
  static PodBuilder pod(String ns, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withUid(name + "-uid")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("hami-scheduler")
        .addNewInitContainer()
        .withName("setup")
        .withImage("busybox")
        .endInitContainer()
        .addNewContainer()
        .withName("cuda")
        .withImage("cuda")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus();
  }

  static PodBuilder unschedulable(PodBuilder b, String message) {
    return b.editStatus()
        .addToConditions(
            new PodConditionBuilder()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason("Unschedulable")
                .withMessage(message)
                .withLastTransitionTime("2026-11-29T13:59:00Z")
                .build())
        .endStatus();
  }

  static PodBuilder bound(PodBuilder b, String node) {
    return b.editSpec()
        .withNodeName(node)
        .endSpec()
        .editStatus()
        .withPhase("Running")
        .addToConditions(
            new PodConditionBuilder().withType("PodScheduled").withStatus("True").build())
        .endStatus();
  }

  static Node node(String name, Map<String, String> annotations) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  static Node lockedNode(String name, String lock) {
    return node(name, Map.of(Annotations.MUTEX_LOCK, lock));
  }

  static Event event(Pod pod, String type, String reason, String message, String at) {
    return new EventBuilder()
        .withNewMetadata()
        .withNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName() + "." + reason + at.hashCode())
        .endMetadata()
        .withNewInvolvedObject()
        .withKind("Pod")
        .withName(pod.getMetadata().getName())
        .withNamespace(pod.getMetadata().getNamespace())
        .withUid(pod.getMetadata().getUid())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withFirstTimestamp(at)
        .withLastTimestamp(at)
        .withCount(1)
        .withNewSource()
        .withComponent("hami-scheduler")
        .endSource()
        .build();
  }

  static PodFacts facts(
      Pod pod,
      List<Event> events,
      Map<String, Optional<Node>> nodes,
      Map<String, Optional<Pod>> holders) {
    return new PodFacts(pod, events, new LinkedHashMap<>(nodes), new LinkedHashMap<>(holders));
  }
}
