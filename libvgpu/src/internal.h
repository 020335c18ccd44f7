/* Internal interfaces of libvgpu. Everything here has hidden visibility. */
#ifndef VGPU_INTERNAL_H
#define VGPU_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda_abi.h"
#include "nvml_abi.h"
#include "vgpu/shared_region.h"

#define VGPU_EXPORT __attribute__((visibility("default")))
#define VGPU_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- logging (log.c) ---- */
enum { VGPU_LOG_OFF = 0, VGPU_LOG_ERROR = 1, VGPU_LOG_WARN = 2, VGPU_LOG_INFO = 3, VGPU_LOG_DEBUG = 4 };
extern int vgpu_log_level;
void vgpu_log_init(void);
void vgpu_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define VLOG(lvl, ...) do { if ((lvl) <= vgpu_log_level) vgpu_log((lvl), __VA_ARGS__); } while (0)

/* ---- env parsing (env.c) ---- */
/* Returns 0 and stores bytes, or -1 for an invalid value. Empty means "no limit" (0). */
int vgpu_parse_size(const char *s, uint64_t *out);
/* Percent 0..100; returns -1 for invalid. */
int vgpu_parse_percent(const char *s, uint32_t *out);
/* Returns VGPU_POLICY_*. */
uint32_t vgpu_parse_policy(const char *s);
/* Integer in [lo, hi]; -1 for invalid. */
int vgpu_parse_int(const char *s, long lo, long hi, long *out);
/* true/false/1/0/yes/no; -1 invalid. */
int vgpu_parse_bool(const char *s, int *out);

/* The process's limits: read once at init (env, then the limits file on top) and kept in process
 * memory. The region's copy is informational and never read back into these. */
typedef struct vgpu_config {
    uint64_t mem_limit[VGPU_MAX_DEVICES];
    uint32_t sm_limit[VGPU_MAX_DEVICES];
    uint32_t core_policy;
    int32_t priority;
    int oversubscribe;
    int fail_closed;
    char cache_path[512];
    uint32_t file_mem_mask;   /* devices whose memory limit the limits file set */
    uint32_t file_sm_mask;    /* devices whose SM limit the limits file set */
    int limits_from_file;     /* a valid limits file was read */
    int limits_invalid;       /* a limits file exists but is unreadable or invalid: fail closed */
    char limits_file[256];
    char limits_problem[512]; /* names the file, line and value when limits_invalid */
} vgpu_config;

/* Reads the env contract; invalid values are logged and mean "no limit". */
void vgpu_config_from_env(vgpu_config *cfg);

/* ---- limits file (limits.c) ---- */
#ifndef VGPU_LIMITS_PATH
#define VGPU_LIMITS_PATH "/etc/vgpu/limits"
#endif
typedef struct vgpu_limits {
    int version;
    uint64_t mem_limit[VGPU_MAX_DEVICES];
    uint32_t sm_limit[VGPU_MAX_DEVICES];
    uint32_t mem_set, sm_set; /* bit per device index */
    uint32_t sm_global;
    int sm_global_set;
    uint32_t core_policy;
    int core_policy_set;
    int32_t priority;
    int priority_set;
    int oversubscribe;
    int oversubscribe_set;
    int unknown_keys;
} vgpu_limits;
typedef struct vgpu_limits_error {
    int line; /* 1-based; 0 for the whole file */
    char key[48];
    char value[72];
    char reason[64];
} vgpu_limits_error;
/* Parses a whole file's text; 0 ok, -1 invalid with err filled in. Unknown keys are logged. */
int vgpu_limits_parse(const char *text, size_t len, vgpu_limits *out, vgpu_limits_error *err);
/* Overlays the keys a parsed file set on cfg and records which ones. */
void vgpu_limits_apply(vgpu_config *cfg, const vgpu_limits *l);
/* The file to read: `fixed` unless it is absent, then env_path unless absent, else NULL. */
const char *vgpu_limits_choose(const char *fixed, const char *env_path);
/* Env, then the file chosen from VGPU_LIMITS_PATH / LIBVGPU_LIMITS_FILE; sets limits_invalid. */
void vgpu_limits_load(vgpu_config *cfg);

/* ---- process liveness (proc.c) ---- */
enum { VGPU_PROC_DEAD = 0, VGPU_PROC_ALIVE = 1 };
/* The decision alone: open_errno is 0 when /proc/<pid>/stat was read (then state and start are
 * its fields 3 and 22), else the errno of the read; kill_errno is that of kill(pid, 0) (0 when it
 * succeeded), consulted only when /proc said ENOENT; want_start 0 = unknown. Only a process that
 * /proc and kill() both say is gone (ENOENT and ESRCH), a zombie, or another process that reuses
 * the pid is dead; anything we cannot see (EACCES under hidepid) is alive. */
