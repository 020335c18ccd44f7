package io.hami.nodeagent.monitor;

import static io.hami.nodeagent.monitor.RegionFile.recentKernel;
import static io.hami.nodeagent.monitor.RegionFile.utilizationSwitch;
import static org.assertj.core.api.Assertions.assertThat;

import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import io.hami.nodeagent.nvml.ProcessUtilization;
import io.hami.nodeagent.shm.SharedRegionLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MonitorTest {
  static final Instant T0 = Instant.parse("2026-12-04T02:00:00Z");
  static final long NOW = T0.getEpochSecond();
  static final Duration PERIOD = Duration.ofSeconds(5);
  static final String GPU0 = "GPU-00000000-0000-0000-0000-000000000000";
  static final String GPU1 = "GPU-11111111-1111-1111-1111-111111111111";

  @TempDir Path hook;
  final MutableClock clock = new MutableClock(T0);
  final FakeNvml nvml =
      new FakeNvml(
          List.of(
              new GpuInfo(0, GPU0, "NVIDIA A100", 40960, "0000:3b:00.0", 0, false),
              new GpuInfo(1, GPU1, "NVIDIA A100", 40960, "0000:af:00.0", 0, false)));
  final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** The host's processes: every pid alive unless a test says otherwise. */
  ProcessTable processes = pid -> new ProcessTable.Running('S', 0);

  Monitor monitor(@Nullable Supplier<Set<String>> livePods) {
    return new Monitor(hook, PERIOD, nvml, livePods, clock, executor, processes);
  }

  /** Expected feedback for one region: switch and recent_kernel after one period. */
  record Want(int utilizationSwitch, int recentKernel) {}

  record Case(
      String name,
      List<RegionFile> regions,
      Map<Integer, List<ProcessUtilization>> samples,
      List<Want> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static ProcessUtilization busy(int hostPid) {
    return new ProcessUtilization(hostPid, T0.toEpochMilli() * 1000 - 1_000_000, 80, 10);
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "alone on its GPU: switch off (policy default lifts the limit)",
            List.of(RegionFile.of("u1", "a").gpus(GPU0).process(7, 1007).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(0, 0))),
        new Case(
            "alone under policy force: switch off all the same (libvgpu keeps the limit)",
            List.of(RegionFile.of("u1", "a").gpus(GPU0).policy(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(0, 0))),
        new Case(
            "two containers of one priority share a GPU: both limited, none held",
            List.of(
                RegionFile.of("u1", "a").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW),
                RegionFile.of("u2", "b").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(1, 0), new Want(1, 0))),
        new Case(
            "high priority active: low held back, high runs",
            List.of(
                RegionFile.of("u1", "high").gpus(GPU0).priority(0).process(7, 0).lastKernel(NOW),
                RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(1, 0), new Want(1, -1))),
        new Case(
            "high priority idle: low runs",
            List.of(
                RegionFile.of("u1", "high")
                    .gpus(GPU0)
                    .priority(0)
                    .process(7, 0)
                    .lastKernel(NOW - 60),
                RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(1, 0), new Want(1, 0))),
        new Case(
            "high priority busy by NVML (one long kernel, old launch time): low held back",
            List.of(
                RegionFile.of("u1", "high")
                    .gpus(GPU0)
                    .priority(0)
                    .process(7, 4242)
                    .lastKernel(NOW - 60),
                RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(0, List.of(busy(4242))),
            List.of(new Want(1, 0), new Want(1, -1))),
        new Case(
            "NVML busy on another GPU's pid list does not count",
            List.of(
                RegionFile.of("u1", "high")
                    .gpus(GPU0)
                    .priority(0)
                    .process(7, 4242)
                    .lastKernel(NOW - 60),
                RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(0, List.of(busy(999))),
            List.of(new Want(1, 0), new Want(1, 0))),
        new Case(
            "different GPUs: each alone, priorities do not matter",
            List.of(
                RegionFile.of("u1", "high").gpus(GPU0).priority(0).process(7, 0).lastKernel(NOW),
                RegionFile.of("u2", "low").gpus(GPU1).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(0, 0), new Want(0, 0))),
        new Case(
            "a region without live processes shares nothing (but would share if it started one)",
            List.of(
                RegionFile.of("u1", "high").gpus(GPU0).priority(0).lastKernel(NOW),
                RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(7, 0).lastKernel(NOW)),
            Map.of(),
            List.of(new Want(1, 0), new Want(0, 0))),
        new Case(
            "two GPUs, sharing one of them is enough to be limited and held",
            List.of(
                RegionFile.of("u1", "high").gpus(GPU1).priority(0).process(7, 0).lastKernel(NOW),
                RegionFile.of("u2", "low")
                    .gpus(GPU0, GPU1)
                    .priority(1)
                    .process(7, 0)
                    .lastKernel(NOW)),
            Map.of(),
            List.of(new Want(1, 0), new Want(1, -1))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void feedback(Case c) {
    List<Path> files = new ArrayList<>();
    for (RegionFile r : c.regions()) {
      files.add(r.write(hook));
    }
    c.samples().forEach(nvml::setProcessUtilization);

    monitor(null).runOnce();

    for (int i = 0; i < files.size(); i++) {
      assertThat(utilizationSwitch(files.get(i)))
          .as("switch of region %d", i)
          .isEqualTo(c.want().get(i).utilizationSwitch());
      assertThat(recentKernel(files.get(i)))
          .as("recent_kernel of region %d", i)
          .isEqualTo(c.want().get(i).recentKernel());
    }
  }

  @Test
  void lowPriorityIsHeldWhileHighIsBusyAndResumesWithinTwoPeriods() {
    Path high =
        RegionFile.of("u1", "high")
            .gpus(GPU0)
            .priority(0)
            .process(7, 0)
            .lastKernel(NOW)
            .write(hook);
    Path low =
        RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(9, 0).lastKernel(NOW).write(hook);
    Monitor m = monitor(null);

    // The high-priority container launches all along for 20 s: the low one stays held.
    for (int s = 0; s <= 20; s += 5) {
      RegionFile.lastKernel(high, NOW + s);
      m.runOnce();
      assertThat(recentKernel(low)).as("low at %ds", s).isEqualTo(-1);
      assertThat(recentKernel(high)).isZero();
      clock.advance(PERIOD);
    }
    // Its last launch was at +20 s; periods at +25 s, +30 s: resumed by the second at the latest.
    Instant stopped = T0.plusSeconds(20);
    Instant resumed = null;
    for (int i = 0; i < 2 && resumed == null; i++) {
      m.runOnce();
      if (recentKernel(low) >= 0) {
        resumed = clock.instant();
      }
      clock.advance(PERIOD);
    }
    assertThat(resumed).as("low resumed").isNotNull();
    assertThat(Duration.between(stopped, resumed)).isLessThanOrEqualTo(PERIOD.multipliedBy(2));
    ContainerStatus lowStatus =
        m.statuses().stream().filter(s -> s.container().equals("low")).findFirst().orElseThrow();
    assertThat(lowStatus.blocked()).isFalse();
    // Held from the first period (+0 s) until the period that released it.
    assertThat(lowStatus.blockedSeconds())
        .isEqualTo((double) Duration.between(T0, resumed).toSeconds());
  }

  @Test
  void regionsOfPodsNoLongerOnTheNodeShareNothing() {
    Path a =
        RegionFile.of("u1", "a").gpus(GPU0).priority(0).process(7, 0).lastKernel(NOW).write(hook);
    Path b = RegionFile.of("gone", "b").gpus(GPU0).priority(0).process(7, 0).write(hook);

    monitor(() -> Set.of("u1")).runOnce();

    assertThat(utilizationSwitch(a)).isZero();
    assertThat(utilizationSwitch(b)).isOne();
  }

  @Test
  void aFailingPodListTrustsEveryRegion() {
    Path a = RegionFile.of("u1", "a").gpus(GPU0).process(7, 0).write(hook);
    RegionFile.of("u2", "b").gpus(GPU0).process(7, 0).write(hook);

    monitor(
            () -> {
              throw new IllegalStateException("API server down");
            })
        .runOnce();

    assertThat(utilizationSwitch(a)).isOne();
  }

  @Test
  void otherFilesAreLeftAloneQuietly() throws IOException {
    Path dir = hook.resolve("vgpu/containers/u9_c");
    Files.createDirectories(dir);
    // Pre-created by the agent, no CUDA process yet.
    Path empty = Files.createFile(dir.resolve("empty.cache"));
    // HAMi-core's layout (magic 19920718).
    ByteBuffer hami = ByteBuffer.allocate(600_000).order(ByteOrder.LITTLE_ENDIAN);
    hami.putInt(0, 19920718);
    Path core = Files.write(dir.resolve("core.cache"), hami.array());
    Path shortFile = Files.write(dir.resolve("short.cache"), new byte[100]);
    Files.createDirectories(hook.resolve("vgpu/containers/no-separator"));
    Files.writeString(hook.resolve("vgpu/containers/stray-file"), "x");
    byte[] before = Files.readAllBytes(core);

    assertThat(monitor(null).runOnce()).isEmpty();

    assertThat(Files.size(empty)).isZero();
    assertThat(Files.readAllBytes(core)).isEqualTo(before);
    assertThat(Files.size(shortFile)).isEqualTo(100);
  }

  @Test
  void linksToARegionAreNotReadAsMoreContainers() throws IOException {
    Path a = RegionFile.of("u1", "a").gpus(GPU0).process(7, 0).write(hook);
    Path other = Files.createDirectories(hook.resolve("vgpu/containers/u2_b"));
    Files.createSymbolicLink(other.resolve("sym.cache"), a);
    Files.createLink(other.resolve("hard.cache"), a);

    List<ContainerStatus> s = monitor(null).runOnce();

    assertThat(s).hasSize(1);
    assertThat(utilizationSwitch(a)).as("alone, not shared with its own links").isZero();
  }

  @Test
  void theAgentsLimitsFileSetsThePriorityNotTheRegion() throws IOException {
    // The low-priority container rewrote its region's priority to -5 to hold the other back.
    RegionFile liar = RegionFile.of("u1", "liar").gpus(GPU0).priority(-5).process(7, 0);
    Path l = liar.lastKernel(NOW).write(hook);
    Files.writeString(
        liar.dir(hook).resolve("limits"),
        "# written by the hami node agent at Allocate\nversion=1\npriority=1   # low\n");
    RegionFile online = RegionFile.of("u2", "online").gpus(GPU0).priority(0).process(7, 0);
    Path o = online.lastKernel(NOW).write(hook);
    Files.writeString(online.dir(hook).resolve("limits"), "version=1\npriority=0\n");

    monitor(null).runOnce();

    assertThat(recentKernel(o)).as("online not held").isZero();
    assertThat(recentKernel(l)).as("liar held").isEqualTo(-1);
  }

  @Test
  void anUnreadablePriorityIsTheLowest() throws IOException {
    RegionFile bad = RegionFile.of("u1", "bad").gpus(GPU0).priority(0).process(7, 0);
    Path b = bad.lastKernel(NOW).write(hook);
    Files.writeString(bad.dir(hook).resolve("limits"), "version=1\npriority=high\n");
    Path other =
        RegionFile.of("u2", "other")
            .gpus(GPU0)
            .priority(1)
            .process(7, 0)
            .lastKernel(NOW)
            .write(hook);

    monitor(null).runOnce();

    assertThat(recentKernel(other)).isZero();
    assertThat(recentKernel(b)).isEqualTo(-1);
  }

  @Test
  void aRegionRecreatedUnderItsNameIsReadAfresh() throws IOException {
    Path a = RegionFile.of("u1", "a").gpus(GPU0).process(7, 0).write(hook);
    Monitor m = monitor(null);
    assertThat(m.runOnce())
        .singleElement()
        .extracting(ContainerStatus::uuids)
        .isEqualTo(List.of(GPU0));

    // A new file (another inode) under the same name, as after a container restart.
    Path fresh = RegionFile.of("tmp", "x").gpus(GPU1).process(7, 0).write(hook);
    Files.move(fresh, a, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThat(m.runOnce())
        .singleElement()
        .extracting(ContainerStatus::uuids)
        .isEqualTo(List.of(GPU1));

    // Truncated to nothing (a fresh pre-created file): skipped, no error.
    Files.write(a, new byte[0]);
    assertThat(m.runOnce()).isEmpty();
  }

  @Test
  void aGpuWithoutProcessSamplesDoesNotTurnThemOffForTheOthers() {
    Nvml partial =
        new Nvml() {
          @Override
          public String describe() {
            return "partial";
          }

          @Override
          public List<GpuInfo> devices() {
            return nvml.devices();
          }

          @Override
          public io.hami.nodeagent.nvml.PcieLink pcieLink(int a, int b) {
            throw new UnsupportedOperationException();
          }

          @Override
          public int nvLinks(int from, int to) {
            throw new UnsupportedOperationException();
          }

          @Override
          public io.hami.nodeagent.nvml.XidWatch watchXids() {
            throw new UnsupportedOperationException();
          }

          @Override
          public List<ProcessUtilization> processUtilization(int index, long since)
              throws NvmlException {
            if (index == 0) {
              throw new NvmlException(NvmlException.NOT_SUPPORTED, "MIG mode");
            }
            return List.of(busy(4242));
          }

          @Override
          public void close() {}
        };
    RegionFile.of("u0", "x").gpus(GPU0).priority(0).process(7, 99).lastKernel(NOW - 60).write(hook);
    RegionFile.of("u1", "high")
        .gpus(GPU1)
        .priority(0)
        .process(7, 4242)
        .lastKernel(NOW - 60)
        .write(hook);
    Path low =
        RegionFile.of("u2", "low").gpus(GPU1).priority(1).process(7, 0).lastKernel(NOW).write(hook);
    Monitor m = new Monitor(hook, PERIOD, partial, null, clock, executor, processes);

    m.runOnce();
    clock.advance(PERIOD);
    m.runOnce();

    assertThat(recentKernel(low)).isEqualTo(-1);
  }

  @Test
  void noRegionsDirectoryIsNotAnError() {
    assertThat(monitor(null).runOnce()).isEmpty();
  }

  @Test
  void nvmlWithoutProcessUtilisationFallsBackToLaunchTimes() {
    Path low =
        RegionFile.of("u2", "low").gpus(GPU0).priority(1).process(9, 0).lastKernel(NOW).write(hook);
    RegionFile.of("u1", "high").gpus(GPU0).priority(0).process(7, 77).lastKernel(NOW).write(hook);
    Monitor m =
        new Monitor(
            hook,
            PERIOD,
            new io.hami.nodeagent.nvml.NullNvml("test"),
            null,
            clock,
            executor,
            processes);

    m.runOnce();

    assertThat(recentKernel(low)).isEqualTo(-1);
  }

  static final int HOST_PID = 1007;
  static final long STARTED = 123_456;

  /** What the host's process table says of the slot's host pid, and whether the slot is freed. */
  record ReclaimCase(
      String name, int hostPid, long slotStart, ProcessTable.Entry entry, boolean freed) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ReclaimCase> reclaimCases() {
    return Stream.of(
        new ReclaimCase("gone: freed", HOST_PID, STARTED, new ProcessTable.Absent(), true),
        new ReclaimCase(
            "alive, same start time: untouched",
            HOST_PID,
            STARTED,
            new ProcessTable.Running('S', STARTED),
            false),
        new ReclaimCase(
            "pid reused (start time differs): freed",
            HOST_PID,
            STARTED,
            new ProcessTable.Running('R', STARTED + 1),
            true),
        new ReclaimCase(
            "zombie: freed", HOST_PID, STARTED, new ProcessTable.Running('Z', STARTED), true),
        new ReclaimCase(
            "slot without a start time, pid alive: untouched",
            HOST_PID,
            0,
            new ProcessTable.Running('S', STARTED + 1),
            false),
        new ReclaimCase(
            "unreadable /proc entry (EACCES) means alive: untouched",
            HOST_PID,
            STARTED,
            new ProcessTable.Unreadable("permission denied"),
            false),
        new ReclaimCase(
            "host pid unknown (0): never the monitor's to reclaim",
            0,
            STARTED,
            new ProcessTable.Absent(),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reclaimCases")
  void reclaim(ReclaimCase c) {
    Path file =
        RegionFile.of("u1", "a")
            .gpus(GPU0, GPU1)
            .process(7, c.hostPid(), c.slotStart())
            .lastKernel(NOW)
            .write(hook);
    byte[] before = RegionFile.slotBytes(file);
    List<Integer> asked = new ArrayList<>();
    processes =
        pid -> {
          asked.add(pid);
          return c.entry();
        };

    ContainerStatus status = monitor(null).runOnce().get(0);

    byte[] want = before.clone();
    if (c.freed()) {
      // The slot's pid, and nothing else: libvgpu clears the rest when it claims the slot.
      ByteBuffer.wrap(want).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0);
    }
    assertThat(RegionFile.slotBytes(file)).isEqualTo(want);
    assertThat(status.slotsReclaimed()).isEqualTo(c.freed() ? 1 : 0);
    assertThat(status.inUse()).isEqualTo(!c.freed());
    if (c.hostPid() == 0) {
      assertThat(asked).isEmpty();
    }
  }

  /** The slot changes between the monitor's read and its compare-and-swap: it is left alone. */
  record RaceCase(String name, int offset, int value) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<RaceCase> raceCases() {
    return Stream.of(
        new RaceCase("freed and claimed by another pid", 0, 8),
        new RaceCase("freed and claimed again by the same container pid", 20, 4),
        new RaceCase("host pid rewritten by the broker", 4, 2002));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("raceCases")
  void aSlotChangedBetweenReadAndSwapIsLeftAlone(RaceCase c) {
    Path file = RegionFile.of("u1", "a").gpus(GPU0).process(7, HOST_PID, STARTED).write(hook);
    int slot = SharedRegionLayout.HEADER_SIZE;
    processes =
        pid -> {
          RegionFile.writeInt(file, slot + c.offset(), c.value());
          return new ProcessTable.Absent();
        };
    byte[] want = RegionFile.slotBytes(file);
    ByteBuffer.wrap(want).order(ByteOrder.LITTLE_ENDIAN).putInt(c.offset(), c.value());

    ContainerStatus status = monitor(null).runOnce().get(0);

    assertThat(RegionFile.slotBytes(file)).isEqualTo(want);
    assertThat(status.slotsReclaimed()).isZero();
  }

  @Test
  void reclaimsCountAcrossPeriods_andOnlyTheDeadSlotsStopCounting() {
    Path file =
        RegionFile.of("u1", "a")
            .gpus(GPU0)
            .process(7, 1001, STARTED)
            .process(8, 1002, STARTED)
            .process(9, 1003, STARTED)
            .write(hook);
    Set<Integer> dead = new HashSet<>(Set.of(1001));
    processes =
        pid ->
            dead.contains(pid) ? new ProcessTable.Absent() : new ProcessTable.Running('S', STARTED);
    Monitor m = monitor(null);

    assertThat(m.runOnce().get(0).slotsReclaimed()).isEqualTo(1);
    dead.add(1003);
    clock.advance(PERIOD);
    ContainerStatus s = m.runOnce().get(0);

    assertThat(s.slotsReclaimed()).isEqualTo(2);
    assertThat(s.inUse()).isTrue();
    assertThat(RegionFile.readInt(file, SharedRegionLayout.HEADER_SIZE)).isZero();
    assertThat(
            RegionFile.readInt(file, SharedRegionLayout.HEADER_SIZE + SharedRegionLayout.SLOT_SIZE))
        .isEqualTo(8);
  }
}
