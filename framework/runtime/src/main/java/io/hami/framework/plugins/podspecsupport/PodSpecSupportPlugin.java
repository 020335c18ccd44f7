package io.hami.framework.plugins.podspecsupport;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.ProfileAware;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Never ignores what a user wrote: refuses, as unschedulable and unresolvable, a pod whose spec
 * sets a field that influences kube-scheduler's decision and that this scheduler does not implement
 * ({@link PodSpecFields}), naming the field, e.g. {@code spec.resourceClaims is not supported by
 * this scheduler (DynamicResources)}. Placing such a pod as if the field were absent would break
 * what the user asked for silently. Only an update of the pod's spec can change the verdict.
 */
public final class PodSpecSupportPlugin
    implements PreFilterPlugin, EnqueueExtensions, ProfileAware {
  public static final String NAME = "PodSpecSupport";

  /**
   * @param needs for a field a plugin implements: that plugin, and the pod is refused only where
   *     the profile does not enable it; null for a field always refused
   */
  private record Check<T>(
      String field,
      String kubePlugin,
      @Nullable String needs,
      Function<T, @Nullable Object> value) {}

  private static final ImmutableList<Check<PodSpec>> SPEC_CHECKS = checks(PodSpecFields.POD_SPEC);
  private static final ImmutableList<Check<Volume>> VOLUME_CHECKS = checks(PodSpecFields.VOLUME);
  private static final ImmutableList<Check<io.fabric8.kubernetes.api.model.ResourceRequirements>>
      RESOURCE_CHECKS = checks(PodSpecFields.RESOURCES);

  private static <T> ImmutableList<Check<T>> checks(Map<String, FieldUse<T>> table) {
    ImmutableList.Builder<Check<T>> b = ImmutableList.builder();
    table.forEach(
        (field, use) -> {
          if (use instanceof FieldUse.Refused<T> r) {
            b.add(new Check<>(field, r.kubePlugin(), null, r.value()));
          } else if (use instanceof FieldUse.NeedsPlugin<T> n) {
            b.add(new Check<>(field, n.plugin(), n.plugin(), n.value()));
          }
        });
    return b.build();
  }

  /** The plugins the profile runs; until told, none (every plugin-dependent field is refused). */
  private volatile Set<String> enabled = Set.of();

  public static Plugin create(FrameworkHandle handle) {
    return new PodSpecSupportPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, PodSpecSupportPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void profileBuilt(Set<String> enabled) {
    this.enabled = Set.copyOf(enabled);
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    List<String> refusals = refusals(pod, enabled);
    if (refusals.isEmpty()) {
      return PreFilterResult.allNodes();
    }
    return PreFilterResult.of(Status.unresolvable(refusals.toArray(String[]::new)));
  }

  /**
   * One message per refused field the pod sets, in spec order, for a profile without any of the
   * plugins that some fields need; empty when none.
   */
  public static List<String> refusals(Pod pod) {
    return refusals(pod, Set.of());
  }

  /**
   * One message per refused field the pod sets, in spec order, for a profile running the {@code
   * enabled} plugins; empty when none.
   */
  public static List<String> refusals(Pod pod, Set<String> enabled) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(0);
    for (Check<PodSpec> c : SPEC_CHECKS) {
      check(out, "spec." + c.field(), c, spec, enabled);
    }
    if (spec.getResources() != null) {
      for (var c : RESOURCE_CHECKS) {
        check(out, "spec.resources." + c.field(), c, spec.getResources(), enabled);
      }
    }
    containers(out, "spec.initContainers", spec.getInitContainers(), enabled);
    containers(out, "spec.containers", spec.getContainers(), enabled);
    List<Volume> volumes = spec.getVolumes();
    if (volumes != null) {
      for (int i = 0; i < volumes.size(); i++) {
        Volume v = volumes.get(i);
        if (v != null) {
          for (Check<Volume> c : VOLUME_CHECKS) {
            check(out, "spec.volumes[" + i + "]." + c.field(), c, v, enabled);
          }
        }
      }
    }
    return out;
  }

  private static void containers(
      List<String> out, String path, @Nullable List<Container> cs, Set<String> enabled) {
    if (cs == null) {
      return;
    }
    for (int i = 0; i < cs.size(); i++) {
      Container c = cs.get(i);
      if (c != null && c.getResources() != null) {
        for (var check : RESOURCE_CHECKS) {
          check(
              out,
              path + "[" + i + "].resources." + check.field(),
              check,
              c.getResources(),
              enabled);
        }
      }
    }
  }

  private static <T> void check(
      List<String> out, String path, Check<T> c, T holder, Set<String> enabled) {
    if (c.needs() != null && enabled.contains(c.needs())) {
      return;
    }
    if (!isSet(c.value().apply(holder))) {
      return;
    }
    if (c.needs() != null) {
      out.add(
          path
              + " is not supported by this profile ("
              + c.needs()
              + "): enable the "
              + c.needs()
              + " plugin");
    } else {
      out.add(path + " is not supported by this scheduler (" + c.kubePlugin() + ")");
    }
  }

  private static boolean isSet(@Nullable Object value) {
    if (value == null) {
      return false;
    }
    if (value instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (value instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    return true;
  }

  /** Only a change of the pod's own spec can lift a refusal. */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC),
            (pod, oldObj, newObj) ->
                newObj instanceof Pod p
                        && p.getMetadata() != null
                        && pod.getMetadata() != null
                        && Objects.equals(p.getMetadata().getUid(), pod.getMetadata().getUid())
                        && refusals(p, enabled).isEmpty()
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP));
  }
}
