/* NVML memory information, virtualised like cuMemGetInfo: total = min(limit, physical), no wrap. */
#include "hooks.h"

static vgpu_real r_mi = {"nvmlDeviceGetMemoryInfo", NULL, 1};
static vgpu_real r_mi2 = {"nvmlDeviceGetMemoryInfo_v2", NULL, 1};

static int virtualise(nvmlDevice_t dev, unsigned long long *total, unsigned long long *free_b,
                      unsigned long long *used) {
    int rec = vgpu_record_for_nvml(dev);
    if (rec < 0 || !vgpu_rgn) return 0;
    vgpu_device_record *d = &vgpu_rgn->devices[rec];
    uint64_t limit = vgpu_mem_limit_of(rec);
    if (!limit) return 0;
    uint64_t u = __atomic_load_n(&d->mem_used, __ATOMIC_ACQUIRE);
    uint64_t t = limit < *total ? limit : *total;
    *total = t;
    *used = u;
    *free_b = u >= t ? 0 : t - u;
    return 1;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m) {
    nvmlReturn_t (*real)(nvmlDevice_t, nvmlMemory_t *) = REAL(r_mi, nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t *));
    if (!real) return NVML_ERROR_UNINITIALIZED;
    nvmlReturn_t rc = real(dev, m);
    if (rc == NVML_SUCCESS && m) virtualise(dev, &m->total, &m->free, &m->used);
    return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *m) {
    nvmlReturn_t (*real)(nvmlDevice_t, nvmlMemory_v2_t *) =
        REAL(r_mi2, nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t *));
    if (!real) return NVML_ERROR_UNINITIALIZED;
    nvmlReturn_t rc = real(dev, m);
    if (rc == NVML_SUCCESS && m && virtualise(dev, &m->total, &m->free, &m->used)) {
        /* the virtual device has no driver-reserved part: free + used == total */
        m->reserved = 0;
    }
    return rc;
}
