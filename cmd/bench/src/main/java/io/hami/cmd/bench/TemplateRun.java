package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * A scheduler_perf workload ({@code pods.template}): its objects once, then per phase (ours, then
 * kube-scheduler, or the other way round with {@code --kube-scheduler-first}) the init pods created
 * already bound, the scheduler started and warmed up until its CPU per pod settles, the measured
 * pods created at the workload's rate and measured, the scheduler stopped and every pod deleted, so
 * that each phase starts from the same cluster.
 */
final class TemplateRun {
  private final ClusterBench.Options o;
  private final Harness h;
  private final Workload w;
  private final PerfWorkload template;
  private final Path kubeconfig;
  private final Path work;
  private final Map<String, String> env;
  private final List<String> nodes = new ArrayList<>();

  TemplateRun(
      ClusterBench.Options o,
      Harness h,
      PerfWorkload template,
      Path kubeconfig,
      Path work,
      Map<String, String> env) {
    this.o = o;
    this.h = h;
    this.w = h.workload();
    this.template = template;
    this.kubeconfig = kubeconfig;
    this.work = work;
    this.env = env;
    for (int i = 0; i < w.nodes().count(); i++) {
      nodes.add(LightNodes.nodeName(i));
    }
  }

  BenchReport run() throws Exception {
    env.put("template", template.flag());
    env.put("initPods", Integer.toString(w.pods().init()));
    List<HasMetadata> objects = template.objects(nodes, w.pods().init(), w.pods().count());
    KubernetesClient admin = h.admin();
    try {
      createObjects(objects);
      Path binary = o.baselines().kubeScheduler();
      BenchReport.Phase kube = null;
      if (binary != null && o.kubeSchedulerFirst()) {
        env.put("order", "kube-scheduler first");
        kube = kubePhase(binary);
      }
      BenchReport.Phase ours =
          phase(
              "hami-scheduler",
              BenchPods.SCHEDULER_NAME,
              () ->
                  SchedulerProcess.start(
                      o.jar(),
                      kubeconfig,
                      o.root().resolve("config/scheduler/scheduler-config.yaml"),
                      w.scheduler(),
                      work.resolve("logs/hami-scheduler.log"),
                      ClusterBench.STARTUP));
      if (binary != null && !o.kubeSchedulerFirst()) {
        kube = kubePhase(binary);
      }
      int unbound =
          ours.created() - ours.bound() + (kube == null ? 0 : kube.created() - kube.bound());
      return BenchReport.of(
          w,
          env,
          new BenchReport.Phases(ours, null, kube, null),
          new BenchReport.Checks(List.of(), unbound, 0, 0, h.errors()));
    } finally {
      if (o.kubeconfig() != null) {
        // A cluster we did not start is left as we found it.
        deleteTemplatePods();
        for (HasMetadata obj : objects) {
          try {
            admin.resource(obj).withGracePeriod(0).delete();
          } catch (KubernetesClientException e) {
            // already gone, or the namespace took it
          }
        }
      }
    }
  }

  /** Creates the workload's namespaces (with a default service account), volumes and CSINodes. */
  private void createObjects(List<HasMetadata> objects) throws Exception {
    h.say("creating %d objects of %s", objects.size(), template.flag());
    List<HasMetadata> first = new ArrayList<>();
    List<HasMetadata> rest = new ArrayList<>();
    for (HasMetadata obj : objects) {
      (obj instanceof Namespace ? first : rest).add(obj);
    }
    for (HasMetadata ns : first) {
      createIfAbsent(ns);
      createIfAbsent(
          new ServiceAccountBuilder()
              .withNewMetadata()
              .withName("default")
              .withNamespace(ns.getMetadata().getName())
              .endMetadata()
              .build());
    }
    parallel(rest.size(), i -> createWithStatus(rest.get(i)));
  }

  private void createIfAbsent(HasMetadata obj) {
    try {
      h.admin().resource(obj).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  /**
   * Creates an object and, for volumes and claims, writes the status the volume controller would.
   */
  private void createWithStatus(HasMetadata obj) {
    KubernetesClient admin = h.admin();
    try {
      HasMetadata created = admin.resource(obj).create();
      if (obj instanceof PersistentVolume pv && created instanceof PersistentVolume c) {
        c.setStatus(pv.getStatus());
        admin.persistentVolumes().resource(c).updateStatus();
      } else if (obj instanceof PersistentVolumeClaim pvc
          && created instanceof PersistentVolumeClaim c) {
        c.setStatus(pvc.getStatus());
        admin.persistentVolumeClaims().resource(c).updateStatus();
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  /** Runs {@code task(0..n-1)} on the workload's creating clients. */
  private void parallel(int n, IntConsumer task) throws Exception {
    ExecutorService pool =
        Executors.newFixedThreadPool(w.pods().clients(), Daemons.named("bench-objects"));
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        futures.add(pool.submit(() -> task.accept(k)));
      }
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static Pod labeled(Pod pod, String group) {
    if (pod.getMetadata().getLabels() == null) {
      pod.getMetadata().setLabels(new LinkedHashMap<>());
    }
    pod.getMetadata().getLabels().put(BenchPods.GROUP_LABEL, group);
    return pod;
  }

  private BenchReport.Phase kubePhase(Path binary) throws Exception {
    env.put("kubeScheduler", binary.toString());
    return phase(
        "kube-scheduler",
        KubeSchedulerProcess.SCHEDULER_NAME,
        () ->
            KubeSchedulerProcess.start(
                binary, kubeconfig, w.scheduler(), work.resolve("logs"), ClusterBench.STARTUP));
  }

  private BenchReport.Phase phase(String name, String schedulerName, ClusterBench.Starter starter)
      throws Exception {
    int init = w.pods().init();
    h.say("%s: creating %d init pods bound round-robin to the nodes", name, init);
    parallel(
        init,
        i -> {
          Pod pod = labeled(template.initPod(i, schedulerName), "init");
          pod.getSpec().setNodeName(nodes.get(i % nodes.size()));
          h.admin().pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
        });
    h.say("starting %s", name);
    ProcessPhase phase =
        new ProcessPhase(h, name, PerfWorkload.NS_MEASURED, schedulerName, o.backlog());
    try (ScrapedProcess scheduler = starter.start()) {
      int warmed =
          phase.warmUpUntilSteady(
              scheduler,
              "warmup",
              w.pods().warmup(),
              i -> labeled(template.measuredPod(i, schedulerName), "warmup"));
      env.put("warmupPods." + name, Integer.toString(warmed));
      String group = scheduler instanceof KubeSchedulerProcess ? "kube-scheduler" : "hami";
      BenchReport.Phase p =
          phase.measure(
              scheduler,
              group,
              w.pods().count(),
              i -> labeled(template.measuredPod(i, schedulerName), group));
      if (!scheduler.isAlive()) {
        h.error(name + " exited during the run; log " + scheduler.log());
      }
      return p;
    } finally {
      deleteTemplatePods();
    }
  }

  /** Deletes the init and measured pods and waits until they are gone. */
  private void deleteTemplatePods() {
    for (String ns : List.of(PerfWorkload.NS_INIT, PerfWorkload.NS_MEASURED)) {
      h.admin().pods().inNamespace(ns).withGracePeriod(0).delete();
    }
    h.deletePods(PerfWorkload.NS_INIT, null);
    h.deletePods(PerfWorkload.NS_MEASURED, null);
  }
}
