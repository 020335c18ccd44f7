/**
 * DefaultPreemption: when no node fits a pod, evicts lower-priority pods from one node so that it
 * fits there, and nominates the pod to that node (kube-scheduler's DefaultPreemption PostFilter).
 */
@NullMarked
package io.hami.framework.plugins.defaultpreemption;

import org.jspecify.annotations.NullMarked;
