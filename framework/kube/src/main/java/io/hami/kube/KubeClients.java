package io.hami.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Builds every Kubernetes client of the project.
 *
 * <p>The client's token refresh re-reads the kubeconfig (YAML parse, environment scan) before a
 * request once a minute has passed since the last refresh that found a token. A config that
 * authenticates with a client certificate has no token to find, so after its first minute every
 * request re-read the kubeconfig: half the CPU of a scheduler's binding threads under load. Such a
 * config has nothing to refresh, and its clients get no refresh step. Configs with any token source
 * (a token, a service-account token file, an exec plugin, an auth provider, basic auth) keep the
 * client's refresh as it is.
 */
public final class KubeClients {
  /** Takes the refresh step's place; the interface's defaults pass every request through. */
  private static final Interceptor NO_REFRESH = new Interceptor() {};

  private KubeClients() {}

  /** A builder for {@code config}. */
  public static KubernetesClientBuilder builder(Config config) {
    return builder(config, b -> {});
  }

  /**
   * A builder for {@code config} whose HTTP client {@code more} also adjusts (interceptors); use
   * this instead of {@link KubernetesClientBuilder#withHttpClientBuilderConsumer}, which would
   * replace the adjustment made here.
   */
  public static KubernetesClientBuilder builder(Config config, Consumer<HttpClient.Builder> more) {
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientBuilderConsumer(adjustment(config, more));
  }

  /** What {@link #builder} does to the HTTP client of {@code config}'s clients. */
  static Consumer<HttpClient.Builder> adjustment(Config config, Consumer<HttpClient.Builder> more) {
    boolean refresh = hasTokenSource(config);
    return b -> {
      if (!refresh) {
        b.addOrReplaceInterceptor(TokenRefreshInterceptor.NAME, NO_REFRESH);
      }
      more.accept(b);
    };
  }

  /** Whether a refresh of {@code config} can produce a credential. */
  static boolean hasTokenSource(Config config) {
    return present(config.getOauthToken())
        || present(config.getAutoOAuthToken())
        || config.getOauthTokenProvider() != null
        || config.getAuthProvider() != null
        || present(config.getUsername())
        || present(config.getPassword());
  }

  private static boolean present(@Nullable String s) {
    return s != null && !s.isEmpty();
  }
}
