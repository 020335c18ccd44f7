package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.config.AscendChipConfig;
import io.hami.model.config.AscendTemplate;
import io.hami.model.config.CambriconConfig;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.HygonConfig;
import io.hami.model.config.IluvatarConfig;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.device.NodeDevice;
import io.hami.model.internal.GoText;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The built-in vendors. */
public final class Vendors {

  /** The Ascend decision time annotation (Unix seconds). */
  public static final String ASCEND_PREDICATE_TIME = "predicate-time";

  private Vendors() {}

  /** NVIDIA: JSON register (colon form read as a fallback for ≤ v2.7 plugins). */
  public static VendorProtocol nvidia(NvidiaConfig config) {
    VendorKeys keys = VendorKeys.NVIDIA;
    Allocations alloc = new Allocations(keys);
    return new VendorProtocol(
        keys,
        Registers.reader(keys.register(), Registers.Form.JSON_OR_COLON),
        Optional.of(Registers.writer(keys.register(), Registers.Form.JSON)),
        new RuleRequests(config.requestRule()),
        alloc,
        alloc);
  }

  /** Hygon DCU: colon register; cores default to the whole card; memory × {@code memoryFactor}. */
  public static VendorProtocol hygon(HygonConfig config) {
    VendorKeys keys = VendorKeys.HYGON;
    Allocations alloc = new Allocations(keys);
    return new VendorProtocol(
        keys,
        Registers.reader(keys.register(), Registers.Form.COLON),
        Optional.of(Registers.writer(keys.register(), Registers.Form.COLON)),
        new RuleRequests(
            new RequestRule(
                config.resourceNames(), keys.commonWord(), config.memoryFactor(), 0, 100)),
        alloc,
        alloc);
  }

  /** Iluvatar chip: colon register; memory in units of 256 MiB. */
  public static VendorProtocol iluvatar(IluvatarConfig config) {
    VendorKeys keys = VendorKeys.iluvatar(config.commonWord());
    Allocations alloc = new Allocations(keys);
    return new VendorProtocol(
        keys,
        Registers.reader(keys.register(), Registers.Form.COLON),
        Optional.of(Registers.writer(keys.register(), Registers.Form.COLON)),
        new RuleRequests(new RequestRule(config.resourceNames(), keys.commonWord(), 256, 0, 0)),
        alloc,
        alloc);
  }

  /**
   * Cambricon MLU: devices come from node capacity; memory in units of 256 MiB; cores default to
   * 100; the decision adds the DSMLU profile annotations.
   */
  public static VendorProtocol cambricon(CambriconConfig config) {
    VendorKeys keys = VendorKeys.CAMBRICON;
    ResourceNames names = config.resourceNames();
    Allocations alloc = new Allocations(keys);
    AllocationWriter writer =
        (decision, now) -> {
          Map<String, String> out = new LinkedHashMap<>(alloc.write(decision, now));
          CambriconProfile.profile(decision)
              .toOptional()
              .ifPresent(
                  p -> {
                    out.put(CambriconProfile.ASSIGNED_KEY, "false");
                    out.put(CambriconProfile.PROFILE_KEY, p);
                  });
          return out;
        };
    return new VendorProtocol(
        keys,
        node -> cambriconDevices(node, names),
        Optional.empty(),
        new RuleRequests(new RequestRule(names, keys.commonWord(), 256, 0, 100)),
        writer,
        alloc);
  }

  private static Decoded<List<NodeDevice>> cambriconDevices(NodeFacts node, ResourceNames names) {
    String coreQ = node.capacity().get(names.core());
    String memQ = node.capacity().get(names.memory());
    if (coreQ == null || memQ == null) {
      return Decoded.err(names.core(), "", Registers.NO_DEVICE + " " + node.name());
    }
    Decoded<Long> cores = Quantities.parseInt64(names.core(), coreQ);
    Decoded<Long> mem = Quantities.parseInt64(names.memory(), memQ);
    if (cores instanceof Decoded.Err<Long> e) {
      return Decoded.err(e.error());
    }
    if (mem instanceof Decoded.Err<Long> e) {
      return Decoded.err(e.error());
    }
    long vcore = cores.orElse(0L);
    long vmem = mem.orElse(0L);
    long cards = vcore / 100;
    if (cards <= 0) {
      return Decoded.err(names.core(), coreQ, Registers.NO_DEVICE + " " + node.name());
    }
    if (cards > 4096 || vmem < 0 || vmem > Long.MAX_VALUE / 25600) {
      return Decoded.err(
          names.memory(), memQ, "capacity out of range: " + GoText.quote(coreQ + "/" + memQ));
    }
    long devmem = vmem * 256 * 100 / vcore;
    if (devmem > Integer.MAX_VALUE) {
      return Decoded.err(names.memory(), memQ, "per-card memory overflows int32 MiB");
    }
    List<NodeDevice> out = new ArrayList<>();
    for (int i = 0; i < cards; i++) {
      out.add(
          NodeDevice.of(
              node.name() + "-cambricon-mlu-" + i, i, 100, (int) devmem, 100, "MLU", 0, "", true));
    }
    return Decoded.ok(List.copyOf(out));
  }

