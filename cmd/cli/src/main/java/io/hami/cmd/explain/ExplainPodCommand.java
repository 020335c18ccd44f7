package io.hami.cmd.explain;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.kube.KubeClients;
import io.hami.kube.cli.ClusterOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hami explain pod NS/NAME}: where the pod went and why, or why it waits. Exit codes: 0 when
 * the pod was explained, 1 when it does not exist or the API cannot be read, 2 for a bad flag.
 */
@Command(
    name = "pod",
    mixinStandardHelpOptions = true,
    description = {
      "Explains where a pod went and why, or why it waits.",
      "Shows per-reason node counts of the last attempt, the node lock blocking it, the devices",
      "chosen, the policies used, the bind phase and the Events.",
      "Reads only the API (the pod, its Events, the nodes it names and the pods holding their locks)."
    })
public final class ExplainPodCommand implements Callable<Integer> {
  static final int EXIT_NOT_FOUND = 1;
  static final int EXIT_USAGE = 2;

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "NS/NAME",
      description = "The pod, as namespace/name or name (see -n).")
  String target = "";

  @Option(
      names = {"-n", "--namespace"},
      description =
          "Namespace when NS/NAME gives only a name; default: the kubeconfig's, else default.")
  @Nullable String namespace;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  String output = "text";

  InstantSource clock = InstantSource.system();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!output.equals("text") && !output.equals("json")) {
      return usage(err, "-o: invalid value \"" + output + "\": want text or json");
    }
    String ns = null;
    String name = target;
    int slash = target.indexOf('/');
    if (slash >= 0) {
      ns = target.substring(0, slash);
      name = target.substring(slash + 1);
      if (ns.isEmpty() || name.isEmpty() || name.contains("/")) {
        return usage(err, "NS/NAME: invalid value \"" + target + "\": want namespace/name");
      }
      if (namespace != null && !namespace.equals(ns)) {
        return usage(err, "-n " + namespace + " contradicts the namespace in \"" + target + "\"");
      }
    } else if (name.isEmpty()) {
      return usage(err, "NS/NAME: must not be empty");
    }
    String clusterProblem = cluster.problem();
    if (clusterProblem != null) {
      return usage(err, clusterProblem);
    }
    Config config;
    try {
      config = cluster.config();
    } catch (IOException | RuntimeException e) {
      return usage(err, "--kubeconfig: " + e.getMessage());
    }
    if (ns == null) {
      ns =
          namespace != null
              ? namespace
              : config.getNamespace() != null ? config.getNamespace() : "default";
    }
    try (KubernetesClient client = KubeClients.builder(config).build()) {
      Optional<PodFacts> facts = new FactsReader(client).read(ns, name);
      if (facts.isEmpty()) {
        err.println("pod " + ns + "/" + name + " not found");
        err.flush();
        return EXIT_NOT_FOUND;
      }
      Instant now = clock.instant();
      Explanation e = Explainer.explain(facts.get(), now);
      out.print(output.equals("json") ? JsonReport.render(e) : TextReport.render(e, now));
      out.flush();
      return 0;
    } catch (KubernetesClientException | IllegalArgumentException e) {
      err.println("reading pod " + ns + "/" + name + " failed: " + e.getMessage());
      err.flush();
      return EXIT_NOT_FOUND;
    }
  }

  private static int usage(PrintWriter err, String message) {
    err.println(message);
    err.flush();
    return EXIT_USAGE;
  }
}
