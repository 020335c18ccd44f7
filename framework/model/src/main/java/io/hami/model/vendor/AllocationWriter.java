package io.hami.model.vendor;

import io.hami.model.pod.PodDevices;
import java.time.Instant;
import java.util.Map;

/** Writes a scheduling decision onto the pod ("PatchAnnotations"). */
@FunctionalInterface
public interface AllocationWriter {

  /**
   * The pod annotations for the decision: the to-allocate and allocated records plus any vendor
   * extras.
   *
   * @param decision the vendor's devices per container (init containers first, empty entries for
   *     containers without a request)
   * @param now decision time, for vendors that stamp it
   */
  Map<String, String> write(PodDevices decision, Instant now);
}
