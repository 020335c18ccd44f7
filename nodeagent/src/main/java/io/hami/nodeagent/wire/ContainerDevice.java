package io.hami.nodeagent.wire;

/** One device of a container entry in a pod device annotation (spec §1.5). */
public record ContainerDevice(String uuid, String type, int usedmem, int usedcores) {}
