package io.hami.nodeagent.monitor;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.util.concurrent.AbstractScheduledService;
import io.hami.nodeagent.nvml.GpuInfo;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import io.hami.nodeagent.nvml.ProcessUtilization;
import io.hami.nodeagent.shm.SharedRegionLayout;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The utilisation monitor (HAMi's vGPU monitor feedback, spec §5.4, contract §3): every period it
 * reads each container's region under {@code <hook>/vgpu/containers/*}{@code /*.cache} and writes
 * back what libvgpu acts on.
 *
 * <ul>
 *   <li>{@code utilization_switch}: 0 when no other container in use shares any of the container's
 *       GPUs (libvgpu then lifts the SM limit under policy {@code default}; {@code force} keeps it,
 *       {@code disable} never limits), 1 when one does.
 *   <li>{@code recent_kernel}: -1 while a container of strictly higher priority (smaller number)
 *       sharing one of its GPUs is active, which holds back the container's new launches; 0 again
 *       at the first period after that stops, so a blocked container resumes within two periods.
 * </ul>
 *
 * <p>A container's priority is the one in the limits file the agent wrote at Allocate; only a
 * container without one (allocated by an agent that wrote none) is taken at its region's word.
 *
 * <p>A container is in use while one of its processes holds a slot (and, when a pod list is given,
 * its pod is on the node); it is active when its latest launch is within the activity window (the
 * period, at least 2 s as the region keeps whole seconds) or NVML reports one of its host pids busy
 * since the previous period.
 *
 * <p>Before reading a region the monitor reclaims the slots of processes it knows dead on the host
 * (by the slot's host pid: gone, a zombie, or the pid reused by a process started at another time;
 * an unreadable {@code /proc} entry and an unknown host pid prove nothing), so that their memory
 * stops counting and they neither hold the region in use nor keep it sharing a GPU. It cannot take
 * the region's lock, so it only swaps the slot's pid from the dead pid to 0, as libvgpu's {@code
 * shared_region.h} ("Reclaim:") allows; libvgpu re-derives its totals.
 *
 * <p>Concurrency: periods run one at a time on the injected executor and own all mutable state;
 * {@link #statuses()} publishes an immutable list through a volatile field.
 */
public final class Monitor extends AbstractScheduledService {
  private static final Logger log = LoggerFactory.getLogger(Monitor.class);
  private static final Duration MIN_ACTIVE_WINDOW = Duration.ofSeconds(2);

  private final Path containersDir;
  private final Duration period;
  private final Nvml nvml;
  private final @Nullable Supplier<Set<String>> livePods;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final ProcessTable processes;

  // Owned by the period's thread.
  private @Nullable Map<String, Integer> gpuIndex;
  private boolean nvmlSamples = true;
  private final Set<Integer> unsupported = new HashSet<>();
  private @Nullable Instant lastPeriod;
  private final Map<Path, Double> blockedSeconds = new HashMap<>();
  private final Set<Path> blockedNow = new HashSet<>();
  private final Map<Path, Mapped> mapped = new HashMap<>();
  private final Map<Path, Long> reclaimed = new HashMap<>();

  private volatile ImmutableList<ContainerStatus> statuses = ImmutableList.of();

  /**
   * @param hookPath where libvgpu lives on the host; regions are under {@code <hookPath>/vgpu}
   * @param period how often to run
   * @param nvml per-process utilisation (optional: without it activity is the launch time alone)
   * @param livePods the UIDs of the pods on this node, or null to trust every region; a failing
   *     supplier trusts every region for that period
   * @param clock wall time, compared with the regions' launch times (epoch seconds)
   * @param executor runs the periods
   */
  public Monitor(
      Path hookPath,
      Duration period,
      Nvml nvml,
      @Nullable Supplier<Set<String>> livePods,
      Clock clock,
      ScheduledExecutorService executor) {
    this(hookPath, period, nvml, livePods, clock, executor, ProcessTable.host());
  }

  /** As above, with the process table that decides which slots' processes are dead. */
  Monitor(
      Path hookPath,
      Duration period,
      Nvml nvml,
      @Nullable Supplier<Set<String>> livePods,
      Clock clock,
      ScheduledExecutorService executor,
      ProcessTable processes) {
    this.processes = requireNonNull(processes, "processes");
    this.containersDir = hookPath.resolve("vgpu").resolve("containers");
    this.period = requireNonNull(period, "period");
    this.nvml = requireNonNull(nvml, "nvml");
    this.livePods = livePods;
    this.clock = requireNonNull(clock, "clock");
    this.executor = requireNonNull(executor, "executor");
  }

  /** The decisions of the latest period, one per region of our layout. */
  public ImmutableList<ContainerStatus> statuses() {
    return statuses;
  }

  @Override
  protected void runOneIteration() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      // One bad period must not end the service: the next one starts over from the files.
      log.warn("monitor period failed, retrying in {}", period, e);
    }
  }

  /** One period: read every region, decide, write the feedback. Returns the decisions. */
  ImmutableList<ContainerStatus> runOnce() {
    Instant now = clock.instant();
    List<Tracked> regions = scan();
    Set<String> live = regions.isEmpty() ? null : livePodUids();
    for (Tracked t : regions) {
      t.inUse = (live == null || live.contains(t.podUid)) && t.slots > 0;
    }
    Set<Integer> busy = busyHostPids(regions, now);
    long windowMs = Math.max(period.toMillis(), MIN_ACTIVE_WINDOW.toMillis());
    for (Tracked t : regions) {
      boolean recent =
          t.lastKernelTime > 0 && now.toEpochMilli() - t.lastKernelTime * 1000 < windowMs;
      t.active = t.inUse && (recent || t.hostPids.stream().anyMatch(busy::contains));
    }
    Map<String, List<Tracked>> byGpu = new HashMap<>();
    for (Tracked t : regions) {
      if (t.inUse) {
        for (String u : t.uuids) {
          byGpu.computeIfAbsent(u, k -> new ArrayList<>()).add(t);
        }
      }
    }
    double elapsed =
        lastPeriod == null ? 0 : Math.max(0, Duration.between(lastPeriod, now).toNanos() / 1e9);
    lastPeriod = now;
    Map<Path, Double> seconds = new HashMap<>();
    Map<Path, Long> reclaimedNow = new HashMap<>();
    Set<Path> blocked = new HashSet<>();
    ImmutableList.Builder<ContainerStatus> out = ImmutableList.builder();
    for (Tracked t : regions) {
      boolean shared = false;
      boolean held = false;
      for (String u : t.uuids) {
        for (Tracked o : byGpu.getOrDefault(u, List.of())) {
          if (o != t) {
            shared = true;
            held |= o.active && o.priority < t.priority;
          }
        }
      }
      int sw = shared ? 1 : 0;
      double total =
          blockedSeconds.getOrDefault(t.file, 0.0) + (blockedNow.contains(t.file) ? elapsed : 0);
      try {
        if (t.region.writeUtilizationSwitch(sw)) {
          log.info(
              "utilization switch {} pod={} container={} ({})",
              sw,
              t.podUid,
              t.container,
              shared ? "GPU shared" : "alone on its GPUs");
        }
        if (held) {
          if (t.region.writeRecentKernel(-1)) {
            log.info(
                "holding back launches pod={} container={} priority={}: a higher-priority"
                    + " container on its GPU is active",
                t.podUid,
                t.container,
                t.priority);
          }
        } else if (t.region.recentKernel() < 0) {
          t.region.writeRecentKernel(0);
          log.info("resuming launches pod={} container={}", t.podUid, t.container);
        }
      } catch (InternalError e) {
        // Truncated under the mapping by the container: skip it until it is whole again.
        log.warn("region {} became unreadable: {}", t.file, e.toString());
        continue;
      }
      if (held) {
        blocked.add(t.file);
      }
      seconds.put(t.file, total);
      long slotsReclaimed = reclaimed.getOrDefault(t.file, 0L) + t.reclaimed;
      reclaimedNow.put(t.file, slotsReclaimed);
      out.add(
          new ContainerStatus(
              t.podUid,
              t.container,
              t.priority,
              t.uuids,
              t.inUse,
              t.active,
              sw,
              held,
              total,
              slotsReclaimed));
    }
    blockedSeconds.clear();
    blockedSeconds.putAll(seconds);
    reclaimed.clear();
    reclaimed.putAll(reclaimedNow);
    blockedNow.clear();
    blockedNow.addAll(blocked);
    ImmutableList<ContainerStatus> result = out.build();
    statuses = result;
    return result;
  }

  private @Nullable Set<String> livePodUids() {
    if (livePods == null) {
      return null;
    }
    try {
      return livePods.get();
    } catch (RuntimeException e) {
      log.warn("cannot list the node's pods; every region counts this period: {}", e.toString());
      return null;
    }
  }

  /**
   * Every region of our layout, read once; anything else is skipped quietly. A region's mapping is
   * kept from one period to the next while its file stays the same, so that the number of live
   * mappings follows the number of containers rather than how long the collector waits to unmap.
   */
  private List<Tracked> scan() {
    List<Tracked> out = new ArrayList<>();
    Map<Path, Mapped> current = new HashMap<>();
    // One file reached twice (a hard link) would count as two containers sharing its GPUs.
    Set<Object> seen = new HashSet<>();
    if (Files.isDirectory(containersDir)) {
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(containersDir)) {
        for (Path dir : dirs) {
          String name = dir.getFileName().toString();
          int sep = name.indexOf('_');
          if (sep <= 0
              || sep == name.length() - 1
              || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            continue;
          }
          OptionalInt granted = AgentLimits.priority(dir);
          try (DirectoryStream<Path> caches = Files.newDirectoryStream(dir, "*.cache")) {
            for (Path cache : caches) {
              RegionFeedback region = region(cache, seen, current);
              if (region != null) {
                read(region, name.substring(0, sep), name.substring(sep + 1), granted)
                    .ifPresent(out::add);
              }
            }
          } catch (IOException e) {
            log.debug("cannot list {}: {}", dir, e.toString());
          }
        }
      } catch (IOException e) {
        log.warn("cannot scan {}: {}", containersDir, e.toString());
      }
    }
    mapped.clear();
    mapped.putAll(current);
    return out;
  }

  /** The mapped region at {@code cache}, reused from the last period when it is the same file. */
  private @Nullable RegionFeedback region(Path cache, Set<Object> seen, Map<Path, Mapped> current) {
    try {
      BasicFileAttributes attrs =
          Files.readAttributes(cache, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      Object key = attrs.fileKey();
      if (!attrs.isRegularFile() || attrs.size() < SharedRegionLayout.REGION_SIZE) {
        return null;
      }
      if (key != null && !seen.add(key)) {
        log.debug("skipping {}: a second name of a region already read", cache);
        return null;
      }
      Mapped last = mapped.get(cache);
      RegionFeedback region =
          last != null && key != null && key.equals(last.key()) && last.region().stillValid()
              ? last.region()
              : RegionFeedback.open(cache).orElse(null);
      if (region == null) {
        log.debug("skipping {}: not an initialised libvgpu 1.x region", cache);
        return null;
      }
      current.put(cache, new Mapped(key, region));
      return region;
    } catch (IOException | RuntimeException | InternalError e) {
      log.debug("skipping {}: {}", cache, e.toString());
      return null;
    }
  }

  private Optional<Tracked> read(
      RegionFeedback region, String podUid, String container, OptionalInt granted) {
    try {
      int freed = reclaimDeadSlots(region, podUid, container);
      Tracked t = new Tracked(region, podUid, container, granted);
      t.reclaimed = freed;
      return Optional.of(t);
    } catch (RuntimeException | InternalError e) {
      log.debug("skipping {}: {}", region.file(), e.toString());
      return Optional.empty();
    }
  }

  /**
   * Frees the slots of processes known dead on the host; returns how many. A slot whose host pid is
   * unknown (0) is libvgpu's to judge, from inside the container.
   */
  private int reclaimDeadSlots(RegionFeedback region, String podUid, String container) {
    int freed = 0;
    for (RegionFeedback.Slot s : region.slots()) {
      if (s.hostPid() <= 0) {
        continue;
      }
      ProcessTable.Entry e = processes.stat(s.hostPid());
      if (!ProcessTable.knownDead(e, s.startTime())) {
        continue;
      }
      if (region.reclaim(s)) {
        freed++;
        log.info(
            "reclaimed the slot of a dead process pod={} container={} slot={} pid={} hostPid={}"
                + " ({})",
            podUid,
            container,
            s.index(),
            s.pid(),
            s.hostPid(),
            ProcessTable.why(e, s.startTime()));
      } else {
        log.debug(
            "slot {} of {} changed while judged, left alone: pid={} hostPid={}",
            s.index(),
            region.file(),
            s.pid(),
            s.hostPid());
      }
    }
    return freed;
  }

  /** Host pids NVML saw running kernels since the previous period, on the GPUs in use. */
  private Set<Integer> busyHostPids(List<Tracked> regions, Instant now) {
    Set<Integer> busy = new HashSet<>();
    Set<String> gpus = new HashSet<>();
    for (Tracked t : regions) {
      if (t.inUse && !t.hostPids.isEmpty()) {
        gpus.addAll(t.uuids);
      }
    }
    if (!nvmlSamples || gpus.isEmpty()) {
      return busy;
    }
    long since = (now.toEpochMilli() - Math.max(period.toMillis(), 1000)) * 1000;
    Map<String, Integer> index = gpuIndex();
    for (String uuid : gpus) {
      Integer i = index.get(uuid);
      if (i == null || unsupported.contains(i)) {
        continue;
      }
      try {
        for (ProcessUtilization p : nvml.processUtilization(i, since)) {
          if (p.smUtil() > 0) {
            busy.add(p.pid());
          }
        }
      } catch (NvmlException e) {
        if (e.code() == NvmlException.FUNCTION_NOT_FOUND) {
          nvmlSamples = false;
          log.info(
              "no per-process utilisation from NVML ({}); activity is the launch time alone",
              e.getMessage());
          return busy;
        }
        if (e.code() == NvmlException.NOT_SUPPORTED) {
          // One GPU may not tell (MIG mode, old architecture) while others do.
          unsupported.add(i);
          log.info(
              "no per-process utilisation on GPU {} ({}); its activity is the launch time alone",
              uuid,
              e.getMessage());
          continue;
        }
        log.debug("process utilisation of GPU {}: {}", uuid, e.getMessage());
      }
    }
    return busy;
  }

  private Map<String, Integer> gpuIndex() {
    if (gpuIndex == null) {
      Map<String, Integer> m = new HashMap<>();
      try {
        for (GpuInfo g : nvml.devices()) {
          m.put(g.uuid(), g.index());
        }
      } catch (NvmlException e) {
        log.warn("cannot list GPUs for process utilisation: {}", e.getMessage());
      }
      gpuIndex = ImmutableMap.copyOf(m);
    }
    return gpuIndex;
  }

  @Override
  protected Scheduler scheduler() {
    return Scheduler.newFixedDelaySchedule(0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  protected ScheduledExecutorService executor() {
    return executor;
  }

  @Override
  protected String serviceName() {
    return "Monitor";
  }

  /** A region mapped in an earlier period, with the identity of its file then. */
  private record Mapped(@Nullable Object key, RegionFeedback region) {}

  /** One region read in this period, with the monitor's findings. */
  private static final class Tracked {
    final RegionFeedback region;
    final Path file;
    final String podUid;
    final String container;
    final int priority;
    final long lastKernelTime;
    final ImmutableList<String> uuids;
    final Set<Integer> hostPids = new HashSet<>();
    final int slots;
    int reclaimed;
    boolean inUse;
    boolean active;

    Tracked(RegionFeedback region, String podUid, String container, OptionalInt granted) {
      this.region = region;
      this.file = region.file();
      this.podUid = podUid;
      this.container = container;
      // The agent's limits file wins: the region's copy is the container's to rewrite.
      this.priority = granted.isPresent() ? granted.getAsInt() : region.priority();
      this.lastKernelTime = region.lastKernelTime();
      this.uuids = region.uuids();
      ImmutableList<RegionFeedback.Slot> claimed = region.slots();
      for (RegionFeedback.Slot s : claimed) {
        if (s.hostPid() > 0) {
          hostPids.add(s.hostPid());
        }
      }
      this.slots = claimed.size();
    }
  }
}
