package io.hami.cmd.cluster;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObjectGenerator;

/**
 * X.509 v3 certificates made in process (RSA 2048, SHA-256), for machines without openssl. The same
 * names and extensions as the openssl backend: subject CN and O, basic constraints, key usage,
 * extended key usage, subject alternative names and key identifiers. BouncyCastle builds the
 * certificates; keys and signatures come from the default JCA provider.
 */
final class JavaCertificates {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String SIGNATURE = "SHA256withRSA";

  private JavaCertificates() {}

  /** Writes a self-signed CA certificate and its key. */
  static void createCa(Path cert, Path key, String commonName) throws IOException {
    KeyPair pair = newKeyPair();
    X500Name name = name(commonName, List.of());
    X509CertificateHolder der =
        sign(
            name,
            pair.getPublic(),
            name,
            pair.getPublic(),
            pair.getPrivate(),
            true,
            List.of(),
            Duration.ofDays(3650));
    writePem(cert, new JcaMiscPEMGenerator(der));
    writePem(key, new JcaPKCS8Generator(pair.getPrivate(), null));
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
      X509Certificate caCert;
      try (var in = Files.newInputStream(ca.cert())) {
        caCert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      PrivateKey caKey = readPkcs8(ca.key());
      KeyPair pair = newKeyPair();
      X509CertificateHolder der =
          sign(
              issuerName(caCert.getSubjectX500Principal()),
              caCert.getPublicKey(),
              name(commonName, organizations),
              pair.getPublic(),
              caKey,
              false,
              sans,
              Duration.ofDays(365));
      writePem(cert, new JcaMiscPEMGenerator(der));
      writePem(key, new JcaPKCS8Generator(pair.getPrivate(), null));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot issue " + cert + ": " + e.getMessage(), e);
    }
  }

  /** Writes an RSA key pair: PKCS#8 private key and X.509 SubjectPublicKeyInfo public key. */
  static void signingKey(Path privateKey, Path publicKey) throws IOException {
    KeyPair pair = newKeyPair();
    writePem(privateKey, new JcaPKCS8Generator(pair.getPrivate(), null));
    writePem(publicKey, new JcaMiscPEMGenerator(pair.getPublic()));
  }

  static PrivateKey readPkcs8(Path file) throws IOException {
    Object parsed;
    try (PEMParser parser =
        new PEMParser(Files.newBufferedReader(file, StandardCharsets.US_ASCII))) {
      parsed = parser.readObject();
    }
    if (!(parsed instanceof PrivateKeyInfo pkcs8)) {
      throw new IOException(file + " is not an unencrypted PKCS#8 key");
    }
    return new JcaPEMKeyConverter().getPrivateKey(pkcs8);
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

  private static X509CertificateHolder sign(
      X500Name issuer,
      PublicKey issuerKey,
      X500Name subject,
      PublicKey subjectKey,
      PrivateKey signer,
      boolean ca,
      List<String> sans,
      Duration validity)
      throws IOException {
    Instant now = Instant.now();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(127, RANDOM).setBit(126),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(validity)),
            subject,
            subjectKey);
    try {
      JcaX509ExtensionUtils ids = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      builder.addExtension(
          Extension.keyUsage,
          true,
          ca
              ? new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign | KeyUsage.cRLSign)
              : new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      if (!ca) {
        builder.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(
                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      }
      if (!sans.isEmpty()) {
        GeneralName[] names = new GeneralName[sans.size()];
        for (int i = 0; i < names.length; i++) {
          names[i] = generalName(sans.get(i));
        }
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
      }
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, ids.createSubjectKeyIdentifier(subjectKey));
      builder.addExtension(
          Extension.authorityKeyIdentifier, false, ids.createAuthorityKeyIdentifier(issuerKey));
      return builder.build(new JcaContentSignerBuilder(SIGNATURE).build(signer));
    } catch (CertIOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot sign a certificate: " + e.getMessage(), e);
    }
  }

  private static GeneralName generalName(String san) {
    if (san.startsWith("DNS:")) {
      return new GeneralName(GeneralName.dNSName, san.substring(4));
    }
    if (san.startsWith("IP:")) {
      String ip = san.substring(3);
      // BouncyCastle parses the literal itself; the check keeps host names from being resolved.
      if (!ip.matches("[0-9.]+|[0-9a-fA-F:]+")) {
        throw new IllegalArgumentException(
            "subject alternative name " + san + " is not an IP address");
      }
      return new GeneralName(GeneralName.iPAddress, ip);
    }
    throw new IllegalArgumentException(
        "subject alternative name " + san + " must start with DNS: or IP:");
  }

  /** One RDN per attribute, organizations first. */
  private static X500Name name(String commonName, List<String> organizations) {
    X500NameBuilder name = new X500NameBuilder(BCStyle.INSTANCE);
    organizations.forEach(o -> name.addRDN(BCStyle.O, o));
    name.addRDN(BCStyle.CN, commonName);
    return name.build();
  }

  /**
   * The CA's subject exactly as encoded in its certificate, so issued chains match byte for byte.
   */
  private static X500Name issuerName(X500Principal subject) {
    return X500Name.getInstance(subject.getEncoded());
  }

  private static void writePem(Path file, PemObjectGenerator object) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
        JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(object);
    }
  }
}
