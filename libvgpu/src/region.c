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

static pthread_mutex_t *region_mutex(void) { return (pthread_mutex_t *)(void *)vgpu_rgn->lock; }

int vgpu_fail_closed(void) { return region_private && vgpu_cfg.fail_closed; }

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

static void check_limits(const vgpu_region *r, const vgpu_config *cfg) {
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        if (r->devices[i].mem_limit != cfg->mem_limit[i] || r->devices[i].sm_limit != cfg->sm_limit[i]) {
            VLOG(VGPU_LOG_WARN, "limits in %s differ from this process's env (device %d: %llu B / %u%% "
                 "there); the region's values apply", cfg->cache_path, i,
                 (unsigned long long)r->devices[i].mem_limit, r->devices[i].sm_limit);
            return;
        }
    }
}

static vgpu_region *map_file(const vgpu_config *cfg, const char **why) {
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
    if (__atomic_load_n(&r->magic, __ATOMIC_ACQUIRE) != VGPU_REGION_MAGIC) {
        init_region(r, cfg);
        VLOG(VGPU_LOG_INFO, "created shared region %s", cfg->cache_path);
    } else if (r->version_major != VGPU_REGION_VERSION_MAJOR || r->region_size != VGPU_REGION_SIZE) {
        munmap(p, VGPU_REGION_SIZE);
        r = NULL;
        *why = "existing region has another major version";
    } else {
        check_limits(r, cfg);
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
                 cfg.fail_closed ? "fail-closed, device allocations are refused"
                                 : "fail-open, limits apply to this process only");
        }
        vgpu_cfg = cfg;
        vgpu_rgn = r;
        atomic_store_explicit(&init_done, 1, memory_order_release);
    }
    pthread_mutex_unlock(&vgpu_init_lock);
}

int vgpu_region_ready(void) { return atomic_load_explicit(&init_done, memory_order_acquire) && vgpu_rgn; }

int vgpu_lock_region(void) {
    if (!vgpu_rgn) return -1;
    int rc = pthread_mutex_lock(region_mutex());
    if (rc == EOWNERDEAD) {
        VLOG(VGPU_LOG_WARN, "previous holder of the region lock died; recovering");
        pthread_mutex_consistent(region_mutex());
        rc = 0;
    }
    if (rc) VLOG(VGPU_LOG_ERROR, "region lock failed: %s", strerror(rc));
    return rc ? -1 : 0;
}

void vgpu_unlock_region(void) { pthread_mutex_unlock(region_mutex()); }

uint64_t vgpu_proc_start_time(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ') return 0;
    p += 2;
    if (*p == 'Z' || *p == 'X' || *p == 'x') return 0; /* exited, not yet reaped */
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) return 0;
        p++;
    }
    return strtoull(p, NULL, 10);
}

int vgpu_slot_alive(const vgpu_slot *s) {
    pid_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
    if (pid <= 0) return 0;
    uint64_t st = vgpu_proc_start_time(pid);
    if (st) return s->start_time == 0 || st == s->start_time; /* 0: claimed without /proc */
    if (access("/proc/self/stat", R_OK) == 0) return 0;     /* gone, or a zombie */
    /* no /proc here: a signal probe cannot tell pid reuse, but never reclaims a live process */
    return kill(pid, 0) == 0 || errno == EPERM;
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

int vgpu_reclaim_dead(void) {
    if (!vgpu_region_ready() || region_private) return 0;
    if (vgpu_lock_region() != 0) return 0;
    int n = reclaim_locked();
    vgpu_unlock_region();
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
        if (!s) VLOG(VGPU_LOG_ERROR, "no free slot in the shared region; this process is not accounted");
        __atomic_store_n(&my_slot, s, __ATOMIC_RELEASE);
        __atomic_store_n(&my_slot_pid, pid, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&vgpu_init_lock);
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
