package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import io.hami.kube.KubeClients;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.testing.BindingCrudDispatcher;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.FaultProxy;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: the scheduler with the GPU profile talks to the API server through a proxy that fails
 * 5% of its writes (409, 429, 500, dropped connections, writes applied whose answer is lost); every
 * pod still ends bound exactly once, with consistent HAMi annotations, no device over-committed and
 * no node lock left held.
 *
 * <p>The CRUD mock server plays the API server, applying each Binding as it is posted ({@link
 * BindingCrudDispatcher}); on its own client (no faults) this test plays the node agent after
 * Allocate: it marks each bound pod served and removes its node lock.
 */
class FaultInjectionIT {
  static final int NODES = 8;
  static final int GPUS_PER_NODE = 4;
  static final int PODS = 200;

  private final Map<String, AtomicInteger> bindings = new ConcurrentHashMap<>();
  private final List<String> rebinds = new CopyOnWriteArrayList<>();
  private final AtomicInteger repeated = new AtomicInteger();
  private final ExecutorService agentSide = Executors.newSingleThreadExecutor();
  private KubernetesMockServer server;
  private KubernetesClient client;
  private FaultProxy proxy;
  private KubernetesClient faulty;
  private SchedulerService service;

  @BeforeEach
  void setUp() {
    server =
        BindingCrudDispatcher.start(
            new BindingCrudDispatcher.Listener() {
              @Override
              public void bound(Binding b) {
                bindings
                    .computeIfAbsent(b.getMetadata().getName(), k -> new AtomicInteger())
                    .incrementAndGet();
                agentSide.execute(() -> serve(b));
              }

              @Override
              public void refused(Binding b, String node) {
                if (node.equals(b.getTarget().getName())) {
                  repeated.incrementAndGet(); // a binding retried after its answer was lost
                } else {
                  rebinds.add(b.getMetadata().getName() + " to " + b.getTarget().getName());
                }
              }
            });
    client = server.createClient();
    proxy =
        FaultProxy.start(
            new InetSocketAddress("127.0.0.1", server.getPort()), 0.05, Duration.ofMillis(300));
    Config config = Config.empty();
    config.setMasterUrl(proxy.url());
    config.setNamespace("default");
    faulty = KubeClients.builder(config).build();
  }

  @AfterEach
  void tearDown() {
    if (service != null) {
      service.close();
    }
    agentSide.shutdownNow();
    faulty.close();
    proxy.close();
    client.close();
    server.destroy();
  }

  /** What the node agent does once a pod is bound: marks it served and removes its node lock. */
  private void serve(Binding b) {
    String name = b.getMetadata().getName();
    client
        .pods()
        .inNamespace("default")
        .withName(name)
        .edit(
            p -> {
              p.getMetadata().getAnnotations().put(Annotations.BIND_PHASE, "success");
              return p;
            });
    String node = b.getTarget().getName();
    Node n = client.nodes().withName(node).get();
    String lock = n.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK);
    if (lock != null && NodeLock.releasableBy(lock, "default", name)) {
      client
          .nodes()
          .withName(node)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"" + Annotations.MUTEX_LOCK + "\":null}}}");
    }
  }

  @Test
  void twoHundredGpuPods_throughFivePercentFaultyWrites_allBindOnceAndConsistently()
      throws Exception {
    for (int i = 0; i < NODES; i++) {
      String name = "n" + i;
      client
          .nodes()
          .resource(MakeGpuNode.named(name).gpus(FakeGpus.t4s(name, GPUS_PER_NODE)).obj())
          .create();
    }
    Registry registry = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(registry::register);
    SchedulerConfiguration cfg = new ConfigLoader(registry).load(SchedulerLifecycleIT.CONFIG);
    service =
        new SchedulerService(
            faulty,
            cfg,
            registry,
            new SchedulerService.Options(false, "hami-scheduler", null, 1000, 2000, 16));
    service.start(Duration.ofSeconds(30));

    for (int i = 0; i < PODS; i++) {
      client
          .pods()
          .inNamespace("default")
          .resource(
              MakeGpuPod.named("p" + i)
                  .container("main")
                  .gpus(1)
                  .gpuMemMiB(1000 + (i % 5) * 500)
                  .gpuCores(10)
                  .obj())
          .create();
    }

    await()
        .atMost(Duration.ofSeconds(50))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        client.pods().inNamespace("default").list().getItems().stream()
                            .filter(p -> p.getSpec().getNodeName() == null)
                            .map(p -> p.getMetadata().getName())
                            .toList())
                    .as("unbound pods (%s)", proxy.summary())
                    .isEmpty());
    System.out.printf(
        "FaultInjectionIT: %s bindings=%d retried-after-lost-answer=%d%n",
        proxy.summary(), bindings.size(), repeated.get());
    assertThat(proxy.injected()).as("faults injected").isPositive();
    assertThat(rebinds).as("bindings of pods bound elsewhere already").isEmpty();

    List<Pod> pods = client.pods().inNamespace("default").list().getItems();
    assertThat(pods).hasSize(PODS);
    Map<String, int[]> usage = new HashMap<>(); // uuid -> {mem, cores, shares}
    for (Pod p : pods) {
      String name = p.getMetadata().getName();
      assertThat(bindings.get(name)).as("bindings of %s", name).hasValue(1);
      Map<String, String> a = p.getMetadata().getAnnotations();
      String node = p.getSpec().getNodeName();
      assertThat(a).as(name).containsEntry(Annotations.VGPU_NODE, node);
      String allocated = a.get(Annotations.VGPU_DEVICES_ALLOCATED);
      assertThat(a.get(Annotations.VGPU_DEVICES_TO_ALLOCATE)).as(name).isEqualTo(allocated);
      PodDevices devices = PodDevicesCodec.decode(allocated).orElseThrow();
      assertThat(devices.deviceCount()).as(name).isEqualTo(1);
      for (List<ContainerDevice> c : devices.containers()) {
        for (ContainerDevice d : c) {
          assertThat(d.uuid()).as(name).startsWith("GPU-" + node + "-");
          int[] u = usage.computeIfAbsent(d.uuid(), k -> new int[3]);
          u[0] += d.usedmem();
          u[1] += d.usedcores();
          u[2]++;
        }
      }
    }
    usage.forEach(
        (uuid, u) -> {
          assertThat(u[0]).as("memory on %s", uuid).isLessThanOrEqualTo(15360);
          assertThat(u[1]).as("cores on %s", uuid).isLessThanOrEqualTo(100);
          assertThat(u[2]).as("shares of %s", uuid).isLessThanOrEqualTo(10);
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(client.nodes().list().getItems())
                    .allSatisfy(
                        // The CRUD mock keeps a merge patch's null as a null value.
                        n ->
                            assertThat(n.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK))
                                .as("lock on %s", n.getMetadata().getName())
                                .isNull()));
  }
}
