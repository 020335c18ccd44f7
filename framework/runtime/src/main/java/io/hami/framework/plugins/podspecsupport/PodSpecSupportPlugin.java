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
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Never ignores what a user wrote: refuses, as unschedulable and unresolvable, a pod whose spec
 * sets a field that influences kube-scheduler's decision and that this scheduler does not implement
 * ({@link PodSpecFields}), naming the field, e.g. {@code spec.resourceClaims is not supported by
 * this scheduler (DynamicResources)}. Placing such a pod as if the field were absent would break
 * what the user asked for silently. Only an update of the pod's spec can change the verdict.
 */
public final class PodSpecSupportPlugin implements PreFilterPlugin, EnqueueExtensions {
  public static final String NAME = "PodSpecSupport";

  private record Check<T>(String field, String kubePlugin, FieldUse.Refused<T> rule) {}

  private static final ImmutableList<Check<PodSpec>> SPEC_CHECKS = checks(PodSpecFields.POD_SPEC);
  private static final ImmutableList<Check<Volume>> VOLUME_CHECKS = checks(PodSpecFields.VOLUME);
  private static final ImmutableList<Check<io.fabric8.kubernetes.api.model.ResourceRequirements>>
      RESOURCE_CHECKS = checks(PodSpecFields.RESOURCES);

  private static <T> ImmutableList<Check<T>> checks(Map<String, FieldUse<T>> table) {
    ImmutableList.Builder<Check<T>> b = ImmutableList.builder();
    table.forEach(
        (field, use) -> {
          if (use instanceof FieldUse.Refused<T> r) {
            b.add(new Check<>(field, r.kubePlugin(), r));
          }
        });
    return b.build();
  }

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
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    List<String> refusals = refusals(pod);
    if (refusals.isEmpty()) {
      return PreFilterResult.allNodes();
    }
    return PreFilterResult.of(Status.unresolvable(refusals.toArray(String[]::new)));
  }

  /** One message per refused field the pod sets, in spec order; empty when none. */
  public static List<String> refusals(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(0);
    for (Check<PodSpec> c : SPEC_CHECKS) {
      check(out, "spec." + c.field(), c, spec);
    }
    if (spec.getResources() != null) {
      for (var c : RESOURCE_CHECKS) {
        check(out, "spec.resources." + c.field(), c, spec.getResources());
      }
    }
    containers(out, "spec.initContainers", spec.getInitContainers());
    containers(out, "spec.containers", spec.getContainers());
    List<Volume> volumes = spec.getVolumes();
    if (volumes != null) {
      for (int i = 0; i < volumes.size(); i++) {
        Volume v = volumes.get(i);
        if (v != null) {
          for (Check<Volume> c : VOLUME_CHECKS) {
            check(out, "spec.volumes[" + i + "]." + c.field(), c, v);
          }
        }
      }
    }
    return out;
  }

  private static void containers(List<String> out, String path, @Nullable List<Container> cs) {
    if (cs == null) {
      return;
    }
    for (int i = 0; i < cs.size(); i++) {
      Container c = cs.get(i);
      if (c != null && c.getResources() != null) {
        for (var check : RESOURCE_CHECKS) {
          check(out, path + "[" + i + "].resources." + check.field(), check, c.getResources());
        }
      }
    }
  }

  private static <T> void check(List<String> out, String path, Check<T> c, T holder) {
    if (isSet(c.rule().value().apply(holder))) {
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
                        && refusals(p).isEmpty()
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP));
  }
}
