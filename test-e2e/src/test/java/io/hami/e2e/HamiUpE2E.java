package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.cmd.up.HamiHome;
import io.hami.cmd.up.Playground;
import io.hami.cmd.up.PlaygroundSpec;
import io.hami.model.Annotations;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hami up} as a user runs it: the playground's own control plane, fake GPU nodes, scheduler
 * and webhook route and place a shipped sample that names no scheduler; stopping it leaves no
 * process and no file behind.
 */
class HamiUpE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  @TempDir Path tmp;

  private static HamiHome home() {
    return new HamiHome(ControlPlaneExtension.moduleDir().toAbsolutePath().getParent());
  }

  private static Pod sample(KubernetesClient client, String file) throws IOException {
    try (InputStream in = Files.newInputStream(home().samples().resolve(file))) {
      List<HasMetadata> items = client.load(in).items();
      assertThat(items).singleElement().isInstanceOf(Pod.class);
      return (Pod) items.get(0);
    }
  }

  private static Pod awaitRunningAndAllocated(KubernetesClient client, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> client.pods().inNamespace("default").withName(name).get(),
            p ->
                p != null
                    && p.getMetadata().getAnnotations() != null
                    && "success"
                        .equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
                    && "Running".equals(p.getStatus().getPhase()));
  }

  /**
   * The processes the control plane started, from the pid files it leaves in its work directory.
   */
  private static List<Long> controlPlanePids(Path workDir) throws IOException {
    try (Stream<Path> files = Files.walk(workDir)) {
      List<Long> pids = new ArrayList<>();
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".pid")).toList()) {
        pids.add(Long.parseLong(Files.readAllLines(f, StandardCharsets.UTF_8).get(0).trim()));
      }
      return pids;
    }
  }

  private static String get(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void playground_routesSchedulesAndAllocatesASample_andLeavesNothingBehind() throws Exception {
    Path workDir = tmp.resolve("up");
    PlaygroundSpec spec = new PlaygroundSpec(2, 2, 16384, "Tesla T4", 10, workDir);
    List<String> progress = new ArrayList<>();
    List<Long> pids;
    Playground playground = Playground.start(spec, home(), progress::add);
    try {
      KubernetesClient client = playground.client();
      assertThat(playground.nodes())
          .extracting(GpuNode::name)
          .containsExactly("gpu-node-1", "gpu-node-2");
      assertThat(playground.kubeconfig()).startsWith(workDir).exists();
      pids = controlPlanePids(workDir);
      assertThat(pids).hasSize(2).allMatch(HamiUpE2E::alive);

      Pod slice = sample(client, "gpu-slice.yaml");
      assertThat(slice.getSpec().getSchedulerName()).as("schedulerName in the sample").isNull();
      Pod created = client.pods().inNamespace("default").resource(slice).create();
      assertThat(created.getSpec().getSchedulerName())
          .as("schedulerName after admission")
          .isEqualTo("hami-scheduler");

      Pod pod = awaitRunningAndAllocated(client, "gpu-slice");
      Map<String, String> a = pod.getMetadata().getAnnotations();
      String node = pod.getSpec().getNodeName();
      assertThat(node).isIn("gpu-node-1", "gpu-node-2");
      assertThat(a).containsEntry(Annotations.VGPU_NODE, node);
      List<List<Invariants.Use>> devices =
          Invariants.parseDevices(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
      assertThat(devices)
          .singleElement()
          .satisfies(
              c ->
                  assertThat(c)
                      .singleElement()
                      .satisfies(
                          u -> {
                            assertThat(u.mem()).isEqualTo(4096);
                            assertThat(u.cores()).isEqualTo(30);
                          }));
      GpuNode host =
          playground.nodes().stream().filter(n -> n.name().equals(node)).findFirst().orElseThrow();
      ContainerAllocateResponse cuda = host.allocation(created.getMetadata().getUid()).get("cuda");
      assertThat(cuda).as("the fake kubelet's Allocate for container cuda").isNotNull();
      assertThat(cuda.getEnvsMap())
          .containsEntry("NVIDIA_VISIBLE_DEVICES", devices.get(0).get(0).uuid())
          .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "4096m")
          .containsEntry("CUDA_DEVICE_SM_LIMIT", "30");
      assertThat(Invariants.check(client, Set.of("gpu-node-1", "gpu-node-2"))).isEmpty();
    } catch (Throwable t) {
      Diagnostics.save(
          ControlPlaneExtension.moduleDir().resolve("target/diagnostics/HamiUpE2E/playground"),
          t,
          playground.controlPlane(),
          playground.client(),
          new TestNamespace("default"));
      throw t;
    } finally {
      playground.close();
    }

    assertThat(workDir).doesNotExist();
    assertThat(pids).noneMatch(HamiUpE2E::alive);
    assertThat(progress).anyMatch(l -> l.startsWith("control plane: ready at https://127.0.0.1:"));
  }

  @Test
  void playgroundWithoutScheduler_routesGpuPods_butLeavesThemForAnotherScheduler()
      throws Exception {
    Path workDir = tmp.resolve("bare");
    PlaygroundSpec spec = new PlaygroundSpec(1, 2, 16384, "Tesla T4", 10, workDir);
    List<String> progress = new ArrayList<>();
    Playground playground = Playground.start(spec, home(), false, progress::add);
    try {
      KubernetesClient client = playground.client();
      assertThat(playground.schedulerRunning()).isFalse();
      assertThat(playground.schedulerName()).isEqualTo("hami-scheduler");
      // The node agent registered its GPUs: what another scheduler reads.
      assertThat(
              client
                  .nodes()
                  .withName("gpu-node-1")
                  .get()
                  .getMetadata()
                  .getAnnotations()
                  .get(Annotations.NODE_NVIDIA_REGISTER))
          .isNotBlank();

      Pod created =
          client.pods().inNamespace("default").resource(sample(client, "gpu-slice.yaml")).create();
      assertThat(created.getSpec().getSchedulerName()).isEqualTo("hami-scheduler");
      Thread.sleep(5_000);
      Pod still = client.pods().inNamespace("default").withName("gpu-slice").get();
      assertThat(still.getSpec().getNodeName()).as("no scheduler bound it").isNull();
      assertThat(still.getMetadata().getAnnotations()).doesNotContainKey(Annotations.VGPU_NODE);
    } finally {
      playground.close();
    }
    assertThat(workDir).doesNotExist();
    assertThat(progress)
        .contains(
            "scheduler: not started (--without-scheduler); GPU pods wait for a scheduler named"
                + " hami-scheduler");
  }

  @Test
  void hamiUp_asACommand_printsTheKubeconfig_andStopsCleanlyOnSigterm() throws Exception {
    Path jar = home().root().resolve("cmd/cli/target/hami.jar");
    assumeTrue(Files.isRegularFile(jar), jar + " is built by the cmd/cli module's package phase");
    Path workDir = tmp.resolve("cmd");
    ProcessBuilder pb =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-jar",
                jar.toString(),
                "up",
                "--nodes",
                "1",
                "--gpus-per-node",
                "1",
                "--gpu-memory",
                "16384",
                "--work-dir",
                workDir.toString())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().put(HamiHome.ENV, home().root().toString());
    Process up = pb.start();
    List<String> output = Collections.synchronizedList(new ArrayList<>());
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  output.add(line);
                }
              } catch (IOException e) {
                output.add("(output unreadable: " + e + ")");
              }
            },
            "hami-up-output");
    reader.start();
    Set<Long> descendants = new HashSet<>();
    try {
      await()
          .atMost(Duration.ofSeconds(240))
          .pollInterval(Duration.ofMillis(200))
          .failFast("hami up exited", () -> !up.isAlive())
          .until(() -> List.copyOf(output).stream().anyMatch(l -> l.contains("Press Ctrl-C")));
      Optional<String> kubeconfigLine =
          List.copyOf(output).stream()
              .filter(l -> l.startsWith("  export KUBECONFIG="))
              .findFirst();
      assertThat(kubeconfigLine).isPresent();
      Path kubeconfig = Path.of(kubeconfigLine.get().substring("  export KUBECONFIG=".length()));
      assertThat(kubeconfig).startsWith(workDir).exists();
      assertThat(output)
          .anyMatch(
              l -> l.contains("kubectl apply -f " + home().samples().resolve("gpu-slice.yaml")));
      assertThat(output).contains("  logs        " + workDir.resolve("hami-up.log"));
      int ready =
          output.indexOf("Press Ctrl-C to stop; the cluster and its work directory are removed.");
      up.descendants().forEach(d -> descendants.add(d.pid()));
      assertThat(descendants).as("etcd and kube-apiserver").hasSizeGreaterThanOrEqualTo(2);

      try (KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
              .build()) {
        client.pods().inNamespace("default").resource(sample(client, "whole-gpu.yaml")).create();
        Pod pod = awaitRunningAndAllocated(client, "whole-gpu");
        assertThat(pod.getSpec().getSchedulerName()).isEqualTo("hami-scheduler");
        assertThat(pod.getSpec().getNodeName()).isEqualTo("gpu-node-1");
      }
      // The cluster view's address, printed with the rest, serves the pod just placed.
      Optional<String> viewLine =
          List.copyOf(output).stream().filter(l -> l.startsWith("  cluster view ")).findFirst();
      assertThat(viewLine).isPresent();
      String viewUrl = viewLine.get().substring("  cluster view ".length()).split(" ")[0];
      assertThat(viewUrl).startsWith("http://127.0.0.1:").endsWith("/ui/");
      HttpClient http = HttpClient.newHttpClient();
      assertThat(get(http, viewUrl)).contains("<title>HAMi cluster view</title>");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(get(http, viewUrl + "api/cluster")).contains("default/whole-gpu"));
      assertThat(List.copyOf(output).subList(ready, output.size()))
          .as("the terminal after start-up: component logs go to the log file")
          .noneMatch(l -> l.contains(" INFO "));
      assertThat(Files.readString(workDir.resolve("hami-up.log")))
          .contains("pod=default/whole-gpu");

      // Through the handle: Process.destroy() also closes the pipe the output is read from.
      assertThat(up.toHandle().destroy()).as("SIGTERM sent").isTrue();
      assertThat(up.waitFor(120, TimeUnit.SECONDS)).as("hami up exits after SIGTERM").isTrue();
      reader.join(10_000);
      assertThat(up.exitValue()).as("exit code; output:%n%s", String.join("\n", output)).isZero();
      assertThat(output).anyMatch(l -> l.startsWith("hami up: stopped;"));
      assertThat(workDir).doesNotExist();
      assertThat(descendants).noneMatch(HamiUpE2E::alive);
    } catch (Throwable t) {
      System.out.println("hami up output:\n" + String.join("\n", List.copyOf(output)));
      throw t;
    } finally {
      if (up.isAlive()) {
        up.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      descendants.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }
}
