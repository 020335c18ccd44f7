/** The NodeResourcesBalancedAllocation plugin: favours nodes whose resources stay in balance. */
@NullMarked
package io.hami.framework.plugins.balancedallocation;

import org.jspecify.annotations.NullMarked;
