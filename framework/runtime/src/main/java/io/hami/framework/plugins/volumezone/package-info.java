/**
 * VolumeZone: the zone and region labels of a pod's bound PersistentVolumes must admit the node.
 */
@NullMarked
package io.hami.framework.plugins.volumezone;

import org.jspecify.annotations.NullMarked;
