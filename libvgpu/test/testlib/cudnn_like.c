/* Stands in for a library like cuDNN: its own cu-prefixed symbols must resolve to itself. */
#include <dlfcn.h>

__attribute__((visibility("default"))) int cudnnCreate(void **h) {
    if (h) *h = (void *)0xc0de;
    return 0;
}

/* also defines probe_sym, found by RTLD_NEXT from libnext_probe */
__attribute__((visibility("default"))) int probe_sym(void) { return 2; }
