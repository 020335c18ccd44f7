package io.hami.cmd.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class KubeconfigTest {
  private static final String CA = "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n";

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void clientCertKubeconfig_isReadByFabric8() {
    String yaml = Kubeconfig.withClientCert("https://127.0.0.1:6443", CA, "CERT", "KEY");

    Config config = Config.fromKubeconfig(yaml);

    assertThat(config.getMasterUrl()).startsWith("https://127.0.0.1:6443");
    assertThat(config.getCaCertData()).isEqualTo(b64(CA));
    assertThat(config.getClientCertData()).isEqualTo(b64("CERT"));
    assertThat(config.getClientKeyData()).isEqualTo(b64("KEY"));
  }

  @Test
  void tokenKubeconfig_isReadByFabric8() {
    Config config =
        Config.fromKubeconfig(Kubeconfig.withToken("https://127.0.0.1:6443", CA, "abc.def-ghi"));

    assertThat(config.getAutoOAuthToken()).isEqualTo("abc.def-ghi");
    assertThat(config.getClientCertData()).isNull();
  }

  @Test
  void tokenWithWhitespaceOrQuotes_isRefused() {
    assertThatThrownBy(() -> Kubeconfig.withToken("https://x", CA, "a b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token");
    assertThatThrownBy(() -> Kubeconfig.withToken("https://x", CA, "a\"b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Kubeconfig.withToken("https://x", CA, ""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
