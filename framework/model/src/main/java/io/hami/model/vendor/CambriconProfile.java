package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import java.util.List;

/**
 * Cambricon's extra pod annotations: {@code CAMBRICON_DSMLU_ASSIGNED=false} and {@code
 * CAMBRICON_DSMLU_PROFILE=<idx>_<cores>_<mem/256>} from the first device of the first non-empty
 * container.
 */
public final class CambriconProfile {

  /** Pod annotation with the chosen profile. */
  public static final String PROFILE_KEY = "CAMBRICON_DSMLU_PROFILE";

  /** Pod annotation the MLU plugin flips once it has served the pod. */
  public static final String ASSIGNED_KEY = "CAMBRICON_DSMLU_ASSIGNED";

  private CambriconProfile() {}

  /**
   * The profile value, e.g. {@code device-0,MLU,256000,1:;} gives {@code 0_1_1000}. The card index
   * is the number after the device ID's last {@code -}.
   */
  public static Decoded<String> profile(PodDevices decision) {
    for (List<ContainerDevice> c : decision.containers()) {
      if (c.isEmpty()) {
        continue;
      }
      ContainerDevice d = c.get(0);
      String id = d.uuid();
      String idx = id.substring(id.lastIndexOf('-') + 1);
      long i = GoText.parseInt32(idx);
      if (i == GoText.INVALID || i < 0) {
        return Decoded.err("uuid", id, "MLU device id must end in -<index>: " + GoText.quote(id));
      }
      return Decoded.ok(i + "_" + d.usedcores() + "_" + d.usedmem() / 256);
    }
    return Decoded.err("", "", "decision holds no MLU device");
  }
}
