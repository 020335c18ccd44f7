package io.hami.cmd.scheduler.ui;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceJson;
import java.util.ArrayList;
import java.util.List;

/** Nodes with registered GPUs and pods holding shares of them, for the view's tests. */
final class ViewFixtures {
  /** A value no response of the view may ever contain. */
  static final String SECRET = "s3cr3t-hunter2";

  private ViewFixtures() {}

  static String uuid(String node, int i) {
    return "GPU-" + node + "-" + i;
  }

  /** A node registering {@code gpus} GPUs of 81920 MiB, 100 cores, 10 slots each. */
  static MakeNode gpuNode(String name, int gpus) {
    List<NodeDevice> devices = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      devices.add(
          NodeDevice.of(
              uuid(name, i), i, 10, 81920, 100, "NVIDIA A100-SXM4-80GB", i / 4, "hami-core", true));
    }
    return MakeNode.named(name)
        .annotation(Annotations.NODE_NVIDIA_REGISTER, NodeDeviceJson.encode(devices))
        .annotation("node.alpha.kubernetes.io/ttl", "0");
  }

  /**
   * A pod on {@code node} whose containers hold the given grants, each {@code uuid,mem,cores}; one
   * container per argument. It carries an env value and a non-HAMi annotation that must never show.
   */
  static MakePod gpuPod(String ns, String name, String node, String... containers) {
    StringBuilder grants = new StringBuilder();
    for (String c : containers) {
      String[] f = c.split(",");
      grants.append(f[0]).append(",NVIDIA,").append(f[1]).append(',').append(f[2]).append(":;");
    }
    return MakePod.named(name)
        .namespace(ns)
        .uid(ns + "-" + name)
        .nodeName(node)
        .annotation(Annotations.VGPU_DEVICES_ALLOCATED, grants.toString())
        .annotation("example.com/api-token", SECRET)
        .container("main");
  }

  /** The pod with an environment variable holding {@link #SECRET}. */
  static Pod withSecretEnv(Pod pod) {
    pod.getSpec().getContainers().get(0).setEnv(List.of(new EnvVar("PASSWORD", SECRET, null)));
    return pod;
  }

  static Pod withCondition(Pod pod, String reason, String message) {
    PodCondition c =
        new PodConditionBuilder()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason(reason)
            .withMessage(message)
            .build();
    if (pod.getStatus() == null) {
      pod.setStatus(new PodStatus());
    }
    pod.getStatus().setConditions(List.of(c));
    return pod;
  }

  static NodeInfo info(Node node, Pod... pods) {
    List<PodInfo> infos = new ArrayList<>();
    for (Pod p : pods) {
      infos.add(PodInfo.of(p));
    }
    return NodeInfo.of(node, infos);
  }
}