int vgpu_proc_verdict(int open_errno, char state, uint64_t start, uint64_t want_start, int kill_errno);
int vgpu_proc_alive(pid_t pid, uint64_t want_start);

/* ---- real driver entry points (real.c) ---- */
void *vgpu_real_dlsym(void *handle, const char *name);
void *vgpu_cuda_handle(void);  /* dlopen on first use; NULL when absent */
void *vgpu_nvml_handle(void);
void *vgpu_cuda_sym(const char *name);
void *vgpu_nvml_sym(const char *name);
void *vgpu_cuda_handle_if_loaded(void);
void *vgpu_nvml_handle_if_loaded(void);

/* A lazily resolved real function pointer. */
typedef struct vgpu_real {
    const char *name;
    _Atomic(void *) fn;
    int nvml;
} vgpu_real;
void *vgpu_real_resolve(vgpu_real *r);
static inline void *vgpu_real_get(vgpu_real *r) {
    void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
    return f ? f : vgpu_real_resolve(r);
}
#define REAL(var, type) ((type)vgpu_real_get(&(var)))

/* ---- shared region (region.c) ---- */
extern vgpu_region *vgpu_rgn;       /* NULL until vgpu_init */
extern vgpu_config vgpu_cfg;
void vgpu_init(void);               /* idempotent, thread-safe; never exits */
int vgpu_region_ready(void);
int vgpu_lock_region(void);         /* 0 on success */
void vgpu_unlock_region(void);
vgpu_slot *vgpu_my_slot(void);      /* claims a slot for this pid on first use; NULL if full */
/* Same without a getpid() call, for status checks on hot paths: a child made by raw clone()
 * may see its parent's slot here. */
vgpu_slot *vgpu_my_slot_cached(void);
int vgpu_reclaim_locked(void);      /* reclaims dead processes' slots, lock held, then re-derives
                                     * every device total; returns the number reclaimed */
/* Lock held: this process's slot, claimed again when someone cleared or took it (a tenant wiping
 * the region); *fresh = 1 when just claimed, so the caller re-charges its process-local totals. */
vgpu_slot *vgpu_own_slot_locked(int *fresh);
int vgpu_slot_alive(const vgpu_slot *s);
uint64_t vgpu_proc_start_time(pid_t pid); /* 0 when the process does not exist */
void vgpu_region_release_self(void);
int vgpu_fail_closed(void);

/* Device record for a CUDA ordinal / NVML handle; -1 when unknown. */
int vgpu_record_for_cuda_dev(CUdevice dev);
int vgpu_record_for_nvml(nvmlDevice_t dev);
int vgpu_current_record(CUdevice *dev_out); /* record of the current context's device */

/* Limits this process enforces for a device record: from process memory (vgpu_cfg), by the CUDA
 * ordinal this process bound to the record, never from the region. */
uint64_t vgpu_mem_limit_of(int rec);
uint32_t vgpu_sm_limit_of(int rec); /* 0 = unlimited */

/* ---- memory accounting (memory.c) ---- */
int vgpu_reserve(int rec, uint64_t bytes);     /* 0 ok, -1 over the limit */
void vgpu_unreserve(int rec, uint64_t bytes);
void vgpu_charge_forced(int rec, uint64_t bytes, int context);
int vgpu_track_add(uint64_t key, int kind, int rec, uint64_t bytes); /* -1: table full, not tracked */
int vgpu_track_remove(uint64_t key, int kind, int *rec, uint64_t *bytes);
void vgpu_track_reset(void);
void vgpu_wait_if_suspended(void);

/* ---- launch throttling (launch.c) ---- */
void vgpu_throttle_reset_after_fork(void);
void vgpu_watcher_maybe_start(void);

/* ---- host pid (hostpid.c): > 0 host pid, 0 broker disabled, -1 failed ---- */
int vgpu_broker_host_pid(void);

/* ---- hook tables (procaddr.c) ---- */
typedef struct vgpu_hook {
    const char *name; /* exact driver symbol, e.g. "cuLaunchKernel_ptsz" */
    void *fn;
} vgpu_hook;
void *vgpu_find_hook(const char *symbol);

/* ---- fork handling (init.c) ---- */
extern pid_t vgpu_cached_pid;
void vgpu_atfork_register(void);

/* process-local locks taken by the atfork prepare handler */
#include <pthread.h>
extern pthread_mutex_t vgpu_track_lock;
extern pthread_mutex_t vgpu_init_lock;
extern pthread_mutex_t vgpu_watcher_lock;

#endif
