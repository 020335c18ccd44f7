package io.hami.webhook;

import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the smallest RFC 6902 patch that applies a few field-level edits to a pod exactly as the
 * API server sent it. Each edit is applied to a working copy as it is recorded, so later edits see
 * earlier ones (a second env var after the first created the list becomes an append), and an edit
 * that changes nothing records nothing.
 *
 * <p>Edits work on the raw JSON rather than on a re-serialised model object so that fields this
 * code does not know, and the exact form of existing values, never show up in the patch.
 */
final class PodPatch {

  /** Which container list and which position in it. */
  record ContainerRef(boolean init, int index, String name) {
    String path() {
      return "/spec/" + (init ? "initContainers" : "containers") + "/" + index;
    }
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ObjectNode pod;
  private final ArrayNode ops = NODES.arrayNode();

  PodPatch(ObjectNode original) {
    this.pod = original.deepCopy();
  }

  /** Sets {@code resources.limits[resource]} to the given quantity. */
  void setLimit(ContainerRef ref, String resource, String quantity) {
    ObjectNode container = container(ref);
    JsonNode resources = container.get("resources");
    if (!(resources instanceof ObjectNode res)) {
      ObjectNode value = NODES.objectNode();
      value.putObject("limits").put(resource, quantity);
      add(ref.path() + "/resources", value);
      container.set("resources", value.deepCopy());
      return;
    }
    JsonNode limits = res.get("limits");
    if (!(limits instanceof ObjectNode lim)) {
      ObjectNode value = NODES.objectNode().put(resource, quantity);
      add(ref.path() + "/resources/limits", value);
      res.set("limits", value.deepCopy());
      return;
    }
    JsonNode existing = lim.get(resource);
    if (existing != null && existing.isString() && existing.stringValue().equals(quantity)) {
      return;
    }
    add(ref.path() + "/resources/limits/" + escape(resource), NODES.stringNode(quantity));
    lim.put(resource, quantity);
  }

  /**
   * Sets an env var to a literal value: appended if absent, replaced in place if present with
   * another value or a {@code valueFrom}, untouched if already right.
   */
  void setEnv(ContainerRef ref, String name, String value) {
    ObjectNode container = container(ref);
    ObjectNode entry = NODES.objectNode().put("name", name).put("value", value);
    JsonNode env = container.get("env");
    if (!(env instanceof ArrayNode list)) {
      ArrayNode fresh = NODES.arrayNode().add(entry);
      add(ref.path() + "/env", fresh);
      container.set("env", fresh.deepCopy());
      return;
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode e = list.get(i);
      if (name.equals(e.path("name").asString(null))) {
        if (value.equals(e.path("value").asString(null)) && !e.has("valueFrom")) {
          return;
        }
        op("replace", ref.path() + "/env/" + i, entry);
        list.set(i, entry.deepCopy());
        return;
      }
    }
    add(ref.path() + "/env/-", entry);
    list.add(entry.deepCopy());
  }

  /** Sets a string field directly under {@code spec}. */
  void setSpecField(String field, String value) {
    ObjectNode spec = spec();
    JsonNode existing = spec.get(field);
    if (existing != null && existing.isString() && existing.stringValue().equals(value)) {
      return;
    }
    add("/spec/" + escape(field), NODES.stringNode(value));
    spec.put(field, value);
  }

  boolean isEmpty() {
    return ops.isEmpty();
  }

  /** The operations recorded so far (a copy). */
  ArrayNode operations() {
    return ops.deepCopy();
  }

  /** The pod with every edit applied (a copy). */
  ObjectNode patched() {
    return pod.deepCopy();
  }

  private void add(String path, JsonNode value) {
    op("add", path, value);
  }

  private void op(String op, String path, JsonNode value) {
    ops.addObject().put("op", op).put("path", path).set("value", value.deepCopy());
  }

  private ObjectNode spec() {
    JsonNode spec = pod.get("spec");
    if (!(spec instanceof ObjectNode s)) {
      throw new IllegalArgumentException("pod has no spec object");
    }
    return s;
  }

  private ObjectNode container(ContainerRef ref) {
    JsonNode list = spec().get(ref.init() ? "initContainers" : "containers");
    JsonNode c = list instanceof ArrayNode a && ref.index() < a.size() ? a.get(ref.index()) : null;
    if (!(c instanceof ObjectNode container)
        || !Objects.equals(ref.name(), container.path("name").asString(null))) {
      throw new IllegalArgumentException("no container " + ref.name() + " at " + ref.path());
    }
    return container;
  }

  /** RFC 6901: {@code ~} becomes {@code ~0} and {@code /} becomes {@code ~1}. */
  static String escape(String token) {
    return token.replace("~", "~0").replace("/", "~1");
  }
}
