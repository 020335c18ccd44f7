package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The standard to-allocate / allocated annotation pair. */
final class Allocations implements AllocationReader, AllocationWriter {

  private final VendorKeys keys;

  Allocations(VendorKeys keys) {
    this.keys = keys;
  }

  @Override
  public Map<String, String> write(PodDevices decision, Instant now) {
    String v = PodDevicesCodec.encode(decision);
    Map<String, String> out = new LinkedHashMap<>();
    out.put(keys.toAllocate(), v);
    out.put(keys.allocated(), v);
    return out;
  }

  @Override
  public Optional<Decoded<PodDevices>> toAllocate(Map<String, String> podAnnotations) {
    return read(podAnnotations, keys.toAllocate());
  }

  @Override
  public Optional<Decoded<PodDevices>> allocated(Map<String, String> podAnnotations) {
    return read(podAnnotations, keys.allocated());
  }

  private static Optional<Decoded<PodDevices>> read(Map<String, String> annotations, String key) {
    String v = annotations.get(key);
    return v == null ? Optional.empty() : Optional.of(PodDevicesCodec.decode(v).within(key));
  }
}
