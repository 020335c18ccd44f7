package io.hami.nodeagent.nvml;

/** An XID critical error reported by NVML for one device. */
public record XidEvent(int deviceIndex, long xid) {}
