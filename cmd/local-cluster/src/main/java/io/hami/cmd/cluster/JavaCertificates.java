package io.hami.cmd.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * X.509 v3 certificates made with the JDK alone (RSA 2048, SHA-256), for machines without
 * openssl. Only the DER the control plane needs: subject CN and O, basic constraints, key usage,
 * extended key usage, subject alternative names and key identifiers.
 */
final class JavaCertificates {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String SHA256_WITH_RSA = "1.2.840.113549.1.1.11";
  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  private JavaCertificates() {}

  /** Writes a self-signed CA certificate and its key. */
  static void createCa(Path cert, Path key, String commonName) throws IOException {
    KeyPair pair = newKeyPair();
    byte[] der =
        sign(
            name(commonName, List.of()),
            pair.getPublic(),
            name(commonName, List.of()),
            pair.getPublic(),
            pair.getPrivate(),
            true,
            List.of(),
            Duration.ofDays(3650));
    writePem(cert, "CERTIFICATE", der);
    writePem(key, "PRIVATE KEY", pair.getPrivate().getEncoded());
  }

  /** Writes a leaf certificate (server and client auth) signed by the CA in {@code ca}. */
  static void issue(
      Pki.CertAndKey ca,
      Path cert,
      Path key,
      String commonName,
      List<String> organizations,
      List<String> sans)
      throws IOException {
    try {
      java.security.cert.X509Certificate caCert;
      try (var in = Files.newInputStream(ca.cert())) {
        caCert =
            (java.security.cert.X509Certificate)
                java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      PrivateKey caKey = readPkcs8(ca.key());
      KeyPair pair = newKeyPair();
      byte[] der =
          sign(
              caCert.getSubjectX500Principal().getEncoded(),
              caCert.getPublicKey(),
              name(commonName, organizations),
              pair.getPublic(),
              caKey,
              false,
              sans,
              Duration.ofDays(365));
      writePem(cert, "CERTIFICATE", der);
      writePem(key, "PRIVATE KEY", pair.getPrivate().getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot issue " + cert + ": " + e.getMessage(), e);
    }
  }

  /** Writes an RSA key pair: PKCS#8 private key and X.509 SubjectPublicKeyInfo public key. */
  static void signingKey(Path privateKey, Path publicKey) throws IOException {
    KeyPair pair = newKeyPair();
    writePem(privateKey, "PRIVATE KEY", pair.getPrivate().getEncoded());
    writePem(publicKey, "PUBLIC KEY", pair.getPublic().getEncoded());
  }

  static PrivateKey readPkcs8(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.UTF_8);
    if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
      throw new IOException(file + " is not an unencrypted PKCS#8 key");
    }
    String body =
        pem.replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "")
            .replaceAll("\\s", "");
    return KeyFactory.getInstance("RSA")
        .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
  }

  private static KeyPair newKeyPair() throws IOException {
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
      gen.initialize(2048, RANDOM);
      return gen.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IOException("RSA key generation is not available: " + e.getMessage(), e);
    }
  }

  private static byte[] sign(
      byte[] issuer,
      PublicKey issuerKey,
      byte[] subject,
      PublicKey subjectKey,
      PrivateKey signer,
      boolean ca,
      List<String> sans,
      Duration validity)
      throws IOException {
    Instant now = Instant.now();
    List<byte[]> extensions = new ArrayList<>();
    extensions.add(extension("2.5.29.19", true, ca ? seq(bool(true)) : seq()));
    // keyUsage bits: digitalSignature(0) keyEncipherment(2) | digitalSignature(0) keyCertSign(5) cRLSign(6)
    extensions.add(
        extension(
            "2.5.29.15",
            true,
            ca ? bitString(new byte[] {(byte) 0x86}, 1) : bitString(new byte[] {(byte) 0xA0}, 5)));
    if (!ca) {
      extensions.add(
          extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"), oid("1.3.6.1.5.5.7.3.2"))));
    }
    if (!sans.isEmpty()) {
      List<byte[]> names = new ArrayList<>();
      for (String san : sans) {
        names.add(generalName(san));
      }
      extensions.add(extension("2.5.29.17", false, seq(names.toArray(byte[][]::new))));
    }
    extensions.add(extension("2.5.29.14", false, tlv(0x04, keyId(subjectKey))));
    extensions.add(extension("2.5.29.35", false, seq(tlv(0x80, keyId(issuerKey)))));

    byte[] algorithm = seq(oid(SHA256_WITH_RSA), new byte[] {0x05, 0x00});
    byte[] tbs =
        seq(
            tlv(0xA0, integer(BigInteger.valueOf(2))),
            integer(new BigInteger(127, RANDOM).setBit(126)),
            algorithm,
            issuer,
            seq(time(now.minus(Duration.ofHours(1))), time(now.plus(validity))),
            subject,
            subjectKey.getEncoded(),
            tlv(0xA3, seq(extensions.toArray(byte[][]::new))));
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initSign(signer);
      s.update(tbs);
      return seq(tbs, algorithm, bitString(s.sign(), 0));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot sign a certificate: " + e.getMessage(), e);
    }
  }

  private static byte[] generalName(String san) throws IOException {
    if (san.startsWith("DNS:")) {
      return tlv(0x82, san.substring(4).getBytes(StandardCharsets.US_ASCII));
    }
    if (san.startsWith("IP:")) {
      String ip = san.substring(3);
      if (!ip.matches("[0-9.]+|[0-9a-fA-F:]+")) {
        throw new IllegalArgumentException("subject alternative name " + san + " is not an IP address");
      }
      return tlv(0x87, InetAddress.getByName(ip).getAddress());
    }
    throw new IllegalArgumentException(
        "subject alternative name " + san + " must start with DNS: or IP:");
  }

  private static byte[] keyId(PublicKey key) throws IOException {
    try {
      return MessageDigest.getInstance("SHA-1").digest(key.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  private static byte[] name(String commonName, List<String> organizations) {
    List<byte[]> rdns = new ArrayList<>();
    for (String o : organizations) {
      rdns.add(set(seq(oid("2.5.4.10"), tlv(0x0C, o.getBytes(StandardCharsets.UTF_8)))));
    }
    rdns.add(set(seq(oid("2.5.4.3"), tlv(0x0C, commonName.getBytes(StandardCharsets.UTF_8)))));
    return seq(rdns.toArray(byte[][]::new));
  }

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical
        ? seq(oid(oid), bool(true), tlv(0x04, value))
        : seq(oid(oid), tlv(0x04, value));
  }

  private static byte[] time(Instant t) {
    return tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] bool(boolean b) {
    return new byte[] {0x01, 0x01, (byte) (b ? 0xFF : 0x00)};
  }

  private static byte[] integer(BigInteger v) {
    return tlv(0x02, v.toByteArray());
  }

  private static byte[] bitString(byte[] bits, int unusedBits) {
    byte[] body = new byte[bits.length + 1];
    body[0] = (byte) unusedBits;
    System.arraycopy(bits, 0, body, 1, bits.length);
    return tlv(0x03, body);
  }

  static byte[] oid(String dotted) {
    String[] parts = dotted.split("\\.");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(Integer.parseInt(parts[0]) * 40 + Integer.parseInt(parts[1]));
    for (int i = 2; i < parts.length; i++) {
      long v = Long.parseLong(parts[i]);
      int groups = 1;
      for (long t = v >>> 7; t != 0; t >>>= 7) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        int b = (int) ((v >>> (7 * g)) & 0x7F);
        out.write(g == 0 ? b : b | 0x80);
      }
    }
    return tlv(0x06, out.toByteArray());
  }

  private static byte[] seq(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  private static byte[] set(byte[]... parts) {
    return tlv(0x31, concat(parts));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((n >>> (8 * i)) & 0xFF);
      }
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(
        file,
        "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n",
        StandardCharsets.UTF_8);
  }
}
