package io.hami.framework.runtime;

import static io.hami.framework.runtime.FrameworkRuntime.key;
import static io.hami.framework.runtime.FrameworkRuntime.pluginError;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.BindPlugin;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PostBindPlugin;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.Status;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runners of one profile's Reserve, Permit, PreBind, Bind and PostBind points: each calls the
 * plugins in order, turns a thrown exception into an error status naming the plugin, and times the
 * point. Immutable; safe to call from the scheduling and binding threads at once.
 */
public final class BindingPoints {
  private static final Logger log = LoggerFactory.getLogger(BindingPoints.class);

  private final String profileName;
  final ReservePlugin[] reserve;
  final PermitPlugin[] permit;
  final PreBindPlugin[] preBind;
  final BindPlugin[] bind;
  final PostBindPlugin[] postBind;
  private final SchedulerMetrics metrics;

  BindingPoints(
      String profileName,
      ReservePlugin[] reserve,
      PermitPlugin[] permit,
      PreBindPlugin[] preBind,
      BindPlugin[] bind,
      PostBindPlugin[] postBind,
      SchedulerMetrics metrics) {
    this.profileName = profileName;
    this.reserve = reserve;
    this.permit = permit;
    this.preBind = preBind;
    this.bind = bind;
    this.postBind = postBind;
    this.metrics = metrics;
  }

  public Status runReserve(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.success();
    for (ReservePlugin p : reserve) {
      Status s;
      try {
        s = p.reserve(state, pod, nodeName);
      } catch (RuntimeException e) {
        s = pluginError(p, "Reserve", pod, e);
      }
      if (!s.isSuccess()) {
        result = s.withPlugin(p.name());
        break;
      }
    }
    metrics.extensionPoint("Reserve", result.code().name(), profileName, System.nanoTime() - start);
    return result;
  }

  /** Calls every Reserve plugin's Unreserve in reverse order; exceptions are logged. */
  public void runUnreserve(CycleState state, Pod pod, String nodeName) {
    for (int i = reserve.length - 1; i >= 0; i--) {
      try {
        reserve[i].unreserve(state, pod, nodeName);
      } catch (RuntimeException e) {
        log.error(
            "Unreserve failed plugin={} pod={} node={}", reserve[i].name(), key(pod), nodeName, e);
      }
    }
  }

  /** The outcome of Permit: status, and the plugins that asked to wait with the longest timeout. */
  public record PermitOutcome(Status status, Set<String> waitingPlugins, Duration timeout) {}

  public PermitOutcome runPermit(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Set<String> waiting = new HashSet<>();
    Duration timeout = Duration.ZERO;
    Status result = Status.success();
    for (PermitPlugin p : permit) {
      PermitResult r;
      try {
        r = p.permit(state, pod, nodeName);
      } catch (RuntimeException e) {
        r = PermitResult.reject(pluginError(p, "Permit", pod, e));
      }
      Status s = r.status();
      if (s.isSuccess()) {
        continue;
      }
      if (s.code() == Code.WAIT) {
        waiting.add(p.name());
        if (r.timeout().compareTo(timeout) > 0) {
          timeout = r.timeout();
        }
        continue;
      }
      result = s.withPlugin(p.name());
      break;
    }
    if (result.isSuccess() && !waiting.isEmpty()) {
      result = Status.waiting();
    }
    metrics.extensionPoint("Permit", result.code().name(), profileName, System.nanoTime() - start);
    return new PermitOutcome(result, waiting, timeout);
  }

  public Status runPreBind(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.success();
    for (PreBindPlugin p : preBind) {
      Status s;
      try {
        s = p.preBind(state, pod, nodeName);
      } catch (RuntimeException e) {
        s = pluginError(p, "PreBind", pod, e);
      }
      if (!s.isSuccess() && !s.isSkip()) {
        result = s.withPlugin(p.name());
        break;
      }
    }
    metrics.extensionPoint("PreBind", result.code().name(), profileName, System.nanoTime() - start);
    return result;
  }

  public Status runBind(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.skip();
    for (BindPlugin p : bind) {
      Status s;
      try {
        s = p.bind(state, pod, nodeName);
      } catch (RuntimeException e) {
        s = pluginError(p, "Bind", pod, e);
      }
      if (s.isSkip()) {
        continue;
      }
      result = s.withPlugin(p.name());
      break;
    }
    if (result.isSkip()) {
      result = Status.error("no Bind plugin bound the pod");
    }
    metrics.extensionPoint("Bind", result.code().name(), profileName, System.nanoTime() - start);
    return result;
  }

  public void runPostBind(CycleState state, Pod pod, String nodeName) {
    for (PostBindPlugin p : postBind) {
      try {
        p.postBind(state, pod, nodeName);
      } catch (RuntimeException e) {
        log.error("PostBind failed plugin={} pod={} node={}", p.name(), key(pod), nodeName, e);
      }
    }
  }
}
