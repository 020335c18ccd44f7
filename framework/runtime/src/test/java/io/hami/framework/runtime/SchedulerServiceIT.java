package io.hami.framework.runtime;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.testing.BindingCrudDispatcher;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scheduler against fabric8's CRUD mock API server, which applies each Binding within its
 * request as the API server does ({@link BindingCrudDispatcher}): informers, binding, conditions,
 * Events.
 */
class SchedulerServiceIT {
  private static BindingCrudDispatcher.Served api;
  static KubernetesClient client;

  private SchedulerService service;

  @BeforeAll
  static void startServer() {
    api = BindingCrudDispatcher.serve();
    client = api.client();
  }

  @AfterAll
  static void stopServer() {
    api.close();
  }

  @AfterEach
  void tearDown() {
    if (service != null) {
      service.close();
    }
    client.pods().inAnyNamespace().delete();
    client.nodes().delete();
    client.v1().events().inAnyNamespace().delete();
  }

  private void start() throws Exception {
    service =
        new SchedulerService(
            client,
            SchedulerConfiguration.defaults().withParallelism(2),
            BuiltInPlugins.registry(),
            SchedulerService.Options.defaults());
    service.start(Duration.ofSeconds(30));
  }

  private static void create(Pod p) {
    client.pods().inNamespace("default").resource(p).create();
  }

