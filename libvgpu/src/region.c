/*
 * The per-container shared region: creation, the robust lock, slots keyed by (pid, start time),
 * reclaim of dead processes, and binding of devices to records by UUID. Never exits the
 * application and never touches the umask; a region that cannot be used falls back to a private
 * one according to the failure policy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(sizeof(pthread_mutex_t) <= 64, "mutex fits the lock field");

vgpu_region *vgpu_rgn;
vgpu_config vgpu_cfg;
pthread_mutex_t vgpu_init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int init_done;
static int region_private;

static vgpu_slot *my_slot;
static pid_t my_slot_pid;
static uint32_t my_slot_gen;

static pthread_mutex_t *region_mutex(void) { return (pthread_mutex_t *)(void *)vgpu_rgn->lock; }

int vgpu_fail_closed(void) { return vgpu_cfg.limits_invalid || (region_private && vgpu_cfg.fail_closed); }

static void init_region(vgpu_region *r, const vgpu_config *cfg) {
    memset(r, 0, sizeof *r);
    r->version_major = VGPU_REGION_VERSION_MAJOR;
    r->version_minor = VGPU_REGION_VERSION_MINOR;
    r->region_size = VGPU_REGION_SIZE;
    r->header_size = VGPU_HEADER_SIZE;
    r->device_record_size = VGPU_DEVICE_RECORD_SIZE;
    r->slot_size = VGPU_SLOT_SIZE;
    r->slot_count = VGPU_MAX_SLOTS;
    r->flags = (cfg->fail_closed ? VGPU_FLAG_FAIL_CLOSED : 0) | (cfg->oversubscribe ? VGPU_FLAG_OVERSUBSCRIBE : 0);
    r->priority = cfg->priority;
    r->utilization_switch = 1;
    r->recent_kernel = 0;
    r->core_policy = cfg->core_policy;
    r->creator_pid = (uint64_t)getpid();
    r->created_at = (uint64_t)time(NULL);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init((pthread_mutex_t *)(void *)r->lock, &a);
    pthread_mutexattr_destroy(&a);
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        vgpu_device_record *d = &r->devices[i];
        d->mem_limit = cfg->mem_limit[i];
        d->sm_limit = cfg->sm_limit[i];
        d->rate_ppm = (uint64_t)(cfg->sm_limit[i] ? cfg->sm_limit[i] : 100) * 10000u;
        d->pool_capacity = 20000000; /* 20 ms of GPU time */
        d->tokens = (int64_t)(d->pool_capacity * d->rate_ppm / 1000000u);
    }
    __atomic_store_n(&r->magic, VGPU_REGION_MAGIC, __ATOMIC_RELEASE);
}

static uint64_t smaller_limit(uint64_t a, uint64_t b) { return !a ? b : !b ? a : a < b ? a : b; }
static uint32_t sm_or_zero(uint32_t v) { return v >= 100 ? 0 : v; }

/* An existing region's limits are never trusted over this process's: the file's keys apply as
 * read. A limit the file does not set comes from the environment, which the region's creator may
 * have had and this process may not (a tenant starting a process with a bigger or no limit), so
 * there the smaller non-zero of the two applies: a tenant who edits the region can only lower
 * its own limit that way. */
static void merge_limits(const vgpu_region *r, vgpu_config *cfg) {
    int differ = 0;
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        uint64_t rm = __atomic_load_n(&r->devices[i].mem_limit, __ATOMIC_RELAXED);
        uint32_t rs = sm_or_zero(__atomic_load_n(&r->devices[i].sm_limit, __ATOMIC_RELAXED));
        if (rm != cfg->mem_limit[i] || rs != sm_or_zero(cfg->sm_limit[i])) differ = 1;
        if (!(cfg->file_mem_mask & (1u << i))) cfg->mem_limit[i] = smaller_limit(cfg->mem_limit[i], rm);
        if (!(cfg->file_sm_mask & (1u << i)))
            cfg->sm_limit[i] = (uint32_t)smaller_limit(sm_or_zero(cfg->sm_limit[i]), rs);
    }
    if (differ)
        VLOG(VGPU_LOG_WARN, "limits in %s differ from this process's; enforcing %s (device 0: %llu B, %u%%)",
             cfg->cache_path,
             cfg->limits_from_file ? "the limits file's, and the smaller of env and region for keys it does not set"
                                   : "the smaller of env and region",
             (unsigned long long)cfg->mem_limit[0], cfg->sm_limit[0]);
}

