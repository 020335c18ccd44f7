package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** ServiceAccount tokens are signed and checked, and RBAC grants exactly what a Role says. */
@ExtendWith(ControlPlaneExtension.class)
class RbacE2E {

  private static String tokenFor(KubernetesClient admin, TestNamespace ns, String account) {
    admin
        .serviceAccounts()
        .inNamespace(ns.name())
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName(account).endMetadata().build())
        .create();
    return admin
        .serviceAccounts()
        .inNamespace(ns.name())
        .withName(account)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  @Test
  void tokenWithoutPermissions_isRefused(
      ControlPlane cp, KubernetesClient admin, TestNamespace ns) {
    String token = tokenFor(admin, ns, "nobody");

    try (KubernetesClient nobody = cp.newTokenClient(token)) {
      assertThatThrownBy(() -> nobody.pods().inNamespace(ns.name()).list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403))
          .hasMessageContaining("system:serviceaccount:" + ns.name() + ":nobody");
    }
  }

  @Test
  void forgedToken_isUnauthenticated(ControlPlane cp, TestNamespace ns) throws Exception {
    String forged = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06YWRtaW4ifQ.c2lnbmF0dXJl";

    HttpResponse<String> response = cp.httpGet("/api/v1/namespaces/" + ns.name() + "/pods", forged);

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).contains("Unauthorized");
  }

  @Test
  void validToken_isAuthenticatedAsItsServiceAccount(
      ControlPlane cp, KubernetesClient admin, TestNamespace ns) {
    String token = tokenFor(admin, ns, "whoami");

    try (KubernetesClient client = cp.newTokenClient(token)) {
      String review =
          client.raw(
              "/apis/authentication.k8s.io/v1/selfsubjectreviews",
              "POST",
              Map.of("apiVersion", "authentication.k8s.io/v1", "kind", "SelfSubjectReview"));
      assertThat(review)
          .contains("\"username\":\"system:serviceaccount:" + ns.name() + ":whoami\"")
          .contains("system:serviceaccounts:" + ns.name());
    }
  }

  @Test
  void roleBinding_grantsExactlyTheRole(ControlPlane cp, KubernetesClient admin, TestNamespace ns) {
    String token = tokenFor(admin, ns, "reader");
    admin
        .rbac()
        .roles()
        .inNamespace(ns.name())
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("pod-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("pods")
                .withVerbs("get", "list", "watch")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .roleBindings()
        .inNamespace(ns.name())
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("reader-reads-pods")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("pod-reader")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("reader")
                .withNamespace(ns.name())
                .endSubject()
                .build())
        .create();

    try (KubernetesClient reader = cp.newTokenClient(token)) {
      // The authorizer sees new bindings through its informer, a moment after the write.
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptionsMatching(
              e -> e instanceof KubernetesClientException k && k.getCode() == 403)
          .untilAsserted(
              () -> assertThat(reader.pods().inNamespace(ns.name()).list().getItems()).isEmpty());

      assertThatThrownBy(
              () ->
                  reader
                      .pods()
                      .inNamespace(ns.name())
                      .resource(
                          new PodBuilder()
                              .withNewMetadata()
                              .withName("not-allowed")
                              .endMetadata()
                              .withNewSpec()
                              .addNewContainer()
                              .withName("c")
                              .withImage("busybox")
                              .endContainer()
                              .endSpec()
                              .build())
                      .create())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(() -> reader.pods().inNamespace("default").list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(() -> reader.nodes().list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
  }
}
