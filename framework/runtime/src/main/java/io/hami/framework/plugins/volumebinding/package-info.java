/**
 * VolumeBinding: pods' PersistentVolumeClaims (and generic ephemeral volumes) must be bound, or
 * bindable on the node, before the pod lands there; the scheduler binds delayed
 * (WaitForFirstConsumer) claims itself in PreBind, as kube-scheduler's volume binder does.
 */
@NullMarked
package io.hami.framework.plugins.volumebinding;

import org.jspecify.annotations.NullMarked;
