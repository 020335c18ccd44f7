/*
 * Memory accounting: every allocation reserves its size on the container total by CAS before the
 * driver is called, then commits (charges this process's slot) or rolls back. Queries are
 * virtualised without errors or unsigned wrap-around.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

pthread_mutex_t vgpu_track_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reservation ---- */

static void add_peak(vgpu_device_record *d, uint64_t now) {
    uint64_t peak = __atomic_load_n(&d->mem_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&d->mem_peak, &peak, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

int vgpu_reserve(int rec, uint64_t bytes) {
    if (rec < 0 || !vgpu_rgn) return vgpu_fail_closed() ? -1 : 0;
    if (vgpu_fail_closed()) return -1;
    vgpu_slot *slot = vgpu_my_slot();
    vgpu_device_record *d = &vgpu_rgn->devices[rec];
    uint64_t limit = __atomic_load_n(&d->mem_limit, __ATOMIC_RELAXED);
    int reclaimed = 0;
    uint64_t cur = __atomic_load_n(&d->mem_used, __ATOMIC_ACQUIRE);
    for (;;) {
        uint64_t next = cur + bytes;
        if (next < cur || (limit && next > limit)) {
            if (!reclaimed && vgpu_reclaim_dead() > 0) {
                reclaimed = 1;
                cur = __atomic_load_n(&d->mem_used, __ATOMIC_ACQUIRE);
                continue;
            }
            VLOG(VGPU_LOG_INFO, "refusing %llu B on device record %d: %llu of %llu B in use",
                 (unsigned long long)bytes, rec, (unsigned long long)cur, (unsigned long long)limit);
            return -1;
        }
        if (__atomic_compare_exchange_n(&d->mem_used, &cur, next, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (slot) __atomic_add_fetch(&slot->used[rec], bytes, __ATOMIC_RELEASE);
            add_peak(d, next);
            return 0;
        }
    }
}

static void sub_sat(uint64_t *v, uint64_t d) {
    uint64_t cur = __atomic_load_n(v, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(v, &cur, cur > d ? cur - d : 0, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    }
}

void vgpu_unreserve(int rec, uint64_t bytes) {
    if (rec < 0 || !vgpu_rgn || !bytes) return;
    vgpu_slot *slot = vgpu_my_slot();
    if (slot) sub_sat(&slot->used[rec], bytes);
    sub_sat(&vgpu_rgn->devices[rec].mem_used, bytes);
}

void vgpu_charge_forced(int rec, uint64_t bytes, int context) {
    if (rec < 0 || !vgpu_rgn || !bytes) return;
    vgpu_slot *slot = vgpu_my_slot();
    uint64_t now = __atomic_add_fetch(&vgpu_rgn->devices[rec].mem_used, bytes, __ATOMIC_ACQ_REL);
    add_peak(&vgpu_rgn->devices[rec], now);
    if (slot) {
        __atomic_add_fetch(&slot->used[rec], bytes, __ATOMIC_RELEASE);
        if (context) __atomic_add_fetch(&slot->context[rec], bytes, __ATOMIC_RELAXED);
    }
}

void vgpu_wait_if_suspended(void) {
    if (!vgpu_rgn) return;
    vgpu_slot *s = vgpu_my_slot_cached();
    while (s && __atomic_load_n(&s->status, __ATOMIC_ACQUIRE) == VGPU_SLOT_SUSPENDED) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* ---- process-local allocation table (open addressing) ---- */

enum { KIND_PTR = 1, KIND_HANDLE = 2 };
typedef struct entry {
    uint64_t key;
    uint64_t bytes;
    int32_t kind; /* 0 empty, -1 tombstone */
    int32_t rec;
} entry;

static entry *tab;
static size_t tab_cap, tab_used, tab_dead;

static size_t slot_of(uint64_t key, int kind, size_t cap) {
    uint64_t h = (key ^ (uint64_t)kind) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void rehash(size_t cap) {
    entry *old = tab;
    size_t old_cap = tab_cap;
    entry *n = calloc(cap, sizeof *n);
    if (!n) return;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].kind <= 0) continue;
        size_t j = slot_of(old[i].key, old[i].kind, cap);
        while (n[j].kind) j = (j + 1) & (cap - 1);
        n[j] = old[i];
    }
    free(old);
    tab = n;
    tab_cap = cap;
    tab_dead = 0;
}

void vgpu_track_add(uint64_t key, int kind, int rec, uint64_t bytes) {
    pthread_mutex_lock(&vgpu_track_lock);
    if (!tab) rehash(1024);
    if ((tab_used + tab_dead + 1) * 10 > tab_cap * 7) rehash(tab_used * 10 > tab_cap * 3 ? tab_cap * 2 : tab_cap);
    if (tab && (tab_used + tab_dead + 1) * 10 <= tab_cap * 9) {
        size_t j = slot_of(key, kind, tab_cap);
        while (tab[j].kind > 0 && !(tab[j].key == key && tab[j].kind == kind)) j = (j + 1) & (tab_cap - 1);
        if (tab[j].kind > 0) {
            tab[j].bytes += bytes;
        } else {
            if (tab[j].kind < 0) tab_dead--;
            tab[j] = (entry){key, bytes, kind, rec};
            tab_used++;
        }
    }
    pthread_mutex_unlock(&vgpu_track_lock);
}

int vgpu_track_remove(uint64_t key, int kind, int *rec, uint64_t *bytes) {
    int found = 0;
    pthread_mutex_lock(&vgpu_track_lock);
    if (tab) {
        size_t j = slot_of(key, kind, tab_cap);
        while (tab[j].kind != 0) {
            if (tab[j].kind == kind && tab[j].key == key) {
                *rec = tab[j].rec;
                *bytes = tab[j].bytes;
                tab[j].kind = -1;
                tab_used--;
                tab_dead++;
                found = 1;
                break;
            }
            j = (j + 1) & (tab_cap - 1);
        }
    }
    pthread_mutex_unlock(&vgpu_track_lock);
    return found;
}

void vgpu_track_reset(void) {
    /* fork child: the parent's device memory is not ours */
    pthread_mutex_init(&vgpu_track_lock, NULL);
    if (tab) memset(tab, 0, tab_cap * sizeof *tab);
    tab_used = tab_dead = 0;
}

/* ---- hooks ---- */

#define HOOK VGPU_EXPORT
#define R(name) static vgpu_real r_##name = {#name, NULL, 0}

R(cuInit); R(cuMemAlloc_v2); R(cuMemAllocPitch_v2); R(cuMemAllocManaged); R(cuMemFree_v2);
R(cuMemCreate); R(cuMemRelease); R(cuMemAllocAsync); R(cuMemAllocAsync_ptsz);
R(cuMemAllocFromPoolAsync); R(cuMemAllocFromPoolAsync_ptsz); R(cuMemFreeAsync); R(cuMemFreeAsync_ptsz);
R(cuMemGetInfo_v2); R(cuDeviceTotalMem_v2); R(cuDevicePrimaryCtxRetain); R(cuCtxCreate_v2);
R(cuCtxCreate_v4);
static vgpu_real r_nvmlInit_v2 = {"nvmlInit_v2", NULL, 1};
static vgpu_real r_nvmlDeviceGetHandleByUUID = {"nvmlDeviceGetHandleByUUID", NULL, 1};
static vgpu_real r_nvmlDeviceGetMemoryInfo = {"nvmlDeviceGetMemoryInfo", NULL, 1};

#define CALL(var, type, ...) ({ __typeof__(type) f_ = REAL(var, type); f_ ? f_(__VA_ARGS__) : CUDA_ERROR_NOT_INITIALIZED; })

HOOK CUresult cuInit(unsigned flags) {
    vgpu_init();
    CUresult rc = CALL(r_cuInit, CUresult (*)(unsigned), flags);
    if (rc == CUDA_SUCCESS) vgpu_watcher_maybe_start();
    return rc;
}

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

HOOK CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = vgpu_current_record(NULL);
    if (bytes && vgpu_reserve(rec, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = CALL(r_cuMemAlloc_v2, alloc_fn, dptr, bytes);
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, bytes);
        return rc;
    }
    if (bytes && rec >= 0) vgpu_track_add(*dptr, KIND_PTR, rec, bytes);
    return rc;
}

HOOK CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned elem) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = vgpu_current_record(NULL);
    uint64_t est = (((uint64_t)width + 511) & ~(uint64_t)511) * height;
    if (est && vgpu_reserve(rec, est) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = CALL(r_cuMemAllocPitch_v2, CUresult (*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned),
                       dptr, pitch, width, height, elem);
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, est);
        return rc;
    }
    uint64_t actual = pitch ? (uint64_t)*pitch * height : est;
    if (actual > est) vgpu_charge_forced(rec, actual - est, 0);
    else if (actual < est) vgpu_unreserve(rec, est - actual);
    if (actual && rec >= 0) vgpu_track_add(*dptr, KIND_PTR, rec, actual);
    return rc;
}

