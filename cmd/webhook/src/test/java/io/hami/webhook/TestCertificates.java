package io.hami.webhook;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Self-signed serving certificates made with the JDK's keytool, written as PEM files. */
final class TestCertificates {

  private static final char[] PASSWORD = "changeit".toCharArray();

  /** A certificate and key on disk. */
  record Issued(X509Certificate certificate, PrivateKey key) {
    /** A client context that trusts exactly this certificate. */
    SSLContext trustingClient() throws GeneralSecurityException, IOException {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("webhook", certificate);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    }
  }

  private TestCertificates() {}

  /** Makes a fresh EC key pair and certificate for localhost/127.0.0.1 and writes both files. */
  static Issued issue(Path workDir, String commonName, Path certFile, Path keyFile)
      throws IOException, GeneralSecurityException, InterruptedException {
    Path store = Files.createTempFile(workDir, "ks", ".p12");
    Files.delete(store);
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                List.of(
                    keytool,
                    "-genkeypair",
                    "-alias",
                    "webhook",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=" + commonName,
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-validity",
                    "2",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    new String(PASSWORD),
                    "-keypass",
                    new String(PASSWORD)))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("keytool failed: " + output);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASSWORD);
    }
    X509Certificate cert = (X509Certificate) ks.getCertificate("webhook");
    PrivateKey key = (PrivateKey) ks.getKey("webhook", PASSWORD);
    // Write to temporaries and move, as a secret volume update does, so a reader never sees half.
    Path certTmp = Files.createTempFile(workDir, "crt", ".tmp");
    Path keyTmp = Files.createTempFile(workDir, "key", ".tmp");
    Files.writeString(certTmp, pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(keyTmp, pem("PRIVATE KEY", key.getEncoded()));
    Files.move(keyTmp, keyFile, StandardCopyOption.REPLACE_EXISTING);
    Files.move(certTmp, certFile, StandardCopyOption.REPLACE_EXISTING);
    return new Issued(cert, key);
  }

  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
