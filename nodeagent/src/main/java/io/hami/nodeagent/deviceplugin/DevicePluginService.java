package io.hami.nodeagent.deviceplugin;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.DevicePluginGrpc;
import io.hami.nodeagent.deviceplugin.v1beta1.DevicePluginOptions;
import io.hami.nodeagent.deviceplugin.v1beta1.Empty;
import io.hami.nodeagent.deviceplugin.v1beta1.ListAndWatchResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.PreStartContainerRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.PreStartContainerResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.hami.nodeagent.health.GpuInventory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet device-plugin API: translates to {@link GpuInventory} and {@link Allocator} and back.
 * ListAndWatch re-sends the whole list on every health change.
 */
public final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {
  private static final Logger log = LoggerFactory.getLogger(DevicePluginService.class);

  private final NodeAgentConfig config;
  private final GpuInventory inventory;
  private final Allocator allocator;
  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();

  public DevicePluginService(NodeAgentConfig config, GpuInventory inventory, Allocator allocator) {
    this.config = config;
    this.inventory = inventory;
    this.allocator = allocator;
  }

  @Override
  public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
    out.onNext(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build());
    out.onCompleted();
  }

  @Override
  public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
    Watch w = new Watch((ServerCallStreamObserver<ListAndWatchResponse>) out);
    watches.add(w);
    inventory.addListener(w);
    w.stream.setOnCancelHandler(() -> w.close(false));
    w.run();
  }

  @Override
  public void getPreferredAllocation(
      PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
    out.onNext(allocator.preferred(request));
    out.onCompleted();
  }

  @Override
  public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
    try {
      out.onNext(allocator.allocate(request));
      out.onCompleted();
    } catch (AllocationException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
    } catch (RuntimeException e) {
      log.error("allocate failed", e);
      out.onError(Status.INTERNAL.withDescription("allocate failed: " + e).asRuntimeException());
    }
  }

  @Override
  public void preStartContainer(
      PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
    out.onNext(PreStartContainerResponse.getDefaultInstance());
    out.onCompleted();
  }

  /** Ends every ListAndWatch stream, so kubelet notices the plugin going away. */
  public void closeStreams() {
    for (Watch w : watches) {
      w.close(true);
    }
  }

  /** One kubelet ListAndWatch stream; sends are serialised on the watch. */
  private final class Watch implements Runnable {
    final ServerCallStreamObserver<ListAndWatchResponse> stream;

    @GuardedBy("this")
    private boolean closed;

    Watch(ServerCallStreamObserver<ListAndWatchResponse> stream) {
      this.stream = stream;
    }

    @Override
    public synchronized void run() {
      if (closed) {
        return;
      }
      try {
        stream.onNext(
            ListAndWatchResponse.newBuilder()
                .addAllDevices(
                    KubeletDevices.of(
                        inventory.snapshot(), config.splitCount(), config.numaTopology()))
                .build());
      } catch (RuntimeException e) {
        log.info("ListAndWatch stream closed: {}", e.toString());
        close(false);
      }
    }

    synchronized void close(boolean complete) {
      if (closed) {
        return;
      }
      closed = true;
      inventory.removeListener(this);
      watches.remove(this);
      if (complete) {
        try {
          stream.onCompleted();
        } catch (RuntimeException e) {
          // Already cancelled by the peer.
        }
      }
    }
  }
}
