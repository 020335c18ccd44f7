/*
 * A fake libcuda.so.1 for CPU-only tests. Configured by env:
 *   FAKE_STATE        path of the shared state file (call log, true usage, busy clock)
 *   FAKE_GPUS         device count (1)
 *   FAKE_MEM_BYTES    physical memory per device (80 GiB)
 *   FAKE_SMS, FAKE_TPS  multiprocessors (132) and threads per SM (2048)
 *   FAKE_KERNEL_NS    simulated duration of one wave of a kernel (0 = launches cost nothing)
 *   FAKE_QUEUE_NS     launch queue depth in ns of work before a launch blocks (20 ms)
 *   FAKE_CTX_BYTES    memory a new context takes (0)
 *   FAKE_CTX_OTHER_BYTES  memory another tenant takes on the device while a context is created (0),
 *                     so that the change of the device's NVML `used` is not this process's
 *   FAKE_DRIVER_VERSION  (13000)
 * Linked with -Bsymbolic: the function addresses it hands out are its own, never an interposer's.
 * Device memory is limited device-wide across processes by the state file, so tests can tell a
 * refusal by libvgpu from a full fake device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

#include "../../src/cuda_abi.h"
#include "fake.h"

#define API __attribute__((visibility("default")))

enum {
    F_cuInit, F_cuDriverGetVersion, F_cuDeviceGet, F_cuDeviceGetCount, F_cuDeviceGetAttribute,
    F_cuDeviceGetUuid, F_cuDeviceGetUuid_v2, F_cuDeviceTotalMem_v2, F_cuDevicePrimaryCtxRetain,
    F_cuDevicePrimaryCtxRelease_v2, F_cuCtxCreate_v2, F_cuCtxCreate_v3, F_cuCtxCreate_v4, F_cuCtxDestroy_v2,
    F_cuCtxSetCurrent, F_cuCtxGetCurrent, F_cuCtxGetDevice, F_cuCtxSynchronize, F_cuMemAlloc_v2,
    F_cuMemAllocPitch_v2, F_cuMemAllocManaged, F_cuMemFree_v2, F_cuMemGetInfo_v2, F_cuMemCreate, F_cuMemRelease,
    F_cuMemAllocAsync, F_cuMemAllocAsync_ptsz, F_cuMemAllocFromPoolAsync, F_cuMemAllocFromPoolAsync_ptsz,
    F_cuMemFreeAsync, F_cuMemFreeAsync_ptsz, F_cuDeviceGetMemPool, F_cuMemPoolGetAttribute, F_cuLaunchKernel,
    F_cuLaunchKernel_ptsz, F_cuLaunchKernelEx, F_cuLaunchKernelEx_ptsz, F_cuLaunchCooperativeKernel,
    F_cuLaunchCooperativeKernel_ptsz, F_cuGraphLaunch, F_cuGraphLaunch_ptsz, F_cuEventCreate, F_cuEventRecord,
    F_cuEventRecord_ptsz, F_cuEventQuery, F_cuEventElapsedTime, F_cuEventDestroy_v2, F_cuStreamSynchronize,
    F_cuStreamSynchronize_ptsz, F_cuGetProcAddress, F_cuGetProcAddress_v2, F_COUNT
};

static const char *const fnames[F_COUNT] = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGet", "cuDeviceGetCount", "cuDeviceGetAttribute",
    "cuDeviceGetUuid", "cuDeviceGetUuid_v2", "cuDeviceTotalMem_v2", "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2", "cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate_v4", "cuCtxDestroy_v2",
    "cuCtxSetCurrent", "cuCtxGetCurrent", "cuCtxGetDevice", "cuCtxSynchronize", "cuMemAlloc_v2",
    "cuMemAllocPitch_v2", "cuMemAllocManaged", "cuMemFree_v2", "cuMemGetInfo_v2", "cuMemCreate", "cuMemRelease",
    "cuMemAllocAsync", "cuMemAllocAsync_ptsz", "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz",
    "cuMemFreeAsync", "cuMemFreeAsync_ptsz", "cuDeviceGetMemPool", "cuMemPoolGetAttribute", "cuLaunchKernel",
    "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", "cuLaunchCooperativeKernel",
    "cuLaunchCooperativeKernel_ptsz", "cuGraphLaunch", "cuGraphLaunch_ptsz", "cuEventCreate", "cuEventRecord",
    "cuEventRecord_ptsz", "cuEventQuery", "cuEventElapsedTime", "cuEventDestroy_v2", "cuStreamSynchronize",
    "cuStreamSynchronize_ptsz", "cuGetProcAddress", "cuGetProcAddress_v2"};
_Static_assert(F_COUNT <= FAKE_MAX_FUNCS, "function table");

/* ---- configuration and state ---- */

