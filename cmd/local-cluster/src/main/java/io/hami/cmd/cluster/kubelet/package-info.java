/**
 * A stand-in for kubelet's device manager, so that the local cluster's fake nodes, and the node
 * agent's own integration tests here, can run a real node agent without a kubelet.
 */
@NullMarked
package io.hami.cmd.cluster.kubelet;

import org.jspecify.annotations.NullMarked;
