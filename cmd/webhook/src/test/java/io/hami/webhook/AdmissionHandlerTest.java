package io.hami.webhook;

import static io.hami.webhook.Fixtures.ctr;
import static io.hami.webhook.Fixtures.json;
import static io.hami.webhook.Fixtures.pod;
import static io.hami.webhook.Fixtures.raw;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.webhook.Fixtures.FakeCluster;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class AdmissionHandlerTest {

  private final AdmissionHandler handler =
      new AdmissionHandler(new PodAdmission(WebhookConfig.defaults(), new FakeCluster()));

  static String review(String apiVersion, String operation, String kind, Pod pod) {
    ObjectNode r = (ObjectNode) json("{}");
    r.put("apiVersion", apiVersion).put("kind", "AdmissionReview");
    ObjectNode req = r.putObject("request");
    req.put("uid", "0d1b-42").put("operation", operation).put("namespace", "team");
    req.putObject("kind").put("group", "").put("version", "v1").put("kind", kind);
    req.putObject("resource").put("group", "").put("version", "v1").put("resource", "pods");
    req.set("object", raw(pod));
    return r.toString();
  }

  private AdmissionHandler.Reply handle(String body) {
    return handler.handle(body.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode body(AdmissionHandler.Reply reply) {
    return json(new String(reply.body(), StandardCharsets.UTF_8));
  }

  @Test
  void gpuPod_getsBase64JsonPatch() {
    AdmissionHandler.Reply reply =
        handle(
            review("admission.k8s.io/v1", "CREATE", "Pod", pod("p").ctr(ctr("c").gpus(1)).build()));

    assertThat(reply.status()).isEqualTo(200);
    JsonNode out = body(reply);
    assertThat(out.path("apiVersion").asString()).isEqualTo("admission.k8s.io/v1");
    assertThat(out.path("kind").asString()).isEqualTo("AdmissionReview");
    JsonNode response = out.path("response");
    assertThat(response.path("uid").asString()).isEqualTo("0d1b-42");
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("patchType").asString()).isEqualTo("JSONPatch");
    JsonNode patch =
        json(
            new String(
                Base64.getDecoder().decode(response.path("patch").asString()),
                StandardCharsets.UTF_8));
    assertThat(patch.toString()).contains("/spec/schedulerName").contains("nvidia.com~1gpucores");
  }

  @Test
  void v1beta1_isAnsweredInKind() {
    JsonNode out =
        body(
            handle(
                review(
                    "admission.k8s.io/v1beta1", "CREATE", "Pod", pod("p").ctr(ctr("c")).build())));
    assertThat(out.path("apiVersion").asString()).isEqualTo("admission.k8s.io/v1beta1");
    assertThat(out.path("response").path("allowed").asBoolean()).isTrue();
    assertThat(out.path("response").has("patch")).isFalse();
  }

  @Test
  void denial_carriesCodeAndMessage() {
    JsonNode response =
        body(handle(
                review(
                    "admission.k8s.io/v1",
                    "CREATE",
                    "Pod",
                    pod("p").ctr(ctr("c").gpus(1).gpumem("16Gi")).build())))
            .path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(400);
    assertThat(response.path("status").path("reason").asString()).isEqualTo("BadRequest");
    assertThat(response.path("status").path("message").asString())
        .contains("container c: nvidia.com/gpumem=16Gi");
    assertThat(response.has("patch")).isFalse();
  }

  record Passthrough(String name, String operation, String kind) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Passthrough> passthroughs() {
    return Stream.of(
        new Passthrough("pod update", "UPDATE", "Pod"),
        new Passthrough("pod delete", "DELETE", "Pod"),
        new Passthrough("not a pod", "CREATE", "Deployment"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("passthroughs")
  void otherRequests_areAllowedUnchanged(Passthrough p) {
    JsonNode response =
        body(handle(
                review(
                    "admission.k8s.io/v1",
                    p.operation(),
                    p.kind(),
                    pod("p").ctr(ctr("c").gpus(1)).build())))
            .path("response");
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.has("patch")).isFalse();
  }

  record BadBody(String name, String body, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadBody> badBodies() {
    return Stream.of(
        new BadBody("not JSON", "{\"apiVersion\":", "not JSON"),
        new BadBody("empty", "", "not a JSON object"),
        new BadBody(
            "wrong kind",
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
            "expected kind AdmissionReview"),
        new BadBody(
            "no uid",
            "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{}}",
            "no request.uid"),
        new BadBody("array", "[1,2]", "not a JSON object"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badBodies")
  void badBodies_are400(BadBody b) {
    AdmissionHandler.Reply reply = handle(b.body());
    assertThat(reply.status()).isEqualTo(400);
    assertThat(new String(reply.body(), StandardCharsets.UTF_8)).contains(b.message());
  }

  @Test
  void podCreationWithoutObject_isDenied() {
    String body =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
            + "\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"}}}";
    JsonNode response = body(handle(body)).path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("message").asString()).contains("no request.object");
  }

  @Test
  void malformedPodObject_isDeniedNotCrashed() {
    String body =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
            + "\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"},"
            + "\"object\":{\"spec\":{\"containers\":\"not-a-list\"}}}}";
    JsonNode response = body(handle(body)).path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("message").asString()).contains("cannot be decoded");
  }
}
