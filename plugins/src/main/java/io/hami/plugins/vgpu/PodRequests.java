package io.hami.plugins.vgpu;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * A pod's device requests per container, init containers first, with an entry (possibly empty) for
 * every container so that indices match the pod annotation's container entries.
 *
 * @param containers per container, the requests for each vendor
 * @param initCount how many of the entries are init containers
 */
public record PodRequests(ImmutableList<ImmutableList<VendorRequest>> containers, int initCount) {

  public static final PodRequests NONE = new PodRequests(ImmutableList.of(), 0);

  public PodRequests {
    checkArgument(
        initCount >= 0 && initCount <= containers.size(),
        "initCount %s out of range for %s containers",
        initCount,
        containers.size());
  }

  /** Builds from plain lists. */
  public static PodRequests of(List<? extends List<VendorRequest>> containers, int initCount) {
    ImmutableList.Builder<ImmutableList<VendorRequest>> b = ImmutableList.builder();
    for (List<VendorRequest> c : containers) {
      b.add(ImmutableList.copyOf(c));
    }
    return new PodRequests(b.build(), initCount);
  }

  /** One app container asking for one vendor request. */
  public static PodRequests single(VendorRequest r) {
    return new PodRequests(ImmutableList.of(ImmutableList.of(r)), 0);
  }

  /** Whether some vendor request asks for two or more devices (without allocating: per node). */
  public boolean multiDevice() {
    for (int i = 0; i < containers.size(); i++) {
      ImmutableList<VendorRequest> c = containers.get(i);
      for (int j = 0; j < c.size(); j++) {
        if (c.get(j).nums() > 1) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether any container asks for a device. */
  public boolean isEmpty() {
    for (ImmutableList<VendorRequest> c : containers) {
      if (!c.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** Whether some app container asks for a device (without allocating: called per node). */
  public boolean hasAppDevices() {
    for (int i = initCount; i < containers.size(); i++) {
      if (!containers.get(i).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** The vendors asked for by app containers (the node lock is taken for those). */
  public ImmutableList<String> appVendors() {
    return containers.subList(initCount, containers.size()).stream()
        .flatMap(List::stream)
        .map(VendorRequest::vendor)
        .distinct()
        .sorted()
        .collect(ImmutableList.toImmutableList());
  }

  /** All vendors asked for, sorted. */
  public ImmutableList<String> vendors() {
    return containers.stream()
        .flatMap(List::stream)
        .map(VendorRequest::vendor)
        .distinct()
        .sorted()
        .collect(ImmutableList.toImmutableList());
  }

  /** Total devices asked for by one container at most (for quick node pre-checks). */
  public int maxDevicesPerContainer() {
    int max = 0;
    for (ImmutableList<VendorRequest> c : containers) {
      int n = 0;
      for (VendorRequest r : c) {
        n += r.nums();
      }
      max = Math.max(max, n);
    }
    return max;
  }
}
