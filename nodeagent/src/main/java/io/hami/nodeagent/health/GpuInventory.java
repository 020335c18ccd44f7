package io.hami.nodeagent.health;

import com.google.common.collect.ImmutableList;
import io.hami.nodeagent.nvml.GpuInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPUs this agent serves and their health. Thread-safe; readers get immutable snapshots and
 * listeners run on the thread that changed the health. A GPU never recovers without a restart, as
 * in the reference plugin.
 */
public final class GpuInventory {
  private static final Logger log = LoggerFactory.getLogger(GpuInventory.class);

  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile ImmutableList<Gpu> gpus;

  public GpuInventory(List<GpuInfo> devices) {
    List<Gpu> out = new ArrayList<>();
    for (GpuInfo d : devices) {
      out.add(Gpu.healthy(d));
    }
    this.gpus = ImmutableList.copyOf(out);
  }

  public ImmutableList<Gpu> snapshot() {
    return gpus;
  }

  /** Marks a GPU unhealthy; returns false when it already was or is unknown. */
  public boolean markUnhealthy(int index, String reason) {
    synchronized (this) {
      List<Gpu> next = new ArrayList<>(gpus);
      boolean changed = false;
      for (int i = 0; i < next.size(); i++) {
        Gpu g = next.get(i);
        if (g.index() == index && g.healthy()) {
          next.set(i, new Gpu(g.info(), false, reason));
          changed = true;
        }
      }
      if (!changed) {
        return false;
      }
      gpus = ImmutableList.copyOf(next);
    }
    log.warn("GPU marked unhealthy index={} reason={}", index, reason);
    for (Runnable l : listeners) {
      l.run();
    }
    return true;
  }

  /** Runs {@code listener} after every health change. */
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  public void removeListener(Runnable listener) {
    listeners.remove(listener);
  }
}
