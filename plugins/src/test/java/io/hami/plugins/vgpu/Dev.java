package io.hami.plugins.vgpu;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import java.util.List;

/** Fluent builder of {@link DeviceUsage} for unit tests; defaults as in protocol §10.9. */
final class Dev {
  private final String id;
  private int index;
  private String vendor = "NVIDIA";
  private String type = "NVIDIA";
  private int numa;
  private String mode = "hami-core";
  private boolean healthy = true;
  private boolean cordoned;
  private int count = 100;
  private int used;
  private int mem = 1024;
  private int usedMem;
  private int cores = 100;
  private int usedCores;
  private List<MigProfile> migProfiles = List.of();
  private List<MigPlacement> migUsed = List.of();

  private Dev(String id) {
    this.id = id;
  }

  static Dev dev(String id) {
    return new Dev(id);
  }

  Dev index(int v) {
    index = v;
    return this;
  }

  Dev vendor(String v) {
    vendor = v;
    return this;
  }

  Dev type(String v) {
    type = v;
    return this;
  }

  Dev numa(int v) {
    numa = v;
    return this;
  }

  Dev mode(String v) {
    mode = v;
    return this;
  }

  Dev unhealthy() {
    healthy = false;
    return this;
  }

  Dev cordoned() {
    cordoned = true;
    return this;
  }

  Dev count(int v) {
    count = v;
    return this;
  }

  Dev used(int v) {
    used = v;
    return this;
  }

  Dev mem(int v) {
    mem = v;
    return this;
  }

  Dev usedMem(int v) {
    usedMem = v;
    return this;
  }

  Dev cores(int v) {
    cores = v;
    return this;
  }

  Dev usedCores(int v) {
    usedCores = v;
    return this;
  }

  Dev migProfiles(MigProfile... v) {
    mode = "mig";
    migProfiles = List.of(v);
    return this;
  }

  Dev migUsed(MigPlacement... v) {
    migUsed = List.of(v);
    return this;
  }

  DeviceUsage build() {
    return new DeviceUsage(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        count,
        used,
        mem,
        usedMem,
        cores,
        usedCores,
        migProfiles,
        migUsed);
  }
}
