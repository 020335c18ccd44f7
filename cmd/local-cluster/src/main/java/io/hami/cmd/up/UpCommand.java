package io.hami.cmd.up;

import io.hami.cmd.cluster.Orphans;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami up}: a local playground. Exit codes: 0 after Ctrl-C or SIGTERM (everything stopped
 * and removed), 2 for a bad flag or no checkout found, 1 when the playground fails to start, 130
 * when stopped during start-up.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
      "Start a local playground: a real etcd and kube-apiserver, fake GPU nodes (node agent over"
          + " fake GPUs, fake kubelet), the hami-scheduler (unless --without-scheduler) and the"
          + " admission webhook, in this process.",
      "Prints the kubeconfig and commands to try the samples; runs until Ctrl-C or SIGTERM, then"
          + " stops everything and removes its files."
    })
public final class UpCommand implements Callable<Integer> {
  public static final int EXIT_OK = 0;
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_STOPPED_DURING_START = 130;

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = "--nodes",
      defaultValue = "2",
      description = "Fake GPU nodes (default: ${DEFAULT-VALUE}).")
  int nodes = 2;

  @Option(
      names = "--gpus-per-node",
      defaultValue = "8",
      description =
          "GPUs on each node, half on each of two NUMA nodes (default: ${DEFAULT-VALUE}).")
  int gpusPerNode = 8;

  @Option(
      names = "--gpu-memory",
      defaultValue = "81920",
      paramLabel = "MIB",
      description = "Memory of each GPU in MiB (default: ${DEFAULT-VALUE}).")
  long gpuMemoryMiB = 81920;

  @Option(
      names = "--gpu-model",
      defaultValue = "NVIDIA A100-SXM4-80GB",
      description = "Name the fake GPUs report (default: ${DEFAULT-VALUE}).")
  String gpuModel = "NVIDIA A100-SXM4-80GB";

  @Option(
      names = "--split-count",
      defaultValue = "10",
      description = "vGPUs per GPU: how many containers may share one (default: ${DEFAULT-VALUE}).")
  int splitCount = 10;

  @Option(
      names = "--without-scheduler",
      description =
          "Start everything but the hami-scheduler, to try another scheduler (HAMi's, kube-scheduler"
              + " with an extender) against the node agents: the webhook still gives GPU pods the"
              + " profile's schedulerName, and they stay Pending until a scheduler of that name runs.")
  boolean withoutScheduler;

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description =
          "New or empty directory for the cluster's files, removed on exit"
              + " (default: a new directory under ${sys:java.io.tmpdir}/hami-up).")
  @Nullable Path workDir;

  @Override
  public Integer call() {
    PrintWriter out = spec().commandLine().getOut();
    PrintWriter err = spec().commandLine().getErr();
    List<String> problems = new ArrayList<>();
    Path dir = workDir != null ? workDir : defaultWorkDir();
    problems.addAll(
        PlaygroundSpec.problems(nodes, gpusPerNode, gpuMemoryMiB, gpuModel, splitCount, dir));
    HamiHome home = null;
    try {
      home = HamiHome.locate();
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (!problems.isEmpty() || home == null) {
      problems.forEach(p -> err.println("hami up: " + p));
      err.flush();
      return EXIT_USAGE;
    }
    PlaygroundSpec playground =
        new PlaygroundSpec(nodes, gpusPerNode, gpuMemoryMiB, gpuModel, splitCount, dir);

    CountDownLatch stop = new CountDownLatch(1);
    AtomicReference<@Nullable Thread> starting = new AtomicReference<>(Thread.currentThread());
    StopSignals.install(
        () -> {
          stop.countDown();
          Thread t = starting.get();
          if (t != null) {
            t.interrupt();
          }
        });
    Playground running;
    try {
      running =
          Playground.start(
              playground,
              home,
              !withoutScheduler,
              line -> {
                out.println("hami up: " + line);
                out.flush();
              });
    } catch (Exception e) {
      starting.set(null);
      Thread.interrupted();
      boolean stopped = stop.getCount() == 0;
      err.println(
          "hami up: "
              + (stopped ? "stopped during start-up" : "failed to start")
              + ": "
              + e.getMessage());
      err.println("hami up: everything started was stopped and " + dir + " removed");
      err.flush();
      return stopped ? EXIT_STOPPED_DURING_START : EXIT_RUNTIME;
    }
    starting.set(null);
    Thread.interrupted();
    try (Playground p = running) {
      Path logs = LogFile.redirectTo(dir.resolve("hami-up.log")).orElse(null);
      out.print(
          Instructions.render(
              p.controlPlane().server(),
              p.kubeconfig(),
              dir,
              logs,
              playground,
              p.schedulerName(),
              p.schedulerRunning(),
              p.clusterViewUrl().orElse(null),
              home.samples()));
      out.flush();
      stop.await();
      out.println("hami up: stopping");
      out.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.println("hami up: stopped; " + dir + " removed");
    out.flush();
    return EXIT_OK;
  }

  /**
   * A new directory under {@code <tmp>/hami-up}, named so that a later run can reap it if this one
   * is killed.
   */
  static Path defaultWorkDir() {
    Path root = Path.of(System.getProperty("java.io.tmpdir"), "hami-up");
    try {
      Orphans.reap(root);
    } catch (RuntimeException e) {
      // Reaping is a courtesy; a failure must not stop the playground.
    }
    return root.resolve(
        Long.toString(System.currentTimeMillis(), 36) + "-" + ProcessHandle.current().pid());
  }

  private CommandSpec spec() {
    if (spec == null) {
      throw new IllegalStateException("picocli did not inject the command spec");
    }
    return spec;
  }
}