HOOK CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned flags) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = vgpu_current_record(NULL);
    if (bytes && vgpu_reserve(rec, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = CALL(r_cuMemAllocManaged, CUresult (*)(CUdeviceptr *, size_t, unsigned), dptr, bytes, flags);
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, bytes);
        return rc;
    }
    if (bytes && rec >= 0) vgpu_track_add(*dptr, KIND_PTR, rec, bytes);
    return rc;
}

static void untrack_ptr(CUdeviceptr p) {
    int rec;
    uint64_t bytes;
    if (p && vgpu_track_remove(p, KIND_PTR, &rec, &bytes)) vgpu_unreserve(rec, bytes);
}

HOOK CUresult cuMemFree_v2(CUdeviceptr p) {
    CUresult rc = CALL(r_cuMemFree_v2, CUresult (*)(CUdeviceptr), p);
    if (rc == CUDA_SUCCESS) untrack_ptr(p);
    return rc;
}

HOOK CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t bytes, const CUmemAllocationProp *prop,
                          unsigned long long flags) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = -1;
    if (prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) rec = vgpu_record_for_cuda_dev(prop->location.id);
    if (rec >= 0 && bytes && vgpu_reserve(rec, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = CALL(r_cuMemCreate,
                       CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long),
                       h, bytes, prop, flags);
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, bytes);
        return rc;
    }
    if (rec >= 0 && bytes) vgpu_track_add(*h, KIND_HANDLE, rec, bytes);
    return rc;
}

