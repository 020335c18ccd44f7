package io.hami.sim;

import com.google.common.base.Splitter;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.framework.api.Quantities;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;

/**
 * Reads a trace from Kubernetes objects (YAML or JSON, one or more documents, or a List).
 *
 * <p>Nodes: CPU and memory from {@code status.allocatable} (else capacity); GPUs from the {@code
 * hami.io/node-nvidia-register} annotation (JSON or colon form), one model per node. Pods: CPU and
 * memory requests summed over app containers; the GPU container's {@code nvidia.com/gpu} (limits,
 * then requests) gives k, and its share per GPU in thousandths is the larger of the core share
 * ({@code nvidia.com/gpucores} over the nodes' {@code devcore}, so a core scaling of 10 keeps
 * thousandths) and the memory share ({@code nvidia.com/gpumem-percentage} × 10, or {@code
 * nvidia.com/gpumem} MiB over the smallest device memory of the nodes), a whole GPU when no memory
 * is asked, as HAMi defaults it. {@code nvidia.com/use-gputype} gives the allowed models.
 */
public final class KubeObjects {

  public static final String REGISTER = "hami.io/node-nvidia-register";
  public static final String GPU = "nvidia.com/gpu";
  public static final String GPU_CORES = "nvidia.com/gpucores";
  public static final String GPU_MEM = "nvidia.com/gpumem";
  public static final String GPU_MEM_PERCENT = "nvidia.com/gpumem-percentage";
  public static final String USE_GPU_TYPE = "nvidia.com/use-gputype";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Device facts of a node list needed to read pod requests as shares. */
  public record DeviceUnits(int devcore, long minDevmemMiB) {
    public static final DeviceUnits DEFAULT = new DeviceUnits(100, 0);
  }

  private KubeObjects() {}

  static List<HasMetadata> objects(String text, String source) throws TraceFormatException {
    Object parsed;
    try {
      parsed = SERIALIZATION.unmarshal(text);
    } catch (RuntimeException e) {
      throw new TraceFormatException(
          source + ": not Kubernetes YAML or JSON: " + e.getMessage(), e);
    }
    List<HasMetadata> out = new ArrayList<>();
    collect(parsed, out, source);
    return out;
  }

  private static void collect(Object o, List<HasMetadata> out, String source)
      throws TraceFormatException {
    if (o == null) {
      return;
    }
    if (o instanceof KubernetesList list) {
      for (HasMetadata h : list.getItems()) {
        collect(h, out, source);
      }
    } else if (o instanceof List<?> list) {
      for (Object x : list) {
        collect(x, out, source);
      }
    } else if (o instanceof HasMetadata h) {
      out.add(h);
    } else {
      throw new TraceFormatException(
          source + ": unexpected document of type " + o.getClass().getSimpleName());
    }
  }

  /** Reads Node objects; other kinds are ignored. */
  public static List<TraceNode> readNodes(String text, String source) throws TraceFormatException {
    List<TraceNode> nodes = new ArrayList<>();
    for (HasMetadata h : objects(text, source)) {
      if (h instanceof Node n) {
        nodes.add(node(n, source));
      }
    }
    if (nodes.isEmpty()) {
      throw new TraceFormatException(source + ": no Node objects");
    }
    return nodes;
  }

  /** Device units of a node list: the common devcore and the smallest device memory. */
  public static DeviceUnits units(String text, String source) throws TraceFormatException {
    int devcore = -1;
    long minMem = Long.MAX_VALUE;
    for (HasMetadata h : objects(text, source)) {
      if (h instanceof Node n) {
        for (Device d : devices(n, source)) {
          if (devcore >= 0 && d.devcore != devcore) {
            throw new TraceFormatException(
                source
                    + ": node "
                    + name(n)
                    + ": devcore "
                    + d.devcore
                    + " differs from other nodes' "
                    + devcore
                    + "; the simulator needs one core unit");
          }
          devcore = d.devcore;
          minMem = Math.min(minMem, d.devmem);
        }
      }
    }
    return devcore < 0 ? DeviceUnits.DEFAULT : new DeviceUnits(devcore, minMem);
  }

  private record Device(String type, long devmem, int devcore) {}

