package io.hami.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * Objects that carry only what a patch's URL needs, for {@code
 * client.pods().resource(target).patch(..)}.
 *
 * <p>The client sends a patch in one request when it is given an object, but first copies that
 * object through JSON; given only a name ({@code withName(..).patch(..)}) it GETs the object first.
 * With a whole pod or node in hand the copy cost a scheduler's binding threads a third of their
 * CPU; with a name the GET doubled the requests.
 */
public final class PatchTargets {
  private PatchTargets() {}

  public static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  public static Pod pod(Pod pod) {
    return pod(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
  }

  public static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }
}