static int n_gpus = 1, n_sms = 132, n_tps = 2048, driver_version = 13000;
static uint64_t mem_bytes = 80ull << 30, kernel_ns, queue_ns = 20000000, ctx_bytes;
static fake_state *st;
static fake_state local_state;
static int initialized;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint64_t env_u64(const char *n, uint64_t d) {
    const char *s = getenv(n);
    return s && *s ? strtoull(s, NULL, 10) : d;
}

static pthread_mutex_t *st_lock(void) { return (pthread_mutex_t *)(void *)st->lock; }

static void lock(void) {
    if (pthread_mutex_lock(st_lock()) == EOWNERDEAD) pthread_mutex_consistent(st_lock());
}
static void unlock(void) { pthread_mutex_unlock(st_lock()); }

static void fake_fork_child(void);

static void setup(void) {
    pthread_atfork(NULL, NULL, fake_fork_child);
    n_gpus = (int)env_u64("FAKE_GPUS", 1);
    if (n_gpus < 0 || n_gpus > FAKE_MAX_DEV) n_gpus = 1;
    mem_bytes = env_u64("FAKE_MEM_BYTES", 80ull << 30);
    n_sms = (int)env_u64("FAKE_SMS", 132);
    n_tps = (int)env_u64("FAKE_TPS", 2048);
    kernel_ns = env_u64("FAKE_KERNEL_NS", 0);
    queue_ns = env_u64("FAKE_QUEUE_NS", 20000000);
    ctx_bytes = env_u64("FAKE_CTX_BYTES", 0);
    driver_version = (int)env_u64("FAKE_DRIVER_VERSION", 13000);
    st = &local_state;
    const char *path = getenv("FAKE_STATE");
    if (path && *path) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) {
            flock(fd, LOCK_EX);
            if (lseek(fd, 0, SEEK_END) < (off_t)sizeof(fake_state) && ftruncate(fd, sizeof(fake_state)) != 0) {
                flock(fd, LOCK_UN);
                close(fd);
                fd = -1;
            }
            if (fd >= 0) {
                void *p = mmap(NULL, sizeof(fake_state), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                if (p != MAP_FAILED) st = p;
                flock(fd, LOCK_UN);
                close(fd);
            }
        }
    }
    if (st->magic != 0xFA4EC0DA) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(st_lock(), &a);
        st->magic = 0xFA4EC0DA;
    }
}

static void ensure(void) { pthread_once(&once, setup); }

static void count(int f, uint64_t arg) {
    ensure();
    __atomic_add_fetch(&st->calls[f], 1, __ATOMIC_RELAXED);
    __atomic_store_n(&st->last_arg[f], arg, __ATOMIC_RELAXED);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- test API ---- */

static int fid(const char *name) {
    for (int i = 0; i < F_COUNT; i++)
        if (strcmp(fnames[i], name) == 0) return i;
    return -1;
}

API uint64_t fake_calls(const char *name) {
    ensure();
    int i = fid(name);
    return i < 0 ? 0 : __atomic_load_n(&st->calls[i], __ATOMIC_RELAXED);
}

API uint64_t fake_last_arg(const char *name) {
    ensure();
    int i = fid(name);
    return i < 0 ? 0 : __atomic_load_n(&st->last_arg[i], __ATOMIC_RELAXED);
}

API uint64_t fake_used(int dev) {
    ensure();
    return dev >= 0 && dev < FAKE_MAX_DEV ? __atomic_load_n(&st->used[dev], __ATOMIC_RELAXED) : 0;
}

API uint64_t fake_busy(int dev, uint64_t now) {
    ensure();
    lock();
    uint64_t total = st->busy_total[dev], end = st->dev_end[dev];
    unlock();
    uint64_t remaining = end > now ? end - now : 0;
    return total > remaining ? total - remaining : 0;
}

API uint64_t fake_pid_busy(int pid) {
    ensure();
    uint64_t v = 0;
    lock();
    for (int i = 0; i < FAKE_MAX_PIDS; i++)
        if (st->pids[i].pid == pid) v = st->pids[i].busy_ns;
    unlock();
    return v;
}

API void fake_reset(void) {
    ensure();
    lock();
    memset(st->calls, 0, sizeof st->calls);
    memset(st->last_arg, 0, sizeof st->last_arg);
    unlock();
}

API void *fake_raw(const char *name);

API CUresult cuModuleLoadData(CUmodule *m, const void *image);
API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);

API fake_state *fake_state_get(void) {
    ensure();
    return st;
}

