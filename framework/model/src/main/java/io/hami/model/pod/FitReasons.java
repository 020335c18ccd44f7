package io.hami.model.pod;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-node failure text of a device fit: {@code "<count>/<devices> <Reason>"} entries sorted by
 * text and joined by {@code ", "}, e.g. {@code 1/1 CardInsufficientMemory}.
 */
public final class FitReasons {

  // Reasons counted per device, in the order the NVIDIA fit checks them (spec §6.6).

  /** The device is unhealthy. */
  public static final String CARD_NOT_HEALTH = "CardNotHealth";

  /** The device is in the node's cordon list. */
  public static final String CARD_CORDONED = "CardCordoned";

  /** Type, mode or vendor filters reject the device. */
  public static final String CARD_TYPE_MISMATCH = "CardTypeMismatch";

  /** NUMA binding could not be met. */
  public static final String NUMA_NOT_FIT = "NumaNotFit";

  /** UUID filters reject the device. */
  public static final String CARD_UUID_MISMATCH = "CardUuidMismatch";

  /** Every share slot is taken. */
  public static final String CARD_TIME_SLICING_EXHAUSTED = "CardTimeSlicingExhausted";

  /** An exclusive request meets a used device, or a used device meets the mutex policy. */
  public static final String EXCLUSIVE_DEVICE_ALLOCATE_CONFLICT = "ExclusiveDeviceAllocateConflict";

  /** The namespace quota would be exceeded. */
  public static final String RESOURCE_QUOTA_NOT_FIT = "ResourceQuotaNotFit";

  /** Not enough free memory. */
  public static final String CARD_INSUFFICIENT_MEMORY = "CardInsufficientMemory";

  /** Not enough free cores. */
  public static final String CARD_INSUFFICIENT_CORE = "CardInsufficientCore";

  /** All cores are taken and the request asks for none. */
  public static final String CARD_COMPUTE_UNITS_EXHAUSTED = "CardComputeUnitsExhausted";

  /** No free MIG placement. */
  public static final String CARD_MIG_TOPOLOGY_INFEASIBLE = "CardMigTopologyInfeasible";

  /** Some devices fit, but fewer than requested. */
  public static final String ALLOCATED_CARDS_INSUFFICIENT_REQUEST =
      "AllocatedCardsInsufficientRequest";

  /** The node has fewer devices of the vendor than requested. */
  public static final String NODE_INSUFFICIENT_DEVICE = "NodeInsufficientDevice";

  /** The node registered no devices. */
  public static final String NODE_UNREGISTERED = "node unregistered";

  private FitReasons() {}

  /** Formats reason → count over {@code totalDevices}. */
  public static String format(Map<String, Integer> counts, int totalDevices) {
    TreeMap<String, String> sorted = new TreeMap<>();
    counts.forEach(
        (reason, n) -> {
          String s = n + "/" + totalDevices + " " + reason;
          sorted.put(s, s);
        });
    return String.join(", ", sorted.keySet());
  }

  /** Parses a failure text back into reason → count (the device total is dropped). */
  public static Decoded<Map<String, Integer>> parse(String text) {
    Map<String, Integer> out = new LinkedHashMap<>();
    if (text.isBlank()) {
      return Decoded.ok(out);
    }
    for (String raw : GoText.split(text, ',')) {
      String entry = raw.trim();
      int slash = entry.indexOf('/');
      int space = entry.indexOf(' ');
      if (slash <= 0 || space < slash) {
        return Decoded.err("", entry, "expected <count>/<total> <reason>: " + GoText.quote(entry));
      }
      long n = GoText.parseInt32(entry.substring(0, slash));
      if (n == GoText.INVALID || n < 0) {
        return Decoded.err("", entry, "invalid reason count in " + GoText.quote(entry));
      }
      String reason = entry.substring(space + 1).trim();
      out.merge(reason, (int) n, Integer::sum);
    }
    return Decoded.ok(out);
  }
}
