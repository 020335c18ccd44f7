package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.BindPlugin;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PostBindPlugin;
import io.hami.framework.api.PostFilterPlugin;
import io.hami.framework.api.PostFilterResult;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueSortPlugin;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.config.ExtensionPoint;
import io.hami.framework.config.ProfileConfig;
import io.hami.framework.queue.Nominator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugins of one profile, sorted into per-point arrays once when the profile is built, and the
 * code that runs each extension point: it calls the plugins in order, turns a thrown exception into
 * an error status naming the plugin (logged once, here), fills in the plugin name of every
 * non-success status, and times the points.
 *
 * <p>Thread-safety: immutable after construction but for the reused Filter verdicts ({@link
 * FilterVerdicts}), whose pod classes are taken on the scheduling thread. Filter and Score runners
 * may be called concurrently for different nodes.
 */
public final class FrameworkRuntime {
  private static final Logger log = LoggerFactory.getLogger(FrameworkRuntime.class);

  private final String profileName;
  private final int percentageOfNodesToScore;
  private final QueueSortPlugin queueSort;
  private final PreEnqueuePlugin[] preEnqueue;
  private final PreFilterPlugin[] preFilter;
  // The PreFilter plugins with extensions, and the Filter position of each (-1: none) for skips.
  private final PreFilterPlugin[] preFilterExt;
  private final int[] preFilterExtFilterPos;
  private final FilterPlugin[] filter;
  private final PostFilterPlugin[] postFilter;
  private final ScorePoints scoring;
  private final BindingPoints binding;
  private final Map<String, List<ClusterEventWithHint>> registrations;
  private final Map<String, Plugin> plugins;

  /** The plugins in order of creation, for {@link #close}. */
  private final List<Plugin> created;

  private final AtomicBoolean closed = new AtomicBoolean();
  private final SchedulerMetrics metrics;
  private final FilterVerdicts verdicts;

  FrameworkRuntime(
      ProfileSettings settings,
      Map<ExtensionPoint, List<Plugin>> byPoint,
      Map<String, Integer> weights,
      Map<String, Plugin> plugins,
      SchedulerMetrics metrics) {
    this.profileName = settings.name();
    this.percentageOfNodesToScore = settings.percentageOfNodesToScore();
    this.queueSort =
        (QueueSortPlugin) byPoint.getOrDefault(ExtensionPoint.QUEUE_SORT, List.of()).get(0);
    this.preEnqueue = arr(byPoint, ExtensionPoint.PRE_ENQUEUE, PreEnqueuePlugin[]::new);
    this.preFilter = arr(byPoint, ExtensionPoint.PRE_FILTER, PreFilterPlugin[]::new);
    this.filter = arr(byPoint, ExtensionPoint.FILTER, FilterPlugin[]::new);
    List<PreFilterPlugin> ext = new ArrayList<>();
    for (PreFilterPlugin p : preFilter) {
      if (p instanceof PreFilterExtensions) {
        ext.add(p);
      }
    }
    this.preFilterExt = ext.toArray(new PreFilterPlugin[0]);
    this.preFilterExtFilterPos = new int[preFilterExt.length];
    for (int i = 0; i < preFilterExt.length; i++) {
      preFilterExtFilterPos[i] = -1;
      for (int j = 0; j < filter.length; j++) {
        if (filter[j].name().equals(preFilterExt[i].name())) {
          preFilterExtFilterPos[i] = j;
        }
      }
    }
    this.verdicts = new FilterVerdicts(filter);
    this.postFilter = arr(byPoint, ExtensionPoint.POST_FILTER, PostFilterPlugin[]::new);
    this.scoring =
        new ScorePoints(
            profileName,
            arr(byPoint, ExtensionPoint.PRE_SCORE, PreScorePlugin[]::new),
            arr(byPoint, ExtensionPoint.SCORE, ScorePlugin[]::new),
            weights,
            settings.primaryScores(),
            metrics);
    this.binding =
        new BindingPoints(
            profileName,
            arr(byPoint, ExtensionPoint.RESERVE, ReservePlugin[]::new),
            arr(byPoint, ExtensionPoint.PERMIT, PermitPlugin[]::new),
            arr(byPoint, ExtensionPoint.PRE_BIND, PreBindPlugin[]::new),
            arr(byPoint, ExtensionPoint.BIND, BindPlugin[]::new),
            arr(byPoint, ExtensionPoint.POST_BIND, PostBindPlugin[]::new),
            metrics);
    Map<String, List<ClusterEventWithHint>> regs = new LinkedHashMap<>();
    for (Plugin p : plugins.values()) {
      if (p instanceof EnqueueExtensions e) {
        regs.put(p.name(), List.copyOf(e.eventsToRegister()));
      }
    }
    this.registrations = Map.copyOf(regs);
    this.plugins = Map.copyOf(plugins);
    this.created = List.copyOf(plugins.values());
    this.metrics = metrics;
  }

