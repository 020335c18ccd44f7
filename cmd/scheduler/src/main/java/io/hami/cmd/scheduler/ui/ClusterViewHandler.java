package io.hami.cmd.scheduler.ui;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the cluster view: {@code /ui} (the page, one HTML file with inline CSS and script) and
 * {@code /ui/api/cluster} (the JSON it polls). Read-only: GET and HEAD only. The JSON is sent
 * gzipped when the client accepts it, and {@code 304} when the client's entity tag still matches.
 */
final class ClusterViewHandler implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(ClusterViewHandler.class);

  static final String PREFIX = "/ui";
  static final String API = PREFIX + "/api/cluster";

  /** Inline scripts and styles only; the page fetches nothing but its own API. */
  static final String CSP =
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
          + " connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private final ClusterViewSource source;
  private final ViewAccess access;
  private final InstantSource clock;
  private final byte[] page;

  ClusterViewHandler(ClusterViewSource source, ViewAccess access, InstantSource clock) {
    this.source = requireNonNull(source, "source");
    this.access = requireNonNull(access, "access");
    this.clock = requireNonNull(clock, "clock");
    this.page = loadPage();
  }

  private static byte[] loadPage() {
    try (InputStream in = ClusterViewHandler.class.getResourceAsStream("cluster-view.html")) {
      if (in == null) {
        throw new IllegalStateException("cluster-view.html is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      InetSocketAddress remote = exchange.getRemoteAddress();
      if (remote == null || remote.getAddress() == null || !access.admits(remote.getAddress())) {
        send(
            exchange,
            403,
            "text/plain",
            "the cluster view answers local clients only (--cluster-view=any exposes it)");
        return;
      }
      String method = exchange.getRequestMethod();
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain", "the cluster view is read-only");
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if (PREFIX.equals(path)) {
        // The page fetches its API by a relative path, which needs the trailing slash.
        exchange.getResponseHeaders().set("Location", PREFIX + "/");
        send(exchange, 301, "text/plain", "moved to " + PREFIX + "/");
      } else if ((PREFIX + "/").equals(path)) {
        common(exchange.getResponseHeaders(), "text/html; charset=utf-8");
        body(exchange, 200, page);
      } else if (API.equals(path)) {
        api(exchange);
      } else {
        send(exchange, 404, "text/plain", "not found");
      }
    } catch (RuntimeException e) {
      log.warn("cluster view request failed path={}", exchange.getRequestURI().getPath(), e);
      try {
        send(exchange, 500, "text/plain", "cluster view failed: " + e.getClass().getSimpleName());
      } catch (IOException | RuntimeException ignored) {
        // Headers were sent already; the client sees a cut response.
      }
    }
  }

  private void api(HttpExchange exchange) throws IOException {
    ClusterViewSource.Rendered r = source.current();
    Headers h = exchange.getResponseHeaders();
    common(h, "application/json");
    h.set("ETag", r.etag());
    h.set("X-Server-Time", Long.toString(clock.instant().toEpochMilli()));
    h.set("Vary", "Accept-Encoding");
    String match = exchange.getRequestHeaders().getFirst("If-None-Match");
    if (r.etag().equals(match)) {
      exchange.sendResponseHeaders(304, -1);
      return;
    }
    String accept = exchange.getRequestHeaders().getFirst("Accept-Encoding");
    if (accept != null && accept.contains("gzip")) {
      h.set("Content-Encoding", "gzip");
      body(exchange, 200, r.gzip());
    } else {
      body(exchange, 200, r.json());
    }
  }

  private static void common(Headers h, String contentType) {
    h.set("Content-Type", contentType);
    h.set("Cache-Control", "no-cache");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Content-Security-Policy", CSP);
  }

  private static void send(HttpExchange exchange, int code, String type, String text)
      throws IOException {
    common(exchange.getResponseHeaders(), type + "; charset=utf-8");
    body(exchange, code, text.getBytes(StandardCharsets.UTF_8));
  }

  private static void body(HttpExchange exchange, int code, byte[] bytes) throws IOException {
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream os = exchange.getResponseBody()) {
        os.write(bytes);
      }
    }
  }
}
