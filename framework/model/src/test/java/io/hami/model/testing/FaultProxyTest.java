package io.hami.model.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
  private HttpServer upstream;
  private final AtomicInteger hits = new AtomicInteger();
  private final List<String> received = new CopyOnWriteArrayList<>();
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
          received.add(exchange.getRequestMethod() + " " + new String(in, UTF_8));
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
  void everyWriteFaulted_onlyLostAnswersReachTheServer_andEachFaultIsCounted() throws Exception {
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
      long lost = p.injected(FaultProxy.Fault.LOST_ANSWER);
      assertThat(hits).as("requests that reached the server").hasValue((int) lost + 1);
      assertThat(p.injected()).isEqualTo(40);
      assertThat(p.injected(FaultProxy.Fault.TIMEOUT) + lost).isEqualTo(dropped);
      for (FaultProxy.Fault f : FaultProxy.Fault.values()) {
        assertThat(p.injected(f)).as("%s", f).isPositive();
      }
    }
  }

  @Test
  void lostAnswer_theServerAppliesTheWrite_andTheClientGetsAReset() throws Exception {
    try (FaultProxy p = only(FaultProxy.Fault.LOST_ANSWER)) {
      assertThatThrownBy(() -> send(p, "PATCH", "{\"lock\":\"mine\"}"))
          .isInstanceOf(IOException.class);
      assertThat(received)
          .as("what the server applied")
          .containsExactly("PATCH {\"lock\":\"mine\"}");
      assertThat(p.injected(FaultProxy.Fault.LOST_ANSWER)).isEqualTo(1);
      assertThat(p.injected()).isEqualTo(1);
      assertThat(p.forwarded()).isEqualTo(1);
    }
  }

  @Test
  void aFaultSet_drawsOnlyFromIt() throws Exception {
    try (FaultProxy p = only(FaultProxy.Fault.CONFLICT)) {
      for (int i = 0; i < 10; i++) {
        assertThat(send(p, "DELETE", "").statusCode()).isEqualTo(409);
      }
      assertThat(p.injected(FaultProxy.Fault.CONFLICT)).isEqualTo(10);
      assertThat(received).as("conflicts keep writes from the server").isEmpty();
    }
  }

  @Test
  void aLimit_endsTheFaults_andTheWritesAfterItPass() throws Exception {
    try (FaultProxy p = only(FaultProxy.Fault.CONFLICT).limit(2)) {
      for (int i = 0; i < 2; i++) {
        assertThat(send(p, "PUT", "{}").statusCode()).isEqualTo(409);
      }
      assertThat(send(p, "PUT", "{}").statusCode()).isEqualTo(200);
      assertThat(p.injected()).isEqualTo(2);
      assertThat(received).containsExactly("PUT {}");
    }
  }

  @Test
  void anEmptyFaultSet_isRefused() {
    assertThatThrownBy(
            () ->
                FaultProxy.start(
                    upstream.getAddress(),
                    0.1,
                    Duration.ZERO,
                    1,
                    EnumSet.noneOf(FaultProxy.Fault.class)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("faults");
  }

  @Test
  void theProperties_parseOrSayWhatIsWrong() {
    assertThat(FaultProxy.parseKinds(" lost_answer, TIMEOUT"))
        .containsExactly(FaultProxy.Fault.TIMEOUT, FaultProxy.Fault.LOST_ANSWER);
    assertThatThrownBy(() -> FaultProxy.parseKinds("TIMEOUT,LOST"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(FaultProxy.KINDS_PROPERTY)
        .hasMessageContaining("\"LOST\"");
    assertThatThrownBy(() -> FaultProxy.parseKinds("")).hasMessageContaining("unknown fault \"\"");
    assertThat(FaultProxy.parseRate(" 0.5")).isEqualTo(0.5);
    assertThatThrownBy(() -> FaultProxy.parseRate("5%"))
        .hasMessageContaining(FaultProxy.RATE_PROPERTY)
        .hasMessageContaining("\"5%\"");
    assertThat(FaultProxy.parseSeed("-7")).isEqualTo(-7);
    assertThatThrownBy(() -> FaultProxy.parseSeed("x"))
        .hasMessageContaining(FaultProxy.SEED_PROPERTY);
  }

  private FaultProxy only(FaultProxy.Fault fault) {
    return FaultProxy.start(upstream.getAddress(), 1, Duration.ofMillis(10), 42, EnumSet.of(fault));
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
