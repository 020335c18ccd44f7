package io.hami.model.resource;

/**
 * What one container asks of one vendor ("ContainerDeviceRequest").
 *
 * @param nums number of distinct devices; 0 means no request
 * @param type vendor keyword, e.g. {@code NVIDIA}
 * @param memreq MiB per device; 0 when a percentage applies
 * @param memPercentage percent of each device's memory, or {@value #PERCENT_UNSET} when unset
 * @param coresreq percent of each device's cores
 */
public record ContainerRequest(int nums, String type, int memreq, int memPercentage, int coresreq) {

  /** The "unset" memory percentage sentinel. */
  public static final int PERCENT_UNSET = 101;

  /** No request. */
  public static ContainerRequest none(String type) {
    return new ContainerRequest(0, type, 0, PERCENT_UNSET, 0);
  }

  /** Whether this container requests nothing from the vendor. */
  public boolean isEmpty() {
    return nums == 0;
  }

  /**
   * MiB this request needs on a device of {@code totalMem} MiB: memreq, else the percentage share.
   */
  public int memoryOn(int totalMem) {
    if (memreq > 0) {
      return memreq;
    }
    if (memPercentage != PERCENT_UNSET) {
      return (int) ((long) totalMem * memPercentage / 100);
    }
    return 0;
  }
}
