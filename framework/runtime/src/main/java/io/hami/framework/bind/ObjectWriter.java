package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.framework.api.Status;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Writes a new version of a cluster object that plugins read through listers (a PV's claimRef, a
 * PVC's annotations). Called on a binding thread; may block. Returns success, or an error status
 * naming the object.
 */
@FunctionalInterface
public interface ObjectWriter {

  Status update(HasMetadata obj);

  /**
   * A writer that updates through {@code client}; the object's resourceVersion, when set, makes it
   * fail on a conflict rather than overwrite a newer version. A conflict whose object now holds
   * what was written (its spec, annotations and labels) is a success: the update landed and only
   * its answer was lost, so the client's retry of it met the version it had written itself.
   */
  static ObjectWriter api(KubernetesClient client) {
    return obj -> {
      try {
        client.resource(obj).update();
        return Status.success();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 && holds(client, obj)) {
          return Status.success();
        }
        return Status.error(
            "updating "
                + obj.getKind()
                + " "
                + obj.getMetadata().getName()
                + " failed: "
                + e.getMessage());
      }
    };
  }

  /** Whether the server's version of {@code obj} has its spec, annotations and labels. */
  private static boolean holds(KubernetesClient client, HasMetadata obj) {
    HasMetadata now;
    try {
      now = client.resource(obj).get();
    } catch (KubernetesClientException e) {
      return false;
    }
    if (now == null) {
      return false;
    }
    KubernetesSerialization json = client.getKubernetesSerialization();
    Map<?, ?> wrote = json.convertValue(obj, Map.class);
    Map<?, ?> has = json.convertValue(now, Map.class);
    return Objects.equals(wrote.get("spec"), has.get("spec"))
        && Objects.equals(metadata(wrote, "annotations"), metadata(has, "annotations"))
        && Objects.equals(metadata(wrote, "labels"), metadata(has, "labels"));
  }

  private static @Nullable Object metadata(Map<?, ?> obj, String field) {
    return obj.get("metadata") instanceof Map<?, ?> m ? m.get(field) : null;
  }

  /** A writer for a scheduler with neither a client nor an in-memory store. */
  static ObjectWriter none() {
    return obj -> Status.error("no object writer configured for " + obj.getKind() + " objects");
  }
}