  private static TraceNode node(Node n, String source) throws TraceFormatException {
    String name = name(n);
    Map<String, Quantity> res = n.getStatus() == null ? null : n.getStatus().getAllocatable();
    if ((res == null || res.isEmpty()) && n.getStatus() != null) {
      res = n.getStatus().getCapacity();
    }
    if (res == null) {
      throw new TraceFormatException(
          source + ": node " + name + ": no status.allocatable or capacity");
    }
    long cpu = milli(res.get("cpu"), source, "node " + name, "status.allocatable.cpu");
    long mem = mebi(res.get("memory"), source, "node " + name, "status.allocatable.memory");
    List<Device> devices = devices(n, source);
    String model = "";
    for (Device d : devices) {
      if (!model.isEmpty() && !model.equals(d.type)) {
        throw new TraceFormatException(
            source
                + ": node "
                + name
                + ": annotation "
                + REGISTER
                + " mixes GPU types '"
                + model
                + "' and '"
                + d.type
                + "'; one model per node is supported");
      }
      model = d.type;
    }
    if (devices.size() > 8) {
      throw new TraceFormatException(
          source + ": node " + name + ": " + devices.size() + " GPUs; at most 8 supported");
    }
    return new TraceNode(name, cpu, mem, devices.size(), model);
  }

  private static List<Device> devices(Node n, String source) throws TraceFormatException {
    Map<String, String> ann = n.getMetadata().getAnnotations();
    String value = ann == null ? null : ann.get(REGISTER);
    if (value == null || value.isBlank()) {
      return List.of();
    }
    String where = source + ": node " + name(n) + ": annotation " + REGISTER;
    List<Device> out = new ArrayList<>();
    String v = value.trim();
    if (v.startsWith("[")) {
      List<Map<String, Object>> list;
      try {
        list = SERIALIZATION.unmarshal(v, new TypeReference<List<Map<String, Object>>>() {});
      } catch (RuntimeException e) {
        throw new TraceFormatException(where + ": not a JSON device list: " + e.getMessage(), e);
      }
      for (Map<String, Object> raw : list) {
        Map<String, Object> d = new HashMap<>();
        raw.forEach((k, x) -> d.put(k.toLowerCase(Locale.ROOT), x));
        if (Boolean.FALSE.equals(d.get("health")) || d.get("health") == null) {
          continue;
        }
        out.add(
            new Device(
                String.valueOf(d.getOrDefault("type", "")),
                number(d.get("devmem"), where, "devmem"),
                (int) number(d.get("devcore"), where, "devcore")));
      }
    } else {
      if (!v.contains(":")) {
        throw new TraceFormatException(where + ": node annotation missing device separator");
      }
      for (String piece : Splitter.on(':').omitEmptyStrings().split(v)) {
        String[] f = piece.split(",", -1);
        if (f.length != 7 && f.length != 9) {
          throw new TraceFormatException(
              where + ": unexpected field count " + f.length + " in '" + piece + "'");
        }
        if (!Boolean.parseBoolean(f[6].trim())
            && !f[6].trim().equals("1")
            && !f[6].trim().equalsIgnoreCase("t")) {
          continue;
        }
        out.add(
            new Device(f[4], number(f[2], where, "devmem"), (int) number(f[3], where, "devcore")));
      }
    }
    return out;
  }

  private static long number(@Nullable Object o, String where, String field)
      throws TraceFormatException {
    if (o instanceof Number x) {
      return x.longValue();
    }
    try {
      return Long.parseLong(String.valueOf(o).trim());
    } catch (NumberFormatException e) {
      throw new TraceFormatException(
          where + ": field " + field + " = '" + o + "' is not an integer");
    }
  }

  /** Reads Pod objects; other kinds are ignored. */
  public static List<TracePod> readPods(String text, String source, DeviceUnits units)
      throws TraceFormatException {
    List<TracePod> pods = new ArrayList<>();
    for (HasMetadata h : objects(text, source)) {
      if (h instanceof Pod p) {
        pods.add(pod(p, source, units));
      }
    }
    if (pods.isEmpty()) {
      throw new TraceFormatException(source + ": no Pod objects");
    }
    return pods;
  }

