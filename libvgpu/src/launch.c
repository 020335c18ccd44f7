/*
 * Compute limiting. Every launch path takes tokens from a per-container, per-device pool in the
 * shared region. A token is one nanosecond of GPU time; the cost of a launch is the measured
 * duration of its function (an EMA over sampled launches timed with events) times its number of
 * waves. The pool refills at rate_ppm of wall time, which starts at the limit and is corrected by a
 * controller from NVML per-process utilisation when the host pids are known. The controller works
 * on the rate as a fraction of the pool's full refill, so its gain does not depend on the SM count.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define R(name) static vgpu_real r_##name = {#name, NULL, 0}
R(cuLaunchKernel); R(cuLaunchKernel_ptsz); R(cuLaunchKernelEx); R(cuLaunchKernelEx_ptsz);
R(cuLaunchCooperativeKernel); R(cuLaunchCooperativeKernel_ptsz); R(cuGraphLaunch); R(cuGraphLaunch_ptsz);
R(cuEventCreate); R(cuEventRecord); R(cuEventRecord_ptsz); R(cuEventQuery); R(cuEventElapsedTime);
R(cuEventDestroy_v2); R(cuCtxGetCurrent); R(cuDeviceGetAttribute);
static vgpu_real r_nvmlInit_v2 = {"nvmlInit_v2", NULL, 1};
static vgpu_real r_nvmlDeviceGetHandleByUUID = {"nvmlDeviceGetHandleByUUID", NULL, 1};
static vgpu_real r_nvmlDeviceGetProcessUtilization = {"nvmlDeviceGetProcessUtilization", NULL, 1};

/* The pool only integrates rate x elapsed time, so the coarse clock (a few ms, no hardware
 * read) is precise enough and much cheaper on virtual machines. */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

/* ---- per-process state ---- */

/* 0 = not computed, 1 = some device may be limited, 2 = nothing to limit */
static atomic_int any_limit;
static atomic_int sms[VGPU_MAX_DEVICES];

static int compute_any_limit(void) {
    vgpu_init();
    int v = 2;
    if (vgpu_rgn && vgpu_cfg.core_policy != VGPU_POLICY_DISABLE)
        for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
            uint32_t l = vgpu_cfg.sm_limit[i];
            if (l > 0 && l < 100) v = 1;
        }
    atomic_store_explicit(&any_limit, v, memory_order_release);
    return v;
}

/* The limit is this process's (vgpu_sm_limit_of), never the region's copy. */
static int limit_active(int rec) {
    uint32_t l = vgpu_sm_limit_of(rec);
    if (l == 0 || l >= 100) return 0;
    if (vgpu_cfg.core_policy == VGPU_POLICY_FORCE) return 1;
    return __atomic_load_n(&vgpu_rgn->utilization_switch, __ATOMIC_RELAXED) != 0;
}

/* function -> measured ns per wave, lock-free open addressing */
#define FN_CAP 4096
typedef struct fn_stat {
    _Atomic(uintptr_t) key;
    atomic_uint_fast64_t ema_ns;
    atomic_uint_fast64_t count;
} fn_stat;
static fn_stat fns[FN_CAP];
static atomic_uint_fast64_t default_ns = 50000;

static fn_stat *fn_lookup(uintptr_t f) {
    size_t i = (size_t)((f * 0x9E3779B97F4A7C15ull) >> 40) & (FN_CAP - 1);
    for (int probe = 0; probe < 32; probe++, i = (i + 1) & (FN_CAP - 1)) {
        uintptr_t k = atomic_load_explicit(&fns[i].key, memory_order_acquire);
        if (k == f) return &fns[i];
        if (k == 0) {
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&fns[i].key, &expected, f) || expected == f) return &fns[i];
        }
    }
    return NULL;
}

/* ---- event sampling, per thread ---- */

typedef struct pending {
    CUevent start, end;
    fn_stat *fn;
    uint64_t waves;
    int64_t charged;
    int rec;
} pending;

#define PEND_MAX 8
/* Per-thread sampling state, allocated on a thread's first limited launch so that the static
 * TLS of the library stays one pointer. */
typedef struct thread_state {
    pending pend[PEND_MAX];
    int pend_head, pend_len;
    CUevent ev_pool[2 * PEND_MAX];
    int ev_pool_len;
    CUcontext ev_ctx;
    unsigned poll_tick;
} thread_state;

static VGPU_TLS thread_state *thr;
static pthread_key_t ts_key;
static pthread_once_t ts_once = PTHREAD_ONCE_INIT;

