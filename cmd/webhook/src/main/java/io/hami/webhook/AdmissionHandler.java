package io.hami.webhook;

import com.google.common.collect.ImmutableSet;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns an {@code AdmissionReview} request body into the response body. Requests that are not pod
 * creations are admitted unchanged, so a broader webhook registration does no harm.
 *
 * <p>Thread-safe: holds no per-request state.
 */
final class AdmissionHandler {

  private static final Logger log = LoggerFactory.getLogger(AdmissionHandler.class);

  private static final ImmutableSet<String> VERSIONS =
      ImmutableSet.of("admission.k8s.io/v1", "admission.k8s.io/v1beta1");

  /** An HTTP answer: status code and JSON body. */
  // The body is serialised once and written straight to the exchange; nothing compares or keeps
  // replies, so a defensive copy would only cost.
  @SuppressWarnings("ArrayRecordComponent")
  record Reply(int status, byte[] body) {
    static Reply badRequest(String message) {
      return new Reply(400, message.getBytes(StandardCharsets.UTF_8));
    }
  }

  private final PodAdmission admission;
  private final JsonMapper json = JsonMapper.builder().build();
  // Costly to build (it scans for model classes) and thread-safe: one for all.
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  AdmissionHandler(PodAdmission admission) {
    this.admission = admission;
  }

  Reply handle(byte[] body) {
    JsonNode review;
    try {
      review = json.readTree(body);
    } catch (JacksonException e) {
      return Reply.badRequest("request body is not JSON: " + e.getOriginalMessage());
    }
    if (!review.isObject()) {
      return Reply.badRequest("request body is not a JSON object (expected an AdmissionReview)");
    }
    String apiVersion = review.path("apiVersion").asString("");
    if (!VERSIONS.contains(apiVersion)
        || !"AdmissionReview".equals(review.path("kind").asString(""))) {
      return Reply.badRequest(
          "expected kind AdmissionReview in admission.k8s.io/v1 or v1beta1, got kind="
              + review.path("kind").asString("")
              + " apiVersion="
              + apiVersion);
    }
    JsonNode request = review.path("request");
    String uid = request.path("uid").asString("");
    if (uid.isEmpty()) {
      return Reply.badRequest("AdmissionReview has no request.uid");
    }
    AdmissionDecision decision = decide(request);
    return new Reply(200, encode(apiVersion, uid, decision));
  }

  private AdmissionDecision decide(JsonNode request) {
    JsonNode kind = request.path("kind");
    boolean isPod =
        "Pod".equals(kind.path("kind").asString(""))
            && kind.path("group").asString("").isEmpty()
            && request.path("subResource").asString("").isEmpty();
    if (!isPod || !"CREATE".equals(request.path("operation").asString(""))) {
      return PodAdmission.UNCHANGED;
    }
    if (!(request.get("object") instanceof ObjectNode pod)) {
      return AdmissionDecision.invalid("AdmissionReview for a pod creation has no request.object");
    }
    String namespace = request.path("namespace").asString("");
    if (namespace.isEmpty()) {
      namespace = pod.path("metadata").path("namespace").asString("");
    }
    AdmissionDecision decision = admission.admit(namespace, pod);
    if (decision instanceof AdmissionDecision.Denied denied) {
      log.info(
          "pod denied namespace={} pod={} reason={}", namespace, podName(pod), denied.message());
    } else if (decision instanceof AdmissionDecision.Allowed allowed
        && !allowed.patch().isEmpty()) {
      log.debug(
          "pod mutated namespace={} pod={} patch={}", namespace, podName(pod), allowed.patch());
    }
    return decision;
  }

  private byte[] encode(String apiVersion, String uid, AdmissionDecision decision) {
    AdmissionResponseBuilder response = new AdmissionResponseBuilder().withUid(uid);
    if (decision instanceof AdmissionDecision.Allowed allowed) {
      response.withAllowed(true);
      if (!allowed.patch().isEmpty()) {
        response
            .withPatchType("JSONPatch")
            .withPatch(Base64.getEncoder().encodeToString(json.writeValueAsBytes(allowed.patch())));
      }
      if (!allowed.warnings().isEmpty()) {
        response.withWarnings(allowed.warnings());
      }
    } else if (decision instanceof AdmissionDecision.Denied denied) {
      response
          .withAllowed(false)
          .withStatus(
              new StatusBuilder()
                  .withStatus("Failure")
                  .withCode(denied.code())
                  .withReason(denied.code() == 403 ? "Forbidden" : "BadRequest")
                  .withMessage(denied.message())
                  .build());
    }
    AdmissionResponse r = response.build();
    AdmissionReview out = new AdmissionReview();
    out.setApiVersion(apiVersion);
    out.setKind("AdmissionReview");
    out.setResponse(r);
    return SERIALIZATION.asJson(out).getBytes(StandardCharsets.UTF_8);
  }

  private static String podName(ObjectNode pod) {
    JsonNode meta = pod.path("metadata");
    String name = meta.path("name").asString("");
    return name.isEmpty() ? meta.path("generateName").asString("") + "*" : name;
  }
}
