package io.hami.model.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A pod as the scheduler leaves it after Bind: annotated, bound to the node, pending. */
public final class MakeBoundPod {
  private final String name;
  private String namespace = "default";
  private String node = "gpu-node-1";
  private final Map<String, String> annotations = new LinkedHashMap<>();
  private final List<Container> init = new ArrayList<>();
  private final List<Container> app = new ArrayList<>();
  private String phase = "Pending";

  private MakeBoundPod(String name) {
    this.name = name;
  }

  /** A pod bound to {@code node}, bind-phase allocating, with the given to-allocate value. */
  public static MakeBoundPod bound(String name, String node, String toAllocate) {
    MakeBoundPod p = new MakeBoundPod(name);
    p.node = node;
    p.annotations.put(Annotations.VGPU_NODE, node);
    p.annotations.put(Annotations.BIND_PHASE, BindPhase.ALLOCATING.wire());
    p.annotations.put(Annotations.BIND_TIME, "1705054796");
    p.annotations.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, toAllocate);
    p.annotations.put(Annotations.VGPU_DEVICES_ALLOCATED, toAllocate);
    return p;
  }

  public MakeBoundPod namespace(String ns) {
    namespace = ns;
    return this;
  }

  public MakeBoundPod annotation(String k, String v) {
    annotations.put(k, v);
    return this;
  }

  public MakeBoundPod without(String k) {
    annotations.remove(k);
    return this;
  }

  public MakeBoundPod phase(String p) {
    phase = p;
    return this;
  }

  public MakeBoundPod container(String cname, int gpus, EnvVar... env) {
    app.add(container(cname, gpus, List.of(env)));
    return this;
  }

  public MakeBoundPod initContainer(String cname, int gpus) {
    init.add(container(cname, gpus, List.of()));
    return this;
  }

  private static Container container(String cname, int gpus, List<EnvVar> env) {
    ContainerBuilder b = new ContainerBuilder().withName(cname).withImage("cuda").withEnv(env);
    if (gpus > 0) {
      b.withNewResources()
          .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
          .endResources();
    }
    return b.build();
  }

  public Pod build() {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withUid(UUID.nameUUIDFromBytes((namespace + "/" + name).getBytes()).toString())
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withInitContainers(init)
        .withContainers(app)
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }
}
