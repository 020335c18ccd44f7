/**
 * Placement policies as node scores over a compact node table: the five baselines of the FGD paper
 * (random, dot-product, GPU clustering, GPU packing, best-fit) and FGD itself, each with its own
 * GPU choice on the winning node.
 */
@NullMarked
package io.hami.plugins.placement;

import org.jspecify.annotations.NullMarked;
