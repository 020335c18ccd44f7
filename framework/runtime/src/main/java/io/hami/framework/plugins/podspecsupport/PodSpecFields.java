package io.hami.framework.plugins.podspecsupport;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one table of pod spec fields: for every field of fabric8's {@link PodSpec}, {@link
 * Container}, {@link ResourceRequirements} and {@link Volume} (by its JSON name), whether it
 * influences kube-scheduler v1.36's decision and, if so, which plugin of this scheduler implements
 * it (always, or where the profile enables it) or that this scheduler refuses pods setting it.
 * {@link PodSpecSupportPlugin} enforces the refusals; a unit test fails when fabric8 grows a field
 * this table does not classify.
 */
public final class PodSpecFields {
  private PodSpecFields() {}

  private static final String NOT_READ = "not read by kube-scheduler";
  private static final String RUNTIME = "used by the kubelet and container runtime only";

  /** The fields of {@code spec}. */
  public static final ImmutableMap<String, FieldUse<PodSpec>> POD_SPEC =
      ImmutableMap.<String, FieldUse<PodSpec>>builder()
          .put("activeDeadlineSeconds", no(RUNTIME))
          .put(
              "affinity",
              by("NodeAffinity (nodeAffinity), InterPodAffinity (podAffinity, podAntiAffinity)"))
          .put("automountServiceAccountToken", no(RUNTIME))
          .put("containers", by("NodeResourcesFit, NodePorts, ImageLocality (see CONTAINER)"))
          .put("dnsConfig", no(RUNTIME))
          .put("dnsPolicy", no(RUNTIME))
          .put("enableServiceLinks", no(RUNTIME))
          .put(
              "ephemeralContainers",
              no("added to running pods only; not counted by kube-scheduler"))
          .put("evictionResponders", no("used by eviction, after scheduling"))
          .put("hostAliases", no(RUNTIME))
          .put("hostIPC", no(RUNTIME))
          .put(
              "hostNetwork", by("NodePorts (API defaulting turns container ports into host ports)"))
          .put("hostPID", no(RUNTIME))
          .put("hostUsers", no(RUNTIME))
          .put("hostname", no(RUNTIME))
          .put("hostnameOverride", no(RUNTIME))
          .put("imagePullSecrets", no(RUNTIME))
          .put("initContainers", by("NodeResourcesFit, ImageLocality (see CONTAINER)"))
          .put("nodeName", by("NodeName"))
          .put("nodeSelector", by("NodeAffinity"))
          .put("os", no(NOT_READ + "; the kubelet rejects a pod for another OS"))
          .put("overhead", by("NodeResourcesFit"))
          .put(
              "preemptionPolicy",
              no("decides only whether the pod may preempt others; this scheduler never preempts"))
          .put("priority", by("PrioritySort"))
          .put("priorityClassName", no("resolved into spec.priority by admission"))
          .put("readinessGates", no(NOT_READ))
          .put("resourceClaims", refused("DynamicResources", PodSpec::getResourceClaims))
          .put("resources", by("NodeResourcesFit (pod-level resources)"))
          .put("restartPolicy", no(RUNTIME))
          .put(
              "runtimeClassName",
              no("RuntimeClass admission copies its overhead and scheduling into the pod"))
          .put("schedulerName", by("the scheduler's profile selection"))
          .put("schedulingGates", by("SchedulingGates"))
          .put("schedulingGroup", needs("GangScheduling", PodSpec::getSchedulingGroup))
          .put("securityContext", no(RUNTIME))
          .put("serviceAccount", no(RUNTIME))
          .put("serviceAccountName", no(RUNTIME))
          .put("setHostnameAsFQDN", no(RUNTIME))
          .put("shareProcessNamespace", no(RUNTIME))
          .put("subdomain", no(RUNTIME))
          .put("terminationGracePeriodSeconds", no(RUNTIME))
          .put("tolerations", by("TaintToleration"))
          .put("topologySpreadConstraints", by("PodTopologySpread"))
          .put(
              "volumes",
              by("VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits (see VOLUME)"))
          .buildOrThrow();

