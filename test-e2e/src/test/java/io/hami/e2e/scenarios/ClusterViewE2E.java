package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.HeadlessBrowser;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.nodeagent.nvml.GpuInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The cluster view in a real browser: headless Debian chromium, driven through chromedriver by
 * Selenium, reads the page the in-process hami-scheduler serves while GPU pods are placed on fake
 * GPUs, wait, and go. Screenshots go to {@code target/screenshots/}.
 *
 * <p>Skipped when chromium or chromedriver is missing, unless {@code
 * -Dhami.e2e.requireBrowser=true} (as {@code .ci/run} sets), which makes their absence a failure.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class ClusterViewE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String SECRET = "e2e-view-secret-value";

  @TempDir static Path dir;
  private static @Nullable HeadlessBrowser browser;
  private final List<GpuNode> nodes = new ArrayList<>();

  @BeforeAll
  static void startBrowser() {
    browser = HeadlessBrowser.start(dir, "ClusterViewE2E", "cluster view");
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) {
      browser.close();
      browser = null;
    }
  }

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private static HeadlessBrowser browserOrFail() {
    HeadlessBrowser b = browser;
    if (b == null) {
      throw new IllegalStateException("the browser did not start");
    }
    return b;
  }

  private static WebDriver browser() {
    return browserOrFail().driver();
  }

  private static void screenshot(String name) throws IOException {
    browserOrFail().screenshot(name);
  }

  private static List<WebElement> find(String css) {
    return browserOrFail().find(css);
  }

  private static String gpuCell(String node, int index) {
    return "[data-gpu='" + node + "/" + index + "']";
  }

  private static Pod awaitAllocated(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> client.pods().inNamespace(ns.name()).withName(name).get(),
            p ->
                p != null
                    && p.getMetadata().getAnnotations() != null
                    && "success"
                        .equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE)));
  }

  private static String uuidOf(Pod pod) {
    return Invariants.parseDevices(
            pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED))
        .get(0)
        .get(0)
        .uuid();
  }

  private static Pod withSecrets(Pod pod) {
    Map<String, String> annotations = new HashMap<>(pod.getMetadata().getAnnotations());
    annotations.put("example.com/token", SECRET);
    pod.getMetadata().setAnnotations(annotations);
    pod.getSpec().getContainers().get(0).setEnv(List.of(new EnvVar("PASSWORD", SECRET, null)));
    return pod;
  }

  @Test
  void gridShowsPodsOnTheirGpus_pendingPodShowsItsReason_deletedPodGoesWithinTwoSeconds(
      KubernetesClient client, TestNamespace ns, Scheduler scheduler) throws Exception {
    List<GpuInfo> gpus = List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000));
    GpuNode node = GpuNode.start(client, dir, ns.name() + "-view", 10, gpus);
    nodes.add(node);
    String[] names = {"train", "infer"};
    for (String name : names) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(withSecrets(GpuPods.named(name).gpu(1, 12000, 40).on(node.name()).build()))
          .create();
    }
    List<Pod> placed = new ArrayList<>();
    for (String name : names) {
      placed.add(awaitAllocated(client, ns, name));
    }

    browser().get(scheduler.viewUrl());
    // Other classes' pods share this control plane: the filter keeps the page (and the
    // screenshots) to this test's node and pods.
    browser().findElement(By.id("filter")).sendKeys(ns.name());

    // Each pod on the GPU its grant names, and on no other: 12000 MiB each leave no room to share.
    for (Pod p : placed) {
      String key = ns.name() + "/" + p.getMetadata().getName();
      int index = gpus.stream().map(GpuInfo::uuid).toList().indexOf(uuidOf(p));
      assertThat(index).as("GPU of %s", key).isNotNegative();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(find(gpuCell(node.name(), index) + " [data-pod='" + key + "']"))
                      .as("%s on GPU %s", key, index)
                      .hasSize(1));
      assertThat(find(gpuCell(node.name(), 1 - index) + " [data-pod='" + key + "']")).isEmpty();
      assertThat(find(gpuCell(node.name(), index)).get(0).getText())
          .contains("mem 11.7 GiB / ")
          .contains("cores 40 / 100%")
          .contains("slots 1/10");
    }
    screenshot("1-scheduled");

    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named("too-big").gpu(1, 12000, 40).on(node.name()).build())
        .create();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Pod p = client.pods().inNamespace(ns.name()).withName("too-big").get();
              return p.getStatus() != null
                  && p.getStatus().getConditions().stream()
                      .anyMatch(
                          (PodCondition c) ->
                              "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()));
            });
    String pendingRow = "[data-pending='" + ns.name() + "/too-big']";
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(find(pendingRow))
                    .singleElement()
                    .satisfies(
                        row ->
                            assertThat(row.getText())
                                .contains("Unschedulable")
                                .contains("CardInsufficientMemory")));
    screenshot("2-pending");

    String gone = ns.name() + "/" + names[0];
    assertThat(find("[data-pod='" + gone + "']")).hasSize(1);
    long t0 = System.nanoTime();
    client.pods().inNamespace(ns.name()).withName(names[0]).withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> find("[data-pod='" + gone + "']").isEmpty());
    System.out.printf(
        "e2e: deleted pod left the cluster view after %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    screenshot("3-deleted");

    // Nothing of a pod's environment or foreign annotations reaches the page or its API.
    assertThat(browser().getPageSource()).doesNotContain(SECRET);
    String base = scheduler.viewUrl();
    HttpClient http = HttpClient.newHttpClient();
    for (String path : List.of("", "api/cluster")) {
      String body =
          http.send(
                  HttpRequest.newBuilder(URI.create(base + path)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(body).doesNotContain(SECRET).doesNotContain("example.com/token");
    }
  }
}
