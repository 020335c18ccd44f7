package io.hami.cmd.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.hami.framework.api.Quantities;
import io.hami.nodeagent.deviceplugin.UnixSockets;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.Device;
import io.hami.nodeagent.deviceplugin.v1beta1.DevicePluginGrpc;
import io.hami.nodeagent.deviceplugin.v1beta1.DevicePluginOptions;
import io.hami.nodeagent.deviceplugin.v1beta1.Empty;
import io.hami.nodeagent.deviceplugin.v1beta1.ListAndWatchResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.RegisterRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.RegistrationGrpc;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * An in-process stand-in for kubelet's device manager, for integration and end-to-end tests. It
 * serves {@code Registration} on {@code <dir>/kubelet.sock} (a real Unix socket); for each plugin
 * that registers it dials the plugin's socket, keeps a ListAndWatch stream open and remembers the
 * latest device list. {@link #allocatePod} calls Allocate for a bound pod the way kubelet does: one
 * call per container that requests the resource, init containers first. With a client and a node
 * name it also publishes the healthy device count as the node's capacity and allocatable.
 *
 * <p>When a plugin's ListAndWatch stream ends (the plugin stopped or died), its devices turn
 * Unhealthy until it registers again, as kubelet's device manager marks a disconnected resource:
 * the capacity stays, allocatable drops to 0 and no device is handed out.
 */
public final class FakeKubelet implements AutoCloseable {
  public static final String SOCKET = "kubelet.sock";

  private final Path dir;
  private final @Nullable KubernetesClient client;
  private final @Nullable String nodeName;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
  private final Map<String, Plugin> plugins = new HashMap<>();
  private final List<RegisterRequest> registrations = new ArrayList<>();

  /** Device ID to the UID of the pod holding it; freed by {@link #release}. */
  private final Map<String, String> used = new HashMap<>();

  private @Nullable Server server;

  private FakeKubelet(Path dir, @Nullable KubernetesClient client, @Nullable String nodeName) {
    this.dir = dir;
    this.client = client;
    this.nodeName = nodeName;
  }

  /** Starts serving {@code <dir>/kubelet.sock}. */
  public static FakeKubelet start(Path dir) throws IOException {
    FakeKubelet k = new FakeKubelet(dir, null, null);
    k.serve();
    return k;
  }

  /** As {@link #start(Path)}, and keeps the node's capacity and allocatable up to date. */
  public static FakeKubelet start(Path dir, KubernetesClient client, String nodeName)
      throws IOException {
    FakeKubelet k = new FakeKubelet(dir, client, nodeName);
    k.serve();
    return k;
  }

  public Path socket() {
    return dir.resolve(SOCKET);
  }

  private synchronized void serve() throws IOException {
    Files.createDirectories(dir);
    Files.deleteIfExists(socket());
    server = UnixSockets.serve(socket(), group, new Registration());
  }

  /**
   * Simulates a kubelet restart: forgets all plugins, removes every socket in the directory as
   * kubelet does, and serves a new {@code kubelet.sock}.
   */
  public void restart() throws IOException, InterruptedException {
    synchronized (this) {
      stopServing();
      for (Plugin p : plugins.values()) {
        p.close();
      }
      plugins.clear();
      registrations.clear();
      used.clear();
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          if (f.getFileName().toString().endsWith(".sock")) {
            Files.deleteIfExists(f);
          }
        }
      }
    }
    serve();
  }

  /** Every RegisterRequest received since start or the last restart. */
  public synchronized List<RegisterRequest> registrations() {
    return List.copyOf(registrations);
  }

  /** Waits until {@code resource} is registered and its device list satisfies {@code ready}. */
  public List<Device> awaitDevices(String resource, Predicate<List<Device>> ready, Duration timeout)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (true) {
        Plugin p = plugins.get(resource);
        if (p != null && p.devices != null && ready.test(p.devices)) {
          return p.devices;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException(
              "no matching device list for " + resource + " within " + timeout);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** The latest devices of {@code resource}; empty when it is not registered. */
  public synchronized List<Device> devices(String resource) {
    Plugin p = plugins.get(resource);
    return p == null || p.devices == null ? List.of() : p.devices;
  }

  public DevicePluginOptions options(String resource) {
    return plugin(resource).stub().getDevicePluginOptions(Empty.getDefaultInstance());
  }

  /** One Allocate call with the given kubelet device IDs per container. */
  public AllocateResponse allocate(String resource, List<List<String>> devicesPerContainer) {
    AllocateRequest.Builder req = AllocateRequest.newBuilder();
    for (List<String> ids : devicesPerContainer) {
      req.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
    }
    return plugin(resource).stub().allocate(req.build());
  }

  /**
   * Allocates a bound pod as kubelet does: for each container (init containers first) that has a
   * limit on {@code resource}, picks that many unused healthy devices (asking the plugin for its
   * preference when it offers one) and calls Allocate with one container request. Returns the
   * responses by container name; throws the plugin's gRPC error, after freeing the devices picked
   * for the pod, since kubelet rejects a pod whose allocation failed.
   */
  public Map<String, ContainerAllocateResponse> allocatePod(String resource, Pod pod) {
    Map<String, ContainerAllocateResponse> out = new LinkedHashMap<>();
    List<Container> containers = new ArrayList<>();
    if (pod.getSpec().getInitContainers() != null) {
      containers.addAll(pod.getSpec().getInitContainers());
    }
    containers.addAll(pod.getSpec().getContainers());
    String uid = pod.getMetadata().getUid() == null ? "" : pod.getMetadata().getUid();
    try {
      Plugin p = plugin(resource);
      for (Container c : containers) {
        int n = requested(c, resource);
        if (n == 0) {
          continue;
        }
        List<String> ids = pick(p, n, uid);
        AllocateResponse r = allocate(resource, List.of(ids));
        out.put(c.getName(), r.getContainerResponses(0));
      }
    } catch (RuntimeException e) {
      release(uid);
      throw e;
    }
    return out;
  }

  /** Frees the devices of a pod that has ended, as kubelet's device manager does. */
  public synchronized void release(String podUid) {
    used.values().removeIf(podUid::equals);
  }

  private synchronized List<String> pick(Plugin p, int n, String podUid) {
    List<String> free = new ArrayList<>();
    for (Device d : p.devices == null ? List.<Device>of() : p.devices) {
      if ("Healthy".equals(d.getHealth()) && !used.containsKey(d.getID())) {
        free.add(d.getID());
      }
    }
    if (free.size() < n) {
      throw new IllegalStateException("only " + free.size() + " free devices, " + n + " requested");
    }
    List<String> ids = free.subList(0, n);
    if (p.options.getGetPreferredAllocationAvailable()) {
      ids =
          p.stub()
              .getPreferredAllocation(
                  PreferredAllocationRequest.newBuilder()
                      .addContainerRequests(
                          ContainerPreferredAllocationRequest.newBuilder()
                              .addAllAvailableDeviceIDs(free)
                              .setAllocationSize(n))
                      .build())
              .getContainerResponses(0)
              .getDeviceIDsList();
    }
    for (String id : ids) {
      used.put(id, podUid == null ? "" : podUid);
    }
    return List.copyOf(ids);
  }

  private static int requested(Container c, String resource) {
    if (c.getResources() == null) {
      return 0;
    }
    Quantity q =
        c.getResources().getLimits() == null ? null : c.getResources().getLimits().get(resource);
    if (q == null && c.getResources().getRequests() != null) {
      q = c.getResources().getRequests().get(resource);
    }
    return q == null ? 0 : Math.toIntExact(Quantities.toLongExact(q));
  }

  private synchronized Plugin plugin(String resource) {
    Plugin p = plugins.get(resource);
    if (p == null) {
      throw new IllegalStateException("resource " + resource + " is not registered");
    }
    return p;
  }

  private synchronized void onRegister(RegisterRequest req) {
    registrations.add(req);
    Plugin old = plugins.remove(req.getResourceName());
    if (old != null) {
      old.close();
    }
    Plugin p = new Plugin(req);
    plugins.put(req.getResourceName(), p);
    p.watch();
    notifyAll();
  }

  private synchronized void onDevices(Plugin p, List<Device> devices) {
    if (plugins.get(p.resource) != p) {
      return;
    }
    p.devices = List.copyOf(devices);
    notifyAll();
    publishAllocatable(p.resource, devices);
  }

  private synchronized void onDisconnected(Plugin p) {
    if (plugins.get(p.resource) != p || p.closed) {
      return;
    }
    List<Device> unhealthy = new ArrayList<>();
    for (Device d : p.devices == null ? List.<Device>of() : p.devices) {
      unhealthy.add(d.toBuilder().setHealth("Unhealthy").build());
    }
    p.devices = List.copyOf(unhealthy);
    notifyAll();
    publishAllocatable(p.resource, unhealthy);
  }

  private void publishAllocatable(String resource, List<Device> devices) {
    if (client == null || nodeName == null) {
      return;
    }
    long healthy = devices.stream().filter(d -> "Healthy".equals(d.getHealth())).count();
    String patch =
        "{\"status\":{\"capacity\":{\""
            + resource
            + "\":\""
            + devices.size()
            + "\"},\"allocatable\":{\""
            + resource
            + "\":\""
            + healthy
            + "\"}}}";
    try {
      client
          .nodes()
          .withName(nodeName)
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } catch (RuntimeException e) {
      // The node may not exist yet in a test; the next device list tries again.
    }
  }

  private void stopServing() throws InterruptedException {
    Server s = server;
    server = null;
    if (s != null) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException, IOException {
    synchronized (this) {
      for (Plugin p : plugins.values()) {
        p.close();
      }
      plugins.clear();
      stopServing();
      Files.deleteIfExists(socket());
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
  }

  private final class Registration extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void register(RegisterRequest request, StreamObserver<Empty> out) {
      if (!"v1beta1".equals(request.getVersion())) {
        out.onError(
            Status.INVALID_ARGUMENT
                .withDescription("unsupported version " + request.getVersion())
                .asRuntimeException());
        return;
      }
      out.onNext(Empty.getDefaultInstance());
      out.onCompleted();
      // Kubelet dials the plugin after answering, on its own goroutine.
      Thread t = new Thread(() -> onRegister(request), "fake-kubelet-dial");
      t.setDaemon(true);
      t.start();
    }
  }

  /** One registered plugin: its channel and ListAndWatch stream. */
  private final class Plugin {
    final String resource;
    final DevicePluginOptions options;
    final ManagedChannel channel;
    volatile @Nullable List<Device> devices;

    /** Set by this kubelet before it drops the plugin, so the stream's end is no disconnection. */
    volatile boolean closed;

    Plugin(RegisterRequest req) {
      this.resource = req.getResourceName();
      this.options = req.getOptions();
      this.channel = UnixSockets.channel(dir.resolve(req.getEndpoint()), group);
    }

    DevicePluginGrpc.DevicePluginBlockingStub stub() {
      return DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    void watch() {
      DevicePluginGrpc.newStub(channel)
          .listAndWatch(
              Empty.getDefaultInstance(),
              new StreamObserver<>() {
                @Override
                public void onNext(ListAndWatchResponse r) {
                  onDevices(Plugin.this, r.getDevicesList());
                }

                @Override
                public void onError(Throwable t) {
                  onDisconnected(Plugin.this);
                }

                @Override
                public void onCompleted() {
                  onDisconnected(Plugin.this);
                }
              });
    }

    void close() {
      closed = true;
      channel.shutdownNow();
    }
  }
}
