package io.hami.framework.plugins.helper;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Taint and toleration matching as Kubernetes defines it. */
public final class Tolerations {
  private Tolerations() {}

  /** Returns the pod's tolerations, never null. */
  public static List<Toleration> of(Pod pod) {
    List<Toleration> t = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    return t == null ? List.of() : t;
  }

  /** Whether {@code toleration} tolerates {@code taint}. */
  public static boolean tolerates(Toleration toleration, Taint taint) {
    String effect = toleration.getEffect();
    if (!isEmpty(effect) && !effect.equals(taint.getEffect())) {
      return false;
    }
    String key = toleration.getKey();
    if (!isEmpty(key) && !key.equals(taint.getKey())) {
      return false;
    }
    String op = toleration.getOperator();
    if ("Exists".equals(op)) {
      return true;
    }
    if (isEmpty(key)) {
      // An empty key is only valid with Exists.
      return false;
    }
    return nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
  }

  /** Whether any of {@code tolerations} tolerates {@code taint}. */
  public static boolean anyTolerates(List<Toleration> tolerations, Taint taint) {
    for (Toleration t : tolerations) {
      if (tolerates(t, taint)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isEmpty(@Nullable String s) {
    return s == null || s.isEmpty();
  }

  private static String nullToEmpty(@Nullable String s) {
    return s == null ? "" : s;
  }
}
