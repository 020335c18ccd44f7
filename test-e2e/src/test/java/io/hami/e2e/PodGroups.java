package io.hami.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code scheduling.k8s.io/v1alpha2} PodGroups, which the fabric8 model does not have yet, as
 * generic resources. The apiserver serves them with the {@code GenericWorkload} gate and that API
 * enabled, as {@link io.hami.cmd.cluster.ControlPlane} runs it.
 */
public final class PodGroups {
  public static final String API_VERSION = "scheduling.k8s.io/v1alpha2";

  /** The resource, given in full so that no discovery is needed. */
  public static final ResourceDefinitionContext CONTEXT =
      new ResourceDefinitionContext.Builder()
          .withGroup("scheduling.k8s.io")
          .withVersion("v1alpha2")
          .withKind("PodGroup")
          .withPlural("podgroups")
          .withNamespaced(true)
          .build();

  private PodGroups() {}

  /** A PodGroup with the gang policy: no member is bound before {@code minCount} have a place. */
  public static GenericKubernetesResource gang(String name, int minCount) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind("PodGroup")
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToAdditionalProperties(
            "spec", Map.of("schedulingPolicy", Map.of("gang", Map.of("minCount", minCount))))
        .build();
  }

  /** Creates {@code podGroup} in {@code namespace} and returns it as the server stored it. */
  public static GenericKubernetesResource create(
      KubernetesClient client, String namespace, GenericKubernetesResource podGroup) {
    return client
        .genericKubernetesResources(CONTEXT)
        .inNamespace(namespace)
        .resource(podGroup)
        .create();
  }

  /** The PodGroup {@code name} of {@code namespace}, if it exists. */
  public static Optional<GenericKubernetesResource> get(
      KubernetesClient client, String namespace, String name) {
    return Optional.ofNullable(
        client.genericKubernetesResources(CONTEXT).inNamespace(namespace).withName(name).get());
  }

  /** Deletes every PodGroup of {@code namespace}. */
  public static void deleteAll(KubernetesClient client, String namespace) {
    client.genericKubernetesResources(CONTEXT).inNamespace(namespace).delete();
  }

  /** {@code spec.schedulingPolicy.gang.minCount} of {@code podGroup}, if it has one. */
  public static Optional<Integer> minCount(GenericKubernetesResource podGroup) {
    Object spec = podGroup.getAdditionalProperties().get("spec");
    return Optional.ofNullable(at(spec, "schedulingPolicy"))
        .map(p -> at(p, "gang"))
        .map(g -> at(g, "minCount"))
        .filter(Number.class::isInstance)
        .map(n -> ((Number) n).intValue());
  }

  private static @Nullable Object at(@Nullable Object map, String key) {
    return map instanceof Map<?, ?> m ? m.get(key) : null;
  }
}
