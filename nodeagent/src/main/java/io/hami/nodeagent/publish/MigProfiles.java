package io.hami.nodeagent.publish;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.hami.model.config.MigAllowlistEntry;
import io.hami.model.device.MigProfile;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.nvml.MigProfileInfo;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The dynamic MIG profiles each GPU registers (spec §8.3): every GPU instance profile NVML offers,
 * with its maximum instance count, less those the {@code migProfileAllowlist} leaves out.
 */
public final class MigProfiles {
  private MigProfiles() {}

  /** The register profiles of each MIG-enabled GPU, by UUID; GPUs without profiles are absent. */
  public static ImmutableMap<String, ImmutableList<MigProfile>> discover(
      NodeAgentConfig config, Nvml nvml, List<Gpu> gpus) throws NvmlException {
    ImmutableMap.Builder<String, ImmutableList<MigProfile>> out = ImmutableMap.builder();
    for (Gpu g : gpus) {
      List<MigProfileInfo> offered = nvml.migProfiles(g.index());
      if (offered.isEmpty()) {
        continue;
      }
      out.put(g.uuid(), forRegister(config.migProfileAllowlist(), g.info().model(), offered));
    }
    return out.buildKeepingLast();
  }

  /**
   * The register form of the profiles a GPU offers: {@code core} is the profile's share of the
   * GPU's compute slices in percent, rounded up (1 of 7 slices → 15), {@code instanceCount} the
   * most instances NVML allows.
   */
  static ImmutableList<MigProfile> forRegister(
      List<MigAllowlistEntry> allowlist, String model, List<MigProfileInfo> offered) {
    int slices = 0;
    for (MigProfileInfo p : offered) {
      slices = Math.max(slices, p.sliceCount());
    }
    ImmutableList.Builder<MigProfile> out = ImmutableList.builder();
    for (MigProfileInfo p : offered) {
      if (!allowed(allowlist, model, p.name())) {
        continue;
      }
      int core = (int) Math.min(100, (100L * p.sliceCount() + slices - 1) / slices);
      out.add(
          new MigProfile(
              p.name(),
              (int) Math.min(p.memoryMiB(), Integer.MAX_VALUE),
              core,
              p.sliceCount(),
              p.instanceCount(),
              p.placements()));
    }
    return out.build();
  }

  /**
   * Whether {@code profile} may be registered on a GPU of {@code model}. Entries whose models name
   * the GPU (case-insensitive; the model may carry an {@code NVIDIA} prefix or more detail, so a
   * name contained in the model matches) list the allowed profiles; a GPU that no entry names, or
   * an empty allowlist, registers every profile.
   */
  static boolean allowed(List<MigAllowlistEntry> allowlist, String model, String profile) {
    String m = model.toLowerCase(Locale.ROOT);
    List<String> profiles = new ArrayList<>();
    boolean named = false;
    for (MigAllowlistEntry e : allowlist) {
      for (String want : e.models()) {
        String w = want.trim().toLowerCase(Locale.ROOT);
        if (!w.isEmpty() && m.contains(w)) {
          named = true;
          profiles.addAll(e.profiles());
          break;
        }
      }
    }
    return !named || profiles.stream().anyMatch(p -> p.trim().equals(profile));
  }
}
