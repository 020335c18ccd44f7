package io.hami.model.vendor;

import java.util.Optional;

/**
 * The wire protocol of one vendor, assembled from small parts.
 *
 * @param keys annotation keys
 * @param register reads the node's devices
 * @param registerWriter writes the register annotation; empty for vendors that register through
 *     node capacity
 * @param requests derives container requests
 * @param allocationWriter writes scheduling decisions
 * @param allocationReader reads device records back
 */
public record VendorProtocol(
    VendorKeys keys,
    NodeRegisterReader register,
    Optional<NodeRegisterWriter> registerWriter,
    RequestReader requests,
    AllocationWriter allocationWriter,
    AllocationReader allocationReader) {

  /** The vendor keyword ({@code NVIDIA}, {@code MLU}, {@code DCU}, …). */
  public String commonWord() {
    return keys.commonWord();
  }
}
