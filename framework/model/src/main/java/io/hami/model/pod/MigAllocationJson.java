package io.hami.model.pod;

import io.hami.model.Decoded;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code hami.io/vgpu-mig-allocations} JSON: {@code
 * [{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-aaa",
 * "profile":"1g.10gb","placement":{"start":0,"size":1}}]}, plus {@code migUUID}, {@code
 * gpuInstanceID} and {@code computeInstanceID} once the node agent created the instance.
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
      b.append(",\"placement\":{\"start\":")
          .append(a.placement().start())
          .append(",\"size\":")
          .append(a.placement().size())
          .append('}');
      if (a.runtime().isPresent()) {
        MigAllocation.Instance r = a.runtime().get();
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
    return GoJson.parse(json).flatMap(MigAllocationJson::allocations);
  }

  private static Decoded<List<MigAllocation>> allocations(Object root) {
    Decoded<List<Object>> arr = GoJson.array(root, "");
    if (arr instanceof Decoded.Err<List<Object>> e) {
      return Decoded.err(e.error());
    }
    List<Object> list = arr.orElse(List.of());
    List<MigAllocation> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Decoded<MigAllocation> d = allocation(list.get(i));
      if (d instanceof Decoded.Err<MigAllocation> e) {
        return Decoded.err(e.error().within("[" + i + "]"));
      }
      out.add(((Decoded.Ok<MigAllocation>) d).value());
    }
    return Decoded.ok(List.copyOf(out));
  }

  private static Decoded<MigAllocation> allocation(Object v) {
    if (!(v instanceof GoJson.Obj n)) {
      return Decoded.err("", GoJson.render(v), "MIG allocation must be a JSON object");
    }
    Decoded<Integer> ci = GoJson.int32(n.get("containerindex"), "containerIndex");
    Decoded<Integer> di = GoJson.int32(n.get("deviceindex"), "deviceIndex");
    Decoded<String> gpu = GoJson.string(n.get("gpuuuid"), "gpuUUID");
    Decoded<String> profile = GoJson.string(n.get("profile"), "profile");
    Object pl = n.get("placement");
    Decoded<MigPlacement> placement =
        pl == null || GoJson.isNull(pl)
            ? Decoded.ok(new MigPlacement(0, 0))
            : NodeDeviceJson.placement(pl).within("placement");
    Object migNode = n.get("miguuid");
    Object giNode = n.get("gpuinstanceid");
    Object ciNode = n.get("computeinstanceid");
    Decoded<String> mig = GoJson.string(migNode, "migUUID");
    Decoded<Integer> gi = GoJson.int32(giNode, "gpuInstanceID");
    Decoded<Integer> cid = GoJson.int32(ciNode, "computeInstanceID");
    for (Decoded<?> d : List.of(ci, di, gpu, profile, placement, mig, gi, cid)) {
      if (d instanceof Decoded.Err<?> e) {
        return Decoded.err(e.error());
      }
    }
    int present =
        (GoJson.isNull(migNode) ? 0 : 1)
            + (GoJson.isNull(giNode) ? 0 : 1)
            + (GoJson.isNull(ciNode) ? 0 : 1);
    if (present != 0 && present != 3) {
      return Decoded.err(
          "migUUID",
          GoJson.render(n),
          "migUUID, gpuInstanceID and computeInstanceID must come together");
    }
    Optional<MigAllocation.Instance> runtime =
        present == 3
            ? Optional.of(new MigAllocation.Instance(mig.orElse(""), gi.orElse(0), cid.orElse(0)))
            : Optional.empty();
    return Decoded.ok(
        new MigAllocation(
            ci.orElse(0),
            di.orElse(0),
            gpu.orElse(""),
            profile.orElse(""),
            placement.orElse(new MigPlacement(0, 0)),
            runtime));
  }
}
