/** The node agent: publishes the node's GPUs and serves kubelet's device-plugin API. */
@NullMarked
package io.hami.nodeagent;

import org.jspecify.annotations.NullMarked;
