package io.hami.model.pod;

import io.hami.model.internal.GoText;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The user annotations that restrict which devices a pod may use: UUID lists (exact, trimmed) and
 * type lists (case-insensitive substrings). Empty or blank lists mean "no constraint".
 */
public final class DeviceSelectors {

  private DeviceSelectors() {}

  /**
   * Whether device {@code id} passes the use/no-use UUID annotations; the no-use check runs after
   * the use check.
   */
  public static boolean uuidAllowed(
      Map<String, String> annotations, String useKey, String noUseKey, String id) {
    List<String> use = list(annotations, useKey);
    if (!use.isEmpty() && !use.contains(id)) {
      return false;
    }
    return !list(annotations, noUseKey).contains(id);
  }

  /** Whether a device of model {@code type} passes the use/no-use type annotations. */
  public static boolean typeAllowed(
      Map<String, String> annotations, String useKey, String noUseKey, String type) {
    String t = type.toLowerCase(Locale.ROOT);
    List<String> use = list(annotations, useKey);
    if (!use.isEmpty() && use.stream().noneMatch(u -> t.contains(u.toLowerCase(Locale.ROOT)))) {
      return false;
    }
    return list(annotations, noUseKey).stream()
        .noneMatch(u -> t.contains(u.toLowerCase(Locale.ROOT)));
  }

  /**
   * The device cordon list (v2.10 {@code hami.io/device-cordon}) or any other comma list
   * annotation.
   */
  public static List<String> list(Map<String, String> annotations, String key) {
    if (key.isEmpty()) {
      return List.of();
    }
    String v = annotations.get(key);
    return v == null ? List.of() : GoText.commaList(v);
  }

  /**
   * Whether a boolean annotation such as {@code nvidia.com/numa-bind} is set to a Go-true value.
   */
  public static boolean flag(Map<String, String> annotations, String key) {
    String v = annotations.get(key);
    return v != null && Boolean.TRUE.equals(GoText.parseBool(v.trim()));
  }
}
