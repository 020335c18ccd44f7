package io.hami.model.pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The devices of one vendor granted to a pod, one entry per container (init containers first).
 *
 * <p>Entries may be empty: position is meaningful, since it maps to the container. A decoded
 * annotation also carries the empty entry that follows the final {@code ;}.
 *
 * @param containers per-container device lists
 */
public record PodDevices(List<List<ContainerDevice>> containers) {

  private static final PodDevices EMPTY = new PodDevices(List.of());

  public PodDevices {
    List<List<ContainerDevice>> copy = new ArrayList<>(containers.size());
    for (List<ContainerDevice> c : containers) {
      copy.add(List.copyOf(c));
    }
    containers = List.copyOf(copy);
  }

  /** No containers at all (encodes as {@code ""}). */
  public static PodDevices empty() {
    return EMPTY;
  }

  /** A pod from per-container lists. */
  @SafeVarargs
  public static PodDevices of(List<ContainerDevice>... containers) {
    return new PodDevices(List.of(containers));
  }

  /** Number of container entries, including empty ones. */
  public int size() {
    return containers.size();
  }

  /** The devices of container entry {@code i}. */
  public List<ContainerDevice> container(int i) {
    return containers.get(i);
  }

  /** Whether no entry holds a device. */
  public boolean hasNoDevices() {
    for (List<ContainerDevice> c : containers) {
      if (!c.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** Total devices over all entries. */
  public int deviceCount() {
    int n = 0;
    for (List<ContainerDevice> c : containers) {
      n += c.size();
    }
    return n;
  }

  /**
   * The same pod with entry {@code i} emptied (what the node agent writes back after serving it).
   */
  public PodDevices withEmptied(int i) {
    List<List<ContainerDevice>> copy = new ArrayList<>(containers);
    copy.set(i, List.of());
    return new PodDevices(copy);
  }

  /**
   * Takes the first non-empty entry, the way the node agent serves kubelet's Allocate calls in
   * order.
   *
   * @return the entry, its index and the pod with it emptied; empty when every entry is empty
   */
  public Optional<Popped> popFirstNonEmpty() {
    for (int i = 0; i < containers.size(); i++) {
      if (!containers.get(i).isEmpty()) {
        return Optional.of(new Popped(i, containers.get(i), withEmptied(i)));
      }
    }
    return Optional.empty();
  }

  /**
   * A container entry taken from a pod.
   *
   * @param index position of the entry (init containers first)
   * @param devices the devices of the entry
   * @param rest the pod with the entry emptied
   */
  public record Popped(int index, List<ContainerDevice> devices, PodDevices rest) {}
}
