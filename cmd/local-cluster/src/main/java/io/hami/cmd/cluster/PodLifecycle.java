package io.hami.cmd.cluster;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.Bindings;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scheduler and a kubelet do to a pod, done through the same API calls: bind it with a
 * {@code pods/binding} subresource POST, then report it Running through {@code pods/status}.
 */
public final class PodLifecycle {
  private PodLifecycle() {}

  /**
   * Posts a Binding of {@code pod} to {@code node}. The pod's UID is a precondition, so a pod that
   * was deleted and re-created under the same name is not bound by mistake. Throws {@link
   * io.fabric8.kubernetes.client.KubernetesClientException} with code 409 when the pod is already
   * bound.
   */
  public static void bind(KubernetesClient client, Pod pod, String node) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    client.raw(
        "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding", "POST", Bindings.of(pod, node));
  }

  /**
   * Marks every container of a bound pod as started and the pod Running and Ready, as kubelet
   * reports after the containers start. Returns the pod as the server now has it.
   */
  public static Pod markRunning(KubernetesClient client, Pod pod) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .editStatus(
            current -> {
              List<ContainerStatus> containers = new ArrayList<>();
              current
                  .getSpec()
                  .getContainers()
                  .forEach(
                      c ->
                          containers.add(
                              new ContainerStatusBuilder()
                                  .withName(c.getName())
                                  .withImage(c.getImage())
                                  .withImageID("fake://" + c.getImage())
                                  .withContainerID(
                                      "fake://"
                                          + current.getMetadata().getUid()
                                          + "/"
                                          + c.getName())
                                  .withReady(true)
                                  .withStarted(true)
                                  .withRestartCount(0)
                                  .withNewState()
                                  .withNewRunning()
                                  .withStartedAt(now)
                                  .endRunning()
                                  .endState()
                                  .build()));
              List<String> types =
                  List.of("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready");
              List<PodCondition> conditions = new ArrayList<>();
              if (current.getStatus() != null) {
                current.getStatus().getConditions().stream()
                    .filter(c -> !types.contains(c.getType()))
                    .forEach(conditions::add);
              }
              for (String type : types) {
                conditions.add(
                    new PodConditionBuilder()
                        .withType(type)
                        .withStatus("True")
                        .withLastTransitionTime(now)
                        .build());
              }
              return new PodBuilder(current)
                  .editOrNewStatus()
                  .withPhase("Running")
                  .withHostIP("127.0.0.1")
                  .withPodIP("127.0.0.1")
                  .withStartTime(now)
                  .withConditions(conditions)
                  .withContainerStatuses(containers)
                  .endStatus()
                  .build();
            });
  }

  /** The reason kubelet gives a pod it rejects because a device plugin's Allocate failed. */
  public static final String UNEXPECTED_ADMISSION_ERROR = "UnexpectedAdmissionError";

  /**
   * Rejects a bound pod at admission as kubelet does when a device plugin's Allocate fails: phase
   * Failed, reason {@value #UNEXPECTED_ADMISSION_ERROR}, no container started. Returns the pod as
   * the server now has it.
   */
  public static Pod markAdmissionFailed(KubernetesClient client, Pod pod, String message) {
    return client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .editStatus(
            current ->
                new PodBuilder(current)
                    .editOrNewStatus()
                    .withPhase("Failed")
                    .withReason(UNEXPECTED_ADMISSION_ERROR)
                    .withMessage(message)
                    .endStatus()
                    .build());
  }
}
