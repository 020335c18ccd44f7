package io.hami.nodeagent.monitor;

import com.google.common.collect.ImmutableList;

/**
 * What the monitor decided for one container in its latest period.
 *
 * @param podUid the pod's UID, from the region's directory name
 * @param container the container's name
 * @param priority {@code CUDA_TASK_PRIORITY} (0 high, larger lower)
 * @param uuids the GPUs the container's region uses
 * @param inUse whether a process of the container holds a slot (an idle region shares nothing)
 * @param active whether the container ran kernels within the activity window
 * @param utilizationSwitch the switch written: 1 limit compute (shared), 0 do not (alone)
 * @param blocked whether new launches are held back for a higher-priority container
 * @param blockedSeconds total time the monitor held the container blocked
 * @param slotsReclaimed slots of dead processes the monitor freed in this region, in total
 */
public record ContainerStatus(
    String podUid,
    String container,
    int priority,
    ImmutableList<String> uuids,
    boolean inUse,
    boolean active,
    int utilizationSwitch,
    boolean blocked,
    double blockedSeconds,
    long slotsReclaimed) {}
