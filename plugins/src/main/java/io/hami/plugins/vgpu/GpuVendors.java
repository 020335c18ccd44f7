package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import io.hami.model.Decoded;
import io.hami.model.config.AscendChipConfig;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.IluvatarConfig;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.model.vendor.RequestReader;
import io.hami.model.vendor.VendorProtocol;
import io.hami.model.vendor.Vendors;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The vendors the scheduler places, built from the protocol model's vendor SPI. */
public final class GpuVendors {
  private GpuVendors() {}

  /** Hygon DCU with the chart defaults: colon-form register, cores default to a whole card. */
  public static final GpuVendor HYGON =
      new GpuVendor(Vendors.hygon(DeviceConfig.DEFAULTS.hygon()), 1, null);

  /** Cambricon MLU with the chart defaults: devices from node capacity, memory in 256 MiB units. */
  public static final GpuVendor CAMBRICON = cambricon(DeviceConfig.DEFAULTS);

  /** NVIDIA with the given request rule. */
  public static GpuVendor nvidia(RequestRule rule) {
    VendorProtocol base = Vendors.nvidia(NvidiaConfig.DEFAULTS);
    RequestReader requests =
        new RequestReader() {
          @Override
          public ResourceNames resourceNames() {
            return rule.names();
          }

          @Override
          public Decoded<ContainerRequest> read(ContainerResources container) {
            return rule.derive(container);
          }
        };
    VendorProtocol p =
        new VendorProtocol(
            base.keys(),
            base.register(),
            base.registerWriter(),
            requests,
            base.allocationWriter(),
            base.allocationReader());
    return new GpuVendor(p, Math.max(rule.memoryFactor(), 1), rule);
  }

  public static GpuVendor cambricon(DeviceConfig config) {
    return new GpuVendor(Vendors.cambricon(config.cambricon()), 256, null);
  }

  public static GpuVendor hygon(DeviceConfig config) {
    return new GpuVendor(
        Vendors.hygon(config.hygon()), Math.max(config.hygon().memoryFactor(), 1), null);
  }

  public static GpuVendor iluvatar(IluvatarConfig chip) {
    return new GpuVendor(Vendors.iluvatar(chip), 256, null);
  }

  public static GpuVendor ascend(AscendChipConfig chip, boolean hamiVnpuCore) {
    return new GpuVendor(
        Vendors.ascend(chip, hamiVnpuCore), Math.max(chip.memoryFactor(), 1), null);
  }

  /**
   * The vendors a profile places: NVIDIA with its own request rule, then the vendors of the device
   * config that are switched on.
   */
  public static ImmutableList<GpuVendor> of(
      RequestRule nvidiaRule,
      DeviceConfig config,
      boolean cambricon,
      boolean hygon,
      boolean iluvatar,
      boolean ascend) {
    ImmutableList.Builder<GpuVendor> b = ImmutableList.builder();
    b.add(nvidia(nvidiaRule));
    if (cambricon) {
      b.add(cambricon(config));
    }
    if (hygon) {
      b.add(hygon(config));
    }
    if (iluvatar) {
      config.iluvatars().forEach(c -> b.add(iluvatar(c)));
    }
    if (ascend) {
      config.vnpus().configs().forEach(c -> b.add(ascend(c, config.vnpus().hamiVnpuCore())));
    }
    return b.build();
  }

  /**
   * Every vendor whose annotations are read for usage accounting when no profile says more: NVIDIA,
   * Cambricon and Hygon with the chart defaults.
   */
  public static ImmutableList<GpuVendor> accounted() {
    return ImmutableList.of(nvidia(RequestRule.NVIDIA_DEFAULTS), CAMBRICON, HYGON);
  }

  /** The vendors of {@code a} and {@code b}; where both have a keyword, {@code b}'s wins. */
  static ImmutableList<GpuVendor> union(List<GpuVendor> a, List<GpuVendor> b) {
    Map<String, GpuVendor> out = new LinkedHashMap<>();
    for (GpuVendor v : a) {
      out.putIfAbsent(v.word(), v);
    }
    for (GpuVendor v : b) {
      out.put(v.word(), v);
    }
    return ImmutableList.copyOf(out.values());
  }
}
