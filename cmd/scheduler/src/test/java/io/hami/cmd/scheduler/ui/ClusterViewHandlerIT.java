package io.hami.cmd.scheduler.ui;

import static io.hami.cmd.scheduler.ui.ViewFixtures.SECRET;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuNode;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuPod;
import static io.hami.cmd.scheduler.ui.ViewFixtures.info;
import static io.hami.cmd.scheduler.ui.ViewFixtures.uuid;
import static io.hami.cmd.scheduler.ui.ViewFixtures.withCondition;
import static io.hami.cmd.scheduler.ui.ViewFixtures.withSecretEnv;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.cmd.scheduler.ui.ClusterState.ProfilePolicy;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.MakePod;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The view's handler on a real JDK HTTP server on loopback, fetched by a real HTTP client. */
class ClusterViewHandlerIT {
  private HttpServer server;
  private String base;
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<String> bodies = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    Pod placed = withSecretEnv(gpuPod("team", "train", "n1", uuid("n1", 1) + ",20480,50").obj());
    Pod waiting =
        withCondition(
            withSecretEnv(MakePod.named("big").namespace("team").obj()),
            "Unschedulable",
            "0/1 nodes are available: 1 CardInsufficientMemory.");
    List<NodeInfo> nodes = List.of(info(gpuNode("n1", 2).obj(), placed));
    ClusterViewSource source =
        new ClusterViewSource(
            () -> nodes,
            () -> List.of(waiting),
            List.of(
                new ProfilePolicy(
                    "hami-scheduler", Map.of("vgpu", Map.of("nodeSchedulerPolicy", "binpack")))),
            InstantSource.system());
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/ui", new ClusterViewHandler(source, ViewAccess.LOCALHOST, InstantSource.system()));
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    assertThat(bodies).isNotEmpty().allSatisfy(b -> assertThat(b).doesNotContain(SECRET));
  }

  private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path));
    if (headers.length > 0) {
      r.headers(headers);
    }
    HttpResponse<byte[]> resp = http.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
    bodies.add(new String(resp.body(), StandardCharsets.UTF_8));
    return resp;
  }

  @Test
  void page_isOneSelfContainedHtmlFile() throws Exception {
    HttpResponse<byte[]> r = get("/ui/");

    String html = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue(ClusterViewHandler.CSP);
    assertThat(html).contains("<title>HAMi cluster view</title>").contains("api/cluster");
    assertThat(html).doesNotContainPattern("(?i)(src|href)=\"(https?:)?//");
  }

  @Test
  void bareUi_redirectsToTheSlash_andOtherPathsAreNotFound() throws Exception {
    HttpResponse<byte[]> r = get("/ui");
    assertThat(r.statusCode()).isEqualTo(301);
    assertThat(r.headers().firstValue("Location")).hasValue("/ui/");
    assertThat(get("/ui/secrets").statusCode()).isEqualTo(404);
  }

  @Test
  void api_servesTheState_thenNotModified_andGzipWhenAsked() throws Exception {
    HttpResponse<byte[]> r = get("/ui/api/cluster");

    String json = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(json)
        .contains("\"name\":\"n1\"")
        .contains("[\"team/train\",20480,50,1]")
        .contains("\"pod\":\"team/big\"")
        .contains("1 CardInsufficientMemory")
        .contains("\"nodeSchedulerPolicy\":\"binpack\"");
    assertThat(r.headers().firstValue("X-Server-Time")).isPresent();
    String etag = r.headers().firstValue("ETag").orElseThrow();

    assertThat(get("/ui/api/cluster", "If-None-Match", etag).statusCode()).isEqualTo(304);

    HttpResponse<byte[]> z = get("/ui/api/cluster", "Accept-Encoding", "gzip");
    assertThat(z.headers().firstValue("Content-Encoding")).hasValue("gzip");
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(z.body()))) {
      String unzipped = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      bodies.add(unzipped);
      assertThat(unzipped).isEqualTo(json);
    }
  }

  @Test
  void writes_areRefused() throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/ui/api/cluster"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    bodies.add(r.body());

    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void remoteClients_areRefusedUnlessAllowed() throws Exception {
    assertThat(ViewAccess.LOCALHOST.admits(InetAddress.getByName("10.1.2.3"))).isFalse();
    assertThat(ViewAccess.LOCALHOST.admits(InetAddress.getByName("::1"))).isTrue();
    assertThat(ViewAccess.ANY.admits(InetAddress.getByName("10.1.2.3"))).isTrue();
    assertThat(ViewAccess.parse("Any")).isEqualTo(ViewAccess.ANY);
    assertThat(get("/ui/").statusCode()).isEqualTo(200);
  }
}
