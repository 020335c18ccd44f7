package io.hami.model.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Kubelet-visible device IDs: the virtual replicas {@code <uuid>-<n>} a node agent lists for one
 * GPU.
 */
public final class DeviceIds {

  private DeviceIds() {}

  /**
   * The replica IDs of a GPU: {@code uuid-0 … uuid-(split-1)}; a MIG device ID is listed as it is.
   */
  public static List<String> replicas(String uuid, int split) {
    if (uuid.contains("MIG")) {
      return List.of(uuid);
    }
    List<String> out = new ArrayList<>(Math.max(split, 0));
    for (int i = 0; i < split; i++) {
      out.add(uuid + "-" + i);
    }
    return List.copyOf(out);
  }

  /**
   * The physical GPU of a kubelet ID: strips a {@code ::<n>} time-slicing suffix, or a {@code
   * -<digits>} replica suffix when the ID has exactly six dashes; other IDs are returned unchanged.
   */
  public static String physicalId(String id) {
    int cc = id.indexOf("::");
    if (cc >= 0) {
      return id.substring(0, cc);
    }
    int dashes = 0;
    for (int i = 0; i < id.length(); i++) {
      if (id.charAt(i) == '-') {
        dashes++;
      }
    }
    int last = id.lastIndexOf('-');
    if (dashes == 6 && last < id.length() - 1 && allDigits(id, last + 1)) {
      return id.substring(0, last);
    }
    return id;
  }

  private static boolean allDigits(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
