package io.hami.sim;

import io.hami.plugins.vgpu.GpuPolicy;
import io.hami.plugins.vgpu.NodePolicy;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * HAMi's own placement policies as the fast engine runs them: the {@code vgpu} plugin's node policy
 * ranks nodes by HAMi's node score, and its GPU policy orders the chosen node's cards. Their names
 * are those of the matching {@link FrameworkPolicy}, which runs them through the scheduler.
 */
public enum HamiPolicy {
  /** The busiest node, then the busiest cards: keeps idle nodes and cards for large pods. */
  BINPACK("hami-binpack", "HAMi binpack", NodePolicy.BINPACK, GpuPolicy.BINPACK),
  /** The idlest node, then the idlest cards: spreads load and interference. */
  SPREAD("hami-spread", "HAMi spread", NodePolicy.SPREAD, GpuPolicy.SPREAD);

  private final String policyName;
  private final String displayName;
  private final NodePolicy nodePolicy;
  private final GpuPolicy gpuPolicy;

  HamiPolicy(String policyName, String displayName, NodePolicy nodePolicy, GpuPolicy gpuPolicy) {
    this.policyName = policyName;
    this.displayName = displayName;
    this.nodePolicy = nodePolicy;
    this.gpuPolicy = gpuPolicy;
  }

  public String policyName() {
    return policyName;
  }

  public String displayName() {
    return displayName;
  }

  public NodePolicy nodePolicy() {
    return nodePolicy;
  }

  public GpuPolicy gpuPolicy() {
    return gpuPolicy;
  }

  /** The same policy in the scheduler, for the engine check. */
  public FrameworkPolicy framework() {
    return FrameworkPolicy.byName(policyName).orElseThrow();
  }

  public static Optional<HamiPolicy> byName(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(p -> p.policyName.equals(key)).findFirst();
  }
}
