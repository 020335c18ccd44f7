package io.hami.framework.api;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An immutable amount of node resources: CPU in millicores, memory and ephemeral storage in bytes,
 * a pod count and extended (scalar) resources in their integer units.
 *
 * <p>{@link #forPod(Pod)} computes a pod's effective request the way Kubernetes does: the larger of
 * the sum of the app containers (plus restartable init containers, "sidecars") and the largest
 * init-container phase, replaced by the pod-level request ({@code spec.resources}) for cpu, memory
 * and huge pages where one is set, plus the pod overhead.
 */
public final class Resources {
  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";
  public static final String PODS = "pods";

  /** CPU assumed for a container without a CPU request, for scoring only (as Kubernetes). */
  public static final long DEFAULT_MILLI_CPU_REQUEST = 100;

  /** Memory assumed for a container without a memory request, for scoring only. */
  public static final long DEFAULT_MEMORY_REQUEST = 200L * 1024 * 1024;

  private static final Resources EMPTY = new Resources(0, 0, 0, 0, ImmutableMap.of());

  private final long milliCpu;
  private final long memory;
  private final long ephemeralStorage;
  private final long pods;
  private final ImmutableMap<String, Long> scalars;
  // The scalars again as two arrays: Filter reads them for every node, and a scan of a few
  // entries touches less memory than a hash map's table, entries and boxed values.
  private final String[] scalarNames;
  private final long[] scalarAmounts;

  private Resources(
      long milliCpu,
      long memory,
      long ephemeralStorage,
      long pods,
      ImmutableMap<String, Long> scalars) {
    this.milliCpu = milliCpu;
    this.memory = memory;
    this.ephemeralStorage = ephemeralStorage;
    this.pods = pods;
    this.scalars = scalars;
    this.scalarNames = new String[scalars.size()];
    this.scalarAmounts = new long[scalars.size()];
    int i = 0;
    for (Map.Entry<String, Long> e : scalars.entrySet()) {
      scalarNames[i] = e.getKey();
      scalarAmounts[i] = e.getValue();
      i++;
    }
  }

  public static Resources empty() {
    return EMPTY;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Converts a Kubernetes resource list (node allocatable, container requests).
   *
   * @throws IllegalArgumentException naming the resource when a quantity cannot be parsed
   */
  public static Resources of(@Nullable Map<String, Quantity> list) {
    if (list == null || list.isEmpty()) {
      return EMPTY;
    }
    return builder().addAll(list).build();
  }

  /**
   * Returns the pod's effective request as Kubernetes computes it. A request missing for a resource
   * that has a limit takes the limit, as API defaulting does.
   *
   * @throws IllegalArgumentException naming the container and resource on an unparsable quantity
   */
  public static Resources forPod(Pod pod) {
    return computeForPod(pod, false);
  }

  /**
   * Like {@link #forPod} but counting {@link #DEFAULT_MILLI_CPU_REQUEST} and {@link
   * #DEFAULT_MEMORY_REQUEST} for containers that request no CPU or memory; used by scoring so that
   * best-effort pods still spread.
   */
  public static Resources nonZeroForPod(Pod pod) {
    return computeForPod(pod, true);
  }

  private static Resources computeForPod(Pod pod, boolean nonZero) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return EMPTY;
    }
    Builder reqs = builder();
    for (Container c : nullToEmpty(spec.getContainers())) {
      reqs.addContainer(c, nonZero);
    }
    Builder restartable = builder();
    Builder initMax = builder();
    for (Container c : nullToEmpty(spec.getInitContainers())) {
      Builder containerReqs = builder().addContainer(c, nonZero);
      if ("Always".equals(c.getRestartPolicy())) {
        reqs.add(containerReqs);
        restartable.add(containerReqs);
        containerReqs = builder().add(restartable);
      } else {
        containerReqs.add(restartable);
      }
      initMax.max(containerReqs);
    }
    reqs.max(initMax);
    applyPodLevel(spec.getResources(), reqs);
    Map<String, Quantity> overhead = spec.getOverhead();
    if (overhead != null && !overhead.isEmpty()) {
      reqs.addAll(overhead);
    }
    return reqs.build();
  }

  /**
   * Pod-level resources ({@code spec.resources}, kube 1.34+ PodLevelResources): a pod-level request
   * of cpu, memory or huge pages replaces the containers' sum, a pod-level limit without a request
   * counting as the request as API defaulting makes it.
   */
  private static void applyPodLevel(@Nullable ResourceRequirements podLevel, Builder reqs) {
    if (podLevel == null) {
      return;
    }
    Map<String, Quantity> requests = podLevel.getRequests();
    Map<String, Quantity> limits = podLevel.getLimits();
    Map<String, Quantity> effective = new HashMap<>();
    if (limits != null) {
      effective.putAll(limits);
    }
    if (requests != null) {
      effective.putAll(requests);
    }
    try {
      for (Map.Entry<String, Quantity> e : effective.entrySet()) {
        if (isPodLevelResource(e.getKey())) {
          reqs.set(e.getKey(), toCanonical(e.getKey(), e.getValue()));
        }
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("spec.resources: " + e.getMessage(), e);
    }
  }

  /** Whether a pod-level amount of {@code name} is honoured: cpu, memory and huge pages. */
  public static boolean isPodLevelResource(String name) {
    return CPU.equals(name) || MEMORY.equals(name) || name.startsWith("hugepages-");
  }

  private static <T> List<T> nullToEmpty(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  public long milliCpu() {
    return milliCpu;
  }

  public long memory() {
    return memory;
  }

  public long ephemeralStorage() {
    return ephemeralStorage;
  }

  public long pods() {
    return pods;
  }

  /** Returns the extended resources, by name. */
  public ImmutableMap<String, Long> scalars() {
    return scalars;
  }

  /** Returns the amount of {@code name} in its canonical unit (millicores for cpu). */
  public long get(String name) {
    return switch (name) {
      case CPU -> milliCpu;
      case MEMORY -> memory;
      case EPHEMERAL_STORAGE -> ephemeralStorage;
      case PODS -> pods;
      default -> scalar(name);
    };
  }

  // Names are mostly the same interned constants, so identity is tried first, then equals.
  @SuppressWarnings("ReferenceEquality")
  private long scalar(String name) {
    String[] names = scalarNames;
    if (names.length > 8) {
      Long v = scalars.get(name);
      return v == null ? 0 : v;
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i] == name) {
        return scalarAmounts[i];
      }
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return scalarAmounts[i];
      }
    }
    return 0;
  }

  public boolean isEmpty() {
    return milliCpu == 0 && memory == 0 && ephemeralStorage == 0 && pods == 0 && scalars.isEmpty();
  }

  /** Returns this plus {@code other}. */
  public Resources plus(Resources other) {
    if (other.isEmpty()) {
      return this;
    }
    return builder().add(this).add(other).build();
  }

  /** Returns this minus {@code other}; amounts may become negative. */
  public Resources minus(Resources other) {
    if (other.isEmpty()) {
      return this;
    }
    return builder().add(this).subtract(other).build();
  }

  @Override
  public boolean equals(@Nullable Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Resources r)) {
      return false;
    }
    return milliCpu == r.milliCpu
        && memory == r.memory
        && ephemeralStorage == r.ephemeralStorage
        && pods == r.pods
        && scalars.equals(r.scalars);
  }

  @Override
  public int hashCode() {
    return Objects.hash(milliCpu, memory, ephemeralStorage, pods, scalars);
  }

  @Override
  public String toString() {
    return "Resources{cpu="
        + milliCpu
        + "m, memory="
        + memory
        + ", ephemeral-storage="
        + ephemeralStorage
        + ", pods="
        + pods
        + (scalars.isEmpty() ? "" : ", " + scalars)
        + "}";
  }

  /** A mutable accumulator; not thread-safe. */
  public static final class Builder {
    private long milliCpu;
    private long memory;
    private long ephemeralStorage;
    private long pods;
    private @Nullable Map<String, Long> scalars;

    private Builder() {}

    /** Sets or adds {@code amount} (canonical unit) of {@code name}. */
    public Builder add(String name, long amount) {
      switch (name) {
        case CPU -> milliCpu += amount;
        case MEMORY -> memory += amount;
        case EPHEMERAL_STORAGE -> ephemeralStorage += amount;
        case PODS -> pods += amount;
        default -> {
          if (scalars == null) {
            scalars = new HashMap<>();
          }
          scalars.merge(name, amount, Long::sum);
        }
      }
      return this;
    }

    /** Replaces the amount of {@code name} with {@code amount} (canonical unit). */
    Builder set(String name, long amount) {
      switch (name) {
        case CPU -> milliCpu = amount;
        case MEMORY -> memory = amount;
        case EPHEMERAL_STORAGE -> ephemeralStorage = amount;
        case PODS -> pods = amount;
        default -> {
          if (scalars == null) {
            scalars = new HashMap<>();
          }
          scalars.put(name, amount);
        }
      }
      return this;
    }

    public Builder add(Resources r) {
      milliCpu += r.milliCpu;
      memory += r.memory;
      ephemeralStorage += r.ephemeralStorage;
      pods += r.pods;
      r.scalars.forEach(this::add);
      return this;
    }

    public Builder subtract(Resources r) {
      milliCpu -= r.milliCpu;
      memory -= r.memory;
      ephemeralStorage -= r.ephemeralStorage;
      pods -= r.pods;
      r.scalars.forEach((k, v) -> add(k, -v));
      return this;
    }

    Builder add(Builder b) {
      milliCpu += b.milliCpu;
      memory += b.memory;
      ephemeralStorage += b.ephemeralStorage;
      pods += b.pods;
      if (b.scalars != null) {
        b.scalars.forEach(this::add);
      }
      return this;
    }

    /** Adds every quantity of a Kubernetes resource list. */
    public Builder addAll(Map<String, Quantity> list) {
      list.forEach((name, q) -> add(name, toCanonical(name, q)));
      return this;
    }

    Builder addContainer(Container c, boolean nonZero) {
      ResourceRequirements rr = c.getResources();
      Map<String, Quantity> requests = rr == null ? null : rr.getRequests();
      Map<String, Quantity> limits = rr == null ? null : rr.getLimits();
      boolean hasCpu = false;
      boolean hasMemory = false;
      try {
        if (requests != null) {
          for (Map.Entry<String, Quantity> e : requests.entrySet()) {
            add(e.getKey(), toCanonical(e.getKey(), e.getValue()));
            hasCpu |= CPU.equals(e.getKey());
            hasMemory |= MEMORY.equals(e.getKey());
          }
        }
        if (limits != null) {
          for (Map.Entry<String, Quantity> e : limits.entrySet()) {
            if (requests == null || !requests.containsKey(e.getKey())) {
              add(e.getKey(), toCanonical(e.getKey(), e.getValue()));
              hasCpu |= CPU.equals(e.getKey());
              hasMemory |= MEMORY.equals(e.getKey());
            }
          }
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("container " + c.getName() + ": " + e.getMessage(), e);
      }
      if (nonZero) {
        if (!hasCpu) {
          milliCpu += DEFAULT_MILLI_CPU_REQUEST;
        }
        if (!hasMemory) {
          memory += DEFAULT_MEMORY_REQUEST;
        }
      }
      return this;
    }

    /** Raises each amount to at least the one in {@code b}. */
    Builder max(Builder b) {
      milliCpu = Math.max(milliCpu, b.milliCpu);
      memory = Math.max(memory, b.memory);
      ephemeralStorage = Math.max(ephemeralStorage, b.ephemeralStorage);
      pods = Math.max(pods, b.pods);
      if (b.scalars != null) {
        if (scalars == null) {
          scalars = new HashMap<>();
        }
        b.scalars.forEach((k, v) -> scalars.merge(k, v, Math::max));
      }
      return this;
    }

    public Resources build() {
      ImmutableMap<String, Long> s =
          scalars == null || scalars.isEmpty() ? ImmutableMap.of() : ImmutableMap.copyOf(scalars);
      if (milliCpu == 0 && memory == 0 && ephemeralStorage == 0 && pods == 0 && s.isEmpty()) {
        return EMPTY;
      }
      return new Resources(milliCpu, memory, ephemeralStorage, pods, s);
    }
  }

  /**
   * Converts a quantity to the canonical unit of {@code name}: millicores for cpu, otherwise the
   * plain amount, rounded up.
   *
   * @throws IllegalArgumentException naming the resource and value when unparsable
   */
  public static long toCanonical(String name, @Nullable Quantity q) {
    if (q == null) {
      return 0;
    }
    try {
      return CPU.equals(name) ? Quantities.toMillisCeil(q) : Quantities.toLongCeil(q);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "resource " + name + ": quantity \"" + q + "\" out of range", e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "resource " + name + ": invalid quantity \"" + q + "\"", e);
    }
  }
}