static void ts_free(void *p) { free(p); }
static void ts_key_create(void) { pthread_key_create(&ts_key, ts_free); }

static thread_state *ts_get(void) {
    if (thr) return thr;
    pthread_once(&ts_once, ts_key_create);
    thr = calloc(1, sizeof *thr);
    if (thr) pthread_setspecific(ts_key, thr);
    return thr;
}

static CUevent ev_get(void) {
    if (thr->ev_pool_len > 0) return thr->ev_pool[--thr->ev_pool_len];
    CUevent e = NULL;
    CUresult (*create)(CUevent *, unsigned) = REAL(r_cuEventCreate, CUresult (*)(CUevent *, unsigned));
    if (!create || create(&e, 0) != CUDA_SUCCESS) return NULL;
    return e;
}

static void ev_put(CUevent e) {
    if (!e) return;
    if (thr->ev_pool_len < 2 * PEND_MAX) thr->ev_pool[thr->ev_pool_len++] = e;
    else {
        CUresult (*destroy)(CUevent) = REAL(r_cuEventDestroy_v2, CUresult (*)(CUevent));
        if (destroy) destroy(e);
    }
}

static void poll_pending(void) {
    CUresult (*query)(CUevent) = REAL(r_cuEventQuery, CUresult (*)(CUevent));
    CUresult (*elapsed)(float *, CUevent, CUevent) = REAL(r_cuEventElapsedTime, CUresult (*)(float *, CUevent, CUevent));
    while (thr->pend_len > 0 && query && elapsed) {
        pending *p = &thr->pend[thr->pend_head];
        CUresult q = query(p->end);
        if (q == CUDA_ERROR_NOT_READY) return;
        float ms = 0;
        if (q == CUDA_SUCCESS && elapsed(&ms, p->start, p->end) == CUDA_SUCCESS && ms > 0) {
            uint64_t ns = (uint64_t)((double)ms * 1e6);
            uint64_t per_wave = ns / (p->waves ? p->waves : 1);
            if (per_wave == 0) per_wave = 1;
            /* Samples are inflated by other contexts' work queued between the two events, never
             * deflated: follow decreases quickly and increases slowly. */
            uint64_t old = atomic_load(&p->fn->ema_ns);
            uint64_t ema = !old ? per_wave : per_wave < old ? (old + per_wave) / 2 : (old * 15 + per_wave) / 16;
            atomic_store(&p->fn->ema_ns, ema);
            uint64_t d = atomic_load(&default_ns);
            atomic_store(&default_ns, (d * 15 + per_wave) / 16);
        }
        ev_put(p->start);
        ev_put(p->end);
        thr->pend_head = (thr->pend_head + 1) % PEND_MAX;
        thr->pend_len--;
    }
}

/* ---- the pool ---- */

/* The region's pool fields are writable by the tenant: the rate and the pool are bounded by what
 * this process's own limit allows (the controller's range, at most twice the limit). */
#define POOL_CAPACITY_NS 20000000
static uint64_t rate_bound(int rec) {
    uint64_t l = vgpu_sm_limit_of(rec);
    return l && l < 50 ? l * 20000u : 1000000u;
}

