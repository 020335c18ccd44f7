/* Preloaded by one suite worker: calloc of FAILCALLOC_ABOVE bytes or more returns NULL, as when the
 * host is out of memory. Other requests are served by malloc and zeroed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    size_t bytes = n * size;
    const char *above = getenv("FAILCALLOC_ABOVE");
    if (above && bytes >= (size_t)strtoull(above, NULL, 10)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes);
    return p;
}
