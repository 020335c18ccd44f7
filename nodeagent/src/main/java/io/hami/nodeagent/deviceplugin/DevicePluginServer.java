package io.hami.nodeagent.deviceplugin;

import com.google.common.util.concurrent.AbstractIdleService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.DevicePluginOptions;
import io.hami.nodeagent.deviceplugin.v1beta1.RegisterRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.RegistrationGrpc;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the device plugin on its Unix socket in kubelet's device-plugin directory and registers it
 * with kubelet (spec §7.2). {@link #restart} serves a fresh socket and registers again, as needed
 * after kubelet restarts; the socket is removed on stop.
 */
public final class DevicePluginServer extends AbstractIdleService {
  private static final Logger log = LoggerFactory.getLogger(DevicePluginServer.class);
  public static final String KUBELET_SOCKET = "kubelet.sock";
  public static final String API_VERSION = "v1beta1";

  private final NodeAgentConfig config;
  private final DevicePluginService service;
  private final EventLoopGroup group;
  private @Nullable Server server;
  private volatile boolean registered;

  public DevicePluginServer(NodeAgentConfig config, DevicePluginService service) {
    this.config = config;
    this.service = service;
    this.group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
  }

  public Path socket() {
    return config.deviceDir().resolve(config.socketName());
  }

  public boolean isRegistered() {
    return registered;
  }

  @Override
  protected void startUp() throws IOException {
    serveAndRegister();
  }

  @Override
  protected void shutDown() throws InterruptedException, IOException {
    stopServing();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
  }

  /** Serves a fresh socket and registers again. */
  public synchronized void restart() throws IOException {
    if (!isRunning()) {
      return;
    }
    log.info("restarting the device plugin socket={}", socket());
    try {
      stopServing();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    serveAndRegister();
  }

  /** Registers again if the last attempt failed and kubelet's socket is there. */
  public synchronized void retryRegistration() {
    if (isRunning() && !registered && Files.exists(config.deviceDir().resolve(KUBELET_SOCKET))) {
      register();
    }
  }

  private synchronized void serveAndRegister() throws IOException {
    Files.createDirectories(config.deviceDir());
    Files.deleteIfExists(socket());
    server = UnixSockets.serve(socket(), group, service);
    log.info("device plugin serving socket={} resource={}", socket(), config.resourceName());
    register();
  }

  private void register() {
    Path kubelet = config.deviceDir().resolve(KUBELET_SOCKET);
    ManagedChannel channel = UnixSockets.channel(kubelet, group);
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion(API_VERSION)
                  .setEndpoint(config.socketName())
                  .setResourceName(config.resourceName())
                  .setOptions(
                      DevicePluginOptions.newBuilder()
                          .setGetPreferredAllocationAvailable(config.preferredAllocation()))
                  .build());
      registered = true;
      log.info(
          "registered with kubelet resource={} endpoint={}",
          config.resourceName(),
          config.socketName());
    } catch (RuntimeException e) {
      registered = false;
      log.warn("registration with kubelet failed socket={}: {}", kubelet, e.toString());
    } finally {
      channel.shutdownNow();
    }
  }

  private synchronized void stopServing() throws InterruptedException, IOException {
    registered = false;
    service.closeStreams();
    Server s = server;
    server = null;
    if (s != null) {
      s.shutdown();
      if (!s.awaitTermination(2, TimeUnit.SECONDS)) {
        s.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      }
    }
    Files.deleteIfExists(socket());
  }

  @Override
  protected String serviceName() {
    return "DevicePluginServer";
  }
}