static vgpu_region *map_file(vgpu_config *cfg, const char **why) {
    int fd = open(cfg->cache_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) { *why = strerror(errno); return NULL; }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) { *why = strerror(errno); close(fd); return NULL; }
    }
    vgpu_region *r = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) { *why = strerror(errno); goto out; }
    if (st.st_size == 0) {
        if (ftruncate(fd, VGPU_REGION_SIZE) != 0) { *why = strerror(errno); goto out; }
        /* let every user of the container share the file without touching the umask */
        if (fchmod(fd, 0666) != 0) VLOG(VGPU_LOG_INFO, "fchmod %s: %s", cfg->cache_path, strerror(errno));
    } else if (st.st_size != VGPU_REGION_SIZE) {
        *why = "existing file has a foreign size (another layout or version)";
        goto out;
    }
    void *p = mmap(NULL, VGPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { *why = strerror(errno); goto out; }
    r = p;
    uint32_t magic = __atomic_load_n(&r->magic, __ATOMIC_ACQUIRE);
    if (magic == 0) {
        /* new, or its creator died before writing the magic (written last) */
        init_region(r, cfg);
        VLOG(VGPU_LOG_INFO, "created shared region %s", cfg->cache_path);
    } else if (magic != VGPU_REGION_MAGIC) {
        munmap(p, VGPU_REGION_SIZE);
        r = NULL;
        *why = "existing file has a foreign magic (another layout)";
    } else if (r->version_major != VGPU_REGION_VERSION_MAJOR || r->region_size != VGPU_REGION_SIZE) {
        munmap(p, VGPU_REGION_SIZE);
        r = NULL;
        *why = "existing region has another major version";
    } else {
        merge_limits(r, cfg);
    }
out:
    flock(fd, LOCK_UN);
    close(fd);
    return r;
}

void vgpu_init(void) {
    if (atomic_load_explicit(&init_done, memory_order_acquire)) return;
    pthread_mutex_lock(&vgpu_init_lock);
    if (!atomic_load_explicit(&init_done, memory_order_relaxed)) {
        vgpu_config cfg;
        vgpu_config_from_env(&cfg);
        vgpu_limits_load(&cfg);
        const char *why = "unknown";
        vgpu_region *r = map_file(&cfg, &why);
        if (!r) {
            void *p = mmap(NULL, VGPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED) {
                r = p;
                init_region(r, &cfg);
                region_private = 1;
            }
            VLOG(VGPU_LOG_ERROR, "cannot use shared region %s (%s): %s", cfg.cache_path, why,
                 cfg.limits_invalid ? "the limits file is invalid too, device allocations are refused"
                 : cfg.fail_closed  ? "fail-closed, device allocations are refused"
                 : cfg.limits_from_file ? "the limits file's limits apply to this process only"
                                        : "fail-open, limits apply to this process only");
        }
        vgpu_cfg = cfg;
        vgpu_rgn = r;
        atomic_store_explicit(&init_done, 1, memory_order_release);
    }
    pthread_mutex_unlock(&vgpu_init_lock);
}

int vgpu_region_ready(void) { return atomic_load_explicit(&init_done, memory_order_acquire) && vgpu_rgn; }

static void rederive_locked(void);
static int reclaim_locked(void);

/* Bounded: a lock word a tenant scribbled over must not hang the application; the caller then
 * treats the region as unusable for this call (allocations on limited devices are refused). */