static void refill(vgpu_device_record *d, int rec, uint64_t now) {
    uint64_t last = __atomic_load_n(&d->refill_ns, __ATOMIC_ACQUIRE);
    if (now < last + 20000) return;
    if (!__atomic_compare_exchange_n(&d->refill_ns, &last, now, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return;
    if (last == 0) return;
    uint64_t dt = now - last;
    if (dt > 1000000000ull) dt = 1000000000ull;
    uint64_t rate = __atomic_load_n(&d->rate_ppm, __ATOMIC_RELAXED);
    if (rate > rate_bound(rec)) rate = rate_bound(rec);
    int64_t cap = (int64_t)__atomic_load_n(&d->pool_capacity, __ATOMIC_RELAXED);
    if (cap <= 0 || cap > POOL_CAPACITY_NS) cap = POOL_CAPACITY_NS;
    int64_t t = __atomic_add_fetch(&d->tokens, (int64_t)(dt * rate / 1000000ull), __ATOMIC_ACQ_REL);
    while (t > cap && !__atomic_compare_exchange_n(&d->tokens, &t, cap, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

static void acquire(vgpu_device_record *d, int rec, int64_t cost) {
    uint64_t waited = 0;
    for (;;) {
        uint64_t now = now_ns();
        refill(d, rec, now);
        int64_t t = __atomic_load_n(&d->tokens, __ATOMIC_ACQUIRE);
        if (t > POOL_CAPACITY_NS) { /* more than a full pool: written from outside */
            __atomic_compare_exchange_n(&d->tokens, &t, POOL_CAPACITY_NS, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            continue;
        }
        if (t > 0) {
            __atomic_sub_fetch(&d->tokens, cost, __ATOMIC_ACQ_REL);
            break;
        }
        uint64_t rate = __atomic_load_n(&d->rate_ppm, __ATOMIC_RELAXED);
        if (rate > rate_bound(rec)) rate = rate_bound(rec);
        if (rate == 0) rate = 1;
        uint64_t wait = (uint64_t)(-t + 1) * 1000000ull / rate;
        if (wait < 20000) wait = 20000;
        if (wait > 10000000) wait = 10000000;
        sleep_ns(wait);
        waited += now_ns() - now;
    }
    if (waited) __atomic_add_fetch(&d->throttled_ns, waited, __ATOMIC_RELAXED);
}

static int device_sms(int rec, CUdevice dev) {
    if (sms[rec] > 0) return sms[rec];
    int v = 0;
    CUresult (*attr)(int *, int, CUdevice) = REAL(r_cuDeviceGetAttribute, CUresult (*)(int *, int, CUdevice));
    if (!attr || attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS || v <= 0) v = 1;
    sms[rec] = v;
    return v;
}

static void note_kernel_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    uint64_t s = (uint64_t)ts.tv_sec;
    uint64_t old = __atomic_load_n(&vgpu_rgn->last_kernel_time, __ATOMIC_RELAXED);
    while (s > old && !__atomic_compare_exchange_n(&vgpu_rgn->last_kernel_time, &old, s, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* The monitor's gates, for every launch whatever the limits (as HAMi-core): recent_kernel < 0
 * (a higher-priority container is busy) or this process's slot suspended. Notes the launch's time
 * for the monitor's activity check on the way. Returns 1 when a gate is closed. */
static inline int gates_closed(void) {
    vgpu_region *r = vgpu_rgn;
    if (!r) return 0;
    note_kernel_time();
    if (__atomic_load_n(&r->recent_kernel, __ATOMIC_RELAXED) < 0) return 1;
    vgpu_slot *s = vgpu_my_slot_cached();
    return s && __atomic_load_n(&s->status, __ATOMIC_RELAXED) == VGPU_SLOT_SUSPENDED;
}

static void wait_gates(void) {
    while (vgpu_rgn && __atomic_load_n(&vgpu_rgn->recent_kernel, __ATOMIC_RELAXED) < 0) sleep_ns(100000000);
    vgpu_wait_if_suspended();
}

/* Blocks while the monitor says so, then takes the launch's tokens. Returns the pending sample
 * slot to fill, or NULL. */
static pending *launch_gate(uintptr_t fn, uint64_t blocks) {
    int al = atomic_load_explicit(&any_limit, memory_order_acquire);
    if (al == 0) al = compute_any_limit();
    if (gates_closed()) wait_gates();
    if (al == 2) return NULL;
    CUdevice dev = 0;
    int rec = vgpu_current_record(&dev);
    if (rec < 0) return NULL;
    vgpu_device_record *d = &vgpu_rgn->devices[rec];
    if (!limit_active(rec)) return NULL;
    vgpu_watcher_maybe_start();
    if (thr && thr->pend_len > 0 && (++thr->poll_tick & 3) == 0) poll_pending();
    uint64_t waves = (blocks + (uint64_t)device_sms(rec, dev) - 1) / (uint64_t)device_sms(rec, dev);
    if (waves == 0) waves = 1;
    fn_stat *st = fn ? fn_lookup(fn) : NULL;
    uint64_t per_wave = st ? atomic_load_explicit(&st->ema_ns, memory_order_relaxed) : 0;
    if (per_wave == 0) per_wave = atomic_load_explicit(&default_ns, memory_order_relaxed);
    int64_t cost = (int64_t)(per_wave * waves);
    acquire(d, rec, cost);
    __atomic_add_fetch(&d->launches, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&d->busy_ns, (uint64_t)cost, __ATOMIC_RELAXED);
    uint64_t n = st ? atomic_fetch_add_explicit(&st->count, 1, memory_order_relaxed) : 1;
    if (!st || !(n < 4 || (n & 15) == 0) || !ts_get() || thr->pend_len >= PEND_MAX) return NULL;
    CUcontext cur = NULL;
    CUresult (*getctx)(CUcontext *) = REAL(r_cuCtxGetCurrent, CUresult (*)(CUcontext *));
    if (!getctx || getctx(&cur) != CUDA_SUCCESS) return NULL;
    if (cur != thr->ev_ctx) {
        if (thr->pend_len > 0) return NULL; /* finish the other context's samples first */
        thr->ev_pool_len = 0; /* events of another context; dropped with it */
        thr->ev_ctx = cur;
    }
    pending *p = &thr->pend[(thr->pend_head + thr->pend_len) % PEND_MAX];
    p->start = ev_get();
    p->end = ev_get();
    if (!p->start || !p->end) {
        ev_put(p->start);
        ev_put(p->end);
        return NULL;
    }
    p->fn = st;
    p->waves = waves;
    p->charged = cost;
    p->rec = rec;
    return p;
}

typedef CUresult (*record_fn)(CUevent, CUstream);

static int sample_begin(pending *p, vgpu_real *rec_real, CUstream s) {
    record_fn rf = (record_fn)vgpu_real_get(rec_real);
    if (!rf || rf(p->start, s) != CUDA_SUCCESS) {
        ev_put(p->start);
        ev_put(p->end);
        return 0;
    }
    return 1;
}

static void sample_end(pending *p, vgpu_real *rec_real, CUstream s, CUresult launch_rc) {
    record_fn rf = (record_fn)vgpu_real_get(rec_real);
    if (launch_rc != CUDA_SUCCESS || !rf || rf(p->end, s) != CUDA_SUCCESS) {
        ev_put(p->start);
        ev_put(p->end);
        return;
    }
    thr->pend_len++;
}

/* ---- hooks ---- */

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

static inline CUresult launch_kernel(vgpu_real *real, vgpu_real *rec_real, CUfunction f, unsigned gx, unsigned gy,
                                     unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shm, CUstream s,
                                     void **params, void **extra) {
    launch_fn fn = (launch_fn)vgpu_real_get(real);
    if (!fn) return CUDA_ERROR_NOT_INITIALIZED;
    if (__builtin_expect(atomic_load_explicit(&any_limit, memory_order_relaxed) == 2, 1) && !gates_closed())
        return fn(f, gx, gy, gz, bx, by, bz, shm, s, params, extra);
    pending *p = launch_gate((uintptr_t)f, (uint64_t)gx * gy * gz);
    if (p && !sample_begin(p, rec_real, s)) p = NULL;
    CUresult rc = fn(f, gx, gy, gz, bx, by, bz, shm, s, params, extra);
    if (p) sample_end(p, rec_real, s, rc);
    return rc;
}

VGPU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shm, CUstream s, void **params, void **extra) {
    return launch_kernel(&r_cuLaunchKernel, &r_cuEventRecord, f, gx, gy, gz, bx, by, bz, shm, s, params, extra);
}

VGPU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                         unsigned by, unsigned bz, unsigned shm, CUstream s, void **params,
                                         void **extra) {
    return launch_kernel(&r_cuLaunchKernel_ptsz, &r_cuEventRecord_ptsz, f, gx, gy, gz, bx, by, bz, shm, s, params,
                         extra);
}

typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
static CUresult launch_ex(vgpu_real *real, vgpu_real *rec_real, const CUlaunchConfig *c, CUfunction f,
                          void **params, void **extra) {
    launch_ex_fn fn = (launch_ex_fn)vgpu_real_get(real);
    if (!fn) return CUDA_ERROR_NOT_INITIALIZED;
    if (!c || (atomic_load_explicit(&any_limit, memory_order_relaxed) == 2 && !gates_closed()))
        return fn(c, f, params, extra);
    pending *p = launch_gate((uintptr_t)f, (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ);
    if (p && !sample_begin(p, rec_real, c->hStream)) p = NULL;
    CUresult rc = fn(c, f, params, extra);
    if (p) sample_end(p, rec_real, c->hStream, rc);
    return rc;
}

VGPU_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    return launch_ex(&r_cuLaunchKernelEx, &r_cuEventRecord, c, f, params, extra);
}

VGPU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    return launch_ex(&r_cuLaunchKernelEx_ptsz, &r_cuEventRecord_ptsz, c, f, params, extra);
}

typedef CUresult (*launch_coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void **);
static CUresult launch_coop(vgpu_real *real, vgpu_real *rec_real, CUfunction f, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shm, CUstream s,
                            void **params) {
    launch_coop_fn fn = (launch_coop_fn)vgpu_real_get(real);
    if (!fn) return CUDA_ERROR_NOT_INITIALIZED;
    if (atomic_load_explicit(&any_limit, memory_order_relaxed) == 2 && !gates_closed())
        return fn(f, gx, gy, gz, bx, by, bz, shm, s, params);
    pending *p = launch_gate((uintptr_t)f, (uint64_t)gx * gy * gz);
    if (p && !sample_begin(p, rec_real, s)) p = NULL;
    CUresult rc = fn(f, gx, gy, gz, bx, by, bz, shm, s, params);
    if (p) sample_end(p, rec_real, s, rc);
    return rc;
}

VGPU_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                               unsigned by, unsigned bz, unsigned shm, CUstream s, void **params) {
    return launch_coop(&r_cuLaunchCooperativeKernel, &r_cuEventRecord, f, gx, gy, gz, bx, by, bz, shm, s, params);
}

VGPU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                                    unsigned by, unsigned bz, unsigned shm, CUstream s,
                                                    void **params) {
    return launch_coop(&r_cuLaunchCooperativeKernel_ptsz, &r_cuEventRecord_ptsz, f, gx, gy, gz, bx, by, bz, shm, s,
                       params);
}

/* A graph replay is measured as one unit keyed by its executable graph. */
static CUresult graph_launch(vgpu_real *real, vgpu_real *rec_real, CUgraphExec g, CUstream s) {
    CUresult (*fn)(CUgraphExec, CUstream) = (CUresult (*)(CUgraphExec, CUstream))vgpu_real_get(real);
    if (!fn) return CUDA_ERROR_NOT_INITIALIZED;
    if (atomic_load_explicit(&any_limit, memory_order_relaxed) == 2 && !gates_closed()) return fn(g, s);
    pending *p = launch_gate((uintptr_t)g, 1);
    if (p) p->waves = 1;
    if (p && !sample_begin(p, rec_real, s)) p = NULL;
    CUresult rc = fn(g, s);
    if (p) sample_end(p, rec_real, s, rc);
    return rc;
}

VGPU_EXPORT CUresult cuGraphLaunch(CUgraphExec g, CUstream s) { return graph_launch(&r_cuGraphLaunch, &r_cuEventRecord, g, s); }
VGPU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s) {
    return graph_launch(&r_cuGraphLaunch_ptsz, &r_cuEventRecord_ptsz, g, s);
}

/* ---- the controller ---- */

static pid_t watcher_pid;
pthread_mutex_t vgpu_watcher_lock = PTHREAD_MUTEX_INITIALIZER;

/* container utilisation of one device from NVML, -1 when unknown */
static int container_util(int rec, unsigned long long *since) {
    static int nvml_state; /* 0 untried, 1 ok, -1 unavailable */
    if (nvml_state < 0 || !vgpu_rgn->devices[rec].uuid[0]) return -1;
    int pids[VGPU_MAX_SLOTS], npids = 0;
    for (int k = 0; k < VGPU_MAX_SLOTS; k++) {
        vgpu_slot *s = &vgpu_rgn->slots[k];
        if (__atomic_load_n(&s->pid, __ATOMIC_ACQUIRE) == 0) continue;
        int hp = __atomic_load_n(&s->host_pid, __ATOMIC_RELAXED);
        if (hp > 0) pids[npids++] = hp;
    }
    if (npids == 0) return -1;
    if (nvml_state == 0) {
        nvmlReturn_t (*init)(void) = REAL(r_nvmlInit_v2, nvmlReturn_t (*)(void));
        nvml_state = init && init() == NVML_SUCCESS ? 1 : -1;
        if (nvml_state < 0) return -1;
    }
    nvmlDevice_t h;
    nvmlReturn_t (*byuuid)(const char *, nvmlDevice_t *) =
        REAL(r_nvmlDeviceGetHandleByUUID, nvmlReturn_t (*)(const char *, nvmlDevice_t *));
    nvmlReturn_t (*pu)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned *, unsigned long long) =
        REAL(r_nvmlDeviceGetProcessUtilization,
             nvmlReturn_t (*)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned *, unsigned long long));
    if (!byuuid || !pu || byuuid(vgpu_rgn->devices[rec].uuid, &h) != NVML_SUCCESS) return -1;
    nvmlProcessUtilizationSample_t samples[256];
    unsigned n = 256;
    if (pu(h, samples, &n, *since) != NVML_SUCCESS) return -1;
    /* several samples of one process may be returned: use each process's newest, then sum */
    unsigned util = 0;
    int matched = 0;
    unsigned long long newest = *since;
    for (int j = 0; j < npids; j++) {
        unsigned long long best_ts = 0;
        int found = 0;
        unsigned best = 0;
        for (unsigned i = 0; i < n && i < 256; i++)
            if ((int)samples[i].pid == pids[j] && samples[i].timeStamp >= best_ts) {
                best_ts = samples[i].timeStamp;
                best = samples[i].smUtil;
                found = 1;
            }
        util += best;
        matched += found;
    }
    for (unsigned i = 0; i < n && i < 256; i++)
        if (samples[i].timeStamp > newest) newest = samples[i].timeStamp;
    /* no sample of ours: idle, or pids that NVML does not know; either way no evidence */
    if (!matched) {
        *since = newest;
        return -1;
    }
    *since = newest;
    return util > 100 ? 100 : (int)util;
}

