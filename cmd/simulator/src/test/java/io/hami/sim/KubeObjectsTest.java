package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

final class KubeObjectsTest {

  private static final String NODES =
      """
      apiVersion: v1
      kind: Node
      metadata:
        name: gpu-a
        annotations:
          hami.io/node-nvidia-register: '[{"id":"GPU-0","count":10,"devmem":15360,"devcore":100,"type":"NVIDIA-Tesla T4","health":true},{"id":"GPU-1","count":10,"devmem":15360,"devcore":100,"type":"NVIDIA-Tesla T4","health":true}]'
      status:
        allocatable:
          cpu: "32"
          memory: 128Gi
      ---
      apiVersion: v1
      kind: Node
      metadata:
        name: gpu-b
        annotations:
          hami.io/node-nvidia-register: 'GPU-2,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:GPU-3,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,false:'
      status:
        capacity:
          cpu: 16000m
          memory: "68719476736"
      """;

  private static final String PODS =
      """
      apiVersion: v1
      kind: List
      items:
      - apiVersion: v1
        kind: Pod
        metadata: {name: share, namespace: ml, annotations: {nvidia.com/use-gputype: "T4"}}
        spec:
          containers:
          - name: main
            resources:
              requests: {cpu: 1500m, memory: 2Gi}
              limits: {nvidia.com/gpu: 1, nvidia.com/gpucores: 30, nvidia.com/gpumem-percentage: 25}
          - name: sidecar
            resources:
              requests: {cpu: 500m, memory: 512Mi}
      - apiVersion: v1
        kind: Pod
        metadata: {name: whole}
        spec:
          containers:
          - name: main
            resources:
              limits: {nvidia.com/gpu: 2, cpu: "4", memory: 8Gi}
      - apiVersion: v1
        kind: Pod
        metadata: {name: mem}
        spec:
          containers:
          - name: main
            resources:
              limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 3072}
      """;

  @Test
  void readsNodesFromRegisterAnnotationsInBothForms() throws Exception {
    List<TraceNode> nodes = KubeObjects.readNodes(NODES, "nodes.yaml");
    assertThat(nodes)
        .containsExactly(
            new TraceNode("gpu-a", 32_000, 131_072, 2, "NVIDIA-Tesla T4"),
            // the unhealthy device is not offered
            new TraceNode("gpu-b", 16_000, 65_536, 1, "NVIDIA-Tesla V100-PCIE-32GB"));
    assertThat(KubeObjects.units(NODES, "nodes.yaml"))
        .isEqualTo(new KubeObjects.DeviceUnits(100, 15360));
  }

  @Test
  void readsPodsAsSharesPerGpu() throws Exception {
    List<TracePod> pods =
        KubeObjects.readPods(PODS, "pods.yaml", KubeObjects.units(NODES, "nodes.yaml"));
    assertThat(pods)
        .containsExactly(
            // share = max(cores 30% → 300, memory 25% → 250)
            new TracePod("ml/share", 2000, 2560, 1, 300, "T4", List.of("T4")),
            // no memory asked: a whole card, as HAMi defaults it
            new TracePod("whole", 4000, 8192, 2, 1000, "", List.of()),
            // 3072 MiB over the smallest card (15360 MiB) = 200
            new TracePod("mem", 100, 0, 1, 200, "", List.of()));
  }

  @Test
  void badInputNamesObjectAndField() {
    String badNode = NODES.replace("\"devmem\":15360,", "\"devmem\":\"lots\",");
    assertThatThrownBy(() -> KubeObjects.readNodes(badNode, "nodes.yaml"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageContaining("node gpu-a")
        .hasMessageContaining("devmem = 'lots'");
    String badPod = PODS.replace("nvidia.com/gpu: 2,", "nvidia.com/gpu: 1.5,");
    assertThatThrownBy(
            () -> KubeObjects.readPods(badPod, "pods.yaml", KubeObjects.DeviceUnits.DEFAULT))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageContaining("pod whole container main: nvidia.com/gpu = '1.5'");
    assertThatThrownBy(() -> KubeObjects.readNodes("kind: [", "x.yaml"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageContaining("x.yaml");
  }
}
