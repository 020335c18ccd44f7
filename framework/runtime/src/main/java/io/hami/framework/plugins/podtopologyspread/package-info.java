/**
 * PodTopologySpread: spreads pods over topology domains (zones, hosts) by their {@code
 * topologySpreadConstraints}, or by cluster-wide default constraints, as kube-scheduler does.
 */
@NullMarked
package io.hami.framework.plugins.podtopologyspread;

import org.jspecify.annotations.NullMarked;
