package io.hami.cmd.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Kubeconfig documents with inline credentials, for the admin and for ServiceAccount tokens. */
public final class Kubeconfig {
  private Kubeconfig() {}

  /** A kubeconfig that authenticates with a client certificate. */
  public static String withClientCert(String server, String caPem, String certPem, String keyPem) {
    return document(
        server,
        caPem,
        "    client-certificate-data: "
            + b64(certPem)
            + "\n"
            + "    client-key-data: "
            + b64(keyPem)
            + "\n");
  }

  /** A kubeconfig that authenticates with a bearer token. */
  public static String withToken(String server, String caPem, String token) {
    if (token.isBlank() || token.chars().anyMatch(c -> c <= ' ' || c == '"' || c == '\\')) {
      throw new IllegalArgumentException(
          "token is empty or has characters a bearer token cannot have");
    }
    return document(server, caPem, "    token: \"" + token + "\"\n");
  }

  private static String document(String server, String caPem, String userBlock) {
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: hami-e2e\n"
        + "  cluster:\n"
        + "    server: "
        + server
        + "\n"
        + "    certificate-authority-data: "
        + b64(caPem)
        + "\n"
        + "users:\n"
        + "- name: user\n"
        + "  user:\n"
        + userBlock
        + "contexts:\n"
        + "- name: hami-e2e\n"
        + "  context:\n"
        + "    cluster: hami-e2e\n"
        + "    user: user\n"
        + "    namespace: default\n"
        + "current-context: hami-e2e\n";
  }

  private static String b64(String pem) {
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
  }
}
