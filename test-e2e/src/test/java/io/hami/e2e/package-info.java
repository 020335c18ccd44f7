/**
 * End-to-end harness: a real etcd and kube-apiserver on loopback, a JUnit 5 extension that hands
 * each test class a client and a fresh namespace, and helpers that act as kubelet would on nodes
 * that have none.
 */
@NullMarked
package io.hami.e2e;

import org.jspecify.annotations.NullMarked;
