/**
 * NodeVolumeLimits: a node must have room for the pod's CSI volumes within each driver's attach
 * limit in its CSINode.
 */
@NullMarked
package io.hami.framework.plugins.nodevolumelimits;

import org.jspecify.annotations.NullMarked;
