package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The yardsticks of a GPU workload that need no GPUs: the same pods with their GPU requests taken
 * out, scheduled by ours ({@code --baseline non-gpu}) and by kube-scheduler ({@code --baseline
 * kube-scheduler}) on the same light nodes. Each phase starts a fresh scheduler process on the
 * cluster the GPU phase started from (none of the run's pods left), warms it up with the workload's
 * warm-up pods, also without GPUs, measures the pods, stops the scheduler and deletes every pod,
 * waiting until they are gone.
 */
final class NonGpuRun {
  /** The report's row of our scheduler on the pods without GPUs. */
  static final String OURS = "hami-scheduler, no GPUs";

  /** The report's row of kube-scheduler on the pods without GPUs. */
  static final String KUBE = "kube-scheduler, no GPUs";

  private final ClusterBench.Options o;
  private final Harness h;
  private final Path kubeconfig;
  private final Path work;
  private final List<Workload.Shape> warmup;
  private final List<Workload.Shape> measured;
  private final Map<String, String> env;

  /**
   * @param warmup the shapes of the warm-up pods, as the GPU phase drew them
   * @param measured the shapes of the measured pods, as the GPU phase drew them
   * @param env the report's environment, which gets each phase's warm-up pods
   */
  NonGpuRun(
      ClusterBench.Options o,
      Harness h,
      Path kubeconfig,
      Path work,
      List<Workload.Shape> warmup,
      List<Workload.Shape> measured,
      Map<String, String> env) {
    this.o = o;
    this.h = h;
    this.kubeconfig = kubeconfig;
    this.work = work;
    this.warmup = warmup;
    this.measured = measured;
    this.env = env;
  }

  /** Our scheduler, with the shipped profile as in the GPU phase, on the pods without GPUs. */
  BenchReport.Phase ours() throws Exception {
    Workload w = h.workload();
    return phase(
        OURS,
        BenchPods.SCHEDULER_NAME,
        "non-gpu",
        () ->
            SchedulerProcess.start(
                o.jar(),
                kubeconfig,
                o.root().resolve("config/scheduler/scheduler-config.yaml"),
                w.scheduler(),
                work.resolve("logs/hami-scheduler-non-gpu.log"),
                ClusterBench.STARTUP));
  }

  /** kube-scheduler's default profile on the pods without GPUs. */
  BenchReport.Phase kubeScheduler(Path binary) throws Exception {
    return phase(
        KUBE,
        KubeSchedulerProcess.SCHEDULER_NAME,
        "kube-scheduler",
        () ->
            KubeSchedulerProcess.start(
                binary,
                kubeconfig,
                h.workload().scheduler(),
                work.resolve("logs"),
                ClusterBench.STARTUP));
  }

  private BenchReport.Phase phase(
      String name, String schedulerName, String group, ClusterBench.Starter starter)
      throws Exception {
    String ns = ClusterBench.NAMESPACE;
    String warmGroup = group + "-warmup";
    ProcessPhase phase = new ProcessPhase(h, name, ns, schedulerName, o.backlog());
    h.say("starting %s", name);
    try (ScrapedProcess scheduler = starter.start()) {
      IntFunction<Pod> warmPods =
          i ->
              BenchPods.withoutGpus(
                  ns, warmGroup + "-" + i, warmGroup, warmup.get(i), schedulerName);
      int warmed = phase.warmUpForMeasure(scheduler, warmGroup, warmup.size(), warmPods);
      env.put("warmupPods." + group, Integer.toString(warmed));
      BenchReport.Phase p =
          phase.measure(
              scheduler,
              group,
              measured.size(),
              i ->
                  BenchPods.withoutGpus(
                      ns, group + "-" + i, group, measured.get(i), schedulerName));
      if (!scheduler.isAlive()) {
        h.error(name + " exited during the run; log " + scheduler.log());
      }
      return p;
    } finally {
      h.deletePods(ns, null);
    }
  }
}