HOOK CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
    CUresult rc = CALL(r_cuMemRelease, CUresult (*)(CUmemGenericAllocationHandle), h);
    if (rc == CUDA_SUCCESS) {
        int rec;
        uint64_t bytes;
        if (vgpu_track_remove(h, KIND_HANDLE, &rec, &bytes)) vgpu_unreserve(rec, bytes);
    }
    return rc;
}

typedef CUresult (*alloc_async_fn)(CUdeviceptr *, size_t, CUstream);
static CUresult alloc_async(vgpu_real *real, CUdeviceptr *dptr, size_t bytes, CUstream s) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = vgpu_current_record(NULL);
    if (bytes && vgpu_reserve(rec, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    alloc_async_fn f = (alloc_async_fn)vgpu_real_get(real);
    CUresult rc = f ? f(dptr, bytes, s) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, bytes);
        return rc;
    }
    if (bytes && rec >= 0) vgpu_track_add(*dptr, KIND_PTR, rec, bytes);
    return rc;
}
HOOK CUresult cuMemAllocAsync(CUdeviceptr *d, size_t b, CUstream s) { return alloc_async(&r_cuMemAllocAsync, d, b, s); }
HOOK CUresult cuMemAllocAsync_ptsz(CUdeviceptr *d, size_t b, CUstream s) {
    return alloc_async(&r_cuMemAllocAsync_ptsz, d, b, s);
}

typedef CUresult (*alloc_pool_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
static CUresult alloc_pool(vgpu_real *real, CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool, CUstream s) {
    vgpu_init();
    vgpu_wait_if_suspended();
    int rec = vgpu_current_record(NULL);
    if (bytes && vgpu_reserve(rec, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    alloc_pool_fn f = (alloc_pool_fn)vgpu_real_get(real);
    CUresult rc = f ? f(dptr, bytes, pool, s) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc != CUDA_SUCCESS) {
        vgpu_unreserve(rec, bytes);
        return rc;
    }
    if (bytes && rec >= 0) vgpu_track_add(*dptr, KIND_PTR, rec, bytes);
    return rc;
}
HOOK CUresult cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t b, CUmemoryPool p, CUstream s) {
    return alloc_pool(&r_cuMemAllocFromPoolAsync, d, b, p, s);
}
HOOK CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *d, size_t b, CUmemoryPool p, CUstream s) {
    return alloc_pool(&r_cuMemAllocFromPoolAsync_ptsz, d, b, p, s);
}

static CUresult free_async(vgpu_real *real, CUdeviceptr p, CUstream s) {
    CUresult (*f)(CUdeviceptr, CUstream) = (CUresult (*)(CUdeviceptr, CUstream))vgpu_real_get(real);
    CUresult rc = f ? f(p, s) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS) untrack_ptr(p);
    return rc;
}
HOOK CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { return free_async(&r_cuMemFreeAsync, p, s); }
HOOK CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) { return free_async(&r_cuMemFreeAsync_ptsz, p, s); }

HOOK CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b) {
    vgpu_init();
    size_t f = 0, t = 0;
    CUresult rc = CALL(r_cuMemGetInfo_v2, CUresult (*)(size_t *, size_t *), &f, &t);
    if (rc != CUDA_SUCCESS) return rc;
    int rec = vgpu_current_record(NULL);
    if (rec >= 0 && vgpu_rgn) {
        vgpu_device_record *d = &vgpu_rgn->devices[rec];
        uint64_t limit = __atomic_load_n(&d->mem_limit, __ATOMIC_RELAXED);
        if (limit) {
            uint64_t used = __atomic_load_n(&d->mem_used, __ATOMIC_ACQUIRE);
            uint64_t total = limit < t ? limit : t;
            uint64_t fr = used >= total ? 0 : total - used;
            if (fr > f) fr = f;
            f = (size_t)fr;
            t = (size_t)total;
        }
    }
    if (free_b) *free_b = f;
    if (total_b) *total_b = t;
    return rc;
}

