package io.hami.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PemKeyMaterialTest {

  static byte[] resource(String name) {
    try (InputStream in = PemKeyMaterialTest.class.getResourceAsStream("pem/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource pem/" + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A cert/key pair and the key algorithm expected, or the error expected. */
  record Pair(
      String name,
      byte[] cert,
      byte[] key,
      @Nullable String algorithm,
      int chainLength,
      @Nullable String error) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static Stream<Pair> pairs() {
    byte[] rsaCrt = resource("rsa.crt");
    return Stream.of(
        new Pair("RSA PKCS#8", rsaCrt, resource("rsa-pkcs8.key"), "RSA", 1, null),
        new Pair("RSA PKCS#1", rsaCrt, resource("rsa-pkcs1.key"), "RSA", 1, null),
        new Pair(
            "EC SEC1 after EC PARAMETERS",
            resource("ec.crt"),
            resource("ec-sec1.key"),
            "EC",
            1,
            null),
        new Pair("chain of two", resource("chain.crt"), resource("leaf.key"), "RSA", 2, null),
        new Pair(
            "key of another certificate",
            rsaCrt,
            resource("leaf.key"),
            null,
            0,
            "does not match the certificate"),
        new Pair(
            "no certificate",
            text("hello"),
            resource("rsa-pkcs8.key"),
            null,
            0,
            "cert.pem: no PEM block 'CERTIFICATE' found"),
        new Pair("no key", rsaCrt, rsaCrt, null, 0, "key.pem: no PEM block 'PRIVATE KEY'"),
        new Pair(
            "encrypted key",
            rsaCrt,
            text(
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"),
            null,
            0,
            "encrypted private keys are not supported"),
        new Pair(
            "encrypted traditional key",
            rsaCrt,
            text(
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                    + "DEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n"
                    + "-----END RSA PRIVATE KEY-----\n"),
            null,
            0,
            "encrypted private keys are not supported"),
        new Pair(
            "garbage key body",
            rsaCrt,
            text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
            null,
            0,
            "unsupported or malformed private key"),
        new Pair(
            "truncated EC key",
            resource("ec.crt"),
            text("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n"),
            null,
            0,
            "unsupported or malformed private key"),
        new Pair(
            "certificate body not base64",
            text("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"),
            resource("rsa-pkcs8.key"),
            null,
            0,
            "cert.pem: malformed PEM data"),
        new Pair(
            "corrupt certificate",
            text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
            resource("rsa-pkcs8.key"),
            null,
            0,
            "certificate 1 is not valid X.509"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pairs")
  void parse(Pair p) throws IOException {
    if (p.error() != null) {
      assertThatThrownBy(() -> PemKeyMaterial.parse(p.cert(), "cert.pem", p.key(), "key.pem"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(p.error());
      return;
    }
    PemKeyMaterial m = PemKeyMaterial.parse(p.cert(), "cert.pem", p.key(), "key.pem");
    assertThat(m.key().getAlgorithm()).isEqualTo(p.algorithm());
    assertThat(m.chain()).hasSize(p.chainLength());
    assertThat(m.keyManager().getServerAliases(p.algorithm(), null)).isNotEmpty();
  }

  @Test
  void pkcs1AndPkcs8_giveTheSameKey() throws IOException {
    byte[] crt = resource("rsa.crt");
    assertThat(PemKeyMaterial.parse(crt, "c", resource("rsa-pkcs1.key"), "k").key().getEncoded())
        .isEqualTo(
            PemKeyMaterial.parse(crt, "c", resource("rsa-pkcs8.key"), "k").key().getEncoded());
  }
}