  @SuppressWarnings("unchecked")
  private static <T> T[] arr(
      Map<ExtensionPoint, List<Plugin>> byPoint, ExtensionPoint p, IntFunction<T[]> mk) {
    List<Plugin> l = byPoint.getOrDefault(p, List.of());
    T[] out = mk.apply(l.size());
    for (int i = 0; i < l.size(); i++) {
      out[i] = (T) l.get(i);
    }
    return out;
  }

  /**
   * Builds a profile: resolves which plugins run at each point (defaults, then multiPoint, then
   * per-point lists), creates each plugin once with its arguments and checks that every plugin
   * named at a point implements it. Adds an error per problem to {@code errors} and returns null if
   * there was any.
   */
  public static @Nullable FrameworkRuntime build(
      ProfileConfig profile,
      int globalPercentage,
      Registry registry,
      FrameworkHandle handle,
      SchedulerMetrics metrics,
      FieldErrors errors) {
    return ProfileAssembly.build(profile, globalPercentage, registry, handle, metrics, errors);
  }

  public String profileName() {
    return profileName;
  }

  public int percentageOfNodesToScore() {
    return percentageOfNodesToScore;
  }

  public QueueSortPlugin queueSort() {
    return queueSort;
  }

  public List<PreEnqueuePlugin> preEnqueuePlugins() {
    return List.of(preEnqueue);
  }

  public Map<String, List<ClusterEventWithHint>> eventRegistrations() {
    return registrations;
  }

  /** The runners of PreScore, Score and NormalizeScore. */
  public ScorePoints scoring() {
    return scoring;
  }

  /** The runners of Reserve, Permit and the binding cycle's points. */
  public BindingPoints binding() {
    return binding;
  }

  /** The plugins of this profile by name. */
  public Map<String, Plugin> plugins() {
    return plugins;
  }

  /**
   * Closes the profile's {@link AutoCloseable} plugins in reverse order of creation; later calls do
   * nothing. Call it once scheduling and binding stopped.
   */
  public void close() {
    if (closed.compareAndSet(false, true)) {
      PluginCloser.closeAll(profileName, created);
    }
  }

  /** The names of the plugins enabled at {@code point}, in run order. */
  public List<String> pluginNames(ExtensionPoint point) {
    Plugin[] ps =
        switch (point) {
          case QUEUE_SORT -> new Plugin[] {queueSort};
          case PRE_ENQUEUE -> preEnqueue;
          case PRE_FILTER -> preFilter;
          case FILTER -> filter;
          case POST_FILTER -> postFilter;
          case PRE_SCORE -> scoring.preScore;
          case SCORE -> scoring.score;
          case RESERVE -> binding.reserve;
          case PERMIT -> binding.permit;
          case PRE_BIND -> binding.preBind;
          case BIND -> binding.bind;
          case POST_BIND -> binding.postBind;
        };
    List<String> out = new ArrayList<>();
    for (Plugin p : ps) {
      out.add(p.name());
    }
    return out;
  }

  public boolean hasFilterPlugins() {
    return filter.length > 0;
  }

  public boolean hasPostFilterPlugins() {
    return postFilter.length > 0;
  }

  public int filterPluginCount() {
    return filter.length;
  }

  // ---- scheduling cycle

  /** The outcome of PreFilter: status, candidate node names (null: all), skipped filters. */
  // skipFilter is indexed by filter position in the per-node loop; a List would box each read.
  @SuppressWarnings("ArrayRecordComponent")
  /**
   * @param excluded the snapshot positions some plugin's Filter certainly rejects, or null
   */
  public record PreFilterOutcome(
      Status status,
      @Nullable Set<String> nodeNames,
      boolean[] skipFilter,
      @Nullable ExcludedNodes excluded) {}

  /** The Filter plugins PreFilter skipped, for the runners PostFilter calls through the handle. */
  // Indexed by filter position, as in the per-node loop.
  @SuppressWarnings("ArrayRecordComponent")
  private record FilterSkips(boolean[] skip) implements StateData {}

  private static final StateKey<FilterSkips> FILTER_SKIPS =
      StateKey.of("FrameworkFilterSkips", FilterSkips.class);

  private boolean[] skips(CycleState state) {
    FilterSkips s = state.get(FILTER_SKIPS);
    return s == null || s.skip().length != filter.length ? new boolean[filter.length] : s.skip();
  }

