package io.hami.nodeagent.deviceplugin;

import com.google.common.collect.ImmutableList;
import io.hami.nodeagent.deviceplugin.v1beta1.Device;
import io.hami.nodeagent.deviceplugin.v1beta1.NUMANode;
import io.hami.nodeagent.deviceplugin.v1beta1.TopologyInfo;
import io.hami.nodeagent.health.Gpu;
import java.util.List;
import java.util.regex.Pattern;

/** The virtual devices kubelet sees: {@code <uuid>-<i>} for i below the split count (spec §7.2). */
public final class KubeletDevices {
  public static final String HEALTHY = "Healthy";
  public static final String UNHEALTHY = "Unhealthy";
  private static final Pattern REPLICA_SUFFIX = Pattern.compile("-\\d+$");

  private KubeletDevices() {}

  public static ImmutableList<Device> of(List<Gpu> gpus, int splitCount, boolean numaTopology) {
    ImmutableList.Builder<Device> out = ImmutableList.builder();
    for (Gpu g : gpus) {
      for (int i = 0; i < splitCount; i++) {
        Device.Builder d =
            Device.newBuilder()
                .setID(g.uuid() + "-" + i)
                .setHealth(g.healthy() ? HEALTHY : UNHEALTHY);
        if (numaTopology) {
          d.setTopology(
              TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(g.info().numaNode())));
        }
        out.add(d.build());
      }
    }
    return out.build();
  }

  /**
   * Whether kubelet device {@code id} is a replica of GPU {@code uuid} ({@code <uuid>-<n>} or
   * {@code <uuid>::<n>}).
   */
  public static boolean isReplicaOf(String id, String uuid) {
    if (physicalId(id).equals(uuid)) {
      return true;
    }
    if (!id.startsWith(uuid) || id.length() <= uuid.length() + 1) {
      return false;
    }
    String rest = id.substring(uuid.length());
    return rest.matches("(-|::)\\d+");
  }

  /**
   * The physical GPU of a kubelet device ID: strip {@code ::<n>}, or a trailing {@code -<n>} when
   * the ID has exactly 6 dashes (a GPU UUID has 5).
   */
  public static String physicalId(String id) {
    int colons = id.indexOf("::");
    if (colons >= 0) {
      return id.substring(0, colons);
    }
    if (id.chars().filter(c -> c == '-').count() == 6 && REPLICA_SUFFIX.matcher(id).find()) {
      return id.substring(0, id.lastIndexOf('-'));
    }
    return id;
  }
}