/* ---- devices and contexts ---- */

typedef struct CUctx_st {
    int dev;
} fake_ctx;
static fake_ctx primary[FAKE_MAX_DEV];
static __thread fake_ctx *current;
static uint64_t ctx_charged; /* bit per device, this process */
static uint64_t my_used[FAKE_MAX_DEV];

static int valid_dev(CUdevice d) { return d >= 0 && d < n_gpus; }

static int pid_index(int pid);

static void pid_mem(int dev, uint64_t bytes, int add) {
    int i = pid_index(getpid());
    if (i < 0) return;
    uint64_t *m = &st->pids[i].mem[dev];
    *m = add ? *m + bytes : *m > bytes ? *m - bytes : 0;
}

static int charge(int dev, uint64_t bytes) {
    lock();
    if (st->used[dev] + bytes > mem_bytes) {
        unlock();
        return -1;
    }
    st->used[dev] += bytes;
    pid_mem(dev, bytes, 1);
    unlock();
    __atomic_add_fetch(&my_used[dev], bytes, __ATOMIC_RELAXED);
    return 0;
}

static void uncharge(int dev, uint64_t bytes) {
    lock();
    st->used[dev] = st->used[dev] > bytes ? st->used[dev] - bytes : 0;
    pid_mem(dev, bytes, 0);
    unlock();
    __atomic_sub_fetch(&my_used[dev], bytes, __ATOMIC_RELAXED);
}

__attribute__((destructor)) static void fake_exit(void) {
    if (!st) return;
    for (int d = 0; d < FAKE_MAX_DEV; d++)
        if (my_used[d]) uncharge(d, my_used[d]);
}

static void charge_ctx(int dev) {
    uint64_t bit = 1ull << dev;
    if (ctx_bytes && !(__atomic_fetch_or(&ctx_charged, bit, __ATOMIC_RELAXED) & bit)) {
        charge(dev, ctx_bytes);
        uint64_t other = env_u64("FAKE_CTX_OTHER_BYTES", 0);
        lock();
        st->used[dev] += other; /* someone else's, never released */
        unlock();
    }
}

#define NEED_INIT() do { if (!initialized) return CUDA_ERROR_NOT_INITIALIZED; } while (0)

API CUresult cuInit(unsigned flags) {
    count(F_cuInit, flags);
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < FAKE_MAX_DEV; i++) primary[i].dev = i;
    initialized = 1;
    return n_gpus > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

API CUresult cuDriverGetVersion(int *v) {
    count(F_cuDriverGetVersion, 0);
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = driver_version;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    count(F_cuDeviceGet, (uint64_t)ordinal);
    NEED_INIT();
    if (!d || !valid_dev(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *n) {
    count(F_cuDeviceGetCount, 0);
    NEED_INIT();
    if (!n) return CUDA_ERROR_INVALID_VALUE;
    *n = n_gpus;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    count(F_cuDeviceGetAttribute, (uint64_t)attr);
    NEED_INIT();
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_dev(d)) return CUDA_ERROR_INVALID_DEVICE;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = n_sms; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = n_tps; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

API void fake_uuid_bytes(int dev, unsigned char out[16]) {
    memset(out, 0, 16);
    out[0] = 0xfa; out[1] = 0xce; out[2] = (unsigned char)dev;
    out[15] = (unsigned char)(0x40 + dev);
}

static CUresult get_uuid(CUuuid *u, CUdevice d) {
    NEED_INIT();
    if (!u) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_dev(d)) return CUDA_ERROR_INVALID_DEVICE;
    fake_uuid_bytes(d, (unsigned char *)u->bytes);
    return CUDA_SUCCESS;
}
API CUresult cuDeviceGetUuid(CUuuid *u, CUdevice d) { count(F_cuDeviceGetUuid, 0); return get_uuid(u, d); }
API CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d) { count(F_cuDeviceGetUuid_v2, 0); return get_uuid(u, d); }

API CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) {
    count(F_cuDeviceTotalMem_v2, 0);
    NEED_INIT();
    if (!b) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_dev(d)) return CUDA_ERROR_INVALID_DEVICE;
    *b = (size_t)mem_bytes;
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    count(F_cuDevicePrimaryCtxRetain, (uint64_t)d);
    NEED_INIT();
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_dev(d)) return CUDA_ERROR_INVALID_DEVICE;
    charge_ctx(d);
    *c = &primary[d];
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    count(F_cuDevicePrimaryCtxRelease_v2, (uint64_t)d);
    NEED_INIT();
    return valid_dev(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult create_ctx(CUcontext *c, CUdevice d) {
    NEED_INIT();
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_dev(d)) return CUDA_ERROR_INVALID_DEVICE;
    fake_ctx *x = malloc(sizeof *x);
    if (!x) return CUDA_ERROR_OUT_OF_MEMORY;
    x->dev = d;
    charge_ctx(d);
    current = x;
    *c = x;
    return CUDA_SUCCESS;
}
API CUresult cuCtxCreate_v2(CUcontext *c, unsigned flags, CUdevice d) {
    count(F_cuCtxCreate_v2, flags);
    return create_ctx(c, d);
}
API CUresult cuCtxCreate_v3(CUcontext *c, void *params, int n, unsigned flags, CUdevice d) {
    (void)params; (void)n;
    count(F_cuCtxCreate_v3, flags);
    return create_ctx(c, d);
}
API CUresult cuCtxCreate_v4(CUcontext *c, void *params, unsigned flags, CUdevice d) {
    (void)params;
    count(F_cuCtxCreate_v4, flags);
    return create_ctx(c, d);
}
API CUresult cuCtxDestroy_v2(CUcontext c) {
    count(F_cuCtxDestroy_v2, 0);
    NEED_INIT();
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (current == c) current = NULL;
    if (c < &primary[0] || c > &primary[FAKE_MAX_DEV - 1]) free(c);
    return CUDA_SUCCESS;
}
API CUresult cuCtxSetCurrent(CUcontext c) {
    count(F_cuCtxSetCurrent, 0);
    NEED_INIT();
    current = c;
    return CUDA_SUCCESS;
}
API CUresult cuCtxGetCurrent(CUcontext *c) {
    count(F_cuCtxGetCurrent, 0);
    NEED_INIT();
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    *c = current;
    return CUDA_SUCCESS;
}
API CUresult cuCtxGetDevice(CUdevice *d) {
    count(F_cuCtxGetDevice, 0);
    NEED_INIT();
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    *d = current->dev;
    return CUDA_SUCCESS;
}

static void wait_idle(int dev) {
    for (;;) {
        lock();
        uint64_t end = st->dev_end[dev];
        unlock();
        uint64_t now = now_ns();
        if (end <= now) return;
        struct timespec ts = {0, (long)(end - now > 1000000 ? 1000000 : end - now)};
        nanosleep(&ts, NULL);
    }
}

API CUresult cuCtxSynchronize(void) {
    count(F_cuCtxSynchronize, 0);
    NEED_INIT();
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    wait_idle(current->dev);
    return CUDA_SUCCESS;
}
static CUresult stream_sync(void) {
    NEED_INIT();
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    wait_idle(current->dev);
    return CUDA_SUCCESS;
}
API CUresult cuStreamSynchronize(CUstream s) { (void)s; count(F_cuStreamSynchronize, 0); return stream_sync(); }
API CUresult cuStreamSynchronize_ptsz(CUstream s) { (void)s; count(F_cuStreamSynchronize_ptsz, 0); return stream_sync(); }

/* ---- memory ---- */

typedef struct alloc {
    uint64_t key;
    uint64_t bytes;
    int dev;
    int live;
} alloc;
static alloc *allocs;
static size_t n_allocs, cap_allocs;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_addr = 0x7f0000000000ull;

static uint64_t record_alloc(int dev, uint64_t bytes) {
    pthread_mutex_lock(&alloc_lock);
    uint64_t key = next_addr;
    next_addr += (bytes + 0xfff) & ~0xfffull;
    next_addr += 0x1000;
    size_t slot = n_allocs;
    for (size_t i = 0; i < n_allocs; i++)
        if (!allocs[i].live) { slot = i; break; }
    if (slot == n_allocs) {
        if (n_allocs == cap_allocs) {
            size_t nc = cap_allocs ? cap_allocs * 2 : 256;
            alloc *na = realloc(allocs, nc * sizeof *na);
            if (!na) { pthread_mutex_unlock(&alloc_lock); return 0; }
            allocs = na;
            cap_allocs = nc;
        }
        n_allocs++;
    }
    allocs[slot] = (alloc){key, bytes, dev, 1};
    pthread_mutex_unlock(&alloc_lock);
    return key;
}

static int release_alloc(uint64_t key) {
    pthread_mutex_lock(&alloc_lock);
    for (size_t i = 0; i < n_allocs; i++)
        if (allocs[i].live && allocs[i].key == key) {
            allocs[i].live = 0;
            int dev = allocs[i].dev;
            uint64_t b = allocs[i].bytes;
            pthread_mutex_unlock(&alloc_lock);
            uncharge(dev, b);
            return 0;
        }
    pthread_mutex_unlock(&alloc_lock);
    return -1;
}