static void *watcher(void *arg) {
    (void)arg;
    unsigned long long since[VGPU_MAX_DEVICES] = {0};
    int broker_tries = 0;
    for (;;) {
        sleep_ns(100000000);
        if (!vgpu_rgn) continue;
        vgpu_slot *self = vgpu_my_slot();
        if (self && __atomic_load_n(&self->host_pid, __ATOMIC_ACQUIRE) == 0 && broker_tries < 5) {
            /* the monitor may also fill it in; ask the broker a few times, then leave it */
            int hp = vgpu_broker_host_pid();
            broker_tries = hp == 0 ? 5 : broker_tries + 1;
            if (hp > 0) {
                __atomic_store_n(&self->host_pid, hp, __ATOMIC_RELEASE);
                VLOG(VGPU_LOG_INFO, "host pid %d from the broker", hp);
            }
        }
        uint64_t now = now_ns();
        for (int rec = 0; rec < VGPU_MAX_DEVICES; rec++) {
            vgpu_device_record *d = &vgpu_rgn->devices[rec];
            if (!limit_active(rec)) continue;
            /* one controller step per period per container, whichever process gets there first */
            uint64_t *ctl = &d->ctl_ns;
            uint64_t last = __atomic_load_n(ctl, __ATOMIC_ACQUIRE);
            if (now < last + 90000000ull) continue;
            if (!__atomic_compare_exchange_n(ctl, &last, now, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) continue;
            int u = container_util(rec, &since[rec]);
            if (u < 0) continue;
            __atomic_store_n(&d->sm_util, (uint32_t)u, __ATOMIC_RELAXED);
            int64_t limit = vgpu_sm_limit_of(rec);
            int64_t rate = (int64_t)__atomic_load_n(&d->rate_ppm, __ATOMIC_RELAXED);
            /* step in ppm of the pool's full refill rate: gain 0.25 per percent point of error.
             * The correction is bounded to [limit/4, 2 x limit]: it trims estimation errors, it
             * cannot open the device on bad evidence. */
            rate += (limit - u) * 2500;
            int64_t lo = limit * 10000 / 4, hi = limit * 20000 < 1000000 ? limit * 20000 : 1000000;
            if (rate < lo) rate = lo;
            if (rate > hi) rate = hi;
            __atomic_store_n(&d->rate_ppm, (uint64_t)rate, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

void vgpu_watcher_maybe_start(void) {
    pid_t pid = vgpu_cached_pid;
    if (__atomic_load_n(&watcher_pid, __ATOMIC_ACQUIRE) == pid && pid != 0) return;
    if (atomic_load_explicit(&any_limit, memory_order_acquire) == 0) compute_any_limit();
    if (atomic_load_explicit(&any_limit, memory_order_acquire) != 1) return;
    pthread_mutex_lock(&vgpu_watcher_lock);
    if (watcher_pid != pid) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* the watcher takes no signals meant for the app */
        if (pthread_create(&t, &a, watcher, NULL) == 0) __atomic_store_n(&watcher_pid, pid, __ATOMIC_RELEASE);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&a);
    }
    pthread_mutex_unlock(&vgpu_watcher_lock);
}

void vgpu_throttle_reset_after_fork(void) {
    pthread_mutex_init(&vgpu_watcher_lock, NULL);
    if (thr) memset(thr, 0, sizeof *thr); /* the forking thread's samples belong to the parent */
}
