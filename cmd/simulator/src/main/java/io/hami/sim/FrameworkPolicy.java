package io.hami.sim;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A placement policy run through the real scheduler: the profile that selects it. The paper's six
 * policies are the {@code placement} and {@code fgd} score plugins choosing node and GPUs; {@code
 * hami-binpack} and {@code hami-spread} are the {@code vgpu} plugin's own node and GPU policies
 * under HAMi's memory and core accounting.
 */
public enum FrameworkPolicy {
  RANDOM("random", "Random", "placement", "random"),
  DOT_PRODUCT("dotprod", "DotProd", "placement", "dotprod"),
  CLUSTERING("clustering", "Clustering", "placement", "clustering"),
  PACKING("packing", "Packing", "placement", "packing"),
  BEST_FIT("bestfit", "BestFit", "placement", "bestfit"),
  FGD("fgd", "FGD", "fgd", ""),
  HAMI_BINPACK("hami-binpack", "HAMi binpack", "vgpu", "binpack"),
  HAMI_SPREAD("hami-spread", "HAMi spread", "vgpu", "spread");

  private final String policyName;
  private final String displayName;
  private final String scorePlugin;
  private final String setting;

  FrameworkPolicy(String policyName, String displayName, String scorePlugin, String setting) {
    this.policyName = policyName;
    this.displayName = displayName;
    this.scorePlugin = scorePlugin;
    this.setting = setting;
  }

  public String policyName() {
    return policyName;
  }

  public String displayName() {
    return displayName;
  }

  public static Optional<FrameworkPolicy> byName(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(p -> p.policyName.equals(key)).findFirst();
  }

  /**
   * The scheduler configuration selecting this policy, with every node scored
   * (percentageOfNodesToScore 100) and {@code simprobe} reporting each binding. The paper's
   * policies score by their plugin alone, which reserves before {@code vgpu} so that its GPU choice
   * is honoured. HAMi's run the shipped profile's way: {@code vgpu}'s node score decides
   * (primaryScore) and the default scores only break its ties.
   */
  String profile(String schedulerName, long seed) {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n");
    y.append("percentageOfNodesToScore: 100\n");
    y.append("profiles:\n  - schedulerName: ").append(schedulerName).append('\n');
    y.append("    percentageOfNodesToScore: 100\n");
    boolean hami = scorePlugin.equals("vgpu");
    if (hami) {
      y.append("    primaryScore: vgpu\n");
    }
    y.append("    plugins:\n      multiPoint:\n        enabled:\n");
    if (!hami) {
      y.append("          - name: ").append(scorePlugin).append('\n');
    }
    y.append("          - name: vgpu\n          - name: ").append(SimProbe.NAME).append('\n');
    if (!hami) {
      y.append("      score:\n        disabled:\n          - name: \"*\"\n        enabled:\n");
      y.append("          - name: ").append(scorePlugin).append('\n');
    }
    y.append("    pluginConfig:\n");
    if (scorePlugin.equals("placement")) {
      y.append("      - name: placement\n        args:\n          policy: ")
          .append(setting)
          .append("\n          seed: ")
          .append(Replay.drawSeed(seed))
          .append('\n');
    }
    String vgpu = hami ? setting : "binpack";
    y.append("      - name: vgpu\n        args:\n          nodeSchedulerPolicy: ")
        .append(vgpu)
        .append("\n          gpuSchedulerPolicy: ")
        .append(vgpu)
        .append('\n');
    return y.toString();
  }
}
