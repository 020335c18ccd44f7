package io.hami.cmd.cluster.kubelet;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;

/**
 * Measures the idle footprint of {@code hami node-agent --fake-gpus 8x...}: the agent runs as its
 * own JVM (-Xmx128m, the limit under test) against an in-process CRUD API server and fake kubelet;
 * after registration and a warm-up, its CPU time is sampled from /proc for the measuring window and
 * its heap is read with jcmd after a full GC. Usage:
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(deps) io.hami.cmd.cluster.kubelet.IdleFootprint [seconds]
 * </pre>
 */
public final class IdleFootprint {
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    Path tmp = Files.createTempDirectory("idle-footprint");
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    NamespacedKubernetesClient client = server.createClient();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("idle-node").endMetadata().build())
        .create();
    Path kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: c, context: {cluster: mock, user: u}}]
        current-context: c
        """
            .formatted(client.getConfiguration().getMasterUrl()),
        StandardCharsets.UTF_8);

    try (FakeKubelet kubelet = FakeKubelet.start(tmp.resolve("dp"), client, "idle-node")) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process agent =
          new ProcessBuilder(
                  List.of(
                      java,
                      "-Xmx128m",
                      "-XX:+UseSerialGC",
                      "-cp",
                      System.getProperty("java.class.path"),
                      AgentMain.class.getName(),
                      "--node-name",
                      "idle-node",
                      "--kubeconfig",
                      kubeconfig.toString(),
                      "--fake-gpus",
                      "8xNVIDIA-H200:143771MiB,numa=0-1",
                      "--kubelet-socket-dir",
                      tmp.resolve("dp").toString(),
                      "--hook-path",
                      tmp.resolve("hook").toString(),
                      "--metrics-address",
                      "127.0.0.1:0"))
              .redirectOutput(tmp.resolve("agent.log").toFile())
              .redirectErrorStream(true)
              .start();
      long pid = agent.pid();
      kubelet.awaitDevices("nvidia.com/gpu", d -> d.size() == 80, Duration.ofSeconds(120));
      Thread.sleep(15_000);
      long ticks0 = cpuTicks(pid);
      long t0 = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      long ticks1 = cpuTicks(pid);
      double wall = (System.nanoTime() - t0) / 1e9;
      double cpuSeconds = (ticks1 - ticks0) / 100.0; // USER_HZ
      run("jcmd", Long.toString(pid), "GC.run");
      String heap = run("jcmd", Long.toString(pid), "GC.heap_info");
      String rss =
          Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
              .filter(l -> l.startsWith("VmRSS"))
              .findFirst()
              .orElse("VmRSS: ?");
      System.out.printf(
          "idle window: %.1f s, agent CPU: %.2f s = %.3f%% of one core%n",
          wall, cpuSeconds, 100 * cpuSeconds / wall);
      System.out.println("heap after full GC (jcmd GC.heap_info):");
      heap.lines()
          .filter(l -> l.contains("total") || l.contains("used"))
          .forEach(l -> System.out.println("  " + l.trim()));
      System.out.println(rss);
      System.out.println("devices seen by kubelet: " + kubelet.devices("nvidia.com/gpu").size());
      agent.destroy();
      agent.waitFor();
    } finally {
      client.close();
      server.destroy();
    }
  }

  private static long cpuTicks(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
  }

  private static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }
}