static int lock_bounded(pthread_mutex_t *m) {
    int rc = pthread_mutex_trylock(m);
    if (rc != EBUSY) return rc;
    struct timespec until;
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer's timedlock does not know EOWNERDEAD as acquired: poll with trylock */
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t deadline = (uint64_t)until.tv_sec * 1000000000ull + (uint64_t)until.tv_nsec + 2000000000ull;
    for (unsigned spins = 0;; spins++) {
        rc = pthread_mutex_trylock(m);
        if (rc != EBUSY) return rc;
        clock_gettime(CLOCK_MONOTONIC, &until);
        if ((uint64_t)until.tv_sec * 1000000000ull + (uint64_t)until.tv_nsec > deadline) return ETIMEDOUT;
        struct timespec nap = {0, spins < 100 ? 1000 : 100000};
        nanosleep(&nap, NULL);
    }
#else
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    do rc = pthread_mutex_timedlock(m, &until);
    while (rc == EINTR);
    return rc;
#endif
}

int vgpu_lock_region(void) {
    if (!vgpu_rgn) return -1;
    int rc = lock_bounded(region_mutex());
    if (rc == EOWNERDEAD) {
        VLOG(VGPU_LOG_WARN, "previous holder of the region lock died; recovering");
        pthread_mutex_consistent(region_mutex());
        rederive_locked(); /* it may have died between a slot and a device total */
        rc = 0;
    }
    if (rc) VLOG(VGPU_LOG_ERROR, "region lock failed: %s", strerror(rc));
    return rc ? -1 : 0;
}

void vgpu_unlock_region(void) { pthread_mutex_unlock(region_mutex()); }

int vgpu_slot_alive(const vgpu_slot *s) {
    pid_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
    if (pid <= 0) return 0;
    return vgpu_proc_alive(pid, __atomic_load_n(&s->start_time, __ATOMIC_RELAXED)) == VGPU_PROC_ALIVE;
}

