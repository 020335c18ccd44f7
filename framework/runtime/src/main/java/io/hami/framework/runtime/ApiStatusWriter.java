package io.hami.framework.runtime;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.bind.ApiRequestObserver;
import io.hami.kube.PatchTargets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code PodScheduled=False} through a strategic merge patch of the pod's status
 * subresource, as kube-scheduler does: {@code status.conditions} merges by {@code type}, so the
 * patch names only {@code PodScheduled} and leaves every other condition as the API server has it
 * (a condition another writer set after our copy of the pod was read survives), and it needs no
 * read. The transition time changes only when the condition's status does. The annotations the
 * attempt observers ask for ride in the same patch: the pods/status strategy keeps metadata changes
 * other than ownerReferences and deletionTimestamp, so they cost no request of their own. Runs on
 * its own executor, one waiting write per pod (a newer patch merges into the waiting one); when the
 * executor's queue is full the write is dropped. A write refused with 409 Conflict is tried again
 * against the pod as re-read (at most {@link #CONFLICT_ATTEMPTS} in all), unless the re-read finds
 * it bound or gone. Any other write that is dropped or that the API does not take is not retried
 * here: its stage completes with false, and the pod's next failure writes it.
 */
public final class ApiStatusWriter implements StatusWriter {
  private static final Logger log = LoggerFactory.getLogger(ApiStatusWriter.class);

  /** Writes of one patch when the API answers each with 409 Conflict. */
  static final int CONFLICT_ATTEMPTS = 3;

  /** What {@link #send} answers when the API took the patch. */
  private static final int TAKEN = 200;

  private final KubernetesClient client;
  private final ExecutorService executor;
  private final InstantSource clock;
  private final ApiRateLimiter limiter;
  private final ApiRequestObserver observer;

  /**
   * Whether the API server takes strategic merge patches (every real one does for pods; fabric8's
   * CRUD mock does not, and answers 415).
   */
  private volatile boolean strategicMerge = true;

  /** Patches not yet sent, by pod uid; at most one per pod. */
  @GuardedBy("waiting")
  private final Map<String, Waiting> waiting = new HashMap<>();

  /** Told of a pod the API no longer has (a write answered 404), so it is not tried again. */
  private volatile Consumer<Pod> onGone = p -> {};

  public ApiStatusWriter(
      KubernetesClient client,
      ExecutorService executor,
      InstantSource clock,
      ApiRateLimiter limiter,
      ApiRequestObserver observer) {
    this.client = client;
    this.executor = executor;
    this.clock = clock;
    this.limiter = limiter;
    this.observer = observer;
  }

  /** Sets what to do with a pod whose write found it gone; called once, before the first write. */
  public void onPodGone(Consumer<Pod> action) {
    this.onGone = action;
  }

  @Override
  public void podUnschedulable(Pod pod, String reason, String message) {
    podUnschedulable(pod, reason, message, Map.of());
  }

  @Override
  public void podUnschedulable(
      Pod pod, String reason, String message, Map<String, String> annotations) {
    var unused = podUnschedulable(pod, reason, message, annotations, null);
  }

  @Override
  public void nominatedNodeName(Pod pod, String nodeName) {
    Map<String, Object> status = new HashMap<>();
    // A strategic merge patch, as a merge patch, removes a field set to null.
    status.put("nominatedNodeName", nodeName.isEmpty() ? null : nodeName);
    Map<String, Object> patch = Map.of("status", status);
    var unused = submit(pod, patch, patch);
  }

  @Override
  public CompletionStage<Boolean> podUnschedulable(
      Pod pod,
      String reason,
      String message,
      Map<String, String> annotations,
      @Nullable String nominatedNodeName) {
    Map<String, Object> condition =
        Map.of(
            "type",
            "PodScheduled",
            "status",
            "False",
            "reason",
            reason,
            "message",
            message,
            "lastTransitionTime",
            since(pod));
    // Only this condition: the strategic merge keys the list by type.
    Map<String, Object> strategic = body(List.of(condition), annotations, nominatedNodeName);
    // For an API server that refuses strategic merge patches: a merge patch replaces the list, so
    // it carries the pod's other conditions as we saw them.
    Map<String, Object> merge = body(withOthers(pod, condition), annotations, nominatedNodeName);
    return submit(pod, strategic, merge);
  }

  /** The PodScheduled=False transition time: kept while the pod's condition already says False. */
  private String since(Pod pod) {
    PodCondition current = podScheduled(pod);
    if (current != null
        && "False".equals(current.getStatus())
        && current.getLastTransitionTime() != null) {
      return current.getLastTransitionTime();
    }
    return clock.instant().toString();
  }

  /** The pod's conditions other than PodScheduled, then {@code condition}. */
  private static List<Object> withOthers(Pod pod, Map<String, Object> condition) {
    List<Object> all = new ArrayList<>();
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if (!"PodScheduled".equals(c.getType())) {
          all.add(c);
        }
      }
    }
    all.add(condition);
    return all;
  }

  private static Map<String, Object> body(
      List<Object> conditions,
      Map<String, String> annotations,
      @Nullable String nominatedNodeName) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (!annotations.isEmpty()) {
      body.put("metadata", Map.of("annotations", annotations));
    }
    Map<String, Object> status = new HashMap<>();
    status.put("conditions", conditions);
    if (nominatedNodeName != null) {
      // A strategic merge patch, as a merge patch, removes a field set to null.
      status.put("nominatedNodeName", nominatedNodeName.isEmpty() ? null : nominatedNodeName);
    }
    body.put("status", status);
    return body;
  }

  private void patch(Pod pod, String strategic, String merge) {
    var status = client.pods().resource(PatchTargets.pod(pod)).subresource("status");
    if (strategicMerge) {
      try {
        status.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), strategic);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 415) {
          throw e;
        }
        log.warn("the API server refuses strategic merge patches; writing merge patches instead");
        strategicMerge = false;
      }
    }
    status.patch(PatchContext.of(PatchType.JSON_MERGE), merge);
  }

  private static @Nullable PodCondition podScheduled(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("PodScheduled".equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  /**
   * Queues a patch of the pod's status. A patch for a pod that already has one waiting is merged
   * into it (both patch kinds compose field by field, the later one winning, and the condition
   * lists hold PodScheduled alone or the whole list as last seen), so the queue holds at most one
   * write per pod: when pods fail faster than the API takes writes (pods retried at every event
   * under churn), the writes of other pods are delayed by one write per pod, not by every failure
   * since.
   *
   * @param merge the same change as a JSON merge patch, for an API server that refuses strategic
   *     merge patches
   * @return completes with whether the write (this patch merged with any waiting one) reached the
   *     API
   */
  private CompletionStage<Boolean> submit(
      Pod pod, Map<String, Object> strategic, Map<String, Object> merge) {
    String uid = pod.getMetadata().getUid();
    Waiting queued;
    synchronized (waiting) {
      Waiting w = waiting.get(uid);
      if (w != null) {
        w.pod = pod;
        w.strategic = merge(w.strategic, strategic);
        w.merge = merge(w.merge, merge);
        return w.written;
      }
      queued = new Waiting(pod, strategic, merge);
      waiting.put(uid, queued);
    }
    try {
      executor.execute(() -> write(uid));
    } catch (RejectedExecutionException e) {
      synchronized (waiting) {
        waiting.remove(uid);
      }
      queued.written.complete(false);
      log.warn(
          "status writer queue full; dropping condition update pod={}/{}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName());
    }
    return queued.written;
  }

  /** A pod's merged patches, waiting for the writer thread. */
  private static final class Waiting {
    Pod pod;
    Map<String, Object> strategic;
    Map<String, Object> merge;

    /** Completed by the writer thread: whether the API took the patch. */
    final CompletableFuture<Boolean> written = new CompletableFuture<>();

    Waiting(Pod pod, Map<String, Object> strategic, Map<String, Object> merge) {
      this.pod = pod;
      this.strategic = strategic;
      this.merge = merge;
    }
  }

  /** {@code later} merged over {@code earlier}, as applying both patches in turn would. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> merge(Map<String, Object> earlier, Map<String, Object> later) {
    Map<String, Object> out = new LinkedHashMap<>(earlier);
    for (Map.Entry<String, Object> e : later.entrySet()) {
      Object before = out.get(e.getKey());
      if (before instanceof Map<?, ?> b && e.getValue() instanceof Map<?, ?> a) {
        out.put(e.getKey(), merge((Map<String, Object>) b, (Map<String, Object>) a));
      } else {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  private void write(String uid) {
    Waiting w;
    synchronized (waiting) {
      w = waiting.remove(uid);
    }
    if (w == null) {
      return;
    }
    boolean ok = false;
    try {
      ok = sendRetryingConflicts(w);
    } finally {
      w.written.complete(ok);
    }
  }

  /**
   * Sends the patch; after a 409 Conflict re-reads the pod and, while it is still pending, sends
   * the patch again against what the server holds: its transition time and, for the merge patch,
   * its other conditions.
   */
  private boolean sendRetryingConflicts(Waiting w) {
    Pod pod = w.pod;
    Map<String, Object> strategic = w.strategic;
    Map<String, Object> merge = w.merge;
    for (int attempt = 1; ; attempt++) {
      int code = send(pod, strategic, merge);
      if (code == TAKEN) {
        return true;
      }
      if (code != 409 || attempt >= CONFLICT_ATTEMPTS) {
        return false;
      }
      Pod now = reread(pod);
      if (now == null) {
        return false;
      }
      if (now.getSpec() != null && now.getSpec().getNodeName() != null) {
        log.debug(
            "pod {}/{} was bound meanwhile; not writing PodScheduled=False",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName());
        return false;
      }
      Map<String, Object> condition = podScheduledOf(strategic);
      if (condition != null) {
        Map<String, Object> c = new LinkedHashMap<>(condition);
        c.put("lastTransitionTime", since(now));
        strategic = merge(strategic, Map.of("status", Map.of("conditions", List.of(c))));
        merge = merge(merge, Map.of("status", Map.of("conditions", withOthers(now, c))));
      }
      pod = now;
    }
  }

  /**
   * The pod as the API has it now; null when the re-read fails, or when the API has it no more
   * (then the pod is reported gone).
   */
  private @Nullable Pod reread(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      limiter.acquire();
      Pod now = client.pods().inNamespace(ns).withName(name).get();
      observer.request("get", "pods", now == null ? "404" : "ok");
      if (now == null || !pod.getMetadata().getUid().equals(now.getMetadata().getUid())) {
        // Deleted, or deleted and made again under the same name: this pod is gone.
        log.info("pod {}/{} is gone; dropping it from the queue", ns, name);
        onGone.accept(pod);
        return null;
      }
      return now;
    } catch (KubernetesClientException e) {
      observer.request("get", "pods", String.valueOf(e.getCode()));
      log.warn("re-reading pod {}/{} after a conflict failed: {}", ns, name, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      observer.request("get", "pods", "error");
      log.warn("re-reading pod {}/{} after a conflict failed: {}", ns, name, e.toString());
    }
    return null;
  }

  /** The PodScheduled condition a patch writes, if it writes one (the only one, or the last). */
  @SuppressWarnings("unchecked")
  private static @Nullable Map<String, Object> podScheduledOf(Map<String, Object> patch) {
    if (patch.get("status") instanceof Map<?, ?> status
        && status.get("conditions") instanceof List<?> conditions
        && !conditions.isEmpty()
        && conditions.get(conditions.size() - 1) instanceof Map<?, ?> c) {
      return (Map<String, Object>) c;
    }
    return null;
  }

  /**
   * Sends one pod's patch: {@link #TAKEN} when the API took it, else the HTTP code of the refusal
   * (-1 when there is none).
   */
  private int send(Pod pod, Map<String, Object> strategic, Map<String, Object> merge) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      limiter.acquire();
      patch(pod, Serialization.asJson(strategic), Serialization.asJson(merge));
      observer.request("patch", "pods/status", "ok");
      return TAKEN;
    } catch (KubernetesClientException e) {
      observer.request("patch", "pods/status", String.valueOf(e.getCode()));
      if (e.getCode() == 404) {
        // Gone from the API: the delete event may lag or be lost; stop scheduling it.
        log.info("pod {}/{} is gone; dropping it from the queue", ns, name);
        onGone.accept(pod);
        return 404;
      }
      log.warn("writing PodScheduled failed pod={}/{}: {}", ns, name, e.getMessage());
      return e.getCode() == TAKEN ? -1 : e.getCode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // A closed client (the scheduler stopping) or anything else: this write is lost,
      // the next attempt writes the condition again; the writer thread lives on.
      observer.request("patch", "pods/status", "error");
      log.warn("writing PodScheduled failed pod={}/{}: {}", ns, name, e.toString());
    }
    return -1;
  }
}
