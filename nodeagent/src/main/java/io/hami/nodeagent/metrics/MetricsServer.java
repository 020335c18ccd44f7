package io.hami.nodeagent.metrics;

import com.google.common.util.concurrent.AbstractIdleService;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/** Serves {@code /metrics} for the registry on the given address. */
public final class MetricsServer extends AbstractIdleService {
  private final InetSocketAddress address;
  private final PrometheusRegistry registry;
  private @Nullable HTTPServer server;

  public MetricsServer(InetSocketAddress address, PrometheusRegistry registry) {
    this.address = address;
    this.registry = registry;
  }

  /** The bound port (useful with port 0). */
  public int port() {
    HTTPServer s = server;
    return s == null ? -1 : s.getPort();
  }

  @Override
  protected void startUp() throws IOException {
    server =
        HTTPServer.builder()
            .hostname(address.getHostString())
            .port(address.getPort())
            .registry(registry)
            .buildAndStart();
  }

  @Override
  protected void shutDown() {
    HTTPServer s = server;
    if (s != null) {
      s.close();
    }
  }

  @Override
  protected String serviceName() {
    return "MetricsServer";
  }
}
