package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.framework.api.BindingMetadata;
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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a placement on the pod: the {@link BindingAnnotations}, the record for {@code hami
 * explain} and the {@code hami.io/vgpu-node} label. They travel in the pod's Binding ({@link
 * BindingMetadata}), which the API server copies onto the pod as it sets {@code spec.nodeName}, so
 * the happy path costs no write of its own. HAMi's device plugin reads them only once the pod is
 * bound to its node (protocol §7.5), and the pod never carries them without its node.
 *
 * <p>The API server copies a Binding's labels only from Kubernetes 1.35 (gate {@code
 * PodTopologyLabelsAdmission}, on by default); against an older one, or one whose version cannot be
 * read, the label goes in a merge patch of its own before binding, as it always did.
 *
 * <p>Concurrency: called on binding threads; the one-time version check is racy but idempotent.
 */
final class BindingWriter {

  /** The first Kubernetes minor version whose API server copies a Binding's labels. */
  static final int LABELS_COPIED_SINCE_MINOR = 35;

  private static final Logger log = LoggerFactory.getLogger(BindingWriter.class);

  private final FrameworkHandle handle;
  private final List<GpuVendor> vendors;
  private volatile @Nullable Boolean labelsCopied;

  BindingWriter(FrameworkHandle handle, List<GpuVendor> vendors) {
    this.handle = handle;
    this.vendors = List.copyOf(vendors);
  }

  /**
   * Leaves the placement's metadata for the Binding; success without an API client (nothing to
   * write to). Patches the label when the API server would not copy it.
   */
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
    Map<String, String> label = Map.of(Annotations.VGPU_NODE, nodeName);
    if (labelsCopied(client)) {
      BindingMetadata.add(state, annos, label);
      return Status.success();
    }
    BindingMetadata.add(state, annos, Map.of());
    return patchLabel(client, pod, label);
  }

  private static Status patchLabel(KubernetesClient client, Pod pod, Map<String, String> label) {
    Map<String, Object> patch = Map.of("metadata", Map.of("labels", label));
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

  private boolean labelsCopied(KubernetesClient client) {
    Boolean known = labelsCopied;
    if (known != null) {
      return known;
    }
    boolean copied;
    try {
      copied = copiesBindingLabels(client.getKubernetesVersion());
    } catch (RuntimeException e) {
      log.info(
          "API server version unknown ({}); the {} label is patched before binding",
          e.getMessage(),
          Annotations.VGPU_NODE);
      copied = false;
    }
    labelsCopied = copied;
    return copied;
  }

  /**
   * Whether an API server of {@code version} copies a Binding's labels onto the pod: 1.35 and
   * later. Minor versions such as {@code "35+"} (managed clusters) count by their digits.
   */
  static boolean copiesBindingLabels(@Nullable VersionInfo version) {
    if (version == null) {
      return false;
    }
    int major = leadingNumber(version.getMajor());
    int minor = leadingNumber(version.getMinor());
    return major > 1 || (major == 1 && minor >= LABELS_COPIED_SINCE_MINOR);
  }

  private static int leadingNumber(@Nullable String s) {
    if (s == null) {
      return -1;
    }
    int end = 0;
    while (end < s.length() && end < 9 && Character.isDigit(s.charAt(end))) {
      end++;
    }
    return end == 0 ? -1 : Integer.parseInt(s.substring(0, end));
  }
}
