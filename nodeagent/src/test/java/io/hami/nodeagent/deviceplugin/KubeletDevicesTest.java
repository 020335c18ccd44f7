package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.nodeagent.deviceplugin.v1beta1.Device;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.nvml.GpuInfo;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeletDevicesTest {

  @ParameterizedTest
  @CsvSource({
    "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76-3, GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76",
    "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76::7, GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76",
    "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76, GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76",
    "MIG-1-2-3-4-5-6-x, MIG-1-2-3-4-5-6-x",
  })
  void physicalId(String kubeletId, String gpu) {
    assertThat(KubeletDevices.physicalId(kubeletId)).isEqualTo(gpu);
  }

  @Test
  void replicaOf() {
    assertThat(KubeletDevices.isReplicaOf("GPU-a-3", "GPU-a")).isTrue();
    assertThat(KubeletDevices.isReplicaOf("GPU-a::3", "GPU-a")).isTrue();
    assertThat(KubeletDevices.isReplicaOf("GPU-ab-3", "GPU-a")).isFalse();
    assertThat(KubeletDevices.isReplicaOf("GPU-a-x", "GPU-a")).isFalse();
    assertThat(KubeletDevices.isReplicaOf("GPU-a", "GPU-a")).isTrue();
  }

  @Test
  void replicasCarryHealthAndOptionalNuma() {
    List<Gpu> gpus =
        List.of(
            Gpu.healthy(new GpuInfo(0, "GPU-a", "T4", 1, "b", 1, false)),
            new Gpu(new GpuInfo(1, "GPU-b", "T4", 1, "c", 0, false), false, "XID 79"));

    List<Device> devices = KubeletDevices.of(gpus, 2, true);

    assertThat(devices)
        .extracting(Device::getID)
        .containsExactly("GPU-a-0", "GPU-a-1", "GPU-b-0", "GPU-b-1");
    assertThat(devices)
        .extracting(Device::getHealth)
        .containsExactly("Healthy", "Healthy", "Unhealthy", "Unhealthy");
    assertThat(devices.get(0).getTopology().getNodes(0).getID()).isEqualTo(1);
    assertThat(KubeletDevices.of(gpus, 1, false).get(0).hasTopology()).isFalse();
  }
}
