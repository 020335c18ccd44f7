package io.hami.webhook;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A certificate chain and its private key read from PEM files, as Kubernetes TLS secrets and
 * cert-manager write them. Keys may be PKCS#8 ({@code PRIVATE KEY}), PKCS#1 RSA ({@code RSA
 * PRIVATE KEY}) or SEC1 EC ({@code EC PRIVATE KEY}); encrypted keys are not supported.
 */
final class PemKeyMaterial {

  private static final Pattern BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----", Pattern.DOTALL);
  private static final char[] NO_PASSWORD = new char[0];

  private final List<X509Certificate> chain;
  private final PrivateKey key;

  private PemKeyMaterial(List<X509Certificate> chain, PrivateKey key) {
    this.chain = List.copyOf(chain);
    this.key = key;
  }

  /** Reads both files; the message of the exception names the file and what is wrong with it. */
  static PemKeyMaterial load(Path certFile, Path keyFile) throws IOException {
    byte[] certPem = Files.readAllBytes(certFile);
    byte[] keyPem = Files.readAllBytes(keyFile);
    return parse(certPem, certFile.toString(), keyPem, keyFile.toString());
  }

  static PemKeyMaterial parse(byte[] certPem, String certName, byte[] keyPem, String keyName)
      throws IOException {
    List<X509Certificate> chain = parseCertificates(certPem, certName);
    PrivateKey key = parseKey(keyPem, keyName);
    if (!publicKeyMatches(chain.get(0), key)) {
      throw new IOException(
          "private key in " + keyName + " does not match the certificate in " + certName);
    }
    return new PemKeyMaterial(chain, key);
  }

  List<X509Certificate> chain() {
    return chain;
  }

  PrivateKey key() {
    return key;
  }

  /** A key manager serving this chain and key. */
  X509ExtendedKeyManager keyManager() {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("webhook", key, NO_PASSWORD, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, NO_PASSWORD);
      for (var km : kmf.getKeyManagers()) {
        if (km instanceof X509ExtendedKeyManager x509) {
          return x509;
        }
      }
      throw new IllegalStateException("the JDK offers no X509ExtendedKeyManager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a key manager: " + e.getMessage(), e);
    }
  }

  private static List<X509Certificate> parseCertificates(byte[] pem, String name)
      throws IOException {
    List<X509Certificate> certs = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException(e);
    }
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    while (m.find()) {
      if (!m.group(1).equals("CERTIFICATE")) {
        continue;
      }
      byte[] der = decodeBase64(m.group(2), name);
      try {
        certs.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      } catch (CertificateException e) {
        throw new IOException(name + ": certificate " + (certs.size() + 1) + " is not valid X.509: "
            + e.getMessage(), e);
      }
    }
    if (certs.isEmpty()) {
      throw new IOException(name + ": no PEM block 'CERTIFICATE' found");
    }
    return certs;
  }

  private static PrivateKey parseKey(byte[] pem, String name) throws IOException {
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    while (m.find()) {
      String type = m.group(1);
      byte[] der = decodeBase64(m.group(2), name);
      switch (type) {
        case "PRIVATE KEY":
          return pkcs8(der, name);
        case "RSA PRIVATE KEY":
          return pkcs8(Der.wrapPkcs1Rsa(der), name);
        case "EC PRIVATE KEY":
          return pkcs8(Der.wrapSec1Ec(der, name), name);
        case "ENCRYPTED PRIVATE KEY":
          throw new IOException(name + ": encrypted private keys are not supported");
        default:
          // Skip other blocks, such as EC PARAMETERS that openssl writes before the key.
      }
    }
    throw new IOException(
        name + ": no PEM block 'PRIVATE KEY', 'RSA PRIVATE KEY' or 'EC PRIVATE KEY' found");
  }

  private static PrivateKey pkcs8(byte[] der, String name) throws IOException {
    IOException last = null;
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = new IOException(name + ": unsupported or malformed private key", e);
      }
    }
    throw last;
  }

  private static byte[] decodeBase64(String body, String name) throws IOException {
    try {
      return Base64.getMimeDecoder().decode(body.replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new IOException(name + ": PEM body is not valid base64", e);
    }
  }

  private static boolean publicKeyMatches(X509Certificate cert, PrivateKey key) {
    String certAlg = cert.getPublicKey().getAlgorithm();
    String keyAlg = key.getAlgorithm();
    if (!certAlg.equals(keyAlg)) {
      return false;
    }
    if (key instanceof java.security.interfaces.RSAPrivateCrtKey rsa
        && cert.getPublicKey() instanceof java.security.interfaces.RSAPublicKey pub) {
      return rsa.getModulus().equals(pub.getModulus());
    }
    // EC and EdDSA keys: a signature round trip would be needed; the TLS handshake checks it.
    return true;
  }
}
