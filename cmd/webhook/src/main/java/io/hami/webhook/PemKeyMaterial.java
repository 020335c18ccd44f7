package io.hami.webhook;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemObjectParser;
import org.jspecify.annotations.Nullable;

/**
 * A certificate chain and its private key read from PEM files, as Kubernetes TLS secrets and
 * cert-manager write them. Keys may be PKCS#8 ({@code PRIVATE KEY}), PKCS#1 RSA ({@code RSA PRIVATE
 * KEY}) or SEC1 EC ({@code EC PRIVATE KEY}); encrypted keys are not supported.
 */
final class PemKeyMaterial {

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
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
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
    try (Blocks blocks = new Blocks(pem, name)) {
      for (PemObject block = blocks.next(); block != null; block = blocks.next()) {
        if (!block.getType().equals(PEMParser.TYPE_CERTIFICATE)) {
          continue;
        }
        try {
          certs.add(
              (X509Certificate)
                  factory.generateCertificate(new ByteArrayInputStream(block.getContent())));
        } catch (CertificateException e) {
          throw new IOException(
              name
                  + ": certificate "
                  + (certs.size() + 1)
                  + " is not valid X.509: "
                  + e.getMessage(),
              e);
        }
      }
    }
    if (certs.isEmpty()) {
      throw new IOException(name + ": no PEM block 'CERTIFICATE' found");
    }
    return certs;
  }

  private static PrivateKey parseKey(byte[] pem, String name) throws IOException {
    try (Blocks blocks = new Blocks(pem, name)) {
      for (PemObject block = blocks.next(); block != null; block = blocks.next()) {
        switch (block.getType()) {
          case PEMParser.TYPE_PRIVATE_KEY,
              PEMParser.TYPE_RSA_PRIVATE_KEY,
              PEMParser.TYPE_EC_PRIVATE_KEY -> {
            return toKey(blocks.parse(block), name);
          }
          case PEMParser.TYPE_ENCRYPTED_PRIVATE_KEY -> throw encrypted(name);
          default -> {
            // Skip other blocks, such as EC PARAMETERS that openssl writes before the key.
          }
        }
      }
    }
    throw new IOException(
        name + ": no PEM block 'PRIVATE KEY', 'RSA PRIVATE KEY' or 'EC PRIVATE KEY' found");
  }

  /** PKCS#8 comes as {@link PrivateKeyInfo}, PKCS#1 and SEC1 as a {@link PEMKeyPair}. */
  private static PrivateKey toKey(@Nullable Object parsed, String name) throws IOException {
    PrivateKeyInfo info;
    if (parsed instanceof PrivateKeyInfo pkcs8) {
      info = pkcs8;
    } else if (parsed instanceof PEMKeyPair pair) {
      info = pair.getPrivateKeyInfo();
    } else if (parsed instanceof PEMEncryptedKeyPair) {
      // An openssl traditional key with a Proc-Type: 4,ENCRYPTED header.
      throw encrypted(name);
    } else {
      throw malformed(name, null);
    }
    try {
      return new JcaPEMKeyConverter().getPrivateKey(info);
    } catch (IOException | RuntimeException e) {
      throw malformed(name, e);
    }
  }

  private static IOException encrypted(String name) {
    return new IOException(name + ": encrypted private keys are not supported");
  }

  private static IOException malformed(String name, @Nullable Exception cause) {
    return new IOException(name + ": unsupported or malformed private key", cause);
  }

  /**
   * PEM blocks in order. The type of a block is known before it is parsed, so that blocks of other
   * types are skipped rather than refused, and encrypted keys are refused unread.
   */
  private static final class Blocks extends PEMParser {
    private final String name;

    Blocks(byte[] pem, String name) {
      super(new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII));
      this.name = name;
    }

    @Nullable PemObject next() throws IOException {
      try {
        return readPemObject();
      } catch (IOException e) {
        // Such as "malformed PEM data: unable to decode base64 string".
        throw new IOException(name + ": " + e.getMessage(), e);
      }
    }

    @Nullable Object parse(PemObject block) throws IOException {
      // Only called for the certificate and key types, which PEMParser always registers.
      PemObjectParser parser = (PemObjectParser) parsers.get(block.getType());
      if (parser == null) {
        throw malformed(name, null);
      }
      try {
        return parser.parseObject(block);
      } catch (IOException | RuntimeException e) {
        throw malformed(name, e);
      }
    }
  }

  private static boolean publicKeyMatches(X509Certificate cert, PrivateKey key) {
    String certAlg = cert.getPublicKey().getAlgorithm();
    String keyAlg = key.getAlgorithm();
    if (!certAlg.equals(keyAlg)) {
      return false;
    }
    if (key instanceof RSAPrivateCrtKey rsa && cert.getPublicKey() instanceof RSAPublicKey pub) {
      return rsa.getModulus().equals(pub.getModulus());
    }
    // EC and EdDSA keys: a signature round trip would be needed; the TLS handshake checks it.
    return true;
  }
}
