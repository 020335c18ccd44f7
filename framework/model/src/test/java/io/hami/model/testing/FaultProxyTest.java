package io.hami.model.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
  private HttpServer upstream;
  private final AtomicInteger hits = new AtomicInteger();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build(); // offers h2c

  @BeforeEach
  void startUpstream() throws IOException {
    upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    upstream.createContext(
        "/",
        exchange -> {
          hits.incrementAndGet();
          byte[] in = exchange.getRequestBody().readAllBytes();
          byte[] out = (exchange.getRequestMethod() + " " + new String(in, UTF_8)).getBytes(UTF_8);
          exchange.sendResponseHeaders(200, out.length);
          exchange.getResponseBody().write(out);
          exchange.close();
        });
    upstream.start();
  }

  @AfterEach
  void stopUpstream() {
    upstream.stop(0);
  }

  private FaultProxy proxy(double rate) {
    return FaultProxy.start(upstream.getAddress(), rate, Duration.ofMillis(10), 42);
  }

  private HttpResponse<String> send(FaultProxy p, String method, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(p.url() + "api/v1/nodes/n1"))
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void noFaults_passesReadsAndWritesWithTheirBodies() throws Exception {
    try (FaultProxy p = proxy(0)) {
      for (int i = 0; i < 3; i++) {
        assertThat(send(p, "PATCH", "{\"i\":" + i + "}").body())
            .isEqualTo("PATCH {\"i\":" + i + "}");
        assertThat(send(p, "GET", "").statusCode()).isEqualTo(200);
      }
      assertThat(p.writes()).isEqualTo(3);
      assertThat(p.injected()).isZero();
      assertThat(hits).hasValue(6);
    }
  }

  @Test
  void everyWriteFaulted_neverReachesTheServer_andEachFaultIsCounted() throws Exception {
    try (FaultProxy p = proxy(1)) {
      int dropped = 0;
      for (int i = 0; i < 40; i++) {
        try {
          HttpResponse<String> r = send(p, "POST", "{}");
          switch (r.statusCode()) {
            case 409 ->
                assertThat(r.body()).contains("\"reason\":\"Conflict\"", "nodes \\\"n1\\\"");
            case 429 -> assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            case 500 -> assertThat(r.body()).contains("\"reason\":\"InternalError\"");
            default -> throw new AssertionError("unexpected " + r.statusCode());
          }
        } catch (IOException e) {
          dropped++;
        }
      }
      assertThat(send(p, "GET", "").statusCode()).as("reads pass").isEqualTo(200);
      assertThat(hits).as("writes that reached the server").hasValue(1);
      assertThat(p.injected()).isEqualTo(40);
      assertThat(p.injected(FaultProxy.Fault.TIMEOUT)).isEqualTo(dropped).isPositive();
      for (FaultProxy.Fault f : FaultProxy.Fault.values()) {
        assertThat(p.injected(f)).as("%s", f).isPositive();
      }
    }
  }

  @Test
  void sameSeed_injectsTheSameFaultsInTheSameOrder() throws Exception {
    long[] first = counts();
    long[] second = counts();
    assertThat(second).containsExactly(first);
  }

  private long[] counts() throws Exception {
    try (FaultProxy p = FaultProxy.start(upstream.getAddress(), 0.3, Duration.ofMillis(10), 7)) {
      for (int i = 0; i < 30; i++) {
        try {
          send(p, "PUT", "{}");
        } catch (IOException e) {
          // a dropped connection
        }
      }
      long[] out = new long[FaultProxy.Fault.values().length];
      for (FaultProxy.Fault f : FaultProxy.Fault.values()) {
        out[f.ordinal()] = p.injected(f);
      }
      return out;
    }
  }
}
