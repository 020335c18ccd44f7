/**
 * Node-side device records: the register annotation in its JSON and colon/comma forms, MIG
 * profiles, GPU pair scores and kubelet device IDs.
 */
@NullMarked
package io.hami.model.device;

import org.jspecify.annotations.NullMarked;
