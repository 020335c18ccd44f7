/* Asks for the next definition of a symbol it defines itself: RTLD_NEXT must be relative to us. */
#define _GNU_SOURCE
#include <dlfcn.h>

__attribute__((visibility("default"))) int probe_sym(void) { return 1; }

/* not a tail call: dlsym must see this library as its caller */
__attribute__((visibility("default"), optimize("no-optimize-sibling-calls"))) void *next_probe(void) {
    void *p = dlsym(RTLD_NEXT, "probe_sym");
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}
