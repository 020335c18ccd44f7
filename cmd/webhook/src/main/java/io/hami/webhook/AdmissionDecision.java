package io.hami.webhook;

import java.util.List;
import tools.jackson.databind.node.ArrayNode;

/** What the webhook answers for one pod: admit it (with a possibly empty patch) or refuse it. */
public sealed interface AdmissionDecision
    permits AdmissionDecision.Allowed, AdmissionDecision.Denied {

  /**
   * Admit the pod.
   *
   * @param patch RFC 6902 operations against the submitted pod; empty for "unchanged"
   * @param warnings shown to the user by kubectl
   */
  record Allowed(ArrayNode patch, List<String> warnings) implements AdmissionDecision {
    public Allowed {
      patch = patch.deepCopy();
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * Refuse the pod.
   *
   * @param code HTTP status code carried in the response status (400 for invalid values, 403 for
   *     policy)
   * @param message why, naming the container, resource and value
   */
  record Denied(int code, String message) implements AdmissionDecision {}

  static Denied invalid(String message) {
    return new Denied(400, message);
  }

  static Denied forbidden(String message) {
    return new Denied(403, message);
  }
}
