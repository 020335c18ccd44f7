package io.hami.e2e;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.SecureRandom;
import java.util.Locale;

/**
 * A namespace made for one test class. The {@code default} ServiceAccount, normally made by the
 * controller-manager that this control plane lacks, is created with it so that pods can be
 * admitted.
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
    client
        .serviceAccounts()
        .inNamespace(ns.name())
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build())
        .create();
    return ns;
  }

  /**
   * Removes the pods at once (no kubelet will confirm a graceful delete) and deletes the namespace.
   * Without a namespace controller the namespace stays Terminating; that is harmless because every
   * class gets a new one.
   */
  void delete(KubernetesClient client) {
    client.pods().inNamespace(name).withGracePeriod(0).delete();
    client.namespaces().withName(name).delete();
  }
}