  /**
   * An Ascend chip model: JSON register; in template mode ({@code hamiVnpuCore=false}) memory is
   * rounded up to the smallest template; the decision adds the {@code huawei.com/<CommonWord>}
   * runtime info and {@code predicate-time}.
   */
  public static VendorProtocol ascend(AscendChipConfig chip, boolean hamiVnpuCore) {
    VendorKeys keys = VendorKeys.ascend(chip.commonWord());
    ResourceNames names =
        new ResourceNames(
            chip.resourceName(), chip.resourceMemoryName(), "", chip.resourceCoreName(), "");
    RequestRule rule = new RequestRule(names, chip.commonWord(), chip.memoryFactor(), 0, 0);
    RequestReader requests =
        new RequestReader() {
          @Override
          public ResourceNames resourceNames() {
            return names;
          }

          @Override
          public Decoded<ContainerRequest> read(ContainerResources container) {
            return rule.derive(container)
                .flatMap(r -> r.isEmpty() ? Decoded.ok(r) : ascendRequest(chip, hamiVnpuCore, r));
          }
        };
    Allocations alloc = new Allocations(keys);
    AllocationWriter writer =
        (decision, now) -> {
          Map<String, String> out = new LinkedHashMap<>(alloc.write(decision, now));
          out.put(
              "huawei.com/" + chip.commonWord(),
              AscendRuntimeInfo.encode(runtimeInfo(chip, hamiVnpuCore, decision)));
          out.put(ASCEND_PREDICATE_TIME, Long.toString(now.getEpochSecond()));
          return out;
        };
    return new VendorProtocol(
        keys,
        Registers.reader(keys.register(), Registers.Form.JSON),
        Optional.of(Registers.writer(keys.register(), Registers.Form.JSON)),
        requests,
        writer,
        alloc);
  }

  /**
   * Ascend's request rules: super-pod chips (Ascend910C) are handed out in pairs, so 1 becomes 2
   * and other odd counts are rejected; in template mode memory below a whole chip rounds up to the
   * smallest template, and a partial chip may not be combined with more than one device.
   */
  private static Decoded<ContainerRequest> ascendRequest(
      AscendChipConfig chip, boolean softSplit, ContainerRequest r) {
    int nums = r.nums();
    String countName = chip.resourceName();
    if (chip.superPod()) {
      if (nums == 1) {
        nums = 2;
      } else if (nums % 2 != 0) {
        return Decoded.err(
            countName,
            Integer.toString(nums),
            chip.commonWord()
                + " super-pod chips come in pairs; odd count "
                + nums
                + " is not allowed");
      }
    }
    int mem = r.memreq();
    boolean wholeChip = chip.memoryAllocatable() > 0 && mem >= chip.memoryAllocatable();
    if (!softSplit && mem > 0 && !wholeChip && !chip.templates().isEmpty()) {
      Optional<AscendTemplate> t = chip.templateFor(mem);
      if (t.isEmpty()) {
        return Decoded.err(
            chip.resourceMemoryName(),
            Integer.toString(mem),
            "no " + chip.commonWord() + " template holds " + mem + " MiB");
      }
      mem = t.get().memory();
    }
    boolean partial = mem > 0 && chip.memoryAllocatable() > 0 && mem < chip.memoryAllocatable();
    if (partial && nums > 1) {
      return Decoded.err(
          countName,
          Integer.toString(nums),
          "a partial "
              + chip.commonWord()
              + " ("
              + mem
              + " MiB) cannot be combined with more than one device");
    }
    return Decoded.ok(new ContainerRequest(nums, r.type(), mem, r.memPercentage(), r.coresreq()));
  }

  private static List<AscendRuntimeInfo> runtimeInfo(
      AscendChipConfig chip, boolean softSplit, PodDevices decision) {
    List<AscendRuntimeInfo> out = new ArrayList<>();
    for (List<ContainerDevice> c : decision.containers()) {
      for (ContainerDevice d : c) {
        Optional<AscendTemplate> t = softSplit ? Optional.empty() : chip.templateFor(d.usedmem());
        out.add(
            t.map(tt -> new AscendRuntimeInfo(d.uuid(), tt.name(), tt.memory(), tt.aiCore()))
                .orElseGet(() -> new AscendRuntimeInfo(d.uuid(), "", d.usedmem(), d.usedcores())));
      }
    }
    return out;
  }

  /**
   * The vendors a device config enables: NVIDIA, Cambricon and Hygon always; Iluvatar and Ascend
   * chips only when asked ({@code --enable-iluvatar}, {@code --enable-ascend}).
   */
  public static List<VendorProtocol> all(
      DeviceConfig config, boolean enableIluvatar, boolean enableAscend) {
    List<VendorProtocol> out = new ArrayList<>();
    out.add(nvidia(config.nvidia()));
    out.add(cambricon(config.cambricon()));
    out.add(hygon(config.hygon()));
    if (enableIluvatar) {
      config.iluvatars().forEach(c -> out.add(iluvatar(c)));
    }
    if (enableAscend) {
      config.vnpus().configs().forEach(c -> out.add(ascend(c, config.vnpus().hamiVnpuCore())));
    }
    return List.copyOf(out);
  }

  /**
   * Decodes every vendor's allocated records on a pod, keyed by vendor keyword; vendors without the
   * annotation are absent, so a pod without annotations gives an empty map.
   */
  public static Decoded<Map<String, PodDevices>> allocated(
      List<VendorProtocol> vendors, Map<String, String> podAnnotations) {
    Map<String, PodDevices> out = new LinkedHashMap<>();
    for (VendorProtocol v : vendors) {
      Optional<Decoded<PodDevices>> d = v.allocationReader().allocated(podAnnotations);
      if (d.isEmpty()) {
        continue;
      }
      if (d.get() instanceof Decoded.Err<PodDevices> e) {
        return Decoded.err(e.error());
      }
      out.put(v.commonWord(), ((Decoded.Ok<PodDevices>) d.get()).value());
    }
    return Decoded.ok(out);
  }
}