static void sub_saturating(uint64_t *v, uint64_t d) {
    uint64_t cur = __atomic_load_n(v, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(v, &cur, cur > d ? cur - d : 0, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    }
}

/* Returns a dead or departing process's charges to the container total. Lock held. */
static void release_slot_locked(vgpu_slot *s) {
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        uint64_t u = __atomic_exchange_n(&s->used[i], 0, __ATOMIC_ACQ_REL);
        if (u) sub_saturating(&vgpu_rgn->devices[i].mem_used, u);
        __atomic_store_n(&s->context[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->sm_util[i], 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&s->status, VGPU_SLOT_FREE, __ATOMIC_RELAXED);
    __atomic_store_n(&s->host_pid, 0, __ATOMIC_RELAXED);
    s->start_time = 0;
    __atomic_store_n(&s->pid, 0, __ATOMIC_RELEASE);
}

/* Device totals from the slots: exact whenever every writer holds the lock, which they do. */
static void rederive_locked(void) {
    uint64_t sum[VGPU_MAX_DEVICES] = {0};
    for (int k = 0; k < VGPU_MAX_SLOTS; k++) {
        vgpu_slot *s = &vgpu_rgn->slots[k];
        if (__atomic_load_n(&s->pid, __ATOMIC_ACQUIRE) == 0) continue;
        for (int i = 0; i < VGPU_MAX_DEVICES; i++) sum[i] += __atomic_load_n(&s->used[i], __ATOMIC_RELAXED);
    }
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) __atomic_store_n(&vgpu_rgn->devices[i].mem_used, sum[i], __ATOMIC_RELEASE);
}

int vgpu_reclaim_locked(void) {
    int n = reclaim_locked();
    rederive_locked();
    return n;
}

static int reclaim_locked(void) {
    int n = 0;
    pid_t self = getpid();
    for (int k = 0; k < VGPU_MAX_SLOTS; k++) {
        vgpu_slot *s = &vgpu_rgn->slots[k];
        pid_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
        if (pid == 0 || (s == my_slot && my_slot_pid == self)) continue;
        if (!vgpu_slot_alive(s)) {
            VLOG(VGPU_LOG_INFO, "reclaiming slot %d of exited process %d", k, (int)pid);
            release_slot_locked(s);
            n++;
        }
    }
    return n;
}

static vgpu_slot *claim_locked(pid_t pid, uint64_t start) {
    vgpu_slot *free_slot = NULL;
    for (int k = 0; k < VGPU_MAX_SLOTS; k++) {
        vgpu_slot *s = &vgpu_rgn->slots[k];
        pid_t p = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
        if (p == pid) {
            /* a previous process with our pid died without cleaning up */
            release_slot_locked(s);
            p = 0;
        }
        if (p == 0 && !free_slot) free_slot = s;
    }
    if (!free_slot) return NULL;
    /* a slot freed from outside (the monitor writes only pid = 0) may keep old counters */
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        __atomic_store_n(&free_slot->used[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&free_slot->context[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&free_slot->sm_util[i], 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&free_slot->host_pid, 0, __ATOMIC_RELAXED);
    rederive_locked();
    free_slot->start_time = start;
    free_slot->generation++;
    __atomic_store_n(&free_slot->status, VGPU_SLOT_RUNNING, __ATOMIC_RELAXED);
    __atomic_store_n(&free_slot->pid, pid, __ATOMIC_RELEASE);
    return free_slot;
}

vgpu_slot *vgpu_my_slot_cached(void) {
    vgpu_slot *s = __atomic_load_n(&my_slot, __ATOMIC_ACQUIRE);
    if (s && __atomic_load_n(&my_slot_pid, __ATOMIC_ACQUIRE) == vgpu_cached_pid) return s;
    return vgpu_my_slot();
}

vgpu_slot *vgpu_my_slot(void) {
    pid_t pid = getpid();
    vgpu_slot *s = __atomic_load_n(&my_slot, __ATOMIC_ACQUIRE);
    if (s && __atomic_load_n(&my_slot_pid, __ATOMIC_ACQUIRE) == pid) return s;
    vgpu_init();
    if (!vgpu_rgn) return NULL;
    pthread_mutex_lock(&vgpu_init_lock);
    s = my_slot;
    if (!s || my_slot_pid != pid) {
        uint64_t start = vgpu_proc_start_time(pid);
        s = NULL;
        if (vgpu_lock_region() == 0) {
            s = claim_locked(pid, start);
            if (!s && reclaim_locked() > 0) s = claim_locked(pid, start);
            vgpu_unlock_region();
        }
        if (!s) VLOG(VGPU_LOG_ERROR, "no free slot in the shared region; allocations on limited devices are refused");
        my_slot_gen = s ? s->generation : 0;
        __atomic_store_n(&my_slot, s, __ATOMIC_RELEASE);
        __atomic_store_n(&my_slot_pid, pid, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&vgpu_init_lock);
    return s;
}

vgpu_slot *vgpu_own_slot_locked(int *fresh) {
    pid_t pid = getpid();
    vgpu_slot *s = __atomic_load_n(&my_slot, __ATOMIC_ACQUIRE);
    *fresh = 0;
    if (s && my_slot_pid == pid && __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE) == pid && s->generation == my_slot_gen)
        return s;
    if (s && my_slot_pid == pid)
        VLOG(VGPU_LOG_WARN, "this process's slot in %s was cleared or taken by someone else; claiming another",
             vgpu_cfg.cache_path);
    uint64_t start = vgpu_proc_start_time(pid);
    s = claim_locked(pid, start);
    if (!s && reclaim_locked() > 0) s = claim_locked(pid, start);
    if (!s) VLOG(VGPU_LOG_ERROR, "no free slot in the shared region; allocations on limited devices are refused");
    my_slot_gen = s ? s->generation : 0;
    __atomic_store_n(&my_slot, s, __ATOMIC_RELEASE);
    __atomic_store_n(&my_slot_pid, pid, __ATOMIC_RELEASE);
    *fresh = s != NULL;
    return s;
}

void vgpu_region_release_self(void) {
    vgpu_slot *s = __atomic_load_n(&my_slot, __ATOMIC_ACQUIRE);
    /* a child made by raw clone() inherits my_slot but must not release its parent's slot */
    if (!s || __atomic_load_n(&my_slot_pid, __ATOMIC_ACQUIRE) != getpid() || !vgpu_rgn) return;
    if (vgpu_lock_region() == 0) {
        release_slot_locked(s);
        vgpu_unlock_region();
    }
    __atomic_store_n(&my_slot, NULL, __ATOMIC_RELEASE);
}

/* ---- device binding ---- */

#define MAX_ORDINALS 64
static atomic_int ord_rec[MAX_ORDINALS];
static atomic_int ord_known[MAX_ORDINALS];

static int bind_uuid(const char *uuid, int hint) {
    if (!vgpu_rgn) return -1;
    if (vgpu_lock_region() != 0) return hint >= 0 && hint < VGPU_MAX_DEVICES ? hint : -1;
    int found = -1;
    for (int i = 0; i < VGPU_MAX_DEVICES && found < 0; i++)
        if (uuid[0] && strncmp(vgpu_rgn->devices[i].uuid, uuid, VGPU_UUID_LEN) == 0) found = i;
    if (found < 0 && hint >= 0 && hint < VGPU_MAX_DEVICES && vgpu_rgn->devices[hint].uuid[0] == 0) found = hint;
    for (int i = 0; i < VGPU_MAX_DEVICES && found < 0; i++)
        if (vgpu_rgn->devices[i].uuid[0] == 0) found = i;
    if (found >= 0 && vgpu_rgn->devices[found].uuid[0] == 0 && uuid[0]) {
        snprintf(vgpu_rgn->devices[found].uuid, VGPU_UUID_LEN, "%s", uuid);
        if (vgpu_rgn->device_count < (uint32_t)found + 1) vgpu_rgn->device_count = (uint32_t)found + 1;
    }
    vgpu_unlock_region();
    return found;
}

/* Process-local limits per record, taken from the CUDA ordinal that this process bound to it: a
 * tenant who rearranges the records' UUIDs cannot move a device under another index's limit. */
static _Atomic uint64_t rec_mem[VGPU_MAX_DEVICES];
static _Atomic uint32_t rec_sm[VGPU_MAX_DEVICES];
static atomic_int rec_bound[VGPU_MAX_DEVICES];

static uint64_t smallest_nonzero(const uint64_t *v, int n) {
    uint64_t m = 0;
    for (int i = 0; i < n; i++) m = smaller_limit(m, v[i]);
    return m;
}

static void bind_limits(int rec, CUdevice dev) {
    uint64_t mem;
    uint32_t sm;
    if (dev >= 0 && dev < VGPU_MAX_DEVICES) {
        mem = vgpu_cfg.mem_limit[dev];
        sm = sm_or_zero(vgpu_cfg.sm_limit[dev]);
    } else { /* beyond the env and file indices: the strictest limit of any index */
        mem = smallest_nonzero(vgpu_cfg.mem_limit, VGPU_MAX_DEVICES);
        sm = 0;
        for (int i = 0; i < VGPU_MAX_DEVICES; i++) sm = (uint32_t)smaller_limit(sm, sm_or_zero(vgpu_cfg.sm_limit[i]));
    }
    if (atomic_exchange(&rec_bound[rec], 1)) { /* two ordinals on one record: the smaller limits */
        mem = smaller_limit(mem, atomic_load(&rec_mem[rec]));
        sm = (uint32_t)smaller_limit(sm, atomic_load(&rec_sm[rec]));
    }
    atomic_store(&rec_mem[rec], mem);
    atomic_store(&rec_sm[rec], sm);
}

uint64_t vgpu_mem_limit_of(int rec) {
    if (rec < 0 || rec >= VGPU_MAX_DEVICES) return 0;
    return atomic_load(&rec_bound[rec]) ? atomic_load(&rec_mem[rec]) : vgpu_cfg.mem_limit[rec];
}

uint32_t vgpu_sm_limit_of(int rec) {
    if (rec < 0 || rec >= VGPU_MAX_DEVICES) return 0;
    return atomic_load(&rec_bound[rec]) ? atomic_load(&rec_sm[rec]) : sm_or_zero(vgpu_cfg.sm_limit[rec]);
}

static vgpu_real r_cuDeviceGetUuid_v2 = {"cuDeviceGetUuid_v2", NULL, 0};
static vgpu_real r_cuDeviceGetUuid = {"cuDeviceGetUuid", NULL, 0};
static vgpu_real r_cuDeviceTotalMem_v2 = {"cuDeviceTotalMem_v2", NULL, 0};
static vgpu_real r_cuCtxGetDevice = {"cuCtxGetDevice", NULL, 0};
static vgpu_real r_nvmlDeviceGetUUID = {"nvmlDeviceGetUUID", NULL, 1};
static vgpu_real r_nvmlDeviceGetIndex = {"nvmlDeviceGetIndex", NULL, 1};

int vgpu_record_for_cuda_dev(CUdevice dev) {
    if (dev < 0 || dev >= MAX_ORDINALS) return -1;
    if (atomic_load_explicit(&ord_known[dev], memory_order_acquire))
        return atomic_load_explicit(&ord_rec[dev], memory_order_relaxed);
    vgpu_init();
    CUuuid u;
    char uuid[VGPU_UUID_LEN] = "";
    CUresult (*get)(CUuuid *, CUdevice) = REAL(r_cuDeviceGetUuid_v2, CUresult (*)(CUuuid *, CUdevice));
    if (!get) get = REAL(r_cuDeviceGetUuid, CUresult (*)(CUuuid *, CUdevice));
    if (get && get(&u, dev) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(uuid, sizeof uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    }
    int rec = bind_uuid(uuid, dev);
    if (rec >= 0) bind_limits(rec, dev);
    if (rec >= 0) {
        size_t total = 0;
        CUresult (*tm)(size_t *, CUdevice) = REAL(r_cuDeviceTotalMem_v2, CUresult (*)(size_t *, CUdevice));
        if (tm && tm(&total, dev) == CUDA_SUCCESS)
            __atomic_store_n(&vgpu_rgn->devices[rec].mem_total, (uint64_t)total, __ATOMIC_RELAXED);
    }
    atomic_store_explicit(&ord_rec[dev], rec, memory_order_relaxed);
    atomic_store_explicit(&ord_known[dev], 1, memory_order_release);
    return rec;
}

int vgpu_current_record(CUdevice *dev_out) {
    CUdevice dev = -1;
    CUresult (*gd)(CUdevice *) = REAL(r_cuCtxGetDevice, CUresult (*)(CUdevice *));
    if (!gd || gd(&dev) != CUDA_SUCCESS) return -1;
    if (dev_out) *dev_out = dev;
    return vgpu_record_for_cuda_dev(dev);
}

int vgpu_record_for_nvml(nvmlDevice_t dev) {
    vgpu_init();
    char uuid[VGPU_UUID_LEN] = "";
    unsigned idx = 0;
    int hint = -1;
    nvmlReturn_t (*gu)(nvmlDevice_t, char *, unsigned) =
        REAL(r_nvmlDeviceGetUUID, nvmlReturn_t (*)(nvmlDevice_t, char *, unsigned));
    nvmlReturn_t (*gi)(nvmlDevice_t, unsigned *) = REAL(r_nvmlDeviceGetIndex, nvmlReturn_t (*)(nvmlDevice_t, unsigned *));
    if (gu && gu(dev, uuid, sizeof uuid) != NVML_SUCCESS) uuid[0] = 0;
    uuid[VGPU_UUID_LEN - 1] = 0;
    if (gi && gi(dev, &idx) == NVML_SUCCESS && idx < VGPU_MAX_DEVICES) hint = (int)idx;
    return bind_uuid(uuid, hint);
}

void vgpu_region_after_fork_child(void);
void vgpu_region_after_fork_child(void) {
    /* the child claims its own slot on first use; the mapping stays valid */
    pthread_mutex_init(&vgpu_init_lock, NULL);
}
