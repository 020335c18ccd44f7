package io.hami.webhook;

import static io.hami.webhook.Fixtures.ctr;
import static io.hami.webhook.Fixtures.namespace;
import static io.hami.webhook.Fixtures.pod;
import static io.hami.webhook.Fixtures.quota;
import static io.hami.webhook.Fixtures.raw;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The API-backed lookups against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
class ApiClusterLookupIT {

  KubernetesClient client;

  private final AtomicLong nanos = new AtomicLong();
  private final Ticker ticker = nanos::get;

  @Test
  void namespaceLabels_areCachedForThirtySeconds() {
    client.namespaces().resource(namespace("team", "a", "1")).create();
    ApiClusterLookup lookup = new ApiClusterLookup(client, ticker);

    assertThat(lookup.namespaceLabels("team")).contains(Map.of("a", "1"));
    assertThat(lookup.namespaceLabels("absent")).isEmpty();

    client
        .namespaces()
        .withName("team")
        .edit(
            n -> {
              n.getMetadata().getLabels().put("hami.io/webhook", "ignore");
              return n;
            });
    assertThat(lookup.namespaceLabels("team")).contains(Map.of("a", "1"));
    nanos.addAndGet(ApiClusterLookup.NAMESPACE_TTL.plus(Duration.ofSeconds(1)).toNanos());
    assertThat(lookup.namespaceLabels("team").orElseThrow())
        .containsEntry("hami.io/webhook", "ignore");
  }

  @Test
  void quotasAndPods_areReadPerNamespace() {
    client
        .resourceQuotas()
        .inNamespace("team")
        .resource(quota("gpu", "limits.nvidia.com/gpumem", "1000"))
        .create();
    client.pods().inNamespace("team").resource(pod("a").ctr(ctr("c").gpus(1)).build()).create();
    ApiClusterLookup lookup = new ApiClusterLookup(client, ticker);

    assertThat(lookup.quotas("team"))
        .extracting(q -> q.getMetadata().getName())
        .containsExactly("gpu");
    assertThat(lookup.quotas("other")).isEmpty();
    assertThat(lookup.pods("team")).extracting(p -> p.getMetadata().getName()).containsExactly("a");
  }

  @Test
  void admission_againstTheApi_enforcesQuotaAndIgnoreLabel() {
    client.namespaces().resource(namespace("team")).create();
    client.namespaces().resource(namespace("skip", "hami.io/webhook", "ignore")).create();
    client
        .resourceQuotas()
        .inNamespace("team")
        .resource(quota("gpu", "limits.nvidia.com/gpumem", "8000"))
        .create();
    client
        .pods()
        .inNamespace("team")
        .resource(pod("running").ctr(ctr("c").gpus(1).gpumem("6000")).build())
        .create();
    PodAdmission admission =
        new PodAdmission(WebhookConfig.defaults(), new ApiClusterLookup(client, ticker));

    AdmissionDecision over =
        admission.admit("team", raw(pod("new").ctr(ctr("c").gpus(1).gpumem("3000")).build()));
    assertThat(over).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) over).message())
        .contains("requested 3000 MiB", "used 6000 MiB", "limited 8000 MiB");

    AdmissionDecision fits =
        admission.admit("team", raw(pod("new").ctr(ctr("c").gpus(1).gpumem("2000")).build()));
    assertThat(fits).isInstanceOf(AdmissionDecision.Allowed.class);
    assertThat(((AdmissionDecision.Allowed) fits).patch()).isNotEmpty();

    assertThat(admission.admit("skip", raw(pod("x").ctr(ctr("c").gpus(1)).build())))
        .isEqualTo(PodAdmission.UNCHANGED);
  }
}
