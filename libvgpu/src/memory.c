/*
 * Memory accounting: every allocation reserves its size on the container total by CAS before the
 * driver is called, then commits (charges this process's slot) or rolls back. Queries are
 * virtualised without errors or unsigned wrap-around.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

pthread_mutex_t vgpu_track_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reservation ----
 * This process's charges per device record live in process memory (local_used): they are the
 * truth for its slot. Under the region lock, one critical section moves the slot and the device
 * total together, and checks the limit on the device total; a holder killed inside it is caught
 * by the robust mutex and the next holder re-derives every device total from the slots. The
 * limit is also checked against local_used alone, so whatever is written into the region, this
 * process never holds more than its limit. */

static uint64_t local_used[VGPU_MAX_DEVICES];
static uint64_t local_ctx[VGPU_MAX_DEVICES];

static void add_peak(vgpu_device_record *d, uint64_t now) {
    uint64_t peak = __atomic_load_n(&d->mem_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&d->mem_peak, &peak, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static uint64_t sub_sat(uint64_t *v, uint64_t d) {
    uint64_t cur = __atomic_load_n(v, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(v, &cur, cur > d ? cur - d : 0, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    }
    return cur > d ? cur - d : 0;
}

/* Lock held: the slot's value for rec becomes `value`, the device total follows by the same delta. */
static void set_slot_locked(vgpu_slot *s, int rec, uint64_t value) {
    vgpu_device_record *d = &vgpu_rgn->devices[rec];
    uint64_t old = __atomic_load_n(&s->used[rec], __ATOMIC_RELAXED);
    uint64_t total = __atomic_load_n(&d->mem_used, __ATOMIC_RELAXED);
    total = (total > old ? total - old : 0) + value;
    __atomic_store_n(&s->used[rec], value, __ATOMIC_RELEASE);
    __atomic_store_n(&d->mem_used, total, __ATOMIC_RELEASE);
    add_peak(d, total);
}

/* Lock held: this process's slot; a slot claimed again after a wipe gets the local totals back. */
static vgpu_slot *slot_locked(void) {
    int fresh;
    vgpu_slot *s = vgpu_own_slot_locked(&fresh);
    if (!s || !fresh) return s;
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        uint64_t u = __atomic_load_n(&local_used[i], __ATOMIC_ACQUIRE);
        __atomic_store_n(&s->context[i], __atomic_load_n(&local_ctx[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
        set_slot_locked(s, i, u);
        if (u) VLOG(VGPU_LOG_WARN, "re-charged %llu B on device record %d to the new slot", (unsigned long long)u, i);
    }
    return s;
}

static void refuse_closed(uint64_t bytes) {
    static atomic_int said;
    if (!atomic_exchange(&said, 1))
        VLOG(VGPU_LOG_ERROR, "refusing device allocations: %s",
             vgpu_cfg.limits_invalid ? vgpu_cfg.limits_problem : "the shared region is unusable and LIBVGPU_FAIL_POLICY=closed");
    VLOG(VGPU_LOG_INFO, "refusing %llu B (%s)", (unsigned long long)bytes,
         vgpu_cfg.limits_invalid ? vgpu_cfg.limits_problem : "failure policy closed");
}

int vgpu_reserve(int rec, uint64_t bytes) {
    if (vgpu_fail_closed()) {
        refuse_closed(bytes);
        return -1;
    }
    if (rec < 0 || rec >= VGPU_MAX_DEVICES || !vgpu_rgn || !bytes) return 0;
    uint64_t limit = vgpu_mem_limit_of(rec);
    uint64_t mine = __atomic_load_n(&local_used[rec], __ATOMIC_ACQUIRE);
    if (limit && (mine + bytes < mine || mine + bytes > limit)) {
        VLOG(VGPU_LOG_INFO, "refusing %llu B on device record %d: this process holds %llu of %llu B",
             (unsigned long long)bytes, rec, (unsigned long long)mine, (unsigned long long)limit);
        return -1;
    }
    if (vgpu_lock_region() != 0) {
        if (limit) {
            VLOG(VGPU_LOG_ERROR, "refusing %llu B on device record %d: the region lock is unavailable",
                 (unsigned long long)bytes, rec);
            return -1;
        }
        __atomic_add_fetch(&local_used[rec], bytes, __ATOMIC_ACQ_REL); /* synced at the next locked step */
        return 0;
    }
    vgpu_slot *s = slot_locked();
    if (!s) {
        vgpu_unlock_region();
        if (limit) {
            VLOG(VGPU_LOG_ERROR, "refusing %llu B on device record %d: this process has no slot in %s",
                 (unsigned long long)bytes, rec, vgpu_cfg.cache_path);
            return -1;
        }
        __atomic_add_fetch(&local_used[rec], bytes, __ATOMIC_ACQ_REL);
        return 0;
    }
    vgpu_device_record *d = &vgpu_rgn->devices[rec];
    for (int pass = 0; limit; pass++) {
        uint64_t in_slot = __atomic_load_n(&s->used[rec], __ATOMIC_RELAXED);
        uint64_t total = __atomic_load_n(&d->mem_used, __ATOMIC_ACQUIRE);
        uint64_t others = total > in_slot ? total - in_slot : 0;
        mine = __atomic_load_n(&local_used[rec], __ATOMIC_ACQUIRE);
        uint64_t next = others + mine + bytes;
        if (next >= others && next <= limit) break;
        if (pass == 0 && vgpu_reclaim_locked() >= 0) continue; /* re-derives the totals, then once more */
        vgpu_unlock_region();
        VLOG(VGPU_LOG_INFO, "refusing %llu B on device record %d: %llu of %llu B in use",
             (unsigned long long)bytes, rec, (unsigned long long)(others + mine), (unsigned long long)limit);
        return -1;
    }
    uint64_t now = __atomic_add_fetch(&local_used[rec], bytes, __ATOMIC_ACQ_REL);
    set_slot_locked(s, rec, now);
    vgpu_unlock_region();
    return 0;
}

void vgpu_unreserve(int rec, uint64_t bytes) {
    if (rec < 0 || rec >= VGPU_MAX_DEVICES || !vgpu_rgn || !bytes) return;
    sub_sat(&local_used[rec], bytes);
    if (vgpu_lock_region() != 0) return; /* synced at the next locked step */
    vgpu_slot *s = slot_locked();
    if (s) set_slot_locked(s, rec, __atomic_load_n(&local_used[rec], __ATOMIC_ACQUIRE));
    vgpu_unlock_region();
}

void vgpu_charge_forced(int rec, uint64_t bytes, int context) {
    if (rec < 0 || rec >= VGPU_MAX_DEVICES || !vgpu_rgn || !bytes) return;
    __atomic_add_fetch(&local_used[rec], bytes, __ATOMIC_ACQ_REL);
    if (context) __atomic_add_fetch(&local_ctx[rec], bytes, __ATOMIC_ACQ_REL);
    if (vgpu_lock_region() != 0) return;
    vgpu_slot *s = slot_locked();
    if (s) {
        set_slot_locked(s, rec, __atomic_load_n(&local_used[rec], __ATOMIC_ACQUIRE));
        __atomic_store_n(&s->context[rec], __atomic_load_n(&local_ctx[rec], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    } else {
        VLOG(VGPU_LOG_WARN, "%llu B on device record %d not charged to the region: no slot",
             (unsigned long long)bytes, rec);
    }
    vgpu_unlock_region();
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

int vgpu_track_add(uint64_t key, int kind, int rec, uint64_t bytes) {
    int ok = 0;
    pthread_mutex_lock(&vgpu_track_lock);
    if (!tab) rehash(1024);
    if (tab && (tab_used + tab_dead + 1) * 10 > tab_cap * 7) rehash(tab_used * 10 > tab_cap * 3 ? tab_cap * 2 : tab_cap);
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
        ok = 1;
    }
    pthread_mutex_unlock(&vgpu_track_lock);
    return ok ? 0 : -1;
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
    memset(local_used, 0, sizeof local_used);
    memset(local_ctx, 0, sizeof local_ctx);
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

/* An allocation that cannot be entered in the table (no host memory for it) could never be
 * uncharged: give it back to the driver and refuse it instead. */
static CUresult untrackable(int rec, uint64_t bytes) {
    vgpu_unreserve(rec, bytes);
    VLOG(VGPU_LOG_ERROR, "allocation table full (no host memory): %llu B on device record %d freed and refused",
         (unsigned long long)bytes, rec);
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static void free_ptr(CUdeviceptr p) { (void)CALL(r_cuMemFree_v2, CUresult (*)(CUdeviceptr), p); }

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
    if (bytes && rec >= 0 && vgpu_track_add(*dptr, KIND_PTR, rec, bytes) != 0) {
        free_ptr(*dptr);
        *dptr = 0;
        return untrackable(rec, bytes);
    }
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
    if (actual && rec >= 0 && vgpu_track_add(*dptr, KIND_PTR, rec, actual) != 0) {
        free_ptr(*dptr);
        *dptr = 0;
        return untrackable(rec, actual);
    }
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
    if (bytes && rec >= 0 && vgpu_track_add(*dptr, KIND_PTR, rec, bytes) != 0) {
        free_ptr(*dptr);
        *dptr = 0;
        return untrackable(rec, bytes);
    }
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
    if (rec >= 0 && bytes && vgpu_track_add(*h, KIND_HANDLE, rec, bytes) != 0) {
        (void)CALL(r_cuMemRelease, CUresult (*)(CUmemGenericAllocationHandle), *h);
        *h = 0;
        return untrackable(rec, bytes);
    }
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
typedef CUresult (*free_async_fn)(CUdeviceptr, CUstream);
static void free_async_real(vgpu_real *real, CUdeviceptr p, CUstream s) {
    free_async_fn f = (free_async_fn)vgpu_real_get(real);
    if (f) (void)f(p, s);
}

static CUresult alloc_async(vgpu_real *real, vgpu_real *free_real, CUdeviceptr *dptr, size_t bytes, CUstream s) {
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
    if (bytes && rec >= 0 && vgpu_track_add(*dptr, KIND_PTR, rec, bytes) != 0) {
        free_async_real(free_real, *dptr, s);
        *dptr = 0;
        return untrackable(rec, bytes);
    }
    return rc;
}
HOOK CUresult cuMemAllocAsync(CUdeviceptr *d, size_t b, CUstream s) {
    return alloc_async(&r_cuMemAllocAsync, &r_cuMemFreeAsync, d, b, s);
}
HOOK CUresult cuMemAllocAsync_ptsz(CUdeviceptr *d, size_t b, CUstream s) {
    return alloc_async(&r_cuMemAllocAsync_ptsz, &r_cuMemFreeAsync_ptsz, d, b, s);
}

typedef CUresult (*alloc_pool_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
static CUresult alloc_pool(vgpu_real *real, vgpu_real *free_real, CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                           CUstream s) {
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
    if (bytes && rec >= 0 && vgpu_track_add(*dptr, KIND_PTR, rec, bytes) != 0) {
        free_async_real(free_real, *dptr, s);
        *dptr = 0;
        return untrackable(rec, bytes);
    }
    return rc;
}
HOOK CUresult cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t b, CUmemoryPool p, CUstream s) {
    return alloc_pool(&r_cuMemAllocFromPoolAsync, &r_cuMemFreeAsync, d, b, p, s);
}
HOOK CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *d, size_t b, CUmemoryPool p, CUstream s) {
    return alloc_pool(&r_cuMemAllocFromPoolAsync_ptsz, &r_cuMemFreeAsync_ptsz, d, b, p, s);
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
        uint64_t limit = vgpu_mem_limit_of(rec);
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
        uint64_t limit = vgpu_mem_limit_of(rec);
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

/* This process's host pid, for matching NVML's per-process lists: the slot's (broker or monitor),
 * else one broker request, else getpid() when this process lives in the initial pid namespace
 * (its inode number is fixed by the kernel), else unknown (0). Never called with a lock held. */
#define PROC_PID_INIT_INO 0xEFFFFFFCu
static int host_pid(void) {
    vgpu_slot *s = vgpu_my_slot();
    int hp = s ? __atomic_load_n(&s->host_pid, __ATOMIC_ACQUIRE) : 0;
    if (hp > 0) return hp;
    hp = vgpu_broker_host_pid();
    if (hp > 0) {
        if (s) __atomic_store_n(&s->host_pid, hp, __ATOMIC_RELEASE);
        return hp;
    }
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == PROC_PID_INIT_INO) return (int)getpid();
    return 0;
}

static vgpu_real r_nvmlRunning3 = {"nvmlDeviceGetComputeRunningProcesses_v3", NULL, 1};
static vgpu_real r_nvmlRunning2 = {"nvmlDeviceGetComputeRunningProcesses_v2", NULL, 1};

/* NVML's figure of this process's memory on the record's device; -1 when it has none. */
static int nvml_own_used(int rec, unsigned long long *used) {
    int hp = host_pid();
    if (hp <= 0 || !vgpu_rgn->devices[rec].uuid[0]) return -1;
    typedef nvmlReturn_t (*running_fn)(nvmlDevice_t, unsigned *, nvmlProcessInfo_t *);
    running_fn run = REAL(r_nvmlRunning3, running_fn);
    if (!run) run = REAL(r_nvmlRunning2, running_fn);
    nvmlReturn_t (*byuuid)(const char *, nvmlDevice_t *) =
        REAL(r_nvmlDeviceGetHandleByUUID, nvmlReturn_t (*)(const char *, nvmlDevice_t *));
    nvmlDevice_t h;
    if (!run || !byuuid || byuuid(vgpu_rgn->devices[rec].uuid, &h) != NVML_SUCCESS) return -1;
    /* room for twice the entries asked for, in case a driver's entry is larger than ours */
    nvmlProcessInfo_t infos[128];
    unsigned n = 64;
    if (run(h, &n, infos) != NVML_SUCCESS) return -1;
    for (unsigned i = 0; i < n && i < 64; i++)
        if ((int)infos[i].pid == hp && infos[i].usedGpuMemory != ~0ull) {
            *used = infos[i].usedGpuMemory;
            return 0;
        }
    return -1;
}

static int ctx_needs_charge(int rec) {
    if (rec < 0 || !vgpu_rgn || rec >= 64) return 0;
    uint64_t bit = 1ull << rec;
    return !(__atomic_load_n(&ctx_charged_mask, __ATOMIC_ACQUIRE) & bit);
}

/* The context's cost: NVML's per-process figure for this process less what it has charged on
 * the device already; only without one (host pid unknown, old driver) the change of the whole
 * device's `used`, which other tenants' allocations in the meantime distort. */
static void ctx_charge(int rec, int have_before, unsigned long long before) {
    unsigned long long after, own;
    uint64_t bit = 1ull << rec;
    if (__atomic_fetch_or(&ctx_charged_mask, bit, __ATOMIC_ACQ_REL) & bit) return;
    if (nvml_own_used(rec, &own) == 0) {
        uint64_t charged = __atomic_load_n(&local_used[rec], __ATOMIC_ACQUIRE);
        uint64_t delta = own > charged ? own - charged : 0;
        if (delta && delta < (4ull << 30)) {
            vgpu_charge_forced(rec, delta, 1);
            VLOG(VGPU_LOG_INFO, "context on device record %d charged %llu B (NVML, this process)", rec,
                 (unsigned long long)delta);
        }
        return;
    }
    if (have_before && nvml_used(rec, &after) == 0 && after > before) {
        uint64_t delta = after - before;
        if (delta < (4ull << 30)) {
            vgpu_charge_forced(rec, delta, 1);
            VLOG(VGPU_LOG_INFO, "context on device record %d charged %llu B (change of the device's use)", rec,
                 (unsigned long long)delta);
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
