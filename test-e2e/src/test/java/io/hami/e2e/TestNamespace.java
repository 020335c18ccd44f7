package io.hami.e2e;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.security.SecureRandom;
import java.util.Locale;

/**
 * A namespace made for one test class. Its {@code default} ServiceAccount is created with it,
 * unless the controller-manager was quicker, so that pods can be admitted at once.
 */
public record TestNamespace(String name) {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  public static final String TEST_CLASS_LABEL = "e2e.hami.io/test-class";

  static TestNamespace create(KubernetesClient client, Class<?> testClass) {
    String stem = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    if (stem.length() > 40) {
      stem = stem.substring(0, 40);
    }
    StringBuilder name = new StringBuilder("e2e-").append(stem).append('-');
    for (int i = 0; i < 5; i++) {
      name.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    TestNamespace ns = new TestNamespace(name.toString());
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(ns.name())
                .addToLabels(TEST_CLASS_LABEL, stem)
                .endMetadata()
                .build())
        .create();
    ensureDefaultServiceAccount(client, ns.name());
    return ns;
  }

  /**
   * Creates {@code namespace}'s {@code default} ServiceAccount unless it exists: the
   * controller-manager makes it too, but pods created before it has are refused.
   */
  public static void ensureDefaultServiceAccount(KubernetesClient client, String namespace) {
    try {
      client
          .serviceAccounts()
          .inNamespace(namespace)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName("default")
                  .endMetadata()
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
  }

  /**
   * Removes the pods at once (no kubelet will confirm a graceful delete) and deletes the namespace;
   * the controller-manager's namespace controller removes the rest.
   */
  void delete(KubernetesClient client) {
    client.pods().inNamespace(name).withGracePeriod(0).delete();
    client.namespaces().withName(name).delete();
  }
}
