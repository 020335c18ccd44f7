package io.hami.kube.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.KubeClients;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The {@code --kubeconfig} option of every command that talks to a cluster, as a picocli
 * {@code @Mixin}.
 *
 * <p>Without the option the client configures itself as kubectl does: the file named by KUBECONFIG,
 * else ~/.kube/config, else the pod's service account. A command whose fallback is different names
 * it in its resource bundle under the key {@value #DESCRIPTION_KEY}.
 */
public final class ClusterOptions {
  /** The resource bundle key of the option's description. */
  public static final String DESCRIPTION_KEY = "kubeconfig";

  /** Where the client looks when no file is given. */
  public static final String DEFAULT =
      "KUBECONFIG, else ~/.kube/config, else the pod's service account";

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      descriptionKey = DESCRIPTION_KEY,
      description = "Kubeconfig file (default: " + DEFAULT + ").")
  @Nullable Path kubeconfig;

  public ClusterOptions() {}

  /** Options naming {@code kubeconfig}, or none for the default. */
  public static ClusterOptions of(@Nullable Path kubeconfig) {
    ClusterOptions o = new ClusterOptions();
    o.kubeconfig = kubeconfig;
    return o;
  }

  /** The file given, or null for the default. */
  public @Nullable Path kubeconfig() {
    return kubeconfig;
  }

  /** What is wrong with the option ({@code --kubeconfig: cannot read FILE}), or null. */
  public @Nullable String problem() {
    return kubeconfig != null && !Files.isReadable(kubeconfig)
        ? "--kubeconfig: cannot read " + kubeconfig
        : null;
  }

  /**
   * The client configuration: the file's current context, with its relative paths (certificates,
   * exec commands) resolved against the file's folder as kubectl does, or the default.
   */
  public Config config() throws IOException {
    Path file = kubeconfig;
    if (file == null) {
      return Config.autoConfigure(null);
    }
    return Config.fromKubeconfig(
        null, Files.readString(file, StandardCharsets.UTF_8), file.toString());
  }

  /** A client for {@link #config()}, built through {@link KubeClients}. */
  public KubernetesClient client() throws IOException {
    return KubeClients.builder(config()).build();
  }
}