  private static Pod get(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  @Test
  void addedRoutes_areServedBesideHealth_andCannotShadowIt() throws Exception {
    service =
        new SchedulerService(
            client,
            SchedulerConfiguration.defaults().withParallelism(2),
            BuiltInPlugins.registry(),
            new SchedulerService.Options(
                false,
                "route-test",
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                50,
                100,
                2));
    service.route(
        "/hello",
        exchange -> {
          byte[] body = ("hi " + exchange.getRequestURI().getPath()).getBytes(UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (var os = exchange.getResponseBody()) {
            os.write(body);
          }
        });
    assertThatThrownBy(() -> service.route("/healthz", exchange -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/healthz");
    assertThatThrownBy(() -> service.route("/hello", exchange -> {}))
        .isInstanceOf(IllegalStateException.class);
    assertThat(service.httpPort()).isEmpty();
    service.start(Duration.ofSeconds(30));

    String base = "http://127.0.0.1:" + service.httpPort().orElseThrow();
    HttpClient http = HttpClient.newHttpClient();
    assertThat(fetch(http, base + "/hello/there")).isEqualTo("200 hi /hello/there");
    assertThat(fetch(http, base + "/healthz")).isEqualTo("200 ok");
    assertThat(fetch(http, base + "/hellothere")).isEqualTo("404 not found");
    // Nodes, pods and the kinds the default plugins list, all running.
    Matcher informers =
        Pattern.compile("(?m)^hami_scheduler_informers (\\S+)$")
            .matcher(fetch(http, base + "/metrics"));
    assertThat(informers.find()).as("hami_scheduler_informers is exported").isTrue();
    assertThat(Double.parseDouble(informers.group(1))).isGreaterThanOrEqualTo(2);
    assertThatThrownBy(() -> service.route("/late", exchange -> {}))
        .isInstanceOf(IllegalStateException.class);
  }

  private static String fetch(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }

  @Test
  void pendingPods_areBound() throws Exception {
    client.nodes().resource(MakeNode.named("n1").capacity("4", "8Gi", 110).obj()).create();
    client.nodes().resource(MakeNode.named("n2").capacity("4", "8Gi", 110).obj()).create();
    for (int i = 0; i < 4; i++) {
      create(MakePod.named("p" + i).cpu("1").obj());
    }
    create(MakePod.named("other").schedulerName("default-scheduler").obj());
    start();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (int i = 0; i < 4; i++) {
                assertThat(get("p" + i).getSpec().getNodeName()).isIn("n1", "n2");
              }
            });
    assertThat(get("other").getSpec().getNodeName()).isNull();
  }

  @Test
  void unschedulablePod_getsConditionAndOneEvent() throws Exception {
    client.nodes().resource(MakeNode.named("n1").capacity("2", "8Gi", 110).obj()).create();
    client
        .nodes()
        .resource(MakeNode.named("n2").capacity("2", "8Gi", 110).unschedulable(true).obj())
        .create();
    create(MakePod.named("big").cpu("16").obj());
    start();
    String want =
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. preemption: 0/2"
            + " nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption"
            + " is not helpful for scheduling..";
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(get("big").getStatus().getConditions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo("PodScheduled");
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getMessage()).isEqualTo(want);
                        }));
    // Retry the pod: the message is the same, so no second Event.
    service.scheduler().queue().activate(List.of(get("big")));
    await().atMost(Duration.ofSeconds(20)).until(() -> unschedulableAttempts() >= 2);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(failedSchedulingEvents("big")).hasSize(1));
    Thread.sleep(500);
    assertThat(failedSchedulingEvents("big")).hasSize(1);
    assertThat(failedSchedulingEvents("big").get(0).getMessage()).isEqualTo(want);
  }

  @Test
  void deletedPod_leavesTheQueue() throws Exception {
    client.nodes().resource(MakeNode.named("n1").capacity("1", "1Gi", 110).obj()).create();
    create(MakePod.named("stuck").cpu("8").obj());
    start();
    String uid = get("stuck").getMetadata().getUid();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> service.scheduler().queue().isUnschedulable(uid));
    client.pods().inNamespace("default").withName("stuck").delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> !service.scheduler().queue().contains(uid));
  }

  @Test
  void nodeAddedLater_makesPendingPodSchedulableWithoutFlush() throws Exception {
    client.nodes().resource(MakeNode.named("small").capacity("1", "1Gi", 110).obj()).create();
    create(MakePod.named("waiting").cpu("4").obj());
    start();
    String uid = get("waiting").getMetadata().getUid();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> service.scheduler().queue().isUnschedulable(uid));
    client.nodes().resource(MakeNode.named("large").capacity("8", "16Gi", 110).obj()).create();
    // Well inside the 5-minute leftover flush: the node event requeues the pod.
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(() -> assertThat(get("waiting").getSpec().getNodeName()).isEqualTo("large"));
  }

  @Test
  void anErrorOnTheSchedulingThread_endsTheServiceWithExitCode1() throws Exception {
    Registry registry = BuiltInPlugins.registry();
    registry.register(
        PluginRegistration.of(
            "Crashing", h -> new SchedulerFatalErrorTest.Crashing("Crashing", "Filter")));
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                    + "- schedulerName: hami-scheduler\n  plugins:\n    multiPoint:\n"
                    + "      enabled:\n      - name: Crashing\n",
                "test");
    client.nodes().resource(MakeNode.named("n1").capacity("4", "8Gi", 110).obj()).create();
    service = new SchedulerService(client, cfg, registry, SchedulerService.Options.defaults());
    service.start(Duration.ofSeconds(30));
    assertThat(service.isReady()).isTrue();
    assertThat(service.isLive()).isTrue();

    create(MakePod.named("p").cpu("1").obj());

    assertThat(service.awaitTermination()).isEqualTo(1);
    assertThat(service.isReady()).isFalse();
    assertThat(service.isLive()).isFalse();
  }

  private List<Event> failedSchedulingEvents(String pod) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "FailedScheduling".equals(e.getReason()))
        .filter(e -> pod.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  private double unschedulableAttempts() {
    for (MetricSnapshot s : service.metricsRegistry().scrape()) {
      if (s.getMetadata().getName().equals("hami_scheduler_schedule_attempts")) {
        double sum = 0;
        for (CounterSnapshot.CounterDataPointSnapshot d : ((CounterSnapshot) s).getDataPoints()) {
          if ("unschedulable".equals(d.getLabels().get("result"))) {
            sum += d.getValue();
          }
        }
        return sum;
      }
    }
    return 0;
  }
}
