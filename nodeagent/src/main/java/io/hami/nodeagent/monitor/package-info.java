/**
 * The utilisation monitor: reads every container's libvgpu region, writes back the feedback libvgpu
 * acts on (the SM-limit switch and the priority gate), and serves the host-pid broker.
 */
@NullMarked
package io.hami.nodeagent.monitor;

import org.jspecify.annotations.NullMarked;
