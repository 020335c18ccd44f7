package io.hami.cmd.cluster;

import static java.util.Objects.requireNonNull;

import com.google.common.base.Splitter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A throw-away certificate authority for one control plane, made with the {@code openssl} CLI when
 * it is installed and in process with BouncyCastle otherwise ({@link Backend}). Serving
 * certificates for components that the apiserver calls (webhooks) and client certificates for users
 * are issued from the same CA, so one {@code caBundle} trusts them all.
 */
public final class Pki {
  private static final Duration OPENSSL_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._:-]+");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A certificate and its unencrypted PKCS#8 private key, both PEM. */
  public record CertAndKey(Path cert, Path key) {
    public String certPem() throws IOException {
      return Files.readString(cert, StandardCharsets.UTF_8);
    }

    public String keyPem() throws IOException {
      return Files.readString(key, StandardCharsets.UTF_8);
    }
  }

  /** The key pair the apiserver signs ServiceAccount tokens with. */
  public record SigningKey(Path privateKey, Path publicKey) {}

  /** What makes the keys and certificates. */
  public enum Backend {
    OPENSSL,
    JAVA;

    /** System property that forces a backend: {@code openssl} or {@code java}. */
    public static final String PROPERTY = "hami.e2e.pki";

    /** The property's choice, else openssl when it is on the PATH, else the JDK. */
    public static Backend detect() {
      String forced = System.getProperty(PROPERTY, "").trim();
      if (!forced.isEmpty()) {
        try {
          return valueOf(forced.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              PROPERTY + "=" + forced + " is not one of openssl, java", e);
        }
      }
      return opensslOnPath() ? OPENSSL : JAVA;
    }

    public static boolean opensslOnPath() {
      String path = System.getenv("PATH");
      if (path == null) {
        return false;
      }
      for (String d : Splitter.on(File.pathSeparatorChar).omitEmptyStrings().split(path)) {
        if (Files.isExecutable(Path.of(d, "openssl"))) {
          return true;
        }
      }
      return false;
    }
  }

  private final Path dir;
  private final CertAndKey ca;
  private final Backend backend;

  private Pki(Path dir, CertAndKey ca, Backend backend) {
    this.dir = dir;
    this.ca = ca;
    this.backend = backend;
  }

  /** Creates a new CA in {@code dir} with the detected backend. */
  public static Pki create(Path dir) throws IOException {
    return create(dir, Backend.detect());
  }

  /** Creates a new CA in {@code dir}. */
  public static Pki create(Path dir, Backend backend) throws IOException {
    Files.createDirectories(dir);
    CertAndKey ca = new CertAndKey(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    if (backend == Backend.JAVA) {
      JavaCertificates.createCa(ca.cert(), ca.key(), "hami-e2e-ca");
      return new Pki(dir, ca, backend);
    }
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-sha256",
        "-days",
        "3650",
        "-keyout",
        ca.key().toString(),
        "-out",
        ca.cert().toString(),
        "-subj",
        "/CN=hami-e2e-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign,digitalSignature");
    return new Pki(dir, ca, backend);
  }

  public Backend backend() {
    return backend;
  }

  public CertAndKey ca() {
    return ca;
  }

  public String caPem() throws IOException {
    return ca.certPem();
  }

  /**
   * Issues a certificate usable both to serve TLS and as a client certificate.
   *
   * @param name file name stem, unique within this CA
   * @param commonName the subject CN (the user name for client certificates)
   * @param organizations subject O values (the groups for client certificates)
   * @param sans subject alternative names such as {@code IP:127.0.0.1} or {@code DNS:localhost}
   */
  public CertAndKey issue(
      String name, String commonName, List<String> organizations, List<String> sans)
      throws IOException {
    requireSafe(name);
    requireSafe(commonName);
    organizations.forEach(Pki::requireSafe);
    sans.forEach(Pki::requireSan);
    CertAndKey out = new CertAndKey(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
    if (backend == Backend.JAVA) {
      JavaCertificates.issue(ca, out.cert(), out.key(), commonName, organizations, sans);
      return out;
    }
    Path csr = dir.resolve(name + ".csr");
    Path ext = dir.resolve(name + ".ext");
    StringBuilder subject = new StringBuilder("/CN=").append(commonName);
    organizations.forEach(o -> subject.append("/O=").append(o));
    openssl(
        dir,
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-sha256",
        "-keyout",
        out.key().toString(),
        "-out",
        csr.toString(),
        "-subj",
        subject.toString());
    List<String> lines = new ArrayList<>();
    lines.add("basicConstraints=critical,CA:FALSE");
    lines.add("keyUsage=critical,digitalSignature,keyEncipherment");
    lines.add("extendedKeyUsage=serverAuth,clientAuth");
    if (!sans.isEmpty()) {
      lines.add("subjectAltName=" + String.join(",", sans));
    }
    Files.write(ext, lines, StandardCharsets.UTF_8);
    openssl(
        dir,
        "x509",
        "-req",
        "-sha256",
        "-days",
        "365",
        "-in",
        csr.toString(),
        "-CA",
        ca.cert().toString(),
        "-CAkey",
        ca.key().toString(),
        "-set_serial",
        Long.toString(RANDOM.nextLong() & Long.MAX_VALUE),
        "-extfile",
        ext.toString(),
        "-out",
        out.cert().toString());
    Files.deleteIfExists(csr);
    Files.deleteIfExists(ext);
    return out;
  }

  /**
   * An SSL context that serves TLS with {@code pair}, for in-test HTTPS servers such as webhooks.
   */
  public static SSLContext serverContext(CertAndKey pair) throws IOException {
    try {
      Certificate cert;
      try (InputStream in = Files.newInputStream(pair.cert())) {
        cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      PrivateKey key = JavaCertificates.readPkcs8(pair.key());
      char[] password = new char[0];
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, password);
      store.setKeyEntry("server", key, password, new Certificate[] {cert});
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, password);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException(
          "cannot load " + pair.cert() + " and " + pair.key() + ": " + e.getMessage(), e);
    }
  }

  /** A certificate for a server reachable on loopback under {@code dnsNames}. */
  public CertAndKey issueServing(String name, List<String> dnsNames) throws IOException {
    List<String> sans = new ArrayList<>(List.of("IP:127.0.0.1", "DNS:localhost"));
    dnsNames.forEach(d -> sans.add("DNS:" + requireSafe(d)));
    return issue(
        name, requireNonNull(dnsNames.isEmpty() ? name : dnsNames.get(0)), List.of(), sans);
  }

  /** A client certificate for user {@code user} in {@code groups}. */
  public CertAndKey issueClient(String name, String user, List<String> groups) throws IOException {
    return issue(name, user, groups, List.of());
  }

  /** A fresh RSA key pair for ServiceAccount token signing. */
  public SigningKey signingKey(String name) throws IOException {
    requireSafe(name);
    SigningKey key = new SigningKey(dir.resolve(name + ".key"), dir.resolve(name + ".pub"));
    if (backend == Backend.JAVA) {
      JavaCertificates.signingKey(key.privateKey(), key.publicKey());
      return key;
    }
    openssl(
        dir,
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        key.privateKey().toString());
    openssl(
        dir,
        "pkey",
        "-in",
        key.privateKey().toString(),
        "-pubout",
        "-out",
        key.publicKey().toString());
    return key;
  }

  private static void requireSan(String san) {
    if (!san.matches("DNS:[A-Za-z0-9.-]+|IP:[0-9A-Fa-f.:]+")) {
      throw new IllegalArgumentException(
          "subject alternative name '" + san + "' must be DNS:<name> or IP:<address>");
    }
  }

  private static String requireSafe(String value) {
    if (!SAFE_NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "certificate name part '" + value + "' must match " + SAFE_NAME.pattern());
    }
    return value;
  }

  private static void openssl(Path dir, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    try {
      Commands.run(command, dir, OPENSSL_TIMEOUT);
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("error=2,")) {
        throw new IOException(
            "openssl is needed to make the test certificates but is not installed", e);
      }
      throw e;
    }
  }
}
