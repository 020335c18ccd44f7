/**
 * Test fixtures for plugins and the runtime: fluent pod and node builders over fabric8's builders,
 * a fake clock, a fake framework handle and a thread-free plugin harness.
 */
@NullMarked
package io.hami.framework.testing;

import org.jspecify.annotations.NullMarked;
