package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Status;
import io.hami.kube.PatchTargets;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecordCodec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a placement to the pod in one merge patch: the {@link BindingAnnotations}, the record for
 * {@code hami explain} and the {@code hami.io/vgpu-node} label.
 */
final class BindingWriter {

  private final FrameworkHandle handle;
  private final List<GpuVendor> vendors;

  BindingWriter(FrameworkHandle handle, List<GpuVendor> vendors) {
    this.handle = handle;
    this.vendors = List.copyOf(vendors);
  }

  /** Patches the pod; success without an API client (nothing to write to). */
  Status write(CycleState state, Pod pod, String nodeName, Placement placement) {
    KubernetesClient client = handle.client().orElse(null);
    if (client == null) {
      return Status.success();
    }
    Instant now = handle.clock().instant();
    Map<String, String> annos = new LinkedHashMap<>(BindingAnnotations.of(placement, now, vendors));
    annos.put(
        Annotations.SCHEDULE_EXPLAIN,
        ScheduleRecordCodec.encode(BindingAnnotations.scheduledRecord(state, nodeName, now)));
    Map<String, Object> patch =
        Map.of(
            "metadata",
            Map.of("annotations", annos, "labels", Map.of(Annotations.VGPU_NODE, nodeName)));
    try {
      client
          .pods()
          .resource(PatchTargets.pod(pod))
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              client.getKubernetesSerialization().asJson(patch));
      return Status.success();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Status.unschedulable("pod was deleted before binding");
      }
      return Status.error(e);
    }
  }
}
