package io.hami.model.resource;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;

/**
 * Derives a vendor's {@link ContainerRequest} from a container's resources
 * ("GenerateResourceRequests").
 *
 * <ol>
 *   <li>{@code nums} is the count resource; absent → no request.
 *   <li>{@code memreq} is the memory resource × {@code max(memoryFactor, 1)}; it must be a whole,
 *       non-negative number whose product fits int32 ({@code 16Gi} is rejected).
 *   <li>The percentage starts at {@value ContainerRequest#PERCENT_UNSET}; a given value above 100
 *       becomes 100, one at or below 0 stays unset.
 *   <li>Unset percentage and no memory: {@code defaultMemory} when non-zero, else 100 percent (the
 *       whole card).
 *   <li>{@code coresreq} is the core resource, else {@code defaultCores}.
 * </ol>
 *
 * @param names resource names
 * @param type vendor keyword written into the request
 * @param memoryFactor multiplier of the memory resource (NVIDIA {@code memoryFactor}; 256 for
 *     Cambricon/Iluvatar)
 * @param defaultMemory MiB assumed when neither memory nor percentage is given (0: whole card)
 * @param defaultCores cores assumed when none are given
 */
public record RequestRule(
    ResourceNames names, String type, int memoryFactor, int defaultMemory, int defaultCores) {

  /** NVIDIA with the chart defaults. */
  public static final RequestRule NVIDIA_DEFAULTS =
      new RequestRule(ResourceNames.NVIDIA, "NVIDIA", 1, 0, 0);

  /**
   * The container's request. An error means the container's values are unusable; the reference
   * implementation then treats the container as requesting nothing, which {@link #deriveOrNone}
   * does.
   */
  public Decoded<ContainerRequest> derive(ContainerResources r) {
    String countQ = r.get(names.count());
    if (countQ == null) {
      return Decoded.ok(ContainerRequest.none(type));
    }
    Decoded<Long> count = Quantities.parseInt64(names.count(), countQ);
    if (count instanceof Decoded.Err<Long> e) {
      return Decoded.err(e.error());
    }
    long nums = count.orElse(0L);
    if (nums < 0 || nums > Integer.MAX_VALUE) {
      return Decoded.err(
          names.count(), countQ, "device count must be between 0 and 2^31-1: " + countQ);
    }
    if (nums == 0) {
      return Decoded.ok(ContainerRequest.none(type));
    }
    long memreq = 0;
    String memQ = r.get(names.memory());
    if (memQ != null) {
      Decoded<Long> mem = Quantities.parseInt64(names.memory(), memQ);
      if (mem instanceof Decoded.Err<Long> e) {
        return Decoded.err(e.error());
      }
      long m = mem.orElse(0L);
      if (m < 0) {
        return Decoded.err(
            names.memory(), memQ, "memory must not be negative: " + GoText.quote(memQ));
      }
      memreq = m * Math.max(memoryFactor, 1);
      if (memreq > Integer.MAX_VALUE || (m != 0 && memreq / Math.max(memoryFactor, 1) != m)) {
        return Decoded.err(
            names.memory(),
            memQ,
            "memory " + GoText.quote(memQ) + " overflows int32 MiB (factor " + memoryFactor + ")");
      }
    }
    int pct = ContainerRequest.PERCENT_UNSET;
    String pctQ = r.get(names.memoryPercentage());
    if (pctQ != null) {
      Decoded<Long> p = Quantities.parseInt64(names.memoryPercentage(), pctQ);
      if (p instanceof Decoded.Err<Long> e) {
        return Decoded.err(e.error());
      }
      long v = p.orElse(0L);
      if (v > 100) {
        pct = 100;
      } else if (v > 0) {
        pct = (int) v;
      }
    }
    if (pct == ContainerRequest.PERCENT_UNSET && memreq == 0) {
      if (defaultMemory != 0) {
        memreq = defaultMemory;
      } else {
        pct = 100;
      }
    }
    int cores = defaultCores;
    String coreQ = r.get(names.core());
    if (coreQ != null) {
      Decoded<Long> c = Quantities.parseInt64(names.core(), coreQ);
      if (c instanceof Decoded.Err<Long> e) {
        return Decoded.err(e.error());
      }
      long v = c.orElse(0L);
      if (v < 0 || v > Integer.MAX_VALUE) {
        return Decoded.err(
            names.core(), coreQ, "cores must be between 0 and 2^31-1: " + GoText.quote(coreQ));
      }
      cores = (int) v;
    }
    return Decoded.ok(new ContainerRequest((int) nums, type, (int) memreq, pct, cores));
  }

  /** The reference behaviour: unusable values give an empty request. */
  public ContainerRequest deriveOrNone(ContainerResources r) {
    return derive(r).orElse(ContainerRequest.none(type));
  }

  /**
   * Whether the admission webhook injects {@code cores = 100} (v2.7+): the count is given, cores
   * are not, and the request is for a whole card (percentage 100, or no memory resource configured,
   * or neither memory nor percentage given).
   */
  public boolean wantsExclusiveCores(ContainerResources r) {
    if (!r.has(names.count()) || r.has(names.core())) {
      return false;
    }
    if (names.memory().isEmpty()) {
      return true;
    }
    String pctQ = r.get(names.memoryPercentage());
    if (pctQ != null) {
      return Quantities.parseInt64(names.memoryPercentage(), pctQ).orElse(-1L) == 100L;
    }
    return !r.has(names.memory());
  }
}
