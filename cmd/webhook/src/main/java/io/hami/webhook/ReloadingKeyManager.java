package io.hami.webhook;

import com.google.common.hash.HashCode;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the certificate and key currently in two PEM files, picking up new ones when {@link
 * #reloadIfChanged()} sees that the files' content changed (Kubernetes updates mounted secrets by
 * swapping a symlink, so content, not modification time, is compared).
 *
 * <p>Implementation notes: the current generation is one volatile reference, swapped whole, so a
 * handshake never mixes a chain from one generation with a key from another. Aliases carry the
 * generation number; the previous generation stays reachable for handshakes that chose an alias
 * just before a swap. A bad pair on disk (for example a certificate renewed before its key) keeps
 * the old generation and is retried on the next check.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {

  private static final Logger log = LoggerFactory.getLogger(ReloadingKeyManager.class);

  private record Generation(
      long number, HashCode digest, PemKeyMaterial material, X509ExtendedKeyManager delegate) {}

  private final Path certFile;
  private final Path keyFile;
  private volatile Generation current;
  private volatile @Nullable Generation previous;

  /** Loads the files once; fails if they do not hold a usable pair. */
  ReloadingKeyManager(Path certFile, Path keyFile) throws IOException {
    this.certFile = certFile;
    this.keyFile = keyFile;
    byte[][] bytes = read();
    this.current = generation(1, bytes);
  }

  /**
   * Re-reads both files and swaps in the new pair if their content changed and they form a valid
   * pair. Returns true if a new pair is now served. Never throws for bad files: it logs and keeps
   * serving the old pair.
   */
  boolean reloadIfChanged() {
    Generation cur = current;
    byte[][] bytes;
    try {
      bytes = read();
    } catch (IOException e) {
      log.warn("cannot read webhook certificate files, keeping the loaded ones: {}", e.toString());
      return false;
    }
    if (digest(bytes).equals(cur.digest())) {
      return false;
    }
    try {
      Generation next = generation(cur.number() + 1, bytes);
      previous = cur;
      current = next;
      log.info(
          "webhook certificate reloaded subject={} notAfter={}",
          next.material().chain().get(0).getSubjectX500Principal(),
          next.material().chain().get(0).getNotAfter().toInstant());
      return true;
    } catch (IOException e) {
      log.warn(
          "new webhook certificate files are not usable, keeping the loaded ones: {}",
          e.getMessage());
      return false;
    }
  }

  /** The certificate chain served now. */
  X509Certificate[] currentChain() {
    return current.material().chain().toArray(new X509Certificate[0]);
  }

  private byte[][] read() throws IOException {
    return new byte[][] {Files.readAllBytes(certFile), Files.readAllBytes(keyFile)};
  }

  private Generation generation(long number, byte[][] bytes) throws IOException {
    PemKeyMaterial material =
        PemKeyMaterial.parse(bytes[0], certFile.toString(), bytes[1], keyFile.toString());
    return new Generation(number, digest(bytes), material, material.keyManager());
  }

  private static HashCode digest(byte[][] bytes) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] b : bytes) {
        md.update(b);
        md.update((byte) 0);
      }
      return HashCode.fromBytes(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static @Nullable String tag(Generation g, @Nullable String alias) {
    return alias == null ? null : g.number() + ":" + alias;
  }

  private @Nullable Generation byAlias(String alias) {
    int colon = alias.indexOf(':');
    if (colon <= 0) {
      return null;
    }
    String number = alias.substring(0, colon);
    Generation cur = current;
    if (number.equals(Long.toString(cur.number()))) {
      return cur;
    }
    Generation prev = previous;
    return prev != null && number.equals(Long.toString(prev.number())) ? prev : null;
  }

  private static String untag(String alias) {
    return alias.substring(alias.indexOf(':') + 1);
  }

  @Override
  public @Nullable String chooseEngineServerAlias(
      String keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
    Generation g = current;
    return tag(g, g.delegate().chooseEngineServerAlias(keyType, issuers, engine));
  }

  @Override
  public @Nullable String chooseServerAlias(
      String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
    Generation g = current;
    return tag(g, g.delegate().chooseServerAlias(keyType, issuers, socket));
  }

  @Override
  public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
    Generation g = current;
    String[] aliases = g.delegate().getServerAliases(keyType, issuers);
    if (aliases == null) {
      return null;
    }
    return Arrays.stream(aliases).map(a -> tag(g, a)).toArray(String[]::new);
  }

  @Override
  public X509Certificate @Nullable [] getCertificateChain(@Nullable String alias) {
    if (alias == null) {
      return null;
    }
    Generation g = byAlias(alias);
    return g == null ? null : g.delegate().getCertificateChain(untag(alias));
  }

  @Override
  public @Nullable PrivateKey getPrivateKey(@Nullable String alias) {
    if (alias == null) {
      return null;
    }
    Generation g = byAlias(alias);
    return g == null ? null : g.delegate().getPrivateKey(untag(alias));
  }

  // The webhook never authenticates as a TLS client.
  @Override
  public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
    return null;
  }

  @Override
  public @Nullable String chooseClientAlias(
      String[] keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
    return null;
  }

  @Override
  public @Nullable String chooseEngineClientAlias(
      String[] keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
    return null;
  }
}
