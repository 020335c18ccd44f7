/**
 * Differential tests: kube-scheduler and the hami-scheduler place the same generated pods on
 * identical generated clusters, and an independent checker verifies every placement.
 */
package io.hami.e2e.differential;