static CUresult do_alloc(CUdeviceptr *p, uint64_t bytes, int dev) {
    NEED_INIT();
    if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0) {
        if (!current) return CUDA_ERROR_INVALID_CONTEXT;
        dev = current->dev;
    }
    if (charge(dev, bytes) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t k = record_alloc(dev, bytes);
    if (!k) { uncharge(dev, bytes); return CUDA_ERROR_OUT_OF_MEMORY; }
    *p = k;
    return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t b) { count(F_cuMemAlloc_v2, b); return do_alloc(p, b, -1); }
API CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned elem) {
    count(F_cuMemAllocPitch_v2, w * h);
    if (!pitch || (elem != 4 && elem != 8 && elem != 16)) return CUDA_ERROR_INVALID_VALUE;
    size_t pw = (w + 511) & ~(size_t)511;
    CUresult rc = do_alloc(p, (uint64_t)pw * h, -1);
    if (rc == CUDA_SUCCESS) *pitch = pw;
    return rc;
}
API CUresult cuMemAllocManaged(CUdeviceptr *p, size_t b, unsigned flags) {
    count(F_cuMemAllocManaged, b);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != 2) return CUDA_ERROR_INVALID_VALUE;
    return do_alloc(p, b, -1);
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
    count(F_cuMemFree_v2, p);
    NEED_INIT();
    if (p == 0) return CUDA_SUCCESS;
    return release_alloc(p) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemGetInfo_v2(size_t *f, size_t *t) {
    count(F_cuMemGetInfo_v2, 0);
    NEED_INIT();
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    uint64_t u = fake_used(current->dev);
    if (f) *f = (size_t)(u >= mem_bytes ? 0 : mem_bytes - u);
    if (t) *t = (size_t)mem_bytes;
    return CUDA_SUCCESS;
}
API CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t b, const CUmemAllocationProp *prop,
                         unsigned long long flags) {
    count(F_cuMemCreate, b);
    NEED_INIT();
    if (!h || !prop || flags || b == 0 || (b & ((2u << 20) - 1))) return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
        if (!valid_dev(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
        CUdeviceptr p;
        CUresult rc = do_alloc(&p, b, prop->location.id);
        if (rc == CUDA_SUCCESS) *h = p;
        return rc;
    }
    if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST) {
        void *m = malloc(1);
        if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
        *h = (CUmemGenericAllocationHandle)(uintptr_t)m | 1ull << 63;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
    count(F_cuMemRelease, h);
    NEED_INIT();
    if (h >> 63) {
        free((void *)(uintptr_t)(h & ~(1ull << 63)));
        return CUDA_SUCCESS;
    }
    return release_alloc(h) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemAllocAsync(CUdeviceptr *p, size_t b, CUstream s) {
    (void)s; count(F_cuMemAllocAsync, b); return do_alloc(p, b, -1);
}
API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t b, CUstream s) {
    (void)s; count(F_cuMemAllocAsync_ptsz, b); return do_alloc(p, b, -1);
}
API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t b, CUmemoryPool pool, CUstream s) {
    (void)s; count(F_cuMemAllocFromPoolAsync, b);
    return pool ? do_alloc(p, b, -1) : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t b, CUmemoryPool pool, CUstream s) {
    (void)s; count(F_cuMemAllocFromPoolAsync_ptsz, b);
    return pool ? do_alloc(p, b, -1) : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
    (void)s; count(F_cuMemFreeAsync, p); NEED_INIT();
    return release_alloc(p) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) {
    (void)s; count(F_cuMemFreeAsync_ptsz, p); NEED_INIT();
    return release_alloc(p) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice d) {
    count(F_cuDeviceGetMemPool, 0);
    NEED_INIT();
    if (!pool || !valid_dev(d)) return CUDA_ERROR_INVALID_VALUE;
    *pool = (CUmemoryPool)(uintptr_t)(0x5000 + d);
    return CUDA_SUCCESS;
}
API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *v) {
    count(F_cuMemPoolGetAttribute, (uint64_t)attr);
    NEED_INIT();
    if (!pool || !v) return CUDA_ERROR_INVALID_VALUE;
    *(uint64_t *)v = fake_used((int)((uintptr_t)pool - 0x5000));
    return CUDA_SUCCESS;
}

/* a forked child owns none of its parent's device memory */
static void fake_fork_child(void) {
    pthread_mutex_init(&alloc_lock, NULL);
    memset(my_used, 0, sizeof my_used);
    ctx_charged = 0;
    for (size_t i = 0; i < n_allocs; i++) allocs[i].live = 0;
}

/* ---- launches: simulated busy time on a per-device virtual clock ---- */