  public PreFilterOutcome runPreFilter(
      CycleState state, Pod pod, Snapshot snapshot, boolean sample) {
    long start = System.nanoTime();
    boolean[] skip = new boolean[filter.length];
    Set<String> nodes = null;
    ExcludedNodes excluded = null;
    Status result = Status.success();
    for (PreFilterPlugin p : preFilter) {
      long t0 = sample ? System.nanoTime() : 0;
      PreFilterResult r;
      try {
        r = p.preFilter(state, pod, snapshot);
      } catch (RuntimeException e) {
        r = PreFilterResult.of(pluginError(p, "PreFilter", pod, e));
      }
      Status s = r.status().withPlugin(p.name());
      if (sample) {
        metrics.plugin(p.name(), "PreFilter", s.code().name(), System.nanoTime() - t0);
      }
      if (s.isSkip()) {
        for (int i = 0; i < filter.length; i++) {
          if (filter[i].name().equals(p.name())) {
            skip[i] = true;
          }
        }
        continue;
      }
      if (!s.isSuccess()) {
        result = s;
        break;
      }
      ExcludedNodes e = r.excluded();
      if (e != null) {
        excluded = excluded == null ? e : excluded.or(e);
      }
      if (r.nodeNames() != null) {
        if (nodes == null) {
          nodes = new HashSet<>(r.nodeNames());
        } else {
          nodes.retainAll(r.nodeNames());
        }
      }
    }
    metrics.extensionPoint(
        "PreFilter", result.code().name(), profileName, System.nanoTime() - start);
    state.write(FILTER_SKIPS, new FilterSkips(skip));
    return new PreFilterOutcome(result, nodes, skip, result.isSuccess() ? excluded : null);
  }

  /**
   * The pod's class for reusing Filter verdicts on the snapshot's {@code nodes} nodes in this cycle
   * (see {@link io.hami.framework.api.FilterEquivalence}), or null when its verdicts are computed
   * afresh. Called on the scheduling thread after PreFilter.
   */
  FilterVerdicts.@Nullable PodClass filterClass(
      CycleState state, Pod pod, boolean[] skip, int nodes) {
    return verdicts.classOf(state, pod, skip, nodes);
  }

  /**
   * Runs the Filter plugins on one node, or gives the verdict kept for the pod's class when the
   * node has not changed since it was computed. Hot path: no allocation when the verdict is kept.
   *
   * @param in the cycle's pod, state and skips; its podClass (from {@link #filterClass}) null to
   *     run the plugins
   * @param position the node's index in the snapshot's node list
   */
  Status runFilter(FilterInput in, NodeInfo node, int position) {
    Nominator nominator = in.nominator;
    if (nominator != null) {
      List<PodInfo> nominated = nominator.nominatedPods(node.name());
      if (!nominated.isEmpty()) {
        // Never a kept verdict: it was computed without these pods.
        return runFilterWithNominated(in.state, in.pod, node, in.skip, nominated, in.pluginNanos);
      }
    }
    FilterVerdicts.PodClass podClass = in.podClass;
    if (podClass == null) {
      return runFilter(in.state, in.pod, node, in.skip, in.pluginNanos);
    }
    Status kept = FilterVerdicts.lookup(podClass, position, node);
    if (kept != null) {
      return kept;
    }
    Status s = runFilter(in.state, in.pod, node, in.skip, in.pluginNanos);
    FilterVerdicts.remember(podClass, position, node, s);
    return s;
  }

  /**
   * Runs the Filter plugins on one node, stopping at the first that does not succeed. Hot path: no
   * allocation on success.
   *
   * @param pluginNanos when not null, per-plugin elapsed time is added into it (sampled cycles)
   */
  public Status runFilter(
      CycleState state, Pod pod, NodeInfo node, boolean[] skip, long @Nullable [] pluginNanos) {
    for (int i = 0; i < filter.length; i++) {
      if (skip[i]) {
        continue;
      }
      FilterPlugin p = filter[i];
      long t0 = pluginNanos != null ? System.nanoTime() : 0;
      Status s;
      try {
        s = p.filter(state, pod, node);
      } catch (RuntimeException e) {
        s = pluginError(p, "Filter", pod, e);
      }
      if (pluginNanos != null) {
        synchronized (pluginNanos) {
          pluginNanos[i] += System.nanoTime() - t0;
        }
      }
      if (!s.isSuccess()) {
        return s.withPlugin(p.name());
      }
    }
    return Status.success();
  }

  /**
   * Runs Filter on {@code node} as the cycle does when pods are nominated to it (kube-scheduler's
   * two passes): first with the nominated pods of at least the pod's priority added to copies of
   * the node and the state, then, if that passed and any were added, on the node as it is. The
   * first pass makes the pod respect room held for more important pods; the second keeps it from
   * counting on them (a nominated pod may never come), for example for pod affinity.
   */
  public Status runFilterWithNominatedPods(
      CycleState state, Pod pod, NodeInfo node, Nominator nominator) {
    return runFilterWithNominated(
        state, pod, node, skips(state), nominator.nominatedPods(node.name()), null);
  }

