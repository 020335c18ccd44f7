package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriverBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Fixtures for StorageClasses and CSINodes. */
public final class MakeStorage {
  public static final String IMMEDIATE = "Immediate";
  public static final String WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer";
  public static final String NO_PROVISIONER = "kubernetes.io/no-provisioner";

  private MakeStorage() {}

  /** A StorageClass with {@code provisioner} and {@code volumeBindingMode} (null: Immediate). */
  public static StorageClass storageClass(
      String name, String provisioner, @Nullable String bindingMode) {
    return new StorageClassBuilder()
        .withNewMetadata()
        .withName(name)
        .withResourceVersion("1")
        .endMetadata()
        .withProvisioner(provisioner)
        .withVolumeBindingMode(bindingMode)
        .build();
  }

  /** A StorageClass restricted to nodes whose {@code key} label is one of {@code values}. */
  public static StorageClass storageClass(
      String name, String provisioner, String bindingMode, String key, String... values) {
    StorageClass sc = storageClass(name, provisioner, bindingMode);
    return new StorageClassBuilder(sc)
        .withAllowedTopologies(
            new TopologySelectorTermBuilder()
                .addNewMatchLabelExpression()
                .withKey(key)
                .withValues(values)
                .endMatchLabelExpression()
                .build())
        .build();
  }

  /** A CSINode fixture: {@code MakeStorage.csiNode("n1").driver("ebs.csi.aws.com", 2).obj()}. */
  public static CsiNodeBuilder csiNode(String nodeName) {
    return new CsiNodeBuilder(nodeName);
  }

  /** Builds a CSINode driver by driver. */
  public static final class CsiNodeBuilder {
    private final String nodeName;
    private final List<CSINodeDriverBuilder> drivers = new ArrayList<>();

    private CsiNodeBuilder(String nodeName) {
      this.nodeName = nodeName;
    }

    /** Adds {@code driver} with an allocatable count of {@code maxVolumes} (null: no limit). */
    public CsiNodeBuilder driver(String driver, @Nullable Integer maxVolumes) {
      CSINodeDriverBuilder d = new CSINodeDriverBuilder().withName(driver).withNodeID(nodeName);
      if (maxVolumes != null) {
        d.withNewAllocatable().withCount(maxVolumes).endAllocatable();
      }
      drivers.add(d);
      return this;
    }

    public CSINode obj() {
      CSINodeBuilder b =
          new CSINodeBuilder()
              .withNewMetadata()
              .withName(nodeName)
              .withResourceVersion("1")
              .endMetadata()
              .withNewSpec()
              .endSpec();
      for (CSINodeDriverBuilder d : drivers) {
        b.editSpec().addToDrivers(d.build()).endSpec();
      }
      return b.build();
    }
  }
}