static int pid_index(int pid) {
    int free_i = -1;
    for (int i = 0; i < FAKE_MAX_PIDS; i++) {
        if (st->pids[i].pid == pid) return i;
        if (free_i < 0 && st->pids[i].pid == 0) free_i = i;
    }
    if (free_i >= 0) __atomic_store_n(&st->pids[free_i].pid, pid, __ATOMIC_RELEASE);
    return free_i;
}

static CUresult launch(int f, uint64_t blocks) {
    NEED_INIT();
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    if (blocks == 0) return CUDA_ERROR_INVALID_VALUE;
    if (!kernel_ns) return CUDA_SUCCESS;
    (void)f;
    int dev = current->dev;
    uint64_t waves = (blocks + (uint64_t)n_sms - 1) / (uint64_t)n_sms;
    uint64_t dur = kernel_ns * waves;
    for (;;) {
        uint64_t now = now_ns();
        lock();
        if (st->dev_end[dev] < now) st->dev_end[dev] = now;
        uint64_t backlog = st->dev_end[dev] - now;
        if (backlog <= queue_ns) {
            st->dev_end[dev] += dur;
            st->busy_total[dev] += dur;
            int pi = pid_index(getpid());
            if (pi >= 0) __atomic_add_fetch(&st->pids[pi].busy_ns, dur, __ATOMIC_RELAXED);
            unlock();
            return CUDA_SUCCESS;
        }
        unlock();
        uint64_t w = backlog - queue_ns;
        struct timespec ts = {0, (long)(w > 5000000 ? 5000000 : w)};
        nanosleep(&ts, NULL);
    }
}

API CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned shm, CUstream s, void **p, void **e) {
    (void)fn; (void)bx; (void)by; (void)bz; (void)shm; (void)s; (void)p; (void)e;
    count(F_cuLaunchKernel, (uint64_t)gx * gy * gz);
    return launch(F_cuLaunchKernel, (uint64_t)gx * gy * gz);
}
API CUresult cuLaunchKernel_ptsz(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shm, CUstream s, void **p, void **e) {
    (void)fn; (void)bx; (void)by; (void)bz; (void)shm; (void)s; (void)p; (void)e;
    count(F_cuLaunchKernel_ptsz, (uint64_t)gx * gy * gz);
    return launch(F_cuLaunchKernel_ptsz, (uint64_t)gx * gy * gz);
}
API CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction fn, void **p, void **e) {
    (void)fn; (void)p; (void)e;
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    count(F_cuLaunchKernelEx, (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ);
    return launch(F_cuLaunchKernelEx, (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ);
}
API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction fn, void **p, void **e) {
    (void)fn; (void)p; (void)e;
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    count(F_cuLaunchKernelEx_ptsz, (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ);
    return launch(F_cuLaunchKernelEx_ptsz, (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ);
}
API CUresult cuLaunchCooperativeKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                       unsigned by, unsigned bz, unsigned shm, CUstream s, void **p) {
    (void)fn; (void)bx; (void)by; (void)bz; (void)shm; (void)s; (void)p;
    count(F_cuLaunchCooperativeKernel, (uint64_t)gx * gy * gz);
    return launch(F_cuLaunchCooperativeKernel, (uint64_t)gx * gy * gz);
}
API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                            unsigned by, unsigned bz, unsigned shm, CUstream s, void **p) {
    (void)fn; (void)bx; (void)by; (void)bz; (void)shm; (void)s; (void)p;
    count(F_cuLaunchCooperativeKernel_ptsz, (uint64_t)gx * gy * gz);
    return launch(F_cuLaunchCooperativeKernel_ptsz, (uint64_t)gx * gy * gz);
}
/* a graph replay counts as one full wave */
API CUresult cuGraphLaunch(CUgraphExec g, CUstream s) {
    (void)s;
    count(F_cuGraphLaunch, (uint64_t)(uintptr_t)g);
    return g ? launch(F_cuGraphLaunch, (uint64_t)n_sms) : CUDA_ERROR_INVALID_VALUE;
}
API CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s) {
    (void)s;
    count(F_cuGraphLaunch_ptsz, (uint64_t)(uintptr_t)g);
    return g ? launch(F_cuGraphLaunch_ptsz, (uint64_t)n_sms) : CUDA_ERROR_INVALID_VALUE;
}

/* ---- modules: any image loads; functions are distinct handles per name ---- */

API CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
    *m = (CUmodule)(uintptr_t)0x6000;
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!f || !m || !name) return CUDA_ERROR_INVALID_VALUE;
    uintptr_t h = 0x7000;
    for (const char *c = name; *c; c++) h = h * 31 + (unsigned char)*c;
    *f = (CUfunction)(h | 1);
    return CUDA_SUCCESS;
}

