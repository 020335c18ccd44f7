package io.hami.webhook;

import static io.hami.webhook.Fixtures.ctr;
import static io.hami.webhook.Fixtures.json;
import static io.hami.webhook.Fixtures.pod;
import static io.hami.webhook.Fixtures.raw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.zjsonpatch.JsonPatch;
import io.hami.webhook.Fixtures.FakeCluster;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A real AdmissionReview round trip over TLS, and certificate reloading. */
class WebhookServerIT {

  @TempDir Path dir;
  private Path certFile;
  private Path keyFile;
  private TestCertificates.Issued first;
  private WebhookServer server;

  @BeforeEach
  void start() throws Exception {
    certFile = dir.resolve("tls.crt");
    keyFile = dir.resolve("tls.key");
    first = TestCertificates.issue(dir, "first", certFile, keyFile);
    server =
        WebhookServer.builder()
            .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .certificate(certFile, keyFile)
            .certCheckInterval(Duration.ofMillis(200))
            .admission(new PodAdmission(WebhookConfig.defaults(), new FakeCluster()))
            .build();
    server.startAsync().awaitRunning(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null && server.isRunning()) {
      server.stopAsync().awaitTerminated(30, TimeUnit.SECONDS);
    }
  }

  private URI uri(String path) {
    return URI.create("https://127.0.0.1:" + server.address().getPort() + path);
  }

  private static HttpClient client(TestCertificates.Issued trusted) throws Exception {
    return HttpClient.newBuilder()
        .sslContext(trusted.trustingClient())
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private HttpResponse<String> post(HttpClient client, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri("/webhook"))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void admissionReviewRoundTrip_overTls() throws Exception {
    Pod gpuPod = pod("train").ctr(ctr("cuda").gpus(1)).ctr(ctr("sidecar")).build();
    HttpResponse<String> response =
        post(
            client(first),
            AdmissionHandlerTest.review("admission.k8s.io/v1", "CREATE", "Pod", gpuPod));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.sslSession()).isPresent();
    JsonNode review = json(response.body()).path("response");
    assertThat(review.path("uid").asString()).isEqualTo("0d1b-42");
    assertThat(review.path("allowed").asBoolean()).isTrue();
    JsonNode patch =
        json(
            new String(
                Base64.getDecoder().decode(review.path("patch").asString()),
                StandardCharsets.UTF_8));
    ObjectNode original = raw(gpuPod);
    JsonNode mutated = JsonPatch.apply(patch, original);
    assertThat(mutated.at("/spec/schedulerName").asString()).isEqualTo("hami-scheduler");
    assertThat(mutated.at("/spec/containers/0/resources/limits/nvidia.com~1gpucores").asString())
        .isEqualTo("100");
    assertThat(mutated.at("/spec/containers/1").has("resources")).isFalse();
  }

  @Test
  void denialTravelsBack() throws Exception {
    Pod bad = pod("p").ctr(ctr("cuda").gpus(1).gpupct("250")).build();
    HttpResponse<String> response =
        post(
            client(first),
            AdmissionHandlerTest.review("admission.k8s.io/v1", "CREATE", "Pod", bad));
    JsonNode review = json(response.body()).path("response");
    assertThat(review.path("allowed").asBoolean()).isFalse();
    assertThat(review.path("status").path("message").asString())
        .isEqualTo("container cuda: nvidia.com/gpumem-percentage=250 must be between 0 and 100");
  }

  @Test
  void healthAndMethodAndSizeChecks() throws Exception {
    HttpClient c = client(first);
    HttpResponse<String> health =
        c.send(
            HttpRequest.newBuilder(uri("/healthz")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    HttpResponse<String> ready =
        c.send(
            HttpRequest.newBuilder(uri("/readyz")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    HttpResponse<String> get =
        c.send(
            HttpRequest.newBuilder(uri("/webhook")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    HttpResponse<String> big = post(c, "x".repeat(WebhookServer.MAX_BODY_BYTES + 10));
    assertThat(big.statusCode()).isEqualTo(413);
    HttpResponse<String> junk = post(c, "{not json");
    assertThat(junk.statusCode()).isEqualTo(400);
  }

  @Test
  void renewedCertificate_isServedWithoutRestart() throws Exception {
    TestCertificates.Issued second = TestCertificates.issue(dir, "second", certFile, keyFile);

    // The watcher picks the new pair up on its own.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(server.servedChain()[0].getSubjectX500Principal().getName())
                    .isEqualTo("CN=second"));

    HttpResponse<String> response =
        client(second)
            .send(
                HttpRequest.newBuilder(uri("/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    X509Certificate peer =
        (X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0];
    assertThat(peer.getSubjectX500Principal().getName()).isEqualTo("CN=second");
    assertThat(server.reloadCertificates()).isFalse();
  }

  @Test
  void brokenRenewal_keepsServingTheOldPair() throws Exception {
    Files.writeString(keyFile, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");

    assertThat(server.reloadCertificates()).isFalse();

    HttpResponse<String> response =
        client(first)
            .send(
                HttpRequest.newBuilder(uri("/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
  }

  @Test
  void missingCertificate_failsStart() {
    WebhookServer broken =
        WebhookServer.builder()
            .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .certificate(dir.resolve("absent.crt"), keyFile)
            .admission(new PodAdmission(WebhookConfig.defaults(), new FakeCluster()))
            .build();
    assertThatThrownBy(() -> broken.startAsync().awaitRunning(30, TimeUnit.SECONDS))
        .isInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage(dir.resolve("absent.crt").toString());
  }
}
