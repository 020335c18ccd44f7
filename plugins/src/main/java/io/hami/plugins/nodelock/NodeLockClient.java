package io.hami.plugins.nodelock;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.PatchTargets;
import io.hami.kube.WriteRetry;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Takes and releases {@code hami.io/mutex.lock} on the API server. Every write is a JSON merge
 * patch carrying the resourceVersion that was read, so two schedulers (or a scheduler and a node
 * agent) that race for the same node can never both believe they hold it: the loser gets a 409 and
 * reads again. Thread-safe; blocks on the API.
 */
public final class NodeLockClient {

  /** The outcome of an attempt to take the lock. */
  public sealed interface Result {
    /** The lock is ours; {@code broken} says whose stale lock was replaced, if any. */
    record Acquired(LockDecision.@Nullable Stale broken) implements Result {}

    /** Someone who still needs it holds the lock. */
    record Held(String holder, String since) implements Result {}

    /** The node does not exist. */
    record NodeGone() implements Result {}
  }

  private final KubernetesClient client;
  private final LockArbiter arbiter;
  private final InstantSource clock;
  private final ZoneId zone;
  private final int attempts;

  public NodeLockClient(
      KubernetesClient client,
      LockArbiter arbiter,
      InstantSource clock,
      ZoneId zone,
      int attempts) {
    this.client = requireNonNull(client, "client");
    this.arbiter = requireNonNull(arbiter, "arbiter");
    this.clock = requireNonNull(clock, "clock");
    this.zone = requireNonNull(zone, "zone");
    this.attempts = attempts;
  }

  /**
   * Takes the lock on {@code node} for pod {@code namespace/name}, replacing a stale one.
   *
   * @throws KubernetesClientException when the API fails for another reason than a conflict, or the
   *     conflicts outlast the attempts
   */
  public Result acquire(String node, String namespace, String name) {
    return acquire(node, namespace, name, null);
  }

  /**
   * As {@link #acquire(String, String, String)}, trying first with {@code seen}, the node as the
   * scheduler's informer last saw it, when it shows no lock: the patch then needs no read, and a
   * node changed since fails it with a conflict, after which the node is read as usual. A lock seen
   * there is never trusted (it may be gone by now); the node is read instead.
   */
  public Result acquire(String node, String namespace, String name, @Nullable Node seen) {
    if (seen != null
        && seen.getMetadata().getResourceVersion() != null
        && !annotations(seen).containsKey(Annotations.MUTEX_LOCK)) {
      String lock =
          NodeLock.of(clock.instant().atZone(zone).toOffsetDateTime(), namespace, name).encode();
      try {
        patchLock(seen, lock);
        return new Result.Acquired(null);
      } catch (KubernetesClientException e) {
        if (landed(node, namespace, name, e)) {
          return new Result.Acquired(null);
        }
        if (e.getCode() != 409 && e.getCode() != 404) {
          throw e;
        }
      }
    }
    KubernetesClientException last = null;
    for (int i = 0; i < attempts; i++) {
      Node n = client.nodes().withName(node).get();
      if (n == null) {
        return new Result.NodeGone();
      }
      String value = annotations(n).get(Annotations.MUTEX_LOCK);
      LockDecision d =
          arbiter.decide(
              value, namespace, name, clock.instant(), (ns, pod) -> holderState(ns, pod, node));
      if (d instanceof LockDecision.Held h) {
        return new Result.Held(h.holder(), h.since());
      }
      if (d instanceof LockDecision.Mine) {
        return new Result.Acquired(null);
      }
      String lock =
          NodeLock.of(clock.instant().atZone(zone).toOffsetDateTime(), namespace, name).encode();
      LockDecision.Stale broken = d instanceof LockDecision.Stale s ? s : null;
      try {
        patchLock(n, lock);
        return new Result.Acquired(broken);
      } catch (KubernetesClientException e) {
        if (landed(node, namespace, name, e)) {
          return new Result.Acquired(broken);
        }
        if (e.getCode() != 409) {
          throw e;
        }
        last = e;
      }
    }
    throw requireNonNull(last);
  }

  /**
   * Removes the lock if pod {@code namespace/name} holds it (a legacy time-only lock counts as
   * anyone's, as in the protocol). Returns whether the pod held the lock and no longer does: a
   * removal that conflicted or got no clear answer is read back, and when the lock is then gone (or
   * another pod's), the removal, ours with its answer lost or a concurrent one, landed.
   *
   * @throws KubernetesClientException when the API refuses the removal for another reason than a
   *     conflict, or the last attempt got no clear answer
   */
  public boolean release(String node, String namespace, String name) {
    KubernetesClientException unknown = null;
    boolean tried = false;
    for (int i = 0; i < attempts; i++) {
      Node n = client.nodes().withName(node).get();
      if (n == null) {
        return false;
      }
      String value = annotations(n).get(Annotations.MUTEX_LOCK);
      if (value == null || !NodeLock.releasableBy(value, namespace, name)) {
        return tried;
      }
      tried = true;
      try {
        patchLock(n, null);
        return true;
      } catch (KubernetesClientException e) {
        if (WriteRetry.outcomeUnknown(e)) {
          unknown = e;
        } else if (e.getCode() != 409) {
          throw e;
        } else {
          unknown = null;
        }
      }
    }
    if (unknown != null) {
      throw unknown;
    }
    return false;
  }

  /**
   * Whether a lock write that got no clear answer (none at all, or a 5xx, once the client's own
   * retries are spent) was applied: the server may have written it and lost only the answer. The
   * node is read once; when it carries this pod's lock, the lock is ours, and failing the PreBind
   * would leave it held by a pod that goes elsewhere. A conflict or any other 4xx is a refusal, and
   * a failed read counts as not applied (the read's failure is added to {@code e}).
   */
  private boolean landed(String node, String namespace, String name, KubernetesClientException e) {
    if (!WriteRetry.outcomeUnknown(e)) {
      return false;
    }
    try {
      Node n = client.nodes().withName(node).get();
      String value = n == null ? null : annotations(n).get(Annotations.MUTEX_LOCK);
      return value != null
          && NodeLock.decode(value).map(l -> l.isHeldBy(namespace, name)).orElse(false);
    } catch (KubernetesClientException read) {
      e.addSuppressed(read);
      return false;
    }
  }

  private HolderState holderState(String namespace, String name, String node) {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    return HolderState.of(pod, node, Annotations.BIND_PHASE);
  }

  private void patchLock(Node node, @Nullable String value) {
    String patch =
        AnnotationPatch.of(Annotations.MUTEX_LOCK, value, node.getMetadata().getResourceVersion());
    client
        .nodes()
        .resource(PatchTargets.node(node.getMetadata().getName()))
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private static Map<String, String> annotations(Node n) {
    Map<String, String> a = n.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