/* ---- events: timestamps on the device's virtual clock ---- */

typedef struct CUevent_st {
    uint64_t t;
    int recorded;
} fake_event;

API CUresult cuEventCreate(CUevent *e, unsigned flags) {
    count(F_cuEventCreate, flags);
    NEED_INIT();
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    fake_event *x = calloc(1, sizeof *x);
    if (!x) return CUDA_ERROR_OUT_OF_MEMORY;
    *e = x;
    return CUDA_SUCCESS;
}
static CUresult record(CUevent e) {
    NEED_INIT();
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    uint64_t now = now_ns();
    lock();
    uint64_t end = st->dev_end[current->dev];
    unlock();
    e->t = end > now ? end : now;
    e->recorded = 1;
    return CUDA_SUCCESS;
}
API CUresult cuEventRecord(CUevent e, CUstream s) { (void)s; count(F_cuEventRecord, 0); return record(e); }
API CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { (void)s; count(F_cuEventRecord_ptsz, 0); return record(e); }
API CUresult cuEventQuery(CUevent e) {
    count(F_cuEventQuery, 0);
    NEED_INIT();
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    return !e->recorded || e->t <= now_ns() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    count(F_cuEventElapsedTime, 0);
    NEED_INIT();
    if (!ms || !a || !b) return CUDA_ERROR_INVALID_VALUE;
    if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
    uint64_t now = now_ns();
    if (a->t > now || b->t > now) return CUDA_ERROR_NOT_READY;
    *ms = (float)((double)((int64_t)(b->t - a->t)) / 1e6);
    return CUDA_SUCCESS;
}
API CUresult cuEventDestroy_v2(CUevent e) {
    count(F_cuEventDestroy_v2, 0);
    NEED_INIT();
    free(e);
    return CUDA_SUCCESS;
}

/* ---- cuGetProcAddress: the driver's own (name, version, flags) table ---- */

typedef struct gpa_entry {
    const char *base;
    int min_version;
    const char *variant;
    const char *ptds;
} gpa_entry;