HOOK CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    vgpu_init();
    CUresult rc = CALL(r_cuDeviceTotalMem_v2, CUresult (*)(size_t *, CUdevice), bytes, dev);
    if (rc != CUDA_SUCCESS || !bytes) return rc;
    int rec = vgpu_record_for_cuda_dev(dev);
    if (rec >= 0 && vgpu_rgn) {
        uint64_t limit = __atomic_load_n(&vgpu_rgn->devices[rec].mem_limit, __ATOMIC_RELAXED);
        if (limit && limit < *bytes) *bytes = (size_t)limit;
    }
    return rc;
}

/* ---- context charge: NVML-measured memory of a new context, once per device and process ---- */

static uint64_t ctx_charged_mask; /* bit per record, this process */

static int nvml_used(int rec, unsigned long long *used) {
    static atomic_int nvml_ok;
    if (!atomic_load(&nvml_ok)) {
        nvmlReturn_t (*init)(void) = REAL(r_nvmlInit_v2, nvmlReturn_t (*)(void));
        if (!init || init() != NVML_SUCCESS) return -1;
        atomic_store(&nvml_ok, 1);
    }
    nvmlDevice_t h;
    nvmlReturn_t (*byuuid)(const char *, nvmlDevice_t *) =
        REAL(r_nvmlDeviceGetHandleByUUID, nvmlReturn_t (*)(const char *, nvmlDevice_t *));
    nvmlReturn_t (*mi)(nvmlDevice_t, nvmlMemory_t *) =
        REAL(r_nvmlDeviceGetMemoryInfo, nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t *));
    nvmlMemory_t m;
    if (!byuuid || !mi || !vgpu_rgn->devices[rec].uuid[0]) return -1;
    if (byuuid(vgpu_rgn->devices[rec].uuid, &h) != NVML_SUCCESS || mi(h, &m) != NVML_SUCCESS) return -1;
    *used = m.used;
    return 0;
}

static int ctx_needs_charge(int rec) {
    if (rec < 0 || !vgpu_rgn || rec >= 64) return 0;
    uint64_t bit = 1ull << rec;
    return !(__atomic_load_n(&ctx_charged_mask, __ATOMIC_ACQUIRE) & bit);
}

static void ctx_charge(int rec, int have_before, unsigned long long before) {
    unsigned long long after;
    uint64_t bit = 1ull << rec;
    if (__atomic_fetch_or(&ctx_charged_mask, bit, __ATOMIC_ACQ_REL) & bit) return;
    if (have_before && nvml_used(rec, &after) == 0 && after > before) {
        uint64_t delta = after - before;
        if (delta < (4ull << 30)) {
            vgpu_charge_forced(rec, delta, 1);
            VLOG(VGPU_LOG_INFO, "context on device record %d charged %llu B", rec, (unsigned long long)delta);
        }
    }
}

HOOK CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
    vgpu_init();
    int rec = vgpu_record_for_cuda_dev(dev);
    unsigned long long before = 0;
    int measure = ctx_needs_charge(rec) && nvml_used(rec, &before) == 0;
    CUresult rc = CALL(r_cuDevicePrimaryCtxRetain, CUresult (*)(CUcontext *, CUdevice), ctx, dev);
    if (rc == CUDA_SUCCESS && ctx_needs_charge(rec)) ctx_charge(rec, measure, before);
    return rc;
}

HOOK CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev) {
    vgpu_init();
    int rec = vgpu_record_for_cuda_dev(dev);
    unsigned long long before = 0;
    int measure = ctx_needs_charge(rec) && nvml_used(rec, &before) == 0;
    CUresult rc = CALL(r_cuCtxCreate_v2, CUresult (*)(CUcontext *, unsigned, CUdevice), ctx, flags, dev);
    if (rc == CUDA_SUCCESS && ctx_needs_charge(rec)) ctx_charge(rec, measure, before);
    return rc;
}

HOOK CUresult cuCtxCreate_v4(CUcontext *ctx, void *params, unsigned flags, CUdevice dev) {
    vgpu_init();
    int rec = vgpu_record_for_cuda_dev(dev);
    unsigned long long before = 0;
    int measure = ctx_needs_charge(rec) && nvml_used(rec, &before) == 0;
    CUresult rc = CALL(r_cuCtxCreate_v4, CUresult (*)(CUcontext *, void *, unsigned, CUdevice), ctx, params, flags, dev);
    if (rc == CUDA_SUCCESS && ctx_needs_charge(rec)) ctx_charge(rec, measure, before);
    return rc;
}

void vgpu_memory_after_fork_child(void);
void vgpu_memory_after_fork_child(void) {
    vgpu_track_reset();
    ctx_charged_mask = 0;
}