  private static TracePod pod(Pod p, String source, DeviceUnits units) throws TraceFormatException {
    String name =
        (p.getMetadata().getNamespace() == null ? "" : p.getMetadata().getNamespace() + "/")
            + name(p);
    String where = "pod " + name;
    if (p.getSpec() == null || p.getSpec().getContainers() == null) {
      throw new TraceFormatException(source + ": " + where + ": no spec.containers");
    }
    long cpu = 0;
    long mem = 0;
    int gpus = 0;
    int share = 0;
    for (Container c : p.getSpec().getContainers()) {
      String cw = where + " container " + c.getName();
      Map<String, Quantity> req = c.getResources() == null ? null : c.getResources().getRequests();
      Map<String, Quantity> lim = c.getResources() == null ? null : c.getResources().getLimits();
      cpu += milli(get(req, lim, "cpu"), source, cw, "resources.requests.cpu");
      mem += mebi(get(req, lim, "memory"), source, cw, "resources.requests.memory");
      Quantity count = get(lim, req, GPU);
      if (count == null) {
        continue;
      }
      long k = integer(count, source, cw, GPU);
      if (k == 0) {
        continue;
      }
      if (gpus > 0) {
        throw new TraceFormatException(
            source
                + ": "
                + where
                + ": more than one container asks for GPUs;"
                + " the simulator places one GPU request per pod");
      }
      if (k > 8) {
        throw new TraceFormatException(
            source + ": " + cw + ": " + GPU + " = " + k + ", at most 8 supported");
      }
      gpus = (int) k;
      long coreShare = 0;
      Quantity cores = get(lim, req, GPU_CORES);
      if (cores != null) {
        coreShare = integer(cores, source, cw, GPU_CORES) * 1000 / units.devcore();
      }
      long memShare = 1000;
      Quantity pct = get(lim, req, GPU_MEM_PERCENT);
      Quantity mib = get(lim, req, GPU_MEM);
      if (pct != null && integer(pct, source, cw, GPU_MEM_PERCENT) > 0) {
        memShare = Math.min(100, integer(pct, source, cw, GPU_MEM_PERCENT)) * 10;
      } else if (mib != null && integer(mib, source, cw, GPU_MEM) > 0) {
        if (units.minDevmemMiB() <= 0) {
          throw new TraceFormatException(
              source
                  + ": "
                  + cw
                  + ": "
                  + GPU_MEM
                  + " needs nodes that register GPU memory: pass --nodes with Kubernetes Node"
                  + " objects carrying the HAMi register annotation (openb CSV nodes, the default,"
                  + " have none), or ask with "
                  + GPU_MEM_PERCENT);
        }
        memShare =
            (integer(mib, source, cw, GPU_MEM) * 1000 + units.minDevmemMiB() - 1)
                / units.minDevmemMiB();
      }
      share = (int) Math.max(1, Math.min(1000, Math.max(coreShare, memShare)));
    }
    Map<String, String> ann = p.getMetadata().getAnnotations();
    String types = ann == null ? "" : ann.getOrDefault(USE_GPU_TYPE, "").trim();
    List<String> models =
        gpus == 0
            ? List.of()
            : Arrays.stream(types.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    return new TracePod(
        name,
        (int) Math.min(Integer.MAX_VALUE, cpu),
        mem,
        gpus,
        share,
        gpus == 0 ? "" : String.join("|", models),
        models);
  }

  private static @Nullable Quantity get(
      @Nullable Map<String, Quantity> first, @Nullable Map<String, Quantity> second, String key) {
    Quantity q = first == null ? null : first.get(key);
    return q != null ? q : second == null ? null : second.get(key);
  }

  private static String name(HasMetadata h) {
    return h.getMetadata() == null || h.getMetadata().getName() == null
        ? "<unnamed>"
        : h.getMetadata().getName();
  }

  private static long milli(@Nullable Quantity q, String source, String where, String field)
      throws TraceFormatException {
    if (q == null) {
      return 0;
    }
    try {
      return Quantities.toMillisCeil(q);
    } catch (RuntimeException e) {
      throw new TraceFormatException(
          source + ": " + where + ": " + field + " = '" + q + "' is not a CPU quantity");
    }
  }

  private static long mebi(@Nullable Quantity q, String source, String where, String field)
      throws TraceFormatException {
    if (q == null) {
      return 0;
    }
    try {
      return Quantities.toMebibytesCeil(q);
    } catch (RuntimeException e) {
      throw new TraceFormatException(
          source + ": " + where + ": " + field + " = '" + q + "' is not a memory quantity");
    }
  }

  private static long integer(Quantity q, String source, String where, String field)
      throws TraceFormatException {
    try {
      long v = Quantities.toLongExact(q);
      if (v < 0) {
        throw new ArithmeticException();
      }
      return v;
    } catch (RuntimeException e) {
      throw new TraceFormatException(
          source + ": " + where + ": " + field + " = '" + q + "' is not a non-negative integer");
    }
  }
}
