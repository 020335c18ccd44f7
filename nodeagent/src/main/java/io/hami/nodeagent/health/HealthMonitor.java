package io.hami.nodeagent.health;

import com.google.common.util.concurrent.AbstractExecutionThreadService;
import io.hami.nodeagent.config.HealthCheckPolicy;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import io.hami.nodeagent.nvml.XidEvent;
import io.hami.nodeagent.nvml.XidWatch;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for XID critical errors in short slices and marks the GPU unhealthy unless the XID is
 * ignored (spec §7.3). A failing event wait marks every GPU unhealthy, since their state is then
 * unknown.
 */
public final class HealthMonitor extends AbstractExecutionThreadService {
  private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);

  private final Nvml nvml;
  private final GpuInventory inventory;
  private final HealthCheckPolicy policy;
  private final Duration slice;

  public HealthMonitor(
      Nvml nvml, GpuInventory inventory, HealthCheckPolicy policy, Duration slice) {
    this.nvml = nvml;
    this.inventory = inventory;
    this.policy = policy;
    this.slice = slice;
  }

  @Override
  protected void run() throws InterruptedException {
    if (!policy.enabled()) {
      log.info("GPU health checks are disabled");
      return;
    }
    XidWatch watch;
    try {
      watch = nvml.watchXids();
    } catch (NvmlException e) {
      failAll("cannot watch XID events: " + e.getMessage());
      return;
    }
    try (watch) {
      while (isRunning()) {
        Optional<XidEvent> ev;
        try {
          ev = watch.await(slice);
        } catch (NvmlException e) {
          failAll("XID event wait failed: " + e.getMessage());
          return;
        }
        ev.ifPresent(this::handle);
      }
    }
  }

  void handle(XidEvent ev) {
    if (!policy.marksUnhealthy(ev.xid())) {
      log.info("ignoring XID {} on GPU index={}", ev.xid(), ev.deviceIndex());
      return;
    }
    if (ev.deviceIndex() < 0) {
      failAll("XID " + ev.xid() + " on an unidentified GPU");
      return;
    }
    inventory.markUnhealthy(ev.deviceIndex(), "XID " + ev.xid());
  }

  private void failAll(String reason) {
    log.error("GPU health check failed, marking all GPUs unhealthy: {}", reason);
    for (Gpu g : inventory.snapshot()) {
      inventory.markUnhealthy(g.index(), reason);
    }
  }

  @Override
  protected String serviceName() {
    return "HealthMonitor";
  }
}
