package io.hami.model.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;

/**
 * A pod asking for vGPU resources: {@code
 * MakeGpuPod.named("p").gpus(1).gpuMemMiB(4096).gpuCores(30).obj()}. Resource calls apply to the
 * current container, as in {@link MakePod}; the scheduler name defaults to {@code hami-scheduler}.
 */
public final class MakeGpuPod {
  private final MakePod pod;

  private MakeGpuPod(String name) {
    this.pod = MakePod.named(name).uid("uid-" + name).schedulerName("hami-scheduler");
  }

  public static MakeGpuPod named(String name) {
    return new MakeGpuPod(name);
  }

  public MakeGpuPod namespace(String ns) {
    pod.namespace(ns);
    return this;
  }

  public MakeGpuPod uid(String uid) {
    pod.uid(uid);
    return this;
  }

  public MakeGpuPod container(String name) {
    pod.container(name);
    return this;
  }

  public MakeGpuPod initContainer(String name) {
    pod.initContainer(name, false);
    return this;
  }

  /** {@code nvidia.com/gpu} limit of the current container. */
  public MakeGpuPod gpus(int n) {
    pod.limit("nvidia.com/gpu", Integer.toString(n));
    return this;
  }

  /** {@code nvidia.com/gpumem} limit (MiB per GPU). */
  public MakeGpuPod gpuMemMiB(int mib) {
    pod.limit("nvidia.com/gpumem", Integer.toString(mib));
    return this;
  }

  /** {@code nvidia.com/gpumem-percentage} limit. */
  public MakeGpuPod gpuMemPercent(int pct) {
    pod.limit("nvidia.com/gpumem-percentage", Integer.toString(pct));
    return this;
  }

  /** {@code nvidia.com/gpucores} limit. */
  public MakeGpuPod gpuCores(int cores) {
    pod.limit("nvidia.com/gpucores", Integer.toString(cores));
    return this;
  }

  /** A raw limit on the current container. */
  public MakeGpuPod limit(String resource, String quantity) {
    pod.limit(resource, quantity);
    return this;
  }

  public MakeGpuPod annotation(String key, String value) {
    pod.annotation(key, value);
    return this;
  }

  public MakeGpuPod gpuPolicy(String policy) {
    return annotation(Annotations.GPU_SCHEDULER_POLICY, policy);
  }

  public MakeGpuPod nodePolicy(String policy) {
    return annotation(Annotations.NODE_SCHEDULER_POLICY, policy);
  }

  public MakeGpuPod numaBind() {
    return annotation(Annotations.NVIDIA_NUMA_BIND, "true");
  }

  public MakeGpuPod nodeName(String node) {
    pod.nodeName(node);
    return this;
  }

  public MakeGpuPod phase(String phase) {
    pod.phase(phase);
    return this;
  }

  public Pod obj() {
    return pod.obj();
  }
}
