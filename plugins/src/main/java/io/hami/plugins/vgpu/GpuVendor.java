package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.model.Decoded;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.model.vendor.NodeFacts;
import io.hami.model.vendor.VendorKeys;
import io.hami.model.vendor.VendorProtocol;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A device vendor the scheduler places, through the protocol model's vendor SPI: its annotation
 * keys, how its devices register (annotation or node capacity), how container resources become
 * requests, and how a decision is written onto the pod.
 *
 * @param protocol the vendor's wire protocol
 * @param memoryFactor MiB per unit of the memory resource, for quotas (protocol §6.8)
 * @param exclusiveRule the rule that says whether a whole-card request takes every core (the
 *     webhook's {@code gpucores=100} since v2.7, NVIDIA only); null for other vendors
 */
public record GpuVendor(
    VendorProtocol protocol, int memoryFactor, @Nullable RequestRule exclusiveRule) {

  /** The reader's message when a node registered no device of the vendor. */
  static final String NO_DEVICE = "no device found on node";

  public GpuVendor {
    requireNonNull(protocol, "protocol");
  }

  public VendorKeys keys() {
    return protocol.keys();
  }

  /** The vendor keyword ({@code NVIDIA}, {@code MLU}, {@code DCU}, {@code BI-V150} ...). */
  public String word() {
    return protocol.commonWord();
  }

  /** The container resources the vendor reads. */
  public ResourceNames names() {
    return protocol.requests().resourceNames();
  }

  /** The container's request (protocol §5.2 and the vendor's own rules). */
  public Decoded<ContainerRequest> request(ContainerResources res) {
    return protocol.requests().read(res);
  }

  /** Whether a request without cores takes the whole card. */
  public boolean wantsExclusiveCores(ContainerResources res) {
    return exclusiveRule != null && exclusiveRule.wantsExclusiveCores(res);
  }

  /** Whether the vendor registers through node capacity instead of an annotation. */
  public boolean capacityRegistered() {
    return keys().register().isEmpty();
  }

  /**
   * The node's devices of this vendor: empty when it registered none, an error naming the
   * annotation and value when the registration cannot be read.
   */
  public Decoded<List<NodeDevice>> devices(NodeFacts node) {
    if (!capacityRegistered() && !node.annotations().containsKey(keys().register())) {
      return Decoded.ok(List.of());
    }
    if (capacityRegistered()
        && (names().core().isEmpty() || !node.capacity().containsKey(names().core()))) {
      return Decoded.ok(List.of());
    }
    Decoded<List<NodeDevice>> d = protocol.register().read(node);
    if (d instanceof Decoded.Err<List<NodeDevice>> e && e.error().message().startsWith(NO_DEVICE)) {
      return Decoded.ok(List.of());
    }
    return d;
  }

  /** The pod annotations recording the vendor's part of a decision (with the vendor's extras). */
  public Map<String, String> allocationAnnotations(PodDevices decision, Instant now) {
    return protocol.allocationWriter().write(decision, now);
  }
}
