package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.framework.api.Status;

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
   * fail on a conflict rather than overwrite a newer version.
   */
  static ObjectWriter api(KubernetesClient client) {
    return obj -> {
      try {
        client.resource(obj).update();
        return Status.success();
      } catch (KubernetesClientException e) {
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

  /** A writer for a scheduler with neither a client nor an in-memory store. */
  static ObjectWriter none() {
    return obj -> Status.error("no object writer configured for " + obj.getKind() + " objects");
  }
}