  private Status runFilterWithNominated(
      CycleState state,
      Pod pod,
      NodeInfo node,
      boolean[] skip,
      List<PodInfo> nominated,
      long @Nullable [] pluginNanos) {
    int priority = PodInfo.priorityOf(pod);
    String uid = pod.getMetadata().getUid();
    CycleState withState = null;
    NodeInfo withNode = node;
    for (PodInfo p : nominated) {
      if (p.priority() < priority || p.uid().equals(uid)) {
        continue;
      }
      if (withState == null) {
        withState = state.copy();
      }
      withNode = withNode.withPod(p);
      Status s = runPreFilterExtensions(true, withState, pod, p, withNode, skip);
      if (!s.isSuccess()) {
        return s;
      }
    }
    if (withState == null) {
      return runFilter(state, pod, node, skip, pluginNanos);
    }
    Status first = runFilter(withState, pod, withNode, skip, pluginNanos);
    if (!first.isSuccess()) {
      return first;
    }
    return runFilter(state, pod, node, skip, pluginNanos);
  }

  /** Runs the PreFilter plugins' AddPod extension; see {@code FrameworkHandle}. */
  public Status runPreFilterAddPod(CycleState state, Pod pod, PodInfo toAdd, NodeInfo node) {
    return runPreFilterExtensions(true, state, pod, toAdd, node, skips(state));
  }

  /** Runs the PreFilter plugins' RemovePod extension; see {@code FrameworkHandle}. */
  public Status runPreFilterRemovePod(CycleState state, Pod pod, PodInfo toRemove, NodeInfo node) {
    return runPreFilterExtensions(false, state, pod, toRemove, node, skips(state));
  }

  private Status runPreFilterExtensions(
      boolean add, CycleState state, Pod pod, PodInfo other, NodeInfo node, boolean[] skip) {
    for (int i = 0; i < preFilterExt.length; i++) {
      int pos = preFilterExtFilterPos[i];
      if (pos >= 0 && skip[pos]) {
        continue;
      }
      PreFilterPlugin p = preFilterExt[i];
      PreFilterExtensions x = (PreFilterExtensions) p;
      Status s;
      try {
        s = add ? x.addPod(state, pod, other, node) : x.removePod(state, pod, other, node);
      } catch (RuntimeException e) {
        s = pluginError(p, add ? "AddPod" : "RemovePod", pod, e);
      }
      if (!s.isSuccess()) {
        return s.withPlugin(p.name());
      }
    }
    return Status.success();
  }

  /** Records per-plugin Filter time gathered by {@link #runFilter}. */
  public void recordFilterSample(long[] pluginNanos) {
    for (int i = 0; i < filter.length; i++) {
      metrics.plugin(filter[i].name(), "Filter", "Success", pluginNanos[i]);
    }
  }

  public PostFilterResult runPostFilter(CycleState state, Pod pod, Map<String, Status> statuses) {
    long start = System.nanoTime();
    PostFilterResult last = PostFilterResult.of(Status.unschedulable());
    String nomination = null;
    // As kube-scheduler: the rejection carries every plugin's reasons, named by the first
    // rejector, and keeps the last nomination change any plugin asked for.
    List<String> reasons = new ArrayList<>();
    String rejector = null;
    for (PostFilterPlugin p : postFilter) {
      PostFilterResult r;
      try {
        r = p.postFilter(state, pod, statuses);
      } catch (RuntimeException e) {
        r = PostFilterResult.of(pluginError(p, "PostFilter", pod, e));
      }
      Status s = r.status().withPlugin(p.name());
      if (r.nominatedNodeName() != null) {
        nomination = r.nominatedNodeName();
      }
      if (s.isSuccess() || s.code() == Code.ERROR) {
        last = new PostFilterResult(s, nomination, r.victims());
        break;
      }
      reasons.addAll(s.reasons());
      if (rejector == null) {
        rejector = p.name();
      }
      Status rejected = new Status(s.code(), List.copyOf(reasons), null, rejector);
      last = new PostFilterResult(rejected, nomination, r.victims());
    }
    metrics.extensionPoint(
        "PostFilter", last.status().code().name(), profileName, System.nanoTime() - start);
    return last;
  }

  static Status pluginError(Plugin p, String point, Pod pod, RuntimeException e) {
    log.error("plugin failed plugin={} point={} pod={}", p.name(), point, key(pod), e);
    return Status.error(e).withPlugin(p.name());
  }

  static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
