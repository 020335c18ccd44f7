package io.hami.nodeagent.health;

import io.hami.nodeagent.nvml.GpuInfo;
import org.jspecify.annotations.Nullable;

/** A registered GPU and its health. */
public record Gpu(GpuInfo info, boolean healthy, @Nullable String unhealthyReason) {

  public static Gpu healthy(GpuInfo info) {
    return new Gpu(info, true, null);
  }

  public String uuid() {
    return info.uuid();
  }

  public int index() {
    return info.index();
  }
}
