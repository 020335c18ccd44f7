package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.pod.PodDevices;
import java.util.Map;
import java.util.Optional;

/** Reads a vendor's device records from pod annotations. */
public interface AllocationReader {

  /** The devices still to hand out (node agent, Allocate); empty when the annotation is absent. */
  Optional<Decoded<PodDevices>> toAllocate(Map<String, String> podAnnotations);

  /** The devices granted (scheduler accounting); empty when the annotation is absent. */
  Optional<Decoded<PodDevices>> allocated(Map<String, String> podAnnotations);
}