  /** The fields of each init and app container. */
  public static final ImmutableMap<String, FieldUse<Container>> CONTAINER =
      ImmutableMap.<String, FieldUse<Container>>builder()
          .put("args", no(RUNTIME))
          .put("command", no(RUNTIME))
          .put("env", no(RUNTIME))
          .put("envFrom", no(RUNTIME))
          .put("image", by("ImageLocality"))
          .put("imagePullPolicy", no(RUNTIME))
          .put("lifecycle", no(RUNTIME))
          .put("livenessProbe", no(RUNTIME))
          .put("name", no(RUNTIME))
          .put("ports", by("NodePorts"))
          .put("readinessProbe", no(RUNTIME))
          .put("resizePolicy", no(RUNTIME))
          .put("resources", by("NodeResourcesFit (see RESOURCES)"))
          .put("restartPolicy", by("NodeResourcesFit (sidecar init containers)"))
          .put("restartPolicyRules", no(RUNTIME))
          .put("securityContext", no(RUNTIME))
          .put("startupProbe", no(RUNTIME))
          .put("stdin", no(RUNTIME))
          .put("stdinOnce", no(RUNTIME))
          .put("terminationMessagePath", no(RUNTIME))
          .put("terminationMessagePolicy", no(RUNTIME))
          .put("tty", no(RUNTIME))
          .put("volumeDevices", no(RUNTIME))
          .put("volumeMounts", no(RUNTIME))
          .put("workingDir", no(RUNTIME))
          .buildOrThrow();

  /** The fields of a container's (or the pod's) resource requirements. */
  public static final ImmutableMap<String, FieldUse<ResourceRequirements>> RESOURCES =
      ImmutableMap.<String, FieldUse<ResourceRequirements>>builder()
          .put("claims", refused("DynamicResources", ResourceRequirements::getClaims))
          .put("limits", by("NodeResourcesFit (a limit without a request is the request)"))
          .put("requests", by("NodeResourcesFit, NodeResourcesBalancedAllocation"))
          .buildOrThrow();

  /**
   * The sources of a volume. Inline volumes of the in-tree drivers that kube-scheduler translates
   * to CSI (and counts in NodeVolumeLimits) are refused where this scheduler's volume plugins do
   * not evaluate them.
   */
  public static final ImmutableMap<String, FieldUse<Volume>> VOLUME =
      ImmutableMap.<String, FieldUse<Volume>>builder()
          .put("awsElasticBlockStore", by("VolumeRestrictions, NodeVolumeLimits"))
          .put("azureDisk", by("NodeVolumeLimits"))
          .put("azureFile", refused("NodeVolumeLimits", Volume::getAzureFile))
          .put("cephfs", no(NOT_READ))
          .put("cinder", refused("NodeVolumeLimits", Volume::getCinder))
          .put("configMap", no(NOT_READ))
          .put("csi", by("NodeVolumeLimits"))
          .put("downwardAPI", no(NOT_READ))
          .put("emptyDir", no(NOT_READ))
          .put("ephemeral", by("VolumeBinding, NodeVolumeLimits"))
          .put("fc", no(NOT_READ))
          .put("flexVolume", no(NOT_READ))
          .put("flocker", no(NOT_READ))
          .put("gcePersistentDisk", by("VolumeRestrictions, NodeVolumeLimits"))
          .put("gitRepo", no(NOT_READ))
          .put("glusterfs", no(NOT_READ))
          .put("hostPath", no(NOT_READ))
          .put("image", no(NOT_READ))
          .put("iscsi", by("VolumeRestrictions"))
          .put("name", no(NOT_READ))
          .put("nfs", no(NOT_READ))
          .put(
              "persistentVolumeClaim",
              by("VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits"))
          .put("photonPersistentDisk", no(NOT_READ))
          .put("portworxVolume", refused("NodeVolumeLimits", Volume::getPortworxVolume))
          .put("projected", no(NOT_READ))
          .put("quobyte", no(NOT_READ))
          .put("rbd", by("VolumeRestrictions"))
          .put("scaleIO", no(NOT_READ))
          .put("secret", no(NOT_READ))
          .put("storageos", no(NOT_READ))
          .put("vsphereVolume", refused("NodeVolumeLimits", Volume::getVsphereVolume))
          .buildOrThrow();

  private static <T> FieldUse<T> by(String plugins) {
    return new FieldUse.Implemented<>(plugins);
  }

  private static <T> FieldUse<T> no(String why) {
    return new FieldUse.NoInfluence<>(why);
  }

  private static <T> FieldUse<T> needs(String plugin, Function<T, @Nullable Object> value) {
    return new FieldUse.NeedsPlugin<>(plugin, value);
  }

  private static <T> FieldUse<T> refused(String kubePlugin, Function<T, @Nullable Object> value) {
    return new FieldUse.Refused<>(kubePlugin, value);
  }
}
