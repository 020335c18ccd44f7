/**
 * The InterPodAffinity plugin: required and preferred pod affinity and anti-affinity, after
 * kube-scheduler's plugin of that name.
 */
@NullMarked
package io.hami.framework.plugins.interpodaffinity;

import org.jspecify.annotations.NullMarked;
