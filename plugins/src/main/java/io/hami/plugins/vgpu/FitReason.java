package io.hami.plugins.vgpu;

/**
 * Why a device (or a node) could not take a request. The names are HAMi's reason codes, which users
 * and dashboards already know, in the order the fit checks them (protocol §6.6).
 */
public enum FitReason {
  CARD_NOT_HEALTH("CardNotHealth"),
  CARD_CORDONED("CardCordoned"),
  CARD_TYPE_MISMATCH("CardTypeMismatch"),
  NUMA_NOT_FIT("NumaNotFit"),
  CARD_UUID_MISMATCH("CardUuidMismatch"),
  CARD_TIME_SLICING_EXHAUSTED("CardTimeSlicingExhausted"),
  EXCLUSIVE_DEVICE_ALLOCATE_CONFLICT("ExclusiveDeviceAllocateConflict"),
  RESOURCE_QUOTA_NOT_FIT("ResourceQuotaNotFit"),
  CARD_INSUFFICIENT_MEMORY("CardInsufficientMemory"),
  CARD_INSUFFICIENT_CORE("CardInsufficientCore"),
  CARD_COMPUTE_UNITS_EXHAUSTED("CardComputeUnitsExhausted"),
  CARD_MIG_TOPOLOGY_INFEASIBLE("CardMigTopologyInfeasible"),
  ALLOCATED_CARDS_INSUFFICIENT_REQUEST("AllocatedCardsInsufficientRequest"),
  NODE_INSUFFICIENT_DEVICE("NodeInsufficientDevice"),
  NODE_UNREGISTERED("NodeUnregistered"),
  NODE_ANNOTATION_INVALID("NodeAnnotationInvalid");

  private final String code;

  FitReason(String code) {
    this.code = code;
  }

  /** The reason code as it appears in messages, e.g. {@code CardInsufficientMemory}. */
  public String code() {
    return code;
  }

  /** Whether the reason is about the whole node rather than counted per device. */
  public boolean nodeLevel() {
    return compareTo(NODE_INSUFFICIENT_DEVICE) >= 0;
  }

  @Override
  public String toString() {
    return code;
  }
}