static const gpa_entry gpa_table[] = {
    {"cuInit", 2000, "cuInit", NULL},
    {"cuDriverGetVersion", 2020, "cuDriverGetVersion", NULL},
    {"cuDeviceGet", 2000, "cuDeviceGet", NULL},
    {"cuDeviceGetCount", 2000, "cuDeviceGetCount", NULL},
    {"cuDeviceGetAttribute", 2000, "cuDeviceGetAttribute", NULL},
    {"cuDeviceGetUuid", 9020, "cuDeviceGetUuid", NULL},
    {"cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2", NULL},
    {"cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2", NULL},
    {"cuDevicePrimaryCtxRetain", 7000, "cuDevicePrimaryCtxRetain", NULL},
    {"cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2", NULL},
    {"cuCtxCreate", 3020, "cuCtxCreate_v2", NULL},
    {"cuCtxCreate", 13000, "cuCtxCreate_v4", NULL},
    {"cuCtxDestroy", 4000, "cuCtxDestroy_v2", NULL},
    {"cuCtxSetCurrent", 4000, "cuCtxSetCurrent", NULL},
    {"cuCtxGetCurrent", 4000, "cuCtxGetCurrent", NULL},
    {"cuCtxGetDevice", 2000, "cuCtxGetDevice", NULL},
    {"cuCtxSynchronize", 2000, "cuCtxSynchronize", NULL},
    {"cuMemAlloc", 3020, "cuMemAlloc_v2", NULL},
    {"cuMemAllocPitch", 3020, "cuMemAllocPitch_v2", NULL},
    {"cuMemAllocManaged", 6000, "cuMemAllocManaged", NULL},
    {"cuMemFree", 3020, "cuMemFree_v2", NULL},
    {"cuMemGetInfo", 3020, "cuMemGetInfo_v2", NULL},
    {"cuMemCreate", 10020, "cuMemCreate", NULL},
    {"cuMemRelease", 10020, "cuMemRelease", NULL},
    {"cuMemAllocAsync", 11020, "cuMemAllocAsync", "cuMemAllocAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 11020, "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz"},
    {"cuMemFreeAsync", 11020, "cuMemFreeAsync", "cuMemFreeAsync_ptsz"},
    {"cuDeviceGetMemPool", 11020, "cuDeviceGetMemPool", NULL},
    {"cuMemPoolGetAttribute", 11020, "cuMemPoolGetAttribute", NULL},
    {"cuLaunchKernel", 4000, "cuLaunchKernel", "cuLaunchKernel_ptsz"},
    {"cuLaunchKernelEx", 11060, "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
    {"cuLaunchCooperativeKernel", 9000, "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz"},
    {"cuGraphLaunch", 10000, "cuGraphLaunch", "cuGraphLaunch_ptsz"},
    {"cuEventCreate", 2000, "cuEventCreate", NULL},
    {"cuEventRecord", 2000, "cuEventRecord", "cuEventRecord_ptsz"},
    {"cuEventQuery", 2000, "cuEventQuery", NULL},
    {"cuEventElapsedTime", 2000, "cuEventElapsedTime", NULL},
    {"cuEventDestroy", 4000, "cuEventDestroy_v2", NULL},
    {"cuStreamSynchronize", 2000, "cuStreamSynchronize", "cuStreamSynchronize_ptsz"},
    {"cuGetProcAddress", 11030, "cuGetProcAddress", NULL},
    {"cuGetProcAddress", 12000, "cuGetProcAddress_v2", NULL},
    {"cuModuleLoadData", 2000, "cuModuleLoadData", NULL},
    {"cuModuleGetFunction", 2000, "cuModuleGetFunction", NULL},
};

typedef struct fn_addr {
    const char *name;
    void *fn;
} fn_addr;

API CUresult cuGetProcAddress_v2(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
API CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);

#define A(n) {#n, (void *)n}
static const fn_addr addrs[] = {
    A(cuInit), A(cuDriverGetVersion), A(cuDeviceGet), A(cuDeviceGetCount), A(cuDeviceGetAttribute),
    A(cuDeviceGetUuid), A(cuDeviceGetUuid_v2), A(cuDeviceTotalMem_v2), A(cuDevicePrimaryCtxRetain),
    A(cuDevicePrimaryCtxRelease_v2), A(cuCtxCreate_v2), A(cuCtxCreate_v4), A(cuCtxDestroy_v2), A(cuCtxSetCurrent),
    A(cuCtxGetCurrent), A(cuCtxGetDevice), A(cuCtxSynchronize), A(cuMemAlloc_v2), A(cuMemAllocPitch_v2),
    A(cuMemAllocManaged), A(cuMemFree_v2), A(cuMemGetInfo_v2), A(cuMemCreate), A(cuMemRelease), A(cuMemAllocAsync),
    A(cuMemAllocAsync_ptsz), A(cuMemAllocFromPoolAsync), A(cuMemAllocFromPoolAsync_ptsz), A(cuMemFreeAsync),
    A(cuMemFreeAsync_ptsz), A(cuDeviceGetMemPool), A(cuMemPoolGetAttribute), A(cuLaunchKernel),
    A(cuLaunchKernel_ptsz), A(cuLaunchKernelEx), A(cuLaunchKernelEx_ptsz), A(cuLaunchCooperativeKernel),
    A(cuLaunchCooperativeKernel_ptsz), A(cuGraphLaunch), A(cuGraphLaunch_ptsz), A(cuEventCreate), A(cuEventRecord),
    A(cuEventRecord_ptsz), A(cuEventQuery), A(cuEventElapsedTime), A(cuEventDestroy_v2), A(cuStreamSynchronize),
    A(cuStreamSynchronize_ptsz), A(cuGetProcAddress), A(cuGetProcAddress_v2), A(cuModuleLoadData),
    A(cuModuleGetFunction),
};

/* the fake's own function by name, bypassing any interposer (for baselines) */
API void *fake_raw(const char *name) {
    for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++)
        if (strcmp(addrs[i].name, name) == 0) return addrs[i].fn;
    return NULL;
}

static CUresult gpa(const char *sym, void **pfn, int ver, cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
    if (!sym || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    const gpa_entry *best = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof gpa_table / sizeof gpa_table[0]; i++) {
        if (strcmp(gpa_table[i].base, sym) != 0) continue;
        known = 1;
        if (ver >= gpa_table[i].min_version) best = &gpa_table[i];
    }
    if (!best) {
        if (status) *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    const char *v = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->ptds ? best->ptds : best->variant;
    for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++)
        if (strcmp(addrs[i].name, v) == 0) {
            *pfn = addrs[i].fn;
            snprintf(st->last_gpa, sizeof st->last_gpa, "%s", v);
            if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

API CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags) {
    count(F_cuGetProcAddress, (uint64_t)ver);
    return gpa(sym, pfn, ver, flags, NULL);
}

API CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags,
                                 CUdriverProcAddressQueryResult *status) {
    count(F_cuGetProcAddress_v2, (uint64_t)ver);
    return gpa(sym, pfn, ver, flags, status);
}
