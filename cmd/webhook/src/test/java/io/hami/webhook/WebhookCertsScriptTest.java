package io.hami.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * config/deploy/webhook-certs.sh issues a pair the webhook server accepts, for the Service name.
 */
class WebhookCertsScriptTest {

  @TempDir Path dir;

  private static boolean onPath(String tool) {
    for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!p.isEmpty() && Files.isExecutable(Path.of(p, tool))) {
        return true;
      }
    }
    return false;
  }

  @Test
  void issuesAServingCertificateForTheService() throws Exception {
    assumeTrue(onPath("openssl") && onPath("bash"), "needs bash and openssl");
    Path script = ShippedManifestsTest.CONFIG.resolve("deploy/webhook-certs.sh");
    ProcessBuilder pb =
        new ProcessBuilder(List.of("bash", script.toString())).redirectErrorStream(true);
    pb.environment().put("OUT", dir.toString());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();

    PemKeyMaterial m = PemKeyMaterial.load(dir.resolve("tls.crt"), dir.resolve("tls.key"));
    X509Certificate cert = m.chain().get(0);
    assertThat(cert.getSubjectAlternativeNames())
        .extracting(san -> String.valueOf(san.get(1)))
        .contains("hami-scheduler.hami-system.svc", "hami-scheduler.hami-system.svc.cluster.local");
    assertThat(cert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
    X509Certificate ca =
        PemKeyMaterial.load(dir.resolve("ca.crt"), dir.resolve("ca.key")).chain().get(0);
    cert.verify(ca.getPublicKey());
  }
}
