package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneBinaries;
import io.hami.cmd.cluster.ControlPlaneOptions;
import io.hami.cmd.cluster.Pki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Start, restart and stop of a control plane of its own, apart from the shared one. */
class ControlPlaneLifecycleE2E {

  private static ControlPlaneOptions options(Path dir) throws IOException {
    return ControlPlaneOptions.defaults(ControlPlaneExtension.moduleDir())
        .withWorkDir(dir.resolve("cp"));
  }

  @ParameterizedTest(name = "certificates by {0}")
  @EnumSource(Pki.Backend.class)
  void restartedApiserver_keepsItsData_andCloseRemovesEverything(
      Pki.Backend backend, @TempDir Path tmp) throws Exception {
    assumeTrue(
        backend == Pki.Backend.JAVA || Pki.Backend.opensslOnPath(), "openssl is not installed");
    ControlPlane cp = ControlPlane.start(options(tmp).withPkiBackend(backend));
    try {
      try (KubernetesClient client = cp.newAdminClient()) {
        client
            .configMaps()
            .inNamespace("default")
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("survivor")
                    .endMetadata()
                    .addToData("k", "v")
                    .build())
            .create();
      }

      cp.restartApiServer();

      try (KubernetesClient client = cp.newAdminClient()) {
        assertThat(client.configMaps().inNamespace("default").withName("survivor").get().getData())
            .containsEntry("k", "v");
      }
      assertThat(Files.readString(cp.componentLogs().get("kube-apiserver")))
          .as("the log keeps both runs")
          .containsSubsequence("==== starting kube-apiserver", "==== starting kube-apiserver");
    } finally {
      cp.close();
    }

    assertThat(cp.isRunning()).isFalse();
    assertThat(tmp.resolve("cp")).doesNotExist();
  }

  @Test
  void componentThatExits_failsTheStartWithItsLog_andLeavesNothingRunning(@TempDir Path tmp)
      throws Exception {
    ControlPlaneOptions real = options(tmp);
    Path fakeEtcd = tmp.resolve("etcd");
    Files.writeString(fakeEtcd, "#!/bin/sh\necho 'etcd: cannot start: disk on fire' >&2\nexit 3\n");
    fakeEtcd.toFile().setExecutable(true);
    ControlPlaneOptions broken =
        real.withBinaries(new ControlPlaneBinaries(real.binaries().kubeApiserver(), fakeEtcd))
            .withStartupTimeout(Duration.ofSeconds(30));

    assertThatThrownBy(() -> ControlPlane.start(broken))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("etcd exited with code 3")
        .hasMessageContaining("disk on fire");
    assertThat(real.workDir().resolve("attempt-1/logs/etcd.log")).exists();
  }
}
