package io.hami.model.pod;

import io.hami.model.Decoded;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The {@code hami.io/vgpu-mig-allocations} JSON: {@code [{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-aaa",
 * "profile":"1g.10gb","placement":{"start":0,"size":1}}]}, plus {@code migUUID}, {@code gpuInstanceID} and
 * {@code computeInstanceID} once the node agent created the instance.
 */
public final class MigAllocationJson {

  private MigAllocationJson() {}

  /** Encodes the allocations. */
  public static String encode(List<MigAllocation> allocations) {
    StringBuilder b = new StringBuilder(allocations.size() * 160).append('[');
    for (int i = 0; i < allocations.size(); i++) {
      MigAllocation a = allocations.get(i);
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"containerIndex\":").append(a.containerIndex());
      b.append(",\"deviceIndex\":").append(a.deviceIndex());
      b.append(",\"gpuUUID\":");
      GoJson.appendString(b, a.gpuUuid());
      b.append(",\"profile\":");
      GoJson.appendString(b, a.profile());
      b.append(",\"placement\":{\"start\":").append(a.placement().start()).append(",\"size\":")
          .append(a.placement().size()).append('}');
      if (a.runtime().isPresent()) {
        MigAllocation.Runtime r = a.runtime().get();
        b.append(",\"migUUID\":");
        GoJson.appendString(b, r.migUuid());
        b.append(",\"gpuInstanceID\":").append(r.gpuInstanceId());
        b.append(",\"computeInstanceID\":").append(r.computeInstanceId());
      }
      b.append('}');
    }
    return b.append(']').toString();
  }

  /** Decodes the annotation; runtime fields must come all three or not at all. */
  public static Decoded<List<MigAllocation>> decode(String json) {
    return GoJson.parse("", json).flatMap(MigAllocationJson::allocations);
  }

  private static Decoded<List<MigAllocation>> allocations(JsonNode root) {
    if (root.isNull()) {
      return Decoded.ok(List.of());
    }
    if (!root.isArray()) {
      return Decoded.err("", root.toString(), "MIG allocations must be a JSON array");
    }
    List<MigAllocation> out = new ArrayList<>();
    int i = 0;
    for (JsonNode n : root.values()) {
      Decoded<MigAllocation> d = allocation(n).within("[" + i++ + "]");
      if (d instanceof Decoded.Err<MigAllocation> e) {
        return Decoded.err(e.error());
      }
      out.add(((Decoded.Ok<MigAllocation>) d).value());
    }
    return Decoded.ok(List.copyOf(out));
  }

  private static Decoded<MigAllocation> allocation(JsonNode n) {
    if (!n.isObject()) {
      return Decoded.err("", n.toString(), "MIG allocation must be a JSON object");
    }
    Decoded<Integer> ci = GoJson.int32(GoJson.property(n, "containerindex"), "containerIndex");
    Decoded<Integer> di = GoJson.int32(GoJson.property(n, "deviceindex"), "deviceIndex");
    Decoded<String> gpu = GoJson.string(GoJson.property(n, "gpuuuid"), "gpuUUID");
    Decoded<String> profile = GoJson.string(GoJson.property(n, "profile"), "profile");
    JsonNode pl = GoJson.property(n, "placement");
    Decoded<MigPlacement> placement =
        pl == null || pl.isNull()
            ? Decoded.ok(new MigPlacement(0, 0))
            : NodeDeviceJson.placement(pl).within("placement");
    JsonNode migNode = GoJson.property(n, "miguuid");
    JsonNode giNode = GoJson.property(n, "gpuinstanceid");
    JsonNode ciNode = GoJson.property(n, "computeinstanceid");
    Decoded<String> mig = GoJson.string(migNode, "migUUID");
    Decoded<Integer> gi = GoJson.int32(giNode, "gpuInstanceID");
    Decoded<Integer> cid = GoJson.int32(ciNode, "computeInstanceID");
    for (Decoded<?> d : List.of(ci, di, gpu, profile, placement, mig, gi, cid)) {
      if (d instanceof Decoded.Err<?> e) {
        return Decoded.err(e.error());
      }
    }
    int present = (isSet(migNode) ? 1 : 0) + (isSet(giNode) ? 1 : 0) + (isSet(ciNode) ? 1 : 0);
    if (present != 0 && present != 3) {
      return Decoded.err("migUUID", n.toString(), "migUUID, gpuInstanceID and computeInstanceID must come together");
    }
    Optional<MigAllocation.Runtime> runtime =
        present == 3 ? Optional.of(new MigAllocation.Runtime(mig.orElse(""), gi.orElse(0), cid.orElse(0)))
            : Optional.empty();
    return Decoded.ok(new MigAllocation(ci.orElse(0), di.orElse(0), gpu.orElse(""), profile.orElse(""),
        placement.orElse(new MigPlacement(0, 0)), runtime));
  }

  private static boolean isSet(JsonNode n) {
    return n != null && !n.isNull();
  }
}
