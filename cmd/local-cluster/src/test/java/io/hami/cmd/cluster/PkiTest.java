package io.hami.cmd.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PkiTest {

  static boolean opensslAvailable() {
    return Pki.Backend.opensslOnPath();
  }

  private static Pki pki(Pki.Backend backend, Path dir) throws IOException {
    assumeTrue(backend == Pki.Backend.JAVA || opensslAvailable(), "openssl is not installed");
    return Pki.create(dir, backend);
  }

  private static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Pki.Backend.class)
  void ca_isASelfSignedCertificateAuthority(Pki.Backend backend, @TempDir Path dir)
      throws Exception {
    Pki pki = pki(backend, dir);

    X509Certificate ca = read(pki.ca().cert());

    assertThat(ca.getSubjectX500Principal()).isEqualTo(ca.getIssuerX500Principal());
    assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=hami-e2e-ca");
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(ca.getKeyUsage()[5]).as("keyCertSign").isTrue();
    ca.verify(ca.getPublicKey());
    assertThat(pki.backend()).isEqualTo(backend);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Pki.Backend.class)
  void issued_chainsToTheCa_withNamesAndUsages(Pki.Backend backend, @TempDir Path dir)
      throws Exception {
    Pki pki = pki(backend, dir);

    Pki.CertAndKey issued =
        pki.issue(
            "server",
            "kube-apiserver",
            List.of("group-a", "group-b"),
            List.of("IP:127.0.0.1", "DNS:localhost", "DNS:kubernetes.default.svc"));
    X509Certificate cert = read(issued.cert());
    X509Certificate ca = read(pki.ca().cert());

    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
    params.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX")
        .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(cert)), params);
    assertThat(cert.getSubjectX500Principal().getName())
        .contains("CN=kube-apiserver")
        .contains("O=group-a")
        .contains("O=group-b");
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(cert.getKeyUsage())
        .as("digitalSignature, keyEncipherment")
        .startsWith(true, false, true);
    assertThat(cert.getCriticalExtensionOIDs()).contains("2.5.29.15", "2.5.29.19");
    assertThat(cert.getExtendedKeyUsage())
        .containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(cert.getSubjectAlternativeNames())
        .containsExactlyInAnyOrder(
            List.of(7, "127.0.0.1"), List.of(2, "localhost"), List.of(2, "kubernetes.default.svc"));
    assertThat(Files.readString(issued.key())).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Pki.serverContext(issued)).isNotNull();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Pki.Backend.class)
  void signingKey_signsWhatItsPublicKeyVerifies(Pki.Backend backend, @TempDir Path dir)
      throws Exception {
    Pki.SigningKey key = pki(backend, dir).signingKey("sa");

    String pub =
        Files.readString(key.publicKey(), StandardCharsets.UTF_8)
            .replace("-----BEGIN PUBLIC KEY-----", "")
            .replace("-----END PUBLIC KEY-----", "")
            .replaceAll("\\s", "");
    PublicKey publicKey =
        KeyFactory.getInstance("RSA")
            .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(pub)));
    Signature signer = Signature.getInstance("SHA256withRSA");
    signer.initSign(JavaCertificates.readPkcs8(key.privateKey()));
    signer.update("token".getBytes(StandardCharsets.UTF_8));
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance("SHA256withRSA");
    verifier.initVerify(publicKey);
    verifier.update("token".getBytes(StandardCharsets.UTF_8));

    assertThat(verifier.verify(signature)).isTrue();
  }

  @Test
  void badNames_areRefusedNamingTheValue(@TempDir Path dir) throws Exception {
    Pki pki = Pki.create(dir, Pki.Backend.JAVA);

    assertThatThrownBy(() -> pki.issue("x", "cn", List.of(), List.of("URI:https://x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("URI:https://x");
    assertThatThrownBy(() -> pki.issue("x", "cn/O=system:masters", List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cn/O=system:masters");
  }
}
