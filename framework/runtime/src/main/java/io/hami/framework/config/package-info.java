/** The versioned scheduler configuration: records, YAML loading, defaults and validation. */
@NullMarked
package io.hami.framework.config;

import org.jspecify.annotations.NullMarked;
