/**
 * End-to-end scenarios: the scheduler, node agents in fake-GPU mode and fake kubelets run
 * in-process against the real control plane, and each scenario asserts what a user would see.
 */
@NullMarked
package io.hami.e2e.scenarios;

import org.jspecify.annotations.NullMarked;
