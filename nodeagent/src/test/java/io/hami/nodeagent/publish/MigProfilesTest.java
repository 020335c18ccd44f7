package io.hami.nodeagent.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.model.config.MigAllowlistEntry;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDeviceJson;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.MigProfileInfo;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MigProfilesTest {
  private static final String MODEL = "NVIDIA A100-SXM4-80GB";

  @Test
  void migModeRegistersEveryProfileWithItsPlacements() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1x" + MODEL + ":81920MiB,mig", "n");
    NodeAgentConfig config = NodeAgentConfig.builder("n").mode(OperatingMode.MIG).build();
    List<Gpu> gpus = new GpuInventory(nvml.devices()).snapshot();

    String json =
        NodeDeviceJson.encode(
            RegisterRecords.build(config, gpus, MigProfiles.discover(config, nvml, gpus)));

    String one = "{\"start\":%d,\"size\":1}";
    assertThat(json)
        .isEqualTo(
            "[{\"id\":\""
                + gpus.get(0).uuid()
                + "\",\"count\":7,\"devmem\":81920,\"devcore\":100,"
                + "\"type\":\"NVIDIA A100-SXM4-80GB\",\"mode\":\"mig\",\"migProfiles\":["
                + "{\"name\":\"1g.10gb\",\"memoryMB\":9728,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":["
                + String.join(
                    ",", Stream.of(0, 1, 2, 3, 4, 5, 6).map(i -> String.format(one, i)).toList())
                + "]},"
                + "{\"name\":\"1g.20gb\",\"memoryMB\":19968,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":[{\"start\":0,\"size\":2},{\"start\":2,\"size\":2},"
                + "{\"start\":4,\"size\":2},{\"start\":6,\"size\":2}]},"
                + "{\"name\":\"2g.20gb\",\"memoryMB\":19968,\"core\":29,\"sliceCount\":2,"
                + "\"placements\":[{\"start\":0,\"size\":2},{\"start\":2,\"size\":2},"
                + "{\"start\":4,\"size\":2}]},"
                + "{\"name\":\"3g.40gb\",\"memoryMB\":40192,\"core\":43,\"sliceCount\":3,"
                + "\"placements\":[{\"start\":0,\"size\":4},{\"start\":4,\"size\":4}]},"
                + "{\"name\":\"4g.40gb\",\"memoryMB\":40192,\"core\":58,\"sliceCount\":4,"
                + "\"placements\":[{\"start\":0,\"size\":4}]},"
                + "{\"name\":\"7g.80gb\",\"memoryMB\":80896,\"core\":100,\"sliceCount\":7,"
                + "\"placements\":[{\"start\":0,\"size\":8}]}],"
                + "\"health\":true}]");
  }

  /** V18: the 1g.5gb profile in its compact wire form (instance count not written). */
  @Test
  void v18ProfileWireForm() {
    List<MigProfileInfo> offered =
        List.of(
            new MigProfileInfo(19, "1g.5gb", 4864, 1, 7, List.of(new MigPlacement(6, 1))),
            new MigProfileInfo(0, "7g.40gb", 40192, 7, 1, List.of(new MigPlacement(0, 8))));

    var registered = MigProfiles.forRegister(List.of(), "A100", offered);

    assertThat(registered.get(0).instanceCount()).isEqualTo(7);
    assertThat(NodeDeviceJson.encodeProfile(registered.get(0)))
        .isEqualTo(
            "{\"name\":\"1g.5gb\",\"memoryMB\":4864,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":[{\"start\":6,\"size\":1}]}");
  }

  @Test
  void nonMigModeOrNonMigGpuRegistersNoProfiles() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1xA100:81920MiB,mig+1xA100:81920MiB", "n");
    List<Gpu> gpus = new GpuInventory(nvml.devices()).snapshot();
    NodeAgentConfig mig = NodeAgentConfig.builder("n").mode(OperatingMode.MIG).build();
    NodeAgentConfig core = NodeAgentConfig.builder("n").build();
    var profiles = MigProfiles.discover(mig, nvml, gpus);

    assertThat(profiles).containsOnlyKeys(gpus.get(0).uuid());
    assertThat(RegisterRecords.build(core, gpus, profiles))
        .allMatch(d -> d.migProfiles().isEmpty() && d.count() == 10);
    var records = RegisterRecords.build(mig, gpus, profiles);
    assertThat(records.get(0).migProfiles()).hasSize(6);
    assertThat(records.get(1).migProfiles()).isEmpty();
    assertThat(records.get(1).count()).isEqualTo(10);
  }

  record Case(String name, List<MigAllowlistEntry> allow, List<String> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> allowlists() {
    List<String> all = List.of("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb");
    return Stream.of(
        new Case("empty allowlist keeps all", List.of(), all),
        new Case(
            "entry for the model",
            List.of(
                new MigAllowlistEntry(List.of("A100-SXM4-80GB"), List.of("1g.10gb", "3g.40gb"))),
            List.of("1g.10gb", "3g.40gb")),
        new Case(
            "model matched case-insensitively with its prefix",
            List.of(new MigAllowlistEntry(List.of("nvidia a100-sxm4-80gb"), List.of("7g.80gb"))),
            List.of("7g.80gb")),
        new Case(
            "entries for the model add up",
            List.of(
                new MigAllowlistEntry(List.of("A100"), List.of("1g.10gb")),
                new MigAllowlistEntry(List.of("H100", "A100-SXM4"), List.of("2g.20gb"))),
            List.of("1g.10gb", "2g.20gb")),
        new Case(
            "entry for another model only",
            List.of(new MigAllowlistEntry(List.of("H100"), List.of("1g.10gb"))),
            all),
        new Case(
            "model named with an unknown profile",
            List.of(new MigAllowlistEntry(List.of("A100"), List.of("9g.99gb"))),
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allowlists")
  void allowlistRestrictsTheProfiles(Case c) throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1x" + MODEL + ":81920MiB,mig", "n");
    NodeAgentConfig config =
        NodeAgentConfig.builder("n").mode(OperatingMode.MIG).migProfileAllowlist(c.allow()).build();
    List<Gpu> gpus = new GpuInventory(nvml.devices()).snapshot();

    var profiles = MigProfiles.discover(config, nvml, gpus).get(gpus.get(0).uuid());

    assertThat(profiles).extracting(p -> p.name()).containsExactlyElementsOf(c.want());
  }
}
