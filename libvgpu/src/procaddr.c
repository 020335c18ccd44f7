/*
 * cuGetProcAddress: an explicit (base name, minimum cudaVersion, variant, per-thread variant)
 * table, as the driver resolves it; never a guess by suffix. The hook handed out always targets
 * the variant the driver would have handed out, so stream semantics are kept.
 */
#include <string.h>

#include "hooks.h"

/* Sorted by name for bsearch; one entry per exported hook. */
static const vgpu_hook hooks[] = {
    {"cuCtxCreate_v2", (void *)cuCtxCreate_v2},
    {"cuCtxCreate_v4", (void *)cuCtxCreate_v4},
    {"cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain},
    {"cuDeviceTotalMem_v2", (void *)cuDeviceTotalMem_v2},
    {"cuGetProcAddress", (void *)cuGetProcAddress},
    {"cuGetProcAddress_v2", (void *)cuGetProcAddress_v2},
    {"cuGraphLaunch", (void *)cuGraphLaunch},
    {"cuGraphLaunch_ptsz", (void *)cuGraphLaunch_ptsz},
    {"cuInit", (void *)cuInit},
    {"cuLaunchCooperativeKernel", (void *)cuLaunchCooperativeKernel},
    {"cuLaunchCooperativeKernel_ptsz", (void *)cuLaunchCooperativeKernel_ptsz},
    {"cuLaunchKernel", (void *)cuLaunchKernel},
    {"cuLaunchKernelEx", (void *)cuLaunchKernelEx},
    {"cuLaunchKernelEx_ptsz", (void *)cuLaunchKernelEx_ptsz},
    {"cuLaunchKernel_ptsz", (void *)cuLaunchKernel_ptsz},
    {"cuMemAllocAsync", (void *)cuMemAllocAsync},
    {"cuMemAllocAsync_ptsz", (void *)cuMemAllocAsync_ptsz},
    {"cuMemAllocFromPoolAsync", (void *)cuMemAllocFromPoolAsync},
    {"cuMemAllocFromPoolAsync_ptsz", (void *)cuMemAllocFromPoolAsync_ptsz},
    {"cuMemAllocManaged", (void *)cuMemAllocManaged},
    {"cuMemAllocPitch_v2", (void *)cuMemAllocPitch_v2},
    {"cuMemAlloc_v2", (void *)cuMemAlloc_v2},
    {"cuMemCreate", (void *)cuMemCreate},
    {"cuMemFreeAsync", (void *)cuMemFreeAsync},
    {"cuMemFreeAsync_ptsz", (void *)cuMemFreeAsync_ptsz},
    {"cuMemFree_v2", (void *)cuMemFree_v2},
    {"cuMemGetInfo_v2", (void *)cuMemGetInfo_v2},
    {"cuMemRelease", (void *)cuMemRelease},
    {"nvmlDeviceGetMemoryInfo", (void *)nvmlDeviceGetMemoryInfo},
    {"nvmlDeviceGetMemoryInfo_v2", (void *)nvmlDeviceGetMemoryInfo_v2},
};

void *vgpu_find_hook(const char *symbol) {
    size_t lo = 0, hi = sizeof hooks / sizeof hooks[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(symbol, hooks[mid].name);
        if (c == 0) return hooks[mid].fn;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return NULL;
}

typedef struct proc_entry {
    const char *base;
    int min_version;
    const char *variant;
    const char *ptds_variant;
} proc_entry;

/* For one base name, entries are in ascending min_version; the last one that applies wins. */
static const proc_entry proc_table[] = {
    {"cuInit", 2000, "cuInit", NULL},
    {"cuMemAlloc", 3020, "cuMemAlloc_v2", NULL},
    {"cuMemAllocPitch", 3020, "cuMemAllocPitch_v2", NULL},
    {"cuMemFree", 3020, "cuMemFree_v2", NULL},
    {"cuMemGetInfo", 3020, "cuMemGetInfo_v2", NULL},
    {"cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2", NULL},
    {"cuCtxCreate", 3020, "cuCtxCreate_v2", NULL},
    {"cuCtxCreate", 13000, "cuCtxCreate_v4", NULL},
    {"cuLaunchKernel", 4000, "cuLaunchKernel", "cuLaunchKernel_ptsz"},
    {"cuMemAllocManaged", 6000, "cuMemAllocManaged", NULL},
    {"cuDevicePrimaryCtxRetain", 7000, "cuDevicePrimaryCtxRetain", NULL},
    {"cuLaunchCooperativeKernel", 9000, "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz"},
    {"cuGraphLaunch", 10000, "cuGraphLaunch", "cuGraphLaunch_ptsz"},
    {"cuMemCreate", 10020, "cuMemCreate", NULL},
    {"cuMemRelease", 10020, "cuMemRelease", NULL},
    {"cuMemAllocAsync", 11020, "cuMemAllocAsync", "cuMemAllocAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 11020, "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz"},
    {"cuMemFreeAsync", 11020, "cuMemFreeAsync", "cuMemFreeAsync_ptsz"},
    {"cuGetProcAddress", 11030, "cuGetProcAddress", NULL},
    {"cuLaunchKernelEx", 11060, "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
    {"cuGetProcAddress", 12000, "cuGetProcAddress_v2", NULL},
};

static const char *variant_for(const char *symbol, int version, cuuint64_t flags) {
    const proc_entry *best = NULL;
    for (size_t i = 0; i < sizeof proc_table / sizeof proc_table[0]; i++) {
        const proc_entry *e = &proc_table[i];
        if (version >= e->min_version && strcmp(e->base, symbol) == 0) best = e;
    }
    if (!best) return NULL;
    if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->ptds_variant) return best->ptds_variant;
    return best->variant;
}

static vgpu_real r_gpa = {"cuGetProcAddress", NULL, 0};
static vgpu_real r_gpa_v2 = {"cuGetProcAddress_v2", NULL, 0};

static void *hook_for(const char *symbol, int version, cuuint64_t flags) {
    if (symbol[0] != 'c' || symbol[1] != 'u') return NULL;
    const char *variant = variant_for(symbol, version, flags);
    return variant ? vgpu_find_hook(variant) : NULL;
}

VGPU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags) {
    CUresult (*real)(const char *, void **, int, cuuint64_t) =
        REAL(r_gpa, CUresult (*)(const char *, void **, int, cuuint64_t));
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = real(symbol, pfn, version, flags);
    if (rc != CUDA_SUCCESS || !symbol || !pfn || !*pfn) return rc;
    void *h = hook_for(symbol, version, flags);
    if (h) *pfn = h;
    return rc;
}

VGPU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                         CUdriverProcAddressQueryResult *status) {
    CUresult (*real)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        REAL(r_gpa_v2, CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *));
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = real(symbol, pfn, version, flags, status);
    if (rc != CUDA_SUCCESS || !symbol || !pfn || !*pfn) return rc;
    void *h = hook_for(symbol, version, flags);
    if (h) *pfn = h;
    return rc;
}
