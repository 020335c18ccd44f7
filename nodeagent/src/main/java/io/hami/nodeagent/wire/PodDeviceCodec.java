package io.hami.nodeagent.wire;

import java.util.ArrayList;
import java.util.List;

/** Reads pod device annotations (spec §1.5): containers end with ';', devices with ':'. */
public final class PodDeviceCodec {
  private PodDeviceCodec() {}

  /** Container entries in order, keeping empty ones; throws naming the bad record. */
  public static List<List<ContainerDevice>> decode(String value) {
    List<List<ContainerDevice>> out = new ArrayList<>();
    for (String piece : value.split(";", -1)) {
      List<ContainerDevice> ctr = new ArrayList<>();
      for (String rec : piece.split(":", -1)) {
        if (!rec.contains(",")) {
          continue;
        }
        String[] f = rec.split(",", -1);
        if (f.length < 4) {
          throw new IllegalArgumentException(
              "device record '" + rec + "' has " + f.length + " fields, at least 4 expected");
        }
        ctr.add(new ContainerDevice(f[0], f[1], number(f[2], rec), number(f[3], rec)));
      }
      out.add(List.copyOf(ctr));
    }
    return out;
  }

  private static int number(String s, String rec) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("device record '" + rec + "': '" + s + "' is not a number");
    }
  }
}
