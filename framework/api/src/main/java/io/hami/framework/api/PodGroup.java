package io.hami.framework.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@code scheduling.k8s.io/v1alpha2} PodGroup (Kubernetes v1.36): the group a pod names in {@code
 * spec.schedulingGroup.podGroupName}, and its scheduling policy. fabric8 8.0.0 ships only v1alpha3,
 * so the fields the scheduler reads are modelled here; every other field of the object is kept in
 * {@link Spec#other} and friends, so that a field the scheduler does not implement is refused by
 * name instead of ignored.
 *
 * <p>Objects handed out by listers are shared and must not be mutated.
 */
@Group(PodGroup.GROUP)
@Version(PodGroup.VERSION)
@Kind("PodGroup")
@Plural("podgroups")
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "spec", "status"})
@JsonIgnoreProperties(ignoreUnknown = true)
public final class PodGroup implements HasMetadata, Namespaced {
  public static final String GROUP = "scheduling.k8s.io";
  public static final String VERSION = "v1alpha2";

  private String apiVersion = GROUP + "/" + VERSION;
  private String kind = "PodGroup";
  private @Nullable ObjectMeta metadata;
  private @Nullable Spec spec;
  private @Nullable Object status;

  public PodGroup() {}

  /** A PodGroup called {@code name} in {@code namespace} with the given spec. */
  public static PodGroup of(String namespace, String name, Spec spec) {
    PodGroup g = new PodGroup();
    ObjectMeta m = new ObjectMeta();
    m.setNamespace(namespace);
    m.setName(name);
    g.setMetadata(m);
    g.setSpec(spec);
    return g;
  }

  /** A gang PodGroup: all-or-nothing for at least {@code minCount} pods. */
  public static PodGroup gang(String namespace, String name, int minCount) {
    SchedulingPolicy p = new SchedulingPolicy();
    p.setGang(new GangPolicy(minCount));
    Spec s = new Spec();
    s.setSchedulingPolicy(p);
    return of(namespace, name, s);
  }

  /** A basic PodGroup: its pods are scheduled one by one, as if they had no group. */
  public static PodGroup basic(String namespace, String name) {
    SchedulingPolicy p = new SchedulingPolicy();
    p.setBasic(Map.of());
    Spec s = new Spec();
    s.setSchedulingPolicy(p);
    return of(namespace, name, s);
  }

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  // HasMetadata declares no nullness: a PodGroup read from the API always has metadata.
  @SuppressWarnings("NullAway")
  @Override
  public ObjectMeta getMetadata() {
    return metadata;
  }

  @Override
  public void setMetadata(ObjectMeta metadata) {
    this.metadata = metadata;
  }

  public @Nullable Spec getSpec() {
    return spec;
  }

  public void setSpec(@Nullable Spec spec) {
    this.spec = spec;
  }

  public @Nullable Object getStatus() {
    return status;
  }

  public void setStatus(@Nullable Object status) {
    this.status = status;
  }

  @Override
  public String toString() {
    return "PodGroup("
        + (metadata == null ? "?" : metadata.getNamespace() + "/" + metadata.getName())
        + ", "
        + spec
        + ")";
  }

  /** {@code spec}: the fields the scheduler reads, and every other one in {@link #other}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Spec {
    private @Nullable SchedulingPolicy schedulingPolicy;
    private @Nullable Integer priority;
    private final Map<String, Object> other = new LinkedHashMap<>();

    public @Nullable SchedulingPolicy getSchedulingPolicy() {
      return schedulingPolicy;
    }

    public void setSchedulingPolicy(@Nullable SchedulingPolicy schedulingPolicy) {
      this.schedulingPolicy = schedulingPolicy;
    }

    /** {@code spec.priority}, resolved by admission from {@code priorityClassName}. */
    public @Nullable Integer getPriority() {
      return priority;
    }

    public void setPriority(@Nullable Integer priority) {
      this.priority = priority;
    }

    /**
     * The other fields of the spec by JSON name ({@code podGroupTemplateRef}, {@code
     * schedulingConstraints}, {@code resourceClaims}, {@code disruptionMode}, {@code
     * priorityClassName}, ...), as decoded JSON.
     */
    @JsonAnyGetter
    public Map<String, Object> getOther() {
      return other;
    }

    @JsonAnySetter
    public void setOther(String name, Object value) {
      other.put(name, value);
    }

    @Override
    public String toString() {
      return "Spec(schedulingPolicy="
          + schedulingPolicy
          + ", priority="
          + priority
          + ", other="
          + other
          + ")";
    }
  }

  /** {@code spec.schedulingPolicy}: exactly one of {@code basic} and {@code gang}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class SchedulingPolicy {
    private @Nullable Map<String, Object> basic;
    private @Nullable GangPolicy gang;
    private final Map<String, Object> other = new LinkedHashMap<>();

    public @Nullable Map<String, Object> getBasic() {
      return basic;
    }

    public void setBasic(@Nullable Map<String, Object> basic) {
      this.basic = basic;
    }

    public @Nullable GangPolicy getGang() {
      return gang;
    }

    public void setGang(@Nullable GangPolicy gang) {
      this.gang = gang;
    }

    /** Policy fields other than {@code basic} and {@code gang}. */
    @JsonAnyGetter
    public Map<String, Object> getOther() {
      return other;
    }

    @JsonAnySetter
    public void setOther(String name, Object value) {
      other.put(name, value);
    }

    @Override
    public String toString() {
      return "SchedulingPolicy(basic=" + basic + ", gang=" + gang + ", other=" + other + ")";
    }
  }

  /** {@code spec.schedulingPolicy.gang}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class GangPolicy {
    private @Nullable Integer minCount;
    private final Map<String, Object> other = new LinkedHashMap<>();

    public GangPolicy() {}

    public GangPolicy(int minCount) {
      this.minCount = minCount;
    }

    /** The quorum: how many pods must have a place before any of them binds. */
    public @Nullable Integer getMinCount() {
      return minCount;
    }

    public void setMinCount(@Nullable Integer minCount) {
      this.minCount = minCount;
    }

    @JsonAnyGetter
    public Map<String, Object> getOther() {
      return other;
    }

    @JsonAnySetter
    public void setOther(String name, Object value) {
      other.put(name, value);
    }

    @Override
    public String toString() {
      return "Gang(minCount=" + minCount + ", other=" + other + ")";
    }
  }
}
