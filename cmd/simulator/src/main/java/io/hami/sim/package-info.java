/**
 * Trace-driven placement simulator: loads a cluster trace (openb CSV or Kubernetes YAML), replays
 * it under each placement policy and seed as the FGD paper's evaluation does, and reports how much
 * GPU capacity each policy leaves unallocated and fragmented.
 */
@NullMarked
package io.hami.sim;

import org.jspecify.annotations.NullMarked;
