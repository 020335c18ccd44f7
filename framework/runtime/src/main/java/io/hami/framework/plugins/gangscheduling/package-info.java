/**
 * Gang scheduling: all-or-nothing placement of the pods of a pod group (kube-scheduler v1.36's
 * GangScheduling plugin, with the release of a group that cannot complete).
 */
@NullMarked
package io.hami.framework.plugins.gangscheduling;

import org.jspecify.annotations.NullMarked;
