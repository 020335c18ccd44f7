package io.hami.cmd.scheduler.ui;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.cmd.scheduler.ui.ClusterState.NodeView;
import io.hami.cmd.scheduler.ui.ClusterState.ProfilePolicy;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginArgs;
import io.hami.framework.cache.CacheSnapshot;
import io.hami.framework.config.ProfileConfig;
import io.hami.framework.runtime.FrameworkRuntime;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.Scheduler;
import io.hami.model.Annotations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * The cluster view's data, rendered at most once per {@link #MIN_INTERVAL} however many clients
 * poll.
 *
 * <p>Concurrency: called from the HTTP server's threads. The inputs are read through their own
 * locks (the cache's monitor fills this source's own {@link CacheSnapshot} with the cache's
 * immutable NodeInfos; the queue copies its pending pods under its lock), never the scheduling
 * thread's snapshot. Everything this class keeps is guarded by {@code this}.
 */
final class ClusterViewSource {
  /** How long a rendered body is served before the inputs are read again. */
  static final Duration MIN_INTERVAL = Duration.ofMillis(500);

  /** The plugins whose arguments make the placement policy, in the order shown. */
  static final ImmutableList<String> POLICY_PLUGINS =
      ImmutableList.of("vgpu", "placement", "fgd", "numa", "topology", "nodelock");

  /** A rendered body: JSON, its gzip form, and an entity tag naming its content. */
  record Rendered(byte[] json, byte[] gzip, String etag, Instant time) {}

  private final Supplier<List<NodeInfo>> nodes;
  private final Supplier<List<Pod>> pending;
  private final List<ProfilePolicy> policies;
  private final InstantSource clock;

  @GuardedBy("this")
  private final Map<String, RegisterSeen> registers = new HashMap<>();

  @GuardedBy("this")
  private @Nullable Rendered last;

  /**
   * Each node's view and JSON, kept while its NodeInfo (immutable, replaced on every change) and
   * register age stay the same: a render re-reads only the nodes that changed.
   */
  @GuardedBy("this")
  private final Map<String, CachedNode> nodeCache = new HashMap<>();

  private record RegisterSeen(String value, Instant since) {}

  private record CachedNode(
      NodeInfo info, @Nullable Instant registerSeen, NodeView view, String json) {}

  ClusterViewSource(
      Supplier<List<NodeInfo>> nodes,
      Supplier<List<Pod>> pending,
      List<ProfilePolicy> policies,
      InstantSource clock) {
    this.nodes = requireNonNull(nodes, "nodes");
    this.pending = requireNonNull(pending, "pending");
    this.policies = List.copyOf(policies);
    this.clock = requireNonNull(clock, "clock");
  }

  /** A source reading the scheduler's cache and queue, and its profiles' policies. */
  static ClusterViewSource of(Scheduler scheduler, Registry registry) {
    CacheSnapshot snapshot = new CacheSnapshot();
    Supplier<List<NodeInfo>> nodes =
        () -> {
          // Only this supplier touches its snapshot, and only under the source's lock.
          scheduler.cache().updateSnapshot(snapshot);
          return List.copyOf(snapshot.nodes());
        };
    return new ClusterViewSource(
        nodes,
        scheduler.queue()::pendingPods,
        policies(scheduler, registry),
        InstantSource.system());
  }

  /** Each profile's GPU plugins and their arguments (configured, else the registered defaults). */
  static List<ProfilePolicy> policies(Scheduler scheduler, Registry registry) {
    List<ProfilePolicy> out = new ArrayList<>();
    for (ProfileConfig profile : scheduler.config().profiles()) {
      FrameworkRuntime runtime = scheduler.profiles().get(profile.schedulerName());
      Set<String> enabled = runtime == null ? Set.of() : runtime.plugins().keySet();
      Map<String, PluginArgs> args = new LinkedHashMap<>();
      for (String name : POLICY_PLUGINS) {
        if (!enabled.contains(name)) {
          continue;
        }
        PluginArgs a = profile.pluginArgs().get(name);
        if (a == null) {
          a = registry.get(name).map(r -> (PluginArgs) r.defaultArgs()).orElse(null);
        }
        if (a != null) {
          args.put(name, a);
        }
      }
      out.add(ClusterStateBuilder.policy(profile.schedulerName(), args));
    }
    return out;
  }

  /** The current body, rendered again when the last one is older than {@link #MIN_INTERVAL}. */
  synchronized Rendered current() {
    Instant now = clock.instant();
    Rendered r = last;
    if (r != null && now.isBefore(r.time().plus(MIN_INTERVAL)) && !now.isBefore(r.time())) {
      return r;
    }
    ClusterState state = state(now);
    byte[] json = ClusterStateJson.encode(state, this::nodeJson).getBytes(StandardCharsets.UTF_8);
    r = new Rendered(json, gzip(json), etag(json), now);
    last = r;
    return r;
  }

  // Called from current(), which holds the lock already; synchronized for the checker.
  private synchronized String nodeJson(NodeView view) {
    CachedNode c = nodeCache.get(view.name());
    return c != null && c.view() == view ? c.json() : ClusterStateJson.node(view);
  }

  /** Reads the inputs and builds the state; {@code now} dates newly seen register annotations. */
  synchronized ClusterState state(Instant now) {
    List<NodeInfo> ns = nodes.get();
    Map<String, RegisterSeen> seen = new HashMap<>();
    for (NodeInfo n : ns) {
      Map<String, String> a = n.node().getMetadata().getAnnotations();
      String value = a == null ? null : a.get(Annotations.NODE_NVIDIA_REGISTER);
      if (value == null) {
        continue;
      }
      RegisterSeen before = registers.get(n.name());
      seen.put(
          n.name(),
          before != null && before.value().equals(value) ? before : new RegisterSeen(value, now));
    }
    registers.clear();
    registers.putAll(seen);
    List<NodeView> views = new ArrayList<>(ns.size());
    Map<String, CachedNode> cache = new HashMap<>();
    for (NodeInfo n : ns) {
      RegisterSeen r = seen.get(n.name());
      Instant since = r == null ? null : r.since();
      CachedNode c = nodeCache.get(n.name());
      if (c == null || c.info() != n || !Objects.equals(c.registerSeen(), since)) {
        NodeView v = ClusterStateBuilder.node(n, since);
        c = new CachedNode(n, since, v, ClusterStateJson.node(v));
      }
      cache.put(n.name(), c);
      views.add(c.view());
    }
    nodeCache.clear();
    nodeCache.putAll(cache);
    views.sort(Comparator.comparing(NodeView::name));
    List<Pod> waiting = pending.get();
    return new ClusterState(views, ClusterStateBuilder.pending(waiting), policies);
  }

  private static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 8 + 64);
    // The fastest level: a body of 1,000 nodes shrinks some twenty-fold all the same.
    try (GZIPOutputStream z =
        new GZIPOutputStream(out) {
          {
            def.setLevel(Deflater.BEST_SPEED);
          }
        }) {
      z.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static String etag(byte[] bytes) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
      return "\"" + HexFormat.of().formatHex(d, 0, 12) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }
}
