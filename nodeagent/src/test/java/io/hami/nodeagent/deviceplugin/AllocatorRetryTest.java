package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateRequest;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocate holds no monitor across API calls, and the lock release retries a bounded number of
 * times, never after an interrupt.
 */
@EnableKubernetesMockClient
class AllocatorRetryTest {
  private static final String NODE = "n1";
  private static final String NODE_PATH = "/api/v1/nodes/" + NODE;

  KubernetesClient client;
  KubernetesMockServer server;

  private Allocator allocator(Supplier<List<Pod>> pods) {
    return new Allocator(client, NodeAgentConfig.builder(NODE).build(), () -> "x", pods);
  }

  private static Pod pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName("p")
        .withUid("u1")
        .endMetadata()
        .build();
  }

  private void lockedByP() {
    String lock =
        NodeLock.of(OffsetDateTime.of(2026, 12, 3, 8, 0, 0, 0, ZoneOffset.UTC), "default", "p")
            .encode();
    Node n =
        new NodeBuilder()
            .withNewMetadata()
            .withName(NODE)
            .withResourceVersion("7")
            .addToAnnotations(Annotations.MUTEX_LOCK, lock)
            .endMetadata()
            .build();
    server.expect().get().withPath(NODE_PATH).andReturn(200, n).always();
    server.expect().patch().withPath(NODE_PATH).andReturn(409, "").always();
  }

  private long patches() throws InterruptedException {
    long n = 0;
    for (int i = server.getRequestCount(); i > 0; i--) {
      if ("PATCH".equals(server.takeRequest().getMethod())) {
        n++;
      }
    }
    return n;
  }

  @Test
  void releaseLock_givesUpAfterItsAttempts() throws Exception {
    lockedByP();

    assertThatThrownBy(() -> allocator(List::of).releaseLock(pod()))
        .isInstanceOf(KubernetesClientException.class);

    assertThat(patches()).isEqualTo(Allocator.RELEASE_ATTEMPTS);
  }

  @Test
  void releaseLock_afterAnInterrupt_triesOnceAndKeepsTheFlag() throws Exception {
    lockedByP();
    Allocator a = allocator(List::of);

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> a.releaseLock(pod())).isInstanceOf(KubernetesClientException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    // The client may refuse the read itself on an interrupted thread; either way no retry runs.
    assertThat(patches()).isLessThanOrEqualTo(1);
  }

  @Test
  void allocate_holdsNoMonitorWhileItReadsTheApi() throws Exception {
    server
        .expect()
        .get()
        .withPath(NODE_PATH)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();
    CountDownLatch listing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Allocator a =
        allocator(
            () -> {
              listing.countDown();
              try {
                release.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return List.of();
            });
    CompletableFuture<?> call =
        CompletableFuture.runAsync(
            () -> {
              try {
                a.allocate(AllocateRequest.getDefaultInstance());
              } catch (AllocationException e) {
                // no pod pending: expected
              }
            });
    assertThat(listing.await(10, TimeUnit.SECONDS)).isTrue();

    // The pod listing (an API call) is in progress: the allocator's monitor is free.
    CompletableFuture<Boolean> other =
        CompletableFuture.supplyAsync(
            () -> {
              synchronized (a) {
                return true;
              }
            });
    assertThat(other.get(5, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    call.get(10, TimeUnit.SECONDS);
  }

  /** Issue 22: a 409 on a pod patch re-reads the pod and patches again; the pod is served. */
  @Test
  void allocate_conflictOnThePodPatch_isRetriedAfterAReRead(@TempDir Path hook) throws Exception {
    String gpu = "GPU-0";
    Pod bound = MakeBoundPod.bound("p", NODE, gpu + ",NVIDIA,1000,10:;").container("c", 1).build();
    Pod served =
        new PodBuilder(bound)
            .editMetadata()
            .addToAnnotations(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";")
            .endMetadata()
            .build();
    String podPath = "/api/v1/namespaces/default/pods/p";
    server
        .expect()
        .get()
        .withPath(NODE_PATH)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();
    server.expect().patch().withPath(podPath).andReturn(409, "").once();
    server.expect().patch().withPath(podPath).andReturn(200, served).always();
    server.expect().get().withPath(podPath).andReturn(200, served).always();
    Allocator a =
        new Allocator(
            client,
            NodeAgentConfig.builder(NODE).hookPath(hook).build(),
            () -> "x",
            () -> List.of(bound));

    a.allocate(
        AllocateRequest.newBuilder()
            .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(gpu + "-0"))
            .build());

    List<String> requests = new ArrayList<>();
    for (int i = server.getRequestCount(); i > 0; i--) {
      RecordedRequest r = server.takeRequest();
      if (r.getPath().startsWith(podPath)) {
        String body = r.getUtf8Body();
        requests.add(r.getMethod() + (body != null && body.contains("success") ? " success" : ""));
      }
    }
    // The devices patch (409), the re-read, the devices patch again, the read of what is left, and
    // bind-phase success.
    assertThat(requests).containsExactly("PATCH", "GET", "PATCH", "GET", "PATCH success");
  }
}
