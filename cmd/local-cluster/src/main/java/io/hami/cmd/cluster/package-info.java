/**
 * A local cluster without kubelets: a kube-apiserver and etcd built from source and started on
 * loopback with TLS and RBAC, and fake GPU nodes (a Node object, a node agent over fake GPUs and a
 * fake kubelet that allocates and starts bound pods). Used by {@code hami up}, {@code hami bench
 * cluster} and the end-to-end suite.
 */
@NullMarked
package io.hami.cmd.cluster;

import org.jspecify.annotations.NullMarked;
