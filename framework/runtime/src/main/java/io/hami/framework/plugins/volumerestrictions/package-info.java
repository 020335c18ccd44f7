/**
 * VolumeRestrictions: a pod's volumes must not conflict with those of pods already placed
 * (ReadWriteOncePod claims in use anywhere, in-tree disks mounted read-write on the node).
 */
@NullMarked
package io.hami.framework.plugins.volumerestrictions;

import org.jspecify.annotations.NullMarked;
