package io.hami.cmd.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.Mount;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code config/samples/priority.yaml} end to end on one fake GPU: both pods allocated through the
 * fake kubelet, one libvgpu process per container (gpu_check's {@code rate} mode under the library
 * and the fake driver, with the container's env and the host paths of its region and limits file),
 * and the agent's /metrics scraped over HTTP show the priority-1 container held back while the
 * priority-0 one launches, and released within two monitor periods after it exits.
 */
@EnableKubernetesMockClient(crud = true)
class PrioritySampleIT {
  static final String NODE = "gpu-node-prio";
  static final String RESOURCE = "nvidia.com/gpu";
  static final String GPU0 = "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76";
  static final Duration PERIOD = Duration.ofMillis(300);
  static final Path ROOT = Path.of(System.getProperty("hami.root", "../..")).toAbsolutePath();
  static final Path LIBVGPU = ROOT.resolve("libvgpu").normalize();
  static final Path SAMPLE = ROOT.resolve("config/samples/priority.yaml").normalize();
  static final Path BUILD = Path.of("target/libvgpu-prio").toAbsolutePath();

  KubernetesClient client;
  @TempDir Path tmp;
  Path hook;
  FakeKubelet kubelet;
  NodeAgent agent;
  final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    assumeTrue(onPath("gcc") && onPath("make"), "gcc and make are needed to build libvgpu");
    buildLibvgpu();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    Path deviceDir = tmp.resolve("device-plugins");
    hook = tmp.resolve("hook");
    kubelet = FakeKubelet.start(deviceDir, client, NODE);
    FakeNvml nvml =
        new FakeNvml(
            List.of(new GpuInfo(0, GPU0, "Tesla T4", 15360, "00000000:18:00.0", 0, false)));
    agent =
        NodeAgent.create(
            NodeAgentConfig.builder(NODE)
                .deviceDir(deviceDir)
                .hookPath(hook)
                .splitCount(4)
                .monitorPeriod(PERIOD)
                .registerInterval(Duration.ofMinutes(10))
                .build(),
            nvml,
            client,
            new InetSocketAddress("127.0.0.1", 0),
            Clock.systemUTC(),
            new NodeAgent.Tuning(
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                () -> UUID.randomUUID().toString(),
                // The CRUD mock server indexes no spec fields, so filter on this side.
                (c, node) ->
                    c.pods().inAnyNamespace().list().getItems().stream()
                        .filter(p -> node.equals(p.getSpec().getNodeName()))
                        .toList()));
    agent.start(Duration.ofSeconds(30));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 4, Duration.ofSeconds(20));
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : processes) {
      p.destroyForcibly();
    }
    if (agent != null) {
      agent.stop(Duration.ofSeconds(10));
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  @Test
  void lowPriorityContainerIsHeldWhileTheHighOneRunsAndReleasedAfter() throws Exception {
    List<Pod> pods = samplePods();
    assertThat(pods).hasSize(2);
    Map<Integer, Pod> byPriority = new HashMap<>();
    Map<Integer, ContainerAllocateResponse> responses = new HashMap<>();
    for (Pod pod : pods) {
      int priority = priority(pod);
      Pod bound = client.pods().inNamespace("default").resource(bindToGpu0(pod)).create();
      ContainerAllocateResponse r =
          kubelet
              .allocatePod(RESOURCE, bound)
              .get(bound.getSpec().getContainers().get(0).getName());
      assertThat(r).as(pod.getMetadata().getName()).isNotNull();
      byPriority.put(priority, bound);
      responses.put(priority, r);
    }
    assertThat(byPriority).containsOnlyKeys(0, 1);

    Process low = launch("low", responses.get(1), 12);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> Files.readString(tmp.resolve("low.out")).contains("started_ms="));
    // Alone on the GPU: listed, not held.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(blocked(byPriority.get(1))).isEqualTo("0.0"));

    Process high = launch("high", responses.get(0), 4);
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(blocked(byPriority.get(1))).isEqualTo("1.0"));
    assertThat(blocked(byPriority.get(0))).isEqualTo("0.0");
    assertThat(low.isAlive()).isTrue();

    assertThat(high.waitFor(30, TimeUnit.SECONDS)).as("high-priority process ends").isTrue();
    assertThat(high.exitValue()).as(output("high")).isZero();
    long exited = System.nanoTime();
    await()
        .atMost(PERIOD.multipliedBy(2))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(blocked(byPriority.get(1))).isEqualTo("0.0"));
    Duration released = Duration.ofNanos(System.nanoTime() - exited);
    assertThat(released).isLessThanOrEqualTo(PERIOD.multipliedBy(2));
    assertThat(low.isAlive()).as(output("low")).isTrue();

    // libvgpu did hold the launches: a second and more without one, then launches again.
    assertThat(low.waitFor(30, TimeUnit.SECONDS)).as("low-priority process ends").isTrue();
    assertThat(low.exitValue()).as(output("low")).isZero();
    List<Long> counts = counts(tmp.resolve("low.out"));
    int longestIdle = 0;
    int idle = 0;
    for (long c : counts.subList(0, counts.size() - 1)) {
      idle = c == 0 ? idle + 1 : 0;
      longestIdle = Math.max(longestIdle, idle);
    }
    assertThat(longestIdle).as(output("low")).isGreaterThanOrEqualTo(10);
    assertThat(counts.get(counts.size() - 2)).as(output("low")).isPositive();
  }

  /** gpu_check rate's kernels per 100 ms bucket. */
  private static List<Long> counts(Path out) throws IOException {
    return Files.readAllLines(out).stream()
        .filter(l -> l.startsWith("counts="))
        .findFirst()
        .map(l -> Arrays.stream(l.substring(7).split(",")).map(Long::parseLong).toList())
        .orElseThrow(() -> new AssertionError("no counts in " + out));
  }

  /** The sample's pods, as a user applies them; only namespace and binding are the test's. */
  private List<Pod> samplePods() throws IOException {
    List<Pod> out = new ArrayList<>();
    try (InputStream in = Files.newInputStream(SAMPLE)) {
      for (HasMetadata o : client.load(in).items()) {
        out.add((Pod) o);
      }
    }
    return out;
  }

  /** The pod as the scheduler leaves it after Bind, its one container on GPU0. */
  private static Pod bindToGpu0(Pod pod) {
    Map<String, Quantity> limits = pod.getSpec().getContainers().get(0).getResources().getLimits();
    String mem = limits.get("nvidia.com/gpumem").getAmount();
    Quantity cores = limits.get("nvidia.com/gpucores");
    String devices =
        GPU0 + ",NVIDIA," + mem + "," + (cores == null ? "0" : cores.getAmount()) + ":;";
    pod.getMetadata().setNamespace("default");
    pod.getMetadata()
        .setUid(UUID.nameUUIDFromBytes(pod.getMetadata().getName().getBytes()).toString());
    Map<String, String> a = new HashMap<>(pod.getMetadata().getAnnotations());
    a.put(Annotations.VGPU_NODE, NODE);
    a.put(Annotations.BIND_PHASE, BindPhase.ALLOCATING.wire());
    a.put(Annotations.BIND_TIME, Long.toString(System.currentTimeMillis() / 1000));
    a.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, devices);
    a.put(Annotations.VGPU_DEVICES_ALLOCATED, devices);
    pod.getMetadata().setAnnotations(a);
    pod.getSpec().setNodeName(NODE);
    pod.setStatus(new PodStatusBuilder().withPhase("Pending").build());
    return pod;
  }

  private static int priority(Pod pod) {
    return Integer.parseInt(
        pod.getSpec()
            .getContainers()
            .get(0)
            .getResources()
            .getLimits()
            .get("nvidia.com/priority")
            .getAmount());
  }

  /**
   * One gpu_check process for the container: its Allocate env, with the region and limits file at
   * the host paths the response mounts them from, under libvgpu and the fake driver.
   */
  private Process launch(String name, ContainerAllocateResponse r, int seconds) throws IOException {
    Map<String, String> hostPath = new HashMap<>();
    for (Mount m : r.getMountsList()) {
      hostPath.put(m.getContainerPath(), m.getHostPath());
    }
    ProcessBuilder pb =
        new ProcessBuilder(BUILD.resolve("gpu_check").toString(), "rate", "" + seconds, "100")
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve(name + ".out").toFile());
    Map<String, String> env = pb.environment();
    env.putAll(r.getEnvsMap());
    String cache = r.getEnvsMap().get("CUDA_DEVICE_MEMORY_SHARED_CACHE");
    assertThat(hostPath).containsKeys(cache, "/etc/vgpu/limits");
    env.put("CUDA_DEVICE_MEMORY_SHARED_CACHE", hostPath.get(cache));
    env.put("LIBVGPU_LIMITS_FILE", hostPath.get("/etc/vgpu/limits"));
    env.put("LD_PRELOAD", BUILD.resolve("libvgpu.so").toString());
    env.put("LD_LIBRARY_PATH", BUILD.resolve("fake").toString());
    env.put("FAKE_STATE", tmp.resolve("fake.state").toString());
    env.put("FAKE_KERNEL_NS", "1000000");
    env.put("VGPU_CHECK_ITERS", "1000");
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  private String output(String name) throws IOException {
    return name + ": " + Files.readString(tmp.resolve(name + ".out"));
  }

  /** The pod's hami_container_priority_blocked value on the agent's /metrics, or null. */
  private @Nullable String blocked(Pod pod) throws IOException, InterruptedException {
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + agent.metricsPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
            .body();
    Matcher m =
        Pattern.compile("(?m)^hami_container_priority_blocked\\{([^}]*)\\} (\\S+)$").matcher(body);
    while (m.find()) {
      if (m.group(1).contains("pod=\"" + pod.getMetadata().getName() + "\"")
          && m.group(1).contains("namespace=\"default\"")
          && m.group(1).contains("priority=\"" + priority(pod) + "\"")) {
        return m.group(2);
      }
    }
    return null;
  }

  private static void buildLibvgpu() throws IOException, InterruptedException {
    run(List.of("make", "-s", "-C", LIBVGPU.toString(), "BUILD=" + BUILD, "lib", "fake"));
    run(
        List.of(
            "gcc",
            "-std=gnu11",
            "-O2",
            "-I" + LIBVGPU.resolve("include"),
            LIBVGPU.resolve("test/gpu/gpu_check.c").toString(),
            "-ldl",
            "-lpthread",
            "-o",
            BUILD.resolve("gpu_check").toString()));
  }

  private static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + "\n" + out).isZero();
  }

  private static boolean onPath(String tool) {
    try {
      return new ProcessBuilder("sh", "-c", "command -v " + tool)
              .redirectErrorStream(true)
              .start()
              .waitFor()
          == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
