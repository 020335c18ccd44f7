/*
 * The libvgpu CPU suite: the 17 cases of the design study (§7.4), then the attacks on the limits
 * and the accounting (agent-owned limits file, region hardening), against the fake driver.
 * Every case runs in a fresh process (the library reads its env once), with its own cache file
 * and fake-driver state. Usage: vgpu_test [case-name...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "../src/internal.h"
#include "testutil.h"

extern char **environ;
void *next_probe(void);

static const char *tmpdir;

/* ---- helpers ---- */

static int in_libvgpu(void *p) {
    Dl_info i;
    return p && dladdr(p, &i) && i.dli_fname && strstr(i.dli_fname, "libvgpu") != NULL;
}

static int in_lib(void *p, const char *needle) {
    Dl_info i;
    return p && dladdr(p, &i) && i.dli_fname && strstr(i.dli_fname, needle) != NULL;
}

/* Runs this binary as `--worker name` with extra env; returns the exit status (or -signal). */
static int run_worker(const char *name, const char *const *extra_env) {
    char *argv[] = {"/proc/self/exe", "--worker", (char *)name, NULL};
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0, "readlink");
    exe[n] = 0;
    argv[0] = exe;
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        for (int i = 0; extra_env && extra_env[i]; i++) putenv((char *)extra_env[i]);
        execv(exe, argv);
        _exit(127);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

static int sanitizer(void) { return getenv("VGPU_SANITIZER") != NULL; }

/* ---- 1: env parsing ---- */

static void case_env(void) {
    const char *gib[] = {"1g", "1024m", "1048576k", "1073741824", "1G", "1024M", "1Gi", "1GiB", "1gb", " 1g "};
    for (size_t i = 0; i < sizeof gib / sizeof gib[0]; i++) {
        uint64_t v = 0;
        CHECK(vgpu_parse_size(gib[i], &v) == 0 && v == GiB, "\"%s\" -> %llu", gib[i], (unsigned long long)v);
    }
    uint64_t v = 0;
    CHECK(vgpu_parse_size("010g", &v) == 0 && v == 10 * GiB, "leading zero is decimal");
    CHECK(vgpu_parse_size("0", &v) == 0 && v == 0, "zero");
    CHECK(vgpu_parse_size("1t", &v) == 0 && v == 1024 * GiB, "tera");
    CHECK(vgpu_parse_size("16777215t", &v) == 0, "largest tera");
    const char *bad[] = {"", "0x10", "abc", "-1", "1.5g", "1p", "g", "18446744073709551616", "16777216t",
                         "17179869184g", "1 g x", "12k3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(vgpu_parse_size(bad[i], &v) != 0, "\"%s\" must be rejected", bad[i]);
    uint32_t p;
    CHECK(vgpu_parse_percent("30", &p) == 0 && p == 30, "30");
    CHECK(vgpu_parse_percent("30%", &p) == 0 && p == 30, "30%%");
    CHECK(vgpu_parse_percent("101", &p) != 0 && vgpu_parse_percent("50k", &p) != 0, "percent range");
    CHECK(vgpu_parse_policy("FORCE") == VGPU_POLICY_FORCE && vgpu_parse_policy("force") == VGPU_POLICY_FORCE, "force");
    CHECK(vgpu_parse_policy("disable") == VGPU_POLICY_DISABLE && vgpu_parse_policy("x") == VGPU_POLICY_DEFAULT &&
              vgpu_parse_policy(NULL) == VGPU_POLICY_DEFAULT, "policy");

    vgpu_log_level = 0; /* the garbage below is reported; keep the suite output clean */
    setenv("CUDA_DEVICE_MEMORY_LIMIT", "2g", 1);
    setenv("CUDA_DEVICE_MEMORY_LIMIT_1", "512m", 1);
    setenv("CUDA_DEVICE_MEMORY_LIMIT_2", "lots", 1);
    setenv("CUDA_DEVICE_MEMORY_LIMIT_3", "0", 1);
    setenv("CUDA_DEVICE_SM_LIMIT", "30", 1);
    setenv("CUDA_DEVICE_SM_LIMIT_1", "150", 1);
    setenv("GPU_CORE_UTILIZATION_POLICY", "Disable", 1);
    setenv("CUDA_TASK_PRIORITY", "0", 1);
    setenv("CUDA_OVERSUBSCRIBE", "true", 1);
    vgpu_config c;
    vgpu_config_from_env(&c);
    CHECK(c.mem_limit[0] == 2 * GiB && c.mem_limit[1] == 512 * MiB && c.mem_limit[2] == 0 && c.mem_limit[3] == 0 &&
              c.mem_limit[15] == 2 * GiB, "per-device overrides the global; garbage and 0 mean no limit");
    CHECK(c.sm_limit[0] == 30 && c.sm_limit[1] == 0 && c.sm_limit[4] == 30, "sm limits");
    CHECK(c.core_policy == VGPU_POLICY_DISABLE && c.priority == 0 && c.oversubscribe == 1, "policy, priority");
    unsetenv("CUDA_DEVICE_MEMORY_LIMIT");
    vgpu_config_from_env(&c);
    CHECK(c.mem_limit[0] == 0 && c.mem_limit[1] == 512 * MiB, "unset means no limit");
    CHECK(strcmp(c.cache_path, getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE")) == 0, "cache path");
}

/* ---- 2: limit on cuMemAlloc ---- */

static void case_alloc_limit(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p[5];
    for (int i = 0; i < 4; i++) CHECK(r.alloc(&p[i], 256 * MiB) == CUDA_SUCCESS, "alloc %d", i);
    CHECK(r.alloc(&p[4], 256 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "5th must be refused with 2");
    CHECK(r.calls("cuMemAlloc_v2") == 4, "refused request reached the driver (%llu calls)",
          (unsigned long long)r.calls("cuMemAlloc_v2"));
    CHECK(r.free_(p[0]) == CUDA_SUCCESS, "free");
    CHECK(r.alloc(&p[0], 256 * MiB) == CUDA_SUCCESS, "alloc after free");
    vgpu_region *g = map_region();
    CHECK(g->devices[0].mem_used == GiB && r.used(0) == GiB, "accounting %llu / fake %llu",
          (unsigned long long)g->devices[0].mem_used, (unsigned long long)r.used(0));
    for (int i = 0; i < 4; i++) CHECK(r.free_(p[i]) == CUDA_SUCCESS, "free");
    CHECK(g->devices[0].mem_used == 0, "all returned");
}

/* ---- 3: every other allocator ---- */

typedef struct allocator {
    const char *name, *fake_variant, *free_name;
    cuuint64_t flags;
} allocator;

static CUresult do_alloc(rt *r, const allocator *a, CUdeviceptr *p, size_t bytes, CUmemoryPool pool) {
    void *fn = rt_sym(r, a->name, 12080, a->flags);
    CHECK(in_libvgpu(fn), "%s (flags %llu) is not hooked", a->name, (unsigned long long)a->flags);
    if (!strcmp(a->name, "cuMemAllocPitch")) {
        size_t pitch = 0;
        CUresult rc = ((CUresult (*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned))fn)(p, &pitch, MiB,
                                                                                          bytes / MiB, 4);
        CHECK(rc != CUDA_SUCCESS || pitch == MiB, "pitch");
        return rc;
    }
    if (!strcmp(a->name, "cuMemAllocManaged"))
        return ((CUresult (*)(CUdeviceptr *, size_t, unsigned))fn)(p, bytes, CU_MEM_ATTACH_GLOBAL);
    if (!strcmp(a->name, "cuMemCreate")) {
        CUmemAllocationProp prop = {0};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        return ((CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                              unsigned long long))fn)(p, bytes, &prop, 0);
    }
    if (!strcmp(a->name, "cuMemAllocAsync")) return ((CUresult (*)(CUdeviceptr *, size_t, CUstream))fn)(p, bytes, NULL);
    return ((CUresult (*)(CUdeviceptr *, size_t, CUmemoryPool, CUstream))fn)(p, bytes, pool, NULL);
}

static CUresult do_free(rt *r, const allocator *a, CUdeviceptr p) {
    void *fn = rt_sym(r, a->free_name, 12080, a->flags);
    if (!strcmp(a->free_name, "cuMemFreeAsync")) return ((CUresult (*)(CUdeviceptr, CUstream))fn)(p, NULL);
    return ((CUresult (*)(CUdeviceptr))fn)(p);
}

static void case_allocators(void) {
    static const allocator as[] = {
        {"cuMemAllocPitch", "cuMemAllocPitch_v2", "cuMemFree", 0},
        {"cuMemAllocManaged", "cuMemAllocManaged", "cuMemFree", 0},
        {"cuMemCreate", "cuMemCreate", "cuMemRelease", 0},
        {"cuMemAllocAsync", "cuMemAllocAsync", "cuMemFreeAsync", CU_GET_PROC_ADDRESS_LEGACY_STREAM},
        {"cuMemAllocAsync", "cuMemAllocAsync_ptsz", "cuMemFreeAsync", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM},
        {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", "cuMemFreeAsync", CU_GET_PROC_ADDRESS_LEGACY_STREAM},
        {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz", "cuMemFreeAsync",
         CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM},
    };
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    CUmemoryPool pool = NULL;
    CUresult (*getpool)(CUmemoryPool *, CUdevice) =
        (CUresult (*)(CUmemoryPool *, CUdevice))rt_sym(&r, "cuDeviceGetMemPool", 12080, 0);
    CHECK(getpool(&pool, 0) == CUDA_SUCCESS, "pool");
    for (size_t k = 0; k < sizeof as / sizeof as[0]; k++) {
        const allocator *a = &as[k];
        CUdeviceptr p[5];
        for (int i = 0; i < 4; i++)
            CHECK(do_alloc(&r, a, &p[i], 256 * MiB, pool) == CUDA_SUCCESS, "%s #%d", a->fake_variant, i);
        uint64_t before = r.calls(a->fake_variant);
        CHECK(before >= 4, "%s reached %llu times", a->fake_variant, (unsigned long long)before);
        CHECK(do_alloc(&r, a, &p[4], 256 * MiB, pool) == CUDA_ERROR_OUT_OF_MEMORY, "%s 5th", a->fake_variant);
        CHECK(r.calls(a->fake_variant) == before, "%s: refused request reached the driver", a->fake_variant);
        CHECK(g->devices[0].mem_used == GiB, "%s charged %llu", a->fake_variant,
              (unsigned long long)g->devices[0].mem_used);
        CHECK(do_free(&r, a, p[0]) == CUDA_SUCCESS, "free");
        CHECK(do_alloc(&r, a, &p[0], 256 * MiB, pool) == CUDA_SUCCESS, "%s after free", a->fake_variant);
        for (int i = 0; i < 4; i++) CHECK(do_free(&r, a, p[i]) == CUDA_SUCCESS, "free %s", a->fake_variant);
        CHECK(g->devices[0].mem_used == 0 && r.used(0) == 0, "%s not returned", a->fake_variant);
    }
    /* host-located VMM memory is not device memory */
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long) =
        (CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long))
            rt_sym(&r, "cuMemCreate", 12080, 0);
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    CUmemGenericAllocationHandle h;
    CHECK(create(&h, 2 * GiB, &prop, 0) == CUDA_SUCCESS, "host cuMemCreate beyond the device limit");
    CHECK(g->devices[0].mem_used == 0, "host allocation charged");
    CUresult (*release)(CUmemGenericAllocationHandle) =
        (CUresult (*)(CUmemGenericAllocationHandle))rt_sym(&r, "cuMemRelease", 12080, 0);
    CHECK(release(h) == CUDA_SUCCESS, "release");
}

/* ---- 4: cuMemGetInfo ---- */

static void case_mem_info(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    size_t f, t;
    CUdeviceptr p[3];
    for (int i = 0; i <= 3; i++) {
        CHECK(r.mem_info(&f, &t) == CUDA_SUCCESS, "cuMemGetInfo");
        CHECK(t == 4 * GiB, "total %zu", t);
        CHECK(f == t - g->devices[0].mem_used && f == t - (uint64_t)i * GiB, "free %zu at step %d", f, i);
        if (i < 3) CHECK(r.alloc(&p[i], GiB) == CUDA_SUCCESS, "alloc");
    }
    size_t tm = 0;
    CHECK(r.total_mem(&tm, 0) == CUDA_SUCCESS && tm == 4 * GiB, "cuDeviceTotalMem %zu", tm);
    __atomic_add_fetch(&g->devices[0].mem_used, 5 * GiB, __ATOMIC_RELAXED); /* force used > limit */
    CHECK(r.mem_info(&f, &t) == CUDA_SUCCESS && f == 0 && t == 4 * GiB, "over the limit: %zu/%zu", f, t);
    __atomic_sub_fetch(&g->devices[0].mem_used, 5 * GiB, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++) r.free_(p[i]);
    /* a limit above the physical size is clamped to it (device 1: 100g on an 80 GiB device) */
    CUcontext c1;
    CHECK(r.retain(&c1, 1) == CUDA_SUCCESS && r.set_current(c1) == CUDA_SUCCESS, "device 1");
    CHECK(r.mem_info(&f, &t) == CUDA_SUCCESS && t == 80 * GiB && f == 80 * GiB, "clamped total %zu", t);
    CHECK(r.total_mem(&tm, 1) == CUDA_SUCCESS && tm == 80 * GiB, "clamped cuDeviceTotalMem");
}

/* ---- 5: NVML memory info ---- */

static void case_nvml(void) {
    rt r;
    rt_open(&r, 12080, 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        CUdeviceptr q;
        char c = r.alloc(&q, 512 * MiB) == CUDA_SUCCESS ? 'y' : 'n';
        CHECK(write(up[1], &c, 1) == 1, "write");
        CHECK(read(down[0], &c, 1) == 1, "read");
        r.free_(q);
        exit(0);
    }
    char c;
    CHECK(read(up[0], &c, 1) == 1 && c == 'y', "worker allocation");
    CUdeviceptr p;
    CHECK(r.alloc(&p, 256 * MiB) == CUDA_SUCCESS, "alloc");
    void *nv = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    CHECK(nv, "dlopen nvml");
    nvmlReturn_t (*init)(void) = (nvmlReturn_t (*)(void))dlsym(nv, "nvmlInit_v2");
    nvmlReturn_t (*byidx)(unsigned, nvmlDevice_t *) = (nvmlReturn_t (*)(unsigned, nvmlDevice_t *))dlsym(nv, "nvmlDeviceGetHandleByIndex_v2");
    nvmlReturn_t (*mi)(nvmlDevice_t, nvmlMemory_t *) = (nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t *))dlsym(nv, "nvmlDeviceGetMemoryInfo");
    nvmlReturn_t (*mi2)(nvmlDevice_t, nvmlMemory_v2_t *) = (nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t *))dlsym(nv, "nvmlDeviceGetMemoryInfo_v2");
    CHECK(init && byidx && in_libvgpu((void *)mi) && in_libvgpu((void *)mi2), "NVML memory info is hooked");
    nvmlDevice_t d;
    CHECK(init() == NVML_SUCCESS && byidx(0, &d) == NVML_SUCCESS, "nvml init");
    nvmlMemory_t m;
    CHECK(mi(d, &m) == NVML_SUCCESS, "v1");
    CHECK(m.total == 2 * GiB && m.used == 768 * MiB && m.free == 2 * GiB - 768 * MiB, "v1 %llu/%llu/%llu", m.total,
          m.used, m.free);
    nvmlMemory_v2_t m2 = {.version = NVML_MEMORY_V2_VERSION};
    CHECK(mi2(d, &m2) == NVML_SUCCESS, "v2");
    CHECK(m2.total == 2 * GiB && m2.used == 768 * MiB && m2.free + m2.used + m2.reserved == m2.total, "v2 %llu/%llu/%llu/%llu",
          m2.total, m2.used, m2.free, m2.reserved);
    vgpu_region *g = map_region();
    __atomic_add_fetch(&g->devices[0].mem_used, 3 * GiB, __ATOMIC_RELAXED);
    CHECK(mi(d, &m) == NVML_SUCCESS && m.free == 0 && m.total == 2 * GiB, "v1 free wrapped: %llu", m.free);
    CHECK(mi2(d, &m2) == NVML_SUCCESS && m2.free == 0, "v2 free wrapped: %llu", m2.free);
    __atomic_sub_fetch(&g->devices[0].mem_used, 3 * GiB, __ATOMIC_RELAXED);
    CHECK(write(down[1], "x", 1) == 1, "release worker");
    int st;
    waitpid(child, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker");
    CHECK(mi(d, &m) == NVML_SUCCESS && m.used == 256 * MiB, "used after the worker left: %llu", m.used);
}

/* ---- 6: cross-process sharing ---- */

typedef struct shared_round {
    pthread_barrier_t start, done, next;
    int ok[8];
} shared_round;

static void cross_round(rt *r, int workers, int rounds) {
    shared_round *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED, "mmap");
    pthread_barrierattr_t a;
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&s->start, &a, (unsigned)workers + 1);
    pthread_barrier_init(&s->done, &a, (unsigned)workers + 1);
    pthread_barrier_init(&s->next, &a, (unsigned)workers + 1);
    pid_t pids[8];
    for (int w = 0; w < workers; w++) {
        pids[w] = fork();
        CHECK(pids[w] >= 0, "fork");
        if (pids[w] == 0) {
            for (int i = 0; i < rounds; i++) {
                CUdeviceptr p = 0;
                pthread_barrier_wait(&s->start);
                CUresult rc = r->alloc(&p, 600 * MiB);
                s->ok[w] = rc == CUDA_SUCCESS ? 1 : rc == CUDA_ERROR_OUT_OF_MEMORY ? 0 : 2;
                pthread_barrier_wait(&s->done);
                if (rc == CUDA_SUCCESS) r->free_(p);
                pthread_barrier_wait(&s->next);
            }
            exit(0);
        }
    }
    int held = 0;
    for (int i = 0; i < rounds; i++) {
        pthread_barrier_wait(&s->start);
        pthread_barrier_wait(&s->done);
        int n = 0, bad = 0;
        for (int w = 0; w < workers; w++) {
            n += s->ok[w] == 1;
            bad += s->ok[w] == 2;
        }
        if (n == 1 && !bad) held++;
        pthread_barrier_wait(&s->next);
    }
    for (int w = 0; w < workers; w++) {
        int st;
        waitpid(pids[w], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker %d", w);
    }
    printf("    cross-process: %d workers x 600 MiB vs 1 GiB, limit held (exactly one winner) in %d/%d rounds\n",
           workers, held, rounds);
    CHECK(held == rounds, "limit held in only %d/%d rounds", held, rounds);
    munmap(s, sizeof *s);
}

static void case_cross_process(void) {
    rt r;
    rt_open(&r, 12080, 0);
    const int counts[] = {2, 4, 8};
    for (int i = 0; i < 3; i++) cross_round(&r, counts[i], 200);
    vgpu_region *g = map_region();
    CHECK(g->devices[0].mem_used == 0, "usage left behind: %llu", (unsigned long long)g->devices[0].mem_used);
}

/* ---- 7: dead-process reclaim ---- */

static void case_dead_reclaim(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    int up[2];
    CHECK(pipe(up) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        CUdeviceptr q;
        char c = r.alloc(&q, 512 * MiB) == CUDA_SUCCESS ? 'y' : 'n';
        CHECK(write(up[1], &c, 1) == 1, "write");
        for (;;) pause();
    }
    char c;
    CHECK(read(up[0], &c, 1) == 1 && c == 'y', "worker allocation");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CUdeviceptr p;
    CHECK(r.alloc(&p, 768 * MiB) == CUDA_SUCCESS, "survivor's first attempt after the kill");
    CHECK(g->devices[0].mem_used == 768 * MiB, "reclaimed usage %llu", (unsigned long long)g->devices[0].mem_used);

    /* killed while holding the region lock */
    child = fork();
    if (child == 0) {
        pthread_mutex_lock((pthread_mutex_t *)(void *)g->lock);
        CHECK(write(up[1], "l", 1) == 1, "write");
        for (;;) pause();
    }
    CHECK(read(up[0], &c, 1) == 1 && c == 'l', "lock holder");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    uint64_t t0 = now_ns();
    CUdeviceptr q;
    CHECK(r.alloc(&q, 512 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "refusal (takes the lock to reclaim)");
    uint64_t ms = (now_ns() - t0) / 1000000;
    CHECK(ms < 1000, "blocked %llu ms behind a dead lock holder", (unsigned long long)ms);
    pid_t again = fork();
    if (again == 0) {
        CUdeviceptr x;
        exit(r.alloc(&x, 64 * MiB) == CUDA_SUCCESS && slot_of_pid(g, getpid()) ? 0 : 1);
    }
    int st;
    waitpid(again, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a new process joins after the lock holder died");
    r.free_(p);
}

/* ---- 8: pid reuse, stale slot ---- */

static void case_stale_slot(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p, q;
    CHECK(r.alloc(&p, 64 * MiB) == CUDA_SUCCESS, "alloc");
    vgpu_region *g = map_region();
    vgpu_slot *forged = NULL;
    for (int k = VGPU_MAX_SLOTS - 1; k >= 0 && !forged; k--)
        if (g->slots[k].pid == 0) forged = &g->slots[k];
    CHECK(forged, "free slot");
    forged->start_time = 1; /* the live pid below started at another time */
    forged->used[0] = 900 * MiB;
    forged->status = VGPU_SLOT_RUNNING;
    __atomic_store_n(&forged->pid, (int)getppid(), __ATOMIC_RELEASE);
    __atomic_add_fetch(&g->devices[0].mem_used, 900 * MiB, __ATOMIC_RELAXED);
    CHECK(r.alloc(&q, 512 * MiB) == CUDA_SUCCESS, "allocation after the stale slot is reclaimed");
    CHECK(forged->pid == 0 && forged->used[0] == 0, "stale slot not reclaimed");
    CHECK(g->devices[0].mem_used == 576 * MiB, "usage %llu", (unsigned long long)g->devices[0].mem_used);
    /* a live process with the right start time is kept */
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine && mine->start_time == proc_start_time(getpid()), "own slot keyed by start time");
}

/* ---- 9: cuGetProcAddress mapping ---- */

static void call_variant(rt *r, const char *name, void *fn) {
    if (!strcmp(name, "cuMemAlloc")) {
        CUdeviceptr p;
        CHECK(((CUresult (*)(CUdeviceptr *, size_t))fn)(&p, MiB) == CUDA_SUCCESS, "alloc");
        r->free_(p);
    } else if (!strcmp(name, "cuMemFree")) {
        CUdeviceptr p;
        CHECK(r->alloc(&p, MiB) == CUDA_SUCCESS, "alloc");
        CHECK(((CUresult (*)(CUdeviceptr))fn)(p) == CUDA_SUCCESS, "free");
    } else if (!strcmp(name, "cuMemGetInfo")) {
        size_t f, t;
        CHECK(((CUresult (*)(size_t *, size_t *))fn)(&f, &t) == CUDA_SUCCESS, "meminfo");
    } else if (!strcmp(name, "cuLaunchKernel")) {
        CHECK(((launch_fn)fn)((CUfunction)1, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS, "launch");
    } else if (!strcmp(name, "cuLaunchCooperativeKernel")) {
        CHECK(((CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **))fn)((CUfunction)1, 1, 1, 1, 32, 1, 1, 0, NULL, NULL) == CUDA_SUCCESS,
              "coop");
    } else if (!strcmp(name, "cuLaunchKernelEx")) {
        CUlaunchConfig c = {1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0};
        CHECK(((CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))fn)(&c, (CUfunction)1, NULL, NULL) ==
                  CUDA_SUCCESS, "ex");
    } else if (!strcmp(name, "cuGraphLaunch")) {
        CHECK(((CUresult (*)(CUgraphExec, CUstream))fn)((CUgraphExec)1, NULL) == CUDA_SUCCESS, "graph");
    } else if (!strcmp(name, "cuCtxCreate")) {
        CUcontext c, prev;
        void *cur = rt_sym(r, "cuCtxGetCurrent", 12000, 0);
        ((CUresult (*)(CUcontext *))cur)(&prev);
        CUresult rc = r->version >= 13000 ? ((CUresult (*)(CUcontext *, void *, unsigned, CUdevice))fn)(&c, NULL, 0, 0)
                                          : ((CUresult (*)(CUcontext *, unsigned, CUdevice))fn)(&c, 0, 0);
        CHECK(rc == CUDA_SUCCESS, "ctx create");
        r->set_current(prev);
    } else if (!strcmp(name, "cuMemAllocAsync")) {
        CUdeviceptr p;
        CHECK(((CUresult (*)(CUdeviceptr *, size_t, CUstream))fn)(&p, MiB, NULL) == CUDA_SUCCESS, "async");
        r->free_(p);
    } else {
        CHECK(0, "no caller for %s", name);
    }
}

static void case_procaddr(void) {
    static const struct {
        const char *name;
        int version;
        cuuint64_t flags;
        const char *variant;
    } cases[] = {
        {"cuMemAlloc", 12000, 0, "cuMemAlloc_v2"},
        {"cuMemFree", 11040, 1, "cuMemFree_v2"},
        {"cuMemGetInfo", 13000, 2, "cuMemGetInfo_v2"},
        {"cuLaunchKernel", 12000, 0, "cuLaunchKernel"},
        {"cuLaunchKernel", 11040, 1, "cuLaunchKernel"},
        {"cuLaunchKernel", 12080, 2, "cuLaunchKernel_ptsz"},
        {"cuLaunchKernelEx", 12080, 0, "cuLaunchKernelEx"},
        {"cuLaunchKernelEx", 13000, 2, "cuLaunchKernelEx_ptsz"},
        {"cuLaunchCooperativeKernel", 12000, 2, "cuLaunchCooperativeKernel_ptsz"},
        {"cuGraphLaunch", 12000, 1, "cuGraphLaunch"},
        {"cuGraphLaunch", 12000, 2, "cuGraphLaunch_ptsz"},
        {"cuCtxCreate", 12000, 0, "cuCtxCreate_v2"},
        {"cuCtxCreate", 13000, 0, "cuCtxCreate_v4"},
        {"cuMemAllocAsync", 11040, 2, "cuMemAllocAsync_ptsz"},
    };
    rt r;
    rt_open(&r, 12080, 0);
    CHECK(in_libvgpu((void *)r.gpa), "dlsym(libcuda, cuGetProcAddress_v2) is not our hook");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *fn = NULL;
        CUdriverProcAddressQueryResult st = -1;
        CHECK(r.gpa(cases[i].name, &fn, cases[i].version, cases[i].flags, &st) == CUDA_SUCCESS &&
                  st == CU_GET_PROC_ADDRESS_SUCCESS, "%s@%d", cases[i].name, cases[i].version);
        CHECK(in_libvgpu(fn), "%s@%d/%llu is not our hook", cases[i].name, cases[i].version,
              (unsigned long long)cases[i].flags);
        uint64_t before = r.calls(cases[i].variant);
        r.version = cases[i].version;
        call_variant(&r, cases[i].name, fn);
        CHECK(r.calls(cases[i].variant) == before + 1, "%s@%d/%llu did not reach %s", cases[i].name,
              cases[i].version, (unsigned long long)cases[i].flags, cases[i].variant);
    }
    /* cuGetProcAddress itself: our wrapper, for both ABIs */
    void *self = NULL;
    CUdriverProcAddressQueryResult st = -1;
    CHECK(r.gpa("cuGetProcAddress", &self, 12000, 0, &st) == CUDA_SUCCESS && in_libvgpu(self) && st == 0, "gpa v2");
    void *p = NULL;
    CHECK(((gpa_v2_fn)self)("cuLaunchKernel", &p, 12000, 2, &st) == CUDA_SUCCESS && in_libvgpu(p), "through wrapper");
    CHECK(r.gpa("cuGetProcAddress", &self, 11040, 0, &st) == CUDA_SUCCESS && in_libvgpu(self), "gpa v1");
    CHECK(((CUresult (*)(const char *, void **, int, cuuint64_t))self)("cuMemAlloc", &p, 11040, 0) == CUDA_SUCCESS &&
              in_libvgpu(p), "through v1 wrapper");
    /* not hooked: the driver's own function, status filled */
    CHECK(r.gpa("cuDeviceGetCount", &p, 12000, 0, &st) == CUDA_SUCCESS && st == 0 && in_lib(p, "fake"), "pass-through");
    CHECK(r.gpa("cuNoSuchFunction", &p, 12000, 0, &st) == CUDA_ERROR_NOT_FOUND && !p &&
              st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "unknown symbol");
    CHECK(r.gpa("cuLaunchKernelEx", &p, 11040, 0, &st) == CUDA_ERROR_NOT_FOUND &&
              st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, "version not sufficient");
    /* door 1: the exported symbol itself */
    CUresult (*direct)(CUdeviceptr *, size_t) = (CUresult (*)(CUdeviceptr *, size_t))dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
    CHECK(in_libvgpu((void *)direct), "direct export");
    uint64_t before = r.calls("cuMemAlloc_v2");
    CUdeviceptr d;
    CHECK(direct(&d, MiB) == CUDA_SUCCESS && r.calls("cuMemAlloc_v2") == before + 1, "direct export reaches the driver");
    r.free_(d);
}

/* ---- 10: dlsym hygiene ---- */

static void case_dlsym(void) {
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    CHECK(libc, "libc");
    void *m = dlsym(libc, "malloc");
    CHECK(m && m == dlvsym(libc, "malloc", "GLIBC_2.2.5"), "dlsym(libc, malloc) changed");
    void *nx = next_probe();
    CHECK(nx && ((int (*)(void))nx)() == 2, "RTLD_NEXT from another library resolved relative to the wrong object");
    void *cudnn = dlopen("libcudnn_like.so", RTLD_NOW | RTLD_LOCAL);
    CHECK(cudnn, "cudnn-like: %s", dlerror());
    void *cc = dlsym(cudnn, "cudnnCreate");
    CHECK(in_lib(cc, "cudnn_like"), "cudnnCreate did not resolve to its own library");
    CHECK(dlsym(cudnn, "cuMemAlloc_v2") == NULL, "a hook was handed out for a foreign handle");
    char path[512];
    snprintf(path, sizeof path, "%s", getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE"));
    struct stat sb;
    CHECK(stat(path, &sb) != 0 && errno == ENOENT, "shared file created without CUDA use");
    CHECK(run_worker("nocuda", NULL) == 0, "worker");
    CHECK(stat(path, &sb) != 0 && errno == ENOENT, "a process that never touched CUDA created the shared file");
    /* with the driver loaded: its handle gets hooks for hooked names only */
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CHECK(cuda, "libcuda");
    CHECK(in_libvgpu(dlsym(cuda, "cuMemAlloc_v2")), "hook through the driver handle");
    CHECK(in_lib(dlsym(cuda, "cuDeviceGetCount"), "fake"), "pass-through name");
    CHECK(in_libvgpu(dlsym(RTLD_DEFAULT, "cuLaunchKernel")), "RTLD_DEFAULT");
    CHECK(stat(path, &sb) != 0 && errno == ENOENT, "lookups alone created the shared file");
    if (!sanitizer()) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "LD_PRELOAD=%s /bin/true && LD_PRELOAD=%s sh -c 'exit 0'", getenv("VGPU_LIB"),
                 getenv("VGPU_LIB"));
        CHECK(system(cmd) == 0, "preloaded into plain programs");
        CHECK(stat(path, &sb) != 0 && errno == ENOENT, "plain programs created the shared file");
    }
}

static int worker_nocuda(void) {
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (!libc || !dlsym(libc, "getpid") || !dlsym(RTLD_DEFAULT, "malloc") || !dlsym(RTLD_NEXT, "free")) return 1;
    void *cudnn = dlopen("libcudnn_like.so", RTLD_NOW);
    return cudnn && dlsym(cudnn, "cudnnCreate") ? 0 : 2;
}

/* ---- 11: launch throttling ---- */

typedef CUresult (*launch_any)(rt *, void *);

static CUresult l_kernel(rt *r, void *fn) {
    (void)r;
    return ((launch_fn)fn)((CUfunction)0x10, 132, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
}
static CUresult l_ex(rt *r, void *fn) {
    (void)r;
    CUlaunchConfig c = {132, 1, 1, 256, 1, 1, 0, NULL, NULL, 0};
    return ((CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))fn)(&c, (CUfunction)0x20, NULL, NULL);
}
static CUresult l_coop(rt *r, void *fn) {
    (void)r;
    return ((CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                          void **))fn)((CUfunction)0x30, 132, 1, 1, 256, 1, 1, 0, NULL, NULL);
}
static CUresult l_graph(rt *r, void *fn) {
    (void)r;
    return ((CUresult (*)(CUgraphExec, CUstream))fn)((CUgraphExec)0x40, NULL);
}

/* Launches as fast as possible for `ms`; returns the busy fraction over the last `window_ms`. */
static double drive(rt *r, launch_any how, void *fn, unsigned ms, unsigned window_ms) {
    uint64_t t0 = now_ns(), end = t0 + (uint64_t)ms * 1000000ull, w0 = end - (uint64_t)window_ms * 1000000ull;
    uint64_t b0 = 0, tb0 = 0;
    int marked = 0;
    for (;;) {
        uint64_t t = now_ns();
        if (!marked && t >= w0) {
            tb0 = t;
            b0 = r->busy(0, t);
            marked = 1;
        }
        if (t >= end) break;
        CHECK(how(r, fn) == CUDA_SUCCESS, "launch");
    }
    uint64_t t1 = now_ns();
    double f = (double)(r->busy(0, t1) - b0) / (double)(t1 - tb0);
    r->sync();
    return f;
}

static void case_throttle(void) {
    rt r;
    rt_open(&r, 12080, 0);
    double f = drive(&r, l_kernel, (void *)r.launch, 1500, 1000);
    printf("    limit 30: busy fraction %.3f over the last second (cuLaunchKernel)\n", f);
    CHECK(f > 0.15 && f < 0.45, "busy fraction %.3f at limit 30", f);
    static const struct {
        const char *name;
        cuuint64_t flags;
        launch_any how;
    } paths[] = {
        {"cuLaunchKernel", 2, l_kernel},        {"cuLaunchKernelEx", 0, l_ex},   {"cuLaunchKernelEx", 2, l_ex},
        {"cuLaunchCooperativeKernel", 0, l_coop}, {"cuLaunchCooperativeKernel", 2, l_coop},
        {"cuGraphLaunch", 0, l_graph},          {"cuGraphLaunch", 2, l_graph},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *fn = rt_sym(&r, paths[i].name, 12080, paths[i].flags);
        double g = drive(&r, paths[i].how, fn, 700, 500);
        CHECK(g < 0.55, "%s (flags %llu) not throttled: busy %.3f", paths[i].name, (unsigned long long)paths[i].flags, g);
    }
    CHECK(r.calls("cuEventRecord") > 0 && r.calls("cuEventRecord_ptsz") > 0, "launches were never measured");
    /* each worker has its own container (cache file): limits are frozen by a region's creator */
    static char c1[700], c2[700], c3[700];
    snprintf(c1, sizeof c1, "CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/w100.cache", tmpdir);
    snprintf(c2, sizeof c2, "CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/wdisable.cache", tmpdir);
    snprintf(c3, sizeof c3, "CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/wswitch.cache", tmpdir);
    const char *nolimit[] = {c1, "CUDA_DEVICE_SM_LIMIT=100", NULL};
    uint64_t rec0 = r.calls("cuEventRecord");
    CHECK(run_worker("unthrottled", nolimit) == 0, "limit 100 throttled");
    CHECK(r.calls("cuEventRecord") == rec0, "limit 100: launches measured (not the fast path)");
    const char *disabled[] = {c2, "GPU_CORE_UTILIZATION_POLICY=disable", NULL};
    CHECK(run_worker("unthrottled", disabled) == 0, "policy disable still throttled");
    const char *dflt[] = {c3, "GPU_CORE_UTILIZATION_POLICY=default", NULL};
    CHECK(run_worker("switch_off", dflt) == 0, "utilization_switch=0 not honoured under the default policy");
}

static int worker_unthrottled(void) {
    rt r;
    rt_open(&r, 12080, 0);
    /* Unlimited launches are never measured (a busy fraction would depend on the machine's load). */
    uint64_t rec0 = r.calls("cuEventRecord");
    double f = drive(&r, l_kernel, (void *)r.launch, 600, 400);
    uint64_t measured = r.calls("cuEventRecord") - rec0;
    if (measured != 0) {
        fprintf(stderr, "    unthrottled: %llu launches measured (busy %.3f)\n", (unsigned long long)measured, f);
        return 1;
    }
    return 0;
}

static int worker_switch_off(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    __atomic_store_n(&g->utilization_switch, 0, __ATOMIC_RELEASE);
    /* Switched off, launches take the unlimited path: none is measured. Counting measurements
     * instead of reading a busy fraction keeps the check true on a loaded machine. */
    uint64_t rec0 = r.calls("cuEventRecord");
    double f = drive(&r, l_kernel, (void *)r.launch, 600, 400);
    uint64_t measured = r.calls("cuEventRecord") - rec0;
    __atomic_store_n(&g->utilization_switch, 1, __ATOMIC_RELEASE);
    double h = drive(&r, l_kernel, (void *)r.launch, 1000, 500);
    if (measured != 0 || h > 0.5) {
        fprintf(stderr, "    switch off: %llu launches measured (busy %.3f); on: busy %.3f\n",
                (unsigned long long)measured, f, h);
        return 1;
    }
    return 0;
}

/* ---- 12: thread safety ---- */

typedef struct churn {
    rt *r;
    CUcontext ctx;
    unsigned seed;
    int iters;
    atomic_int *stop;
    int failures;
} churn;

static void *churn_main(void *arg) {
    churn *c = arg;
    c->r->set_current(c->ctx);
    for (int i = 0; (c->iters == 0 || i < c->iters) && !(c->stop && atomic_load(c->stop)); i++) {
        CUdeviceptr p;
        size_t sz = (size_t)(rand_r(&c->seed) % (4 * MiB)) + 1;
        CUresult rc = c->r->alloc(&p, sz);
        if (rc != CUDA_SUCCESS) {
            c->failures++;
            continue;
        }
        if (c->r->free_(p) != CUDA_SUCCESS) c->failures++;
    }
    return NULL;
}

static void case_threads(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUcontext ctx;
    CHECK(r.retain(&ctx, 0) == CUDA_SUCCESS, "ctx");
    enum { N = 32 };
    pthread_t th[N];
    churn c[N];
    int iters = 10000;
    for (int i = 0; i < N; i++) {
        c[i] = (churn){&r, ctx, (unsigned)i * 7919u + 1, iters, NULL, 0};
        CHECK(pthread_create(&th[i], NULL, churn_main, &c[i]) == 0, "thread");
    }
    int failures = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        failures += c[i].failures;
    }
    vgpu_region *g = map_region();
    vgpu_slot *s = slot_of_pid(g, getpid());
    CHECK(failures == 0, "%d failed calls", failures);
    CHECK(g->devices[0].mem_used == 0 && s && s->used[0] == 0 && r.used(0) == 0, "final usage %llu/%llu/%llu",
          (unsigned long long)g->devices[0].mem_used, (unsigned long long)(s ? s->used[0] : 1),
          (unsigned long long)r.used(0));
    CUdeviceptr p[16];
    for (int i = 0; i < 16; i++) CHECK(r.alloc(&p[i], (size_t)(i + 1) * MiB + 17) == CUDA_SUCCESS, "alloc");
    CHECK(g->devices[0].mem_used == r.used(0) && s->used[0] == r.used(0), "counters %llu vs true usage %llu",
          (unsigned long long)g->devices[0].mem_used, (unsigned long long)r.used(0));
    for (int i = 0; i < 16; i++) r.free_(p[i]);
    printf("    %d threads x %d alloc/free: final usage 0, counters equal the driver's\n", N, iters);
}

/* ---- 13: fork safety ---- */

static void case_fork(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUcontext ctx;
    CHECK(r.retain(&ctx, 0) == CUDA_SUCCESS, "ctx");
    CUdeviceptr held;
    CHECK(r.alloc(&held, 64 * MiB) == CUDA_SUCCESS, "alloc");
    vgpu_region *g = map_region();
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine, "own slot");
    atomic_int stop = 0;
    enum { T = 4 };
    pthread_t th[T];
    churn c[T];
    for (int i = 0; i < T; i++) {
        c[i] = (churn){&r, ctx, (unsigned)i + 3, 0, &stop, 0};
        CHECK(pthread_create(&th[i], NULL, churn_main, &c[i]) == 0, "thread");
    }
    int forks = getenv("VGPU_SANITIZER") && !strcmp(getenv("VGPU_SANITIZER"), "tsan") ? 12 : 50;
    for (int i = 0; i < forks; i++) {
        pid_t pid = fork();
        CHECK(pid >= 0, "fork");
        if (pid == 0) {
            CUdeviceptr p;
            if (r.alloc(&p, 32 * MiB) != CUDA_SUCCESS) _exit(3);
            vgpu_slot *s = slot_of_pid(g, getpid());
            if (!s || s == mine || s->used[0] != 32 * MiB) _exit(4);
            r.free_(p);
            exit(0);
        }
        /* generous: a sanitizer-instrumented fork is slow; a deadlock never ends */
        uint64_t deadline = now_ns() + (sanitizer() ? 60000000000ull : 10000000000ull);
        int st = 0;
        pid_t w;
        while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now_ns() < deadline) sleep_ms(2);
        if (w == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            CHECK(0, "child %d deadlocked after fork", i);
        }
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d status %d", i, st);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
    CHECK(mine->pid == getpid() && mine->used[0] == 64 * MiB, "parent slot changed: %llu",
          (unsigned long long)mine->used[0]);
    CHECK(g->devices[0].mem_used == 64 * MiB, "container usage %llu", (unsigned long long)g->devices[0].mem_used);
    r.free_(held);
}

/* ---- 14: clone without atfork ---- */

static rt clone_rt;
static int clone_child(void *arg) {
    (void)arg;
    CUdeviceptr p;
    int ok = clone_rt.alloc(&p, 64 * MiB) == CUDA_SUCCESS;
    exit(ok ? 0 : 1); /* runs the destructors in the child */
}

static void case_clone(void) {
    rt_open(&clone_rt, 12080, 0);
    CUdeviceptr p;
    CHECK(clone_rt.alloc(&p, 128 * MiB) == CUDA_SUCCESS, "alloc");
    vgpu_region *g = map_region();
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine, "slot");
    size_t stack_size = 1 << 20;
    char *stack = malloc(stack_size);
    CHECK(stack, "stack");
    pid_t pid = clone(clone_child, stack + stack_size, SIGCHLD, NULL);
    CHECK(pid > 0, "clone: %s", strerror(errno));
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "clone child");
    free(stack);
    CHECK(mine->pid == getpid() && mine->used[0] == 128 * MiB, "the clone child touched the parent's slot");
    CHECK(g->devices[0].mem_used == 128 * MiB, "container usage %llu", (unsigned long long)g->devices[0].mem_used);
    CHECK(slot_of_pid(g, pid) == NULL, "the clone child's own slot was not released");
}

/* ---- 15: failure policy ---- */

static int count_lines(const char *path, const char *needle) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle)) n++;
    fclose(f);
    return n;
}

static void case_fail_policy(void) {
    static char log_open[600], log_closed[600], env_open[700], env_closed[700];
    snprintf(log_open, sizeof log_open, "%s/open.log", tmpdir);
    snprintf(log_closed, sizeof log_closed, "%s/closed.log", tmpdir);
    snprintf(env_open, sizeof env_open, "LIBVGPU_LOG_FILE=%s", log_open);
    snprintf(env_closed, sizeof env_closed, "LIBVGPU_LOG_FILE=%s", log_closed);
    const char *open_env[] = {env_open, NULL};
    const char *closed_env[] = {env_closed, "LIBVGPU_FAIL_POLICY=closed", NULL};
    CHECK(run_worker("failopen", open_env) == 0, "fail-open worker");
    CHECK(run_worker("failclosed", closed_env) == 0, "fail-closed worker");
    CHECK(count_lines(log_open, "cannot use shared region") == 1, "fail-open logged %d times",
          count_lines(log_open, "cannot use shared region"));
    CHECK(count_lines(log_closed, "fail-closed") == 1, "fail-closed logged %d times",
          count_lines(log_closed, "fail-closed"));
}

static int worker_failopen(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p[5];
    for (int i = 0; i < 4; i++)
        if (r.alloc(&p[i], 256 * MiB) != CUDA_SUCCESS) return 1;
    for (int i = 0; i < 50; i++)
        if (r.alloc(&p[4], 256 * MiB) != CUDA_ERROR_OUT_OF_MEMORY) return 2;
    for (int i = 0; i < 4; i++) r.free_(p[i]);
    size_t f, t;
    return r.mem_info(&f, &t) == CUDA_SUCCESS && t == GiB && f == GiB ? 0 : 3;
}

static int worker_failclosed(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p;
    uint64_t before = r.calls("cuMemAlloc_v2");
    for (int i = 0; i < 50; i++)
        if (r.alloc(&p, MiB) != CUDA_ERROR_OUT_OF_MEMORY) return 1;
    return r.calls("cuMemAlloc_v2") == before ? 0 : 2;
}

/* ---- 16: symbol hygiene ---- */

static void case_symbols(void) {
    const char *lib = getenv("VGPU_LIB"), *map = getenv("VGPU_MAP");
    CHECK(lib && map, "VGPU_LIB and VGPU_MAP");
    char allowed[64][64];
    int n_allowed = 0;
    FILE *f = fopen(map, "r");
    CHECK(f, "map");
    char line[256];
    int global = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64];
        if (strstr(line, "global:")) global = 1;
        else if (strstr(line, "local:")) global = 0;
        else if (global && sscanf(line, " %63[A-Za-z0-9_];", name) == 1 && n_allowed < 64)
            snprintf(allowed[n_allowed++], 64, "%s", name);
    }
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only %s", lib);
    FILE *p = popen(cmd, "r");
    CHECK(p, "nm");
    int seen = 0;
    while (fgets(line, sizeof line, p)) {
        char addr[64], type[8], name[200];
        if (sscanf(line, "%63s %7s %199s", addr, type, name) != 3) continue;
        if (sanitizer() && !strncmp(name, "__", 2)) continue; /* sanitizer runtime hooks */
        int ok = 0;
        for (int i = 0; i < n_allowed; i++) ok |= strcmp(allowed[i], name) == 0;
        CHECK(ok, "unexpected export %s", name);
        seen++;
    }
    CHECK(pclose(p) == 0, "nm failed");
    CHECK(seen == n_allowed, "%d of %d allow-listed symbols exported", seen, n_allowed);
    snprintf(cmd, sizeof cmd, "readelf -d %s", lib);
    p = popen(cmd, "r");
    CHECK(p, "readelf");
    int needed = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strstr(line, "NEEDED")) continue;
        needed++;
        CHECK(!strstr(line, "libcuda") && !strstr(line, "libnvidia-ml"), "driver in NEEDED: %s", line);
    }
    CHECK(pclose(p) == 0 && needed > 0, "readelf failed");
}

/* ---- 17: layout ---- */

static uint64_t rd(int fd, off_t off, int size) {
    uint64_t v = 0;
    CHECK(pread(fd, &v, (size_t)size, off) == size, "pread %lld", (long long)off);
    return v;
}

static void case_layout(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p;
    CHECK(r.alloc(&p, 256 * MiB) == CUDA_SUCCESS, "alloc");
    int fd = open(getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE"), O_RDONLY);
    CHECK(fd >= 0, "open");
    struct stat sb;
    CHECK(fstat(fd, &sb) == 0 && sb.st_size == 532480, "file size %lld", (long long)sb.st_size);
    CHECK((sb.st_mode & 0777) == 0666, "mode %o", sb.st_mode & 0777);
    CHECK(rd(fd, 0, 4) == 0x55504756 && rd(fd, 4, 2) == 1 && rd(fd, 6, 2) == 0, "magic and version");
    CHECK(rd(fd, 8, 8) == 532480 && rd(fd, 16, 4) == 8192 && rd(fd, 20, 4) == 256 && rd(fd, 24, 4) == 512 &&
              rd(fd, 28, 4) == 1024, "sizes");
    CHECK(rd(fd, 32, 4) == 1 && rd(fd, 40, 4) == 1 && rd(fd, 44, 4) == 1 && rd(fd, 52, 4) == VGPU_POLICY_FORCE,
          "device_count, priority, switch, policy");
    CHECK(rd(fd, 64, 8) == (uint64_t)getpid(), "creator pid");
    char uuid[16] = {0};
    CHECK(pread(fd, uuid, 8, 256) == 8 && memcmp(uuid, "GPU-face", 8) == 0, "uuid %s", uuid);
    CHECK(rd(fd, 256 + 96, 8) == 3 * GiB && rd(fd, 256 + 104, 8) == 256 * MiB && rd(fd, 256 + 120, 4) == 40,
          "device record");
    CHECK(rd(fd, 256 + 112, 8) == 80 * GiB && rd(fd, 256 + 184, 8) == 256 * MiB, "mem_total, mem_peak");
    CHECK(rd(fd, 256 + 256 + 96, 8) == 0, "device 1 limit");
    int found = 0;
    for (int k = 0; k < 1024 && !found; k++) {
        off_t s = 8192 + (off_t)k * 512;
        if ((int)rd(fd, s, 4) != getpid()) continue;
        found = 1;
        CHECK(rd(fd, s + 8, 8) == proc_start_time(getpid()), "start time");
        CHECK(rd(fd, s + 16, 4) == VGPU_SLOT_RUNNING && rd(fd, s + 32, 8) == 256 * MiB && rd(fd, s + 160, 8) == 0,
              "slot fields");
    }
    CHECK(found, "own slot");
    close(fd);
    r.free_(p);
}

/* ---- 18: host pid broker and the NVML controller ---- */

static void case_broker(void) {
    static char path[100];
    CHECK(strlen(tmpdir) < sizeof path - 16, "tmpdir too long for a socket path");
    snprintf(path, sizeof path, "%.80s/broker.sock", tmpdir);
    int ready[2];
    CHECK(pipe(ready) == 0, "pipe");
    pid_t broker = fork();
    if (broker == 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 4) != 0) _exit(1);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        int c = accept(s, NULL, NULL);
        unsigned char req[8];
        if (c < 0 || read(c, req, 8) != 8 || memcmp(req, "HPID\0\1\0\1", 8) != 0) _exit(2);
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) _exit(3);
        uint32_t hp = htonl((uint32_t)cred.pid + 100000u);
        unsigned char rep[12] = {'H', 'P', 'I', 'D', 0, 1, 0, 0};
        memcpy(rep + 8, &hp, 4);
        _exit(write(c, rep, 12) == 12 ? 0 : 4);
    }
    char ch;
    CHECK(read(ready[0], &ch, 1) == 1, "broker not ready");
    setenv("LIBVGPU_HOSTPID_SOCKET", path, 1);
    rt r;
    rt_open(&r, 12080, 0);
    uint64_t end = now_ns() + 2000000000ull;
    while (now_ns() < end) r.launch((CUfunction)0x10, 132, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
    int st;
    CHECK(waitpid(broker, &st, 0) == broker && WIFEXITED(st) && WEXITSTATUS(st) == 0, "broker status %d", st);
    vgpu_region *g = map_region();
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine && mine->host_pid == getpid() + 100000, "host pid %d", mine ? mine->host_pid : -1);
    uint32_t util = g->devices[0].sm_util;
    CHECK(g->devices[0].ctl_ns != 0 && util >= 5 && util <= 70, "controller: util %u, last step %llu", util,
          (unsigned long long)g->devices[0].ctl_ns);
    printf("    host pid from the broker; controller measured %u%% at limit 30, rate %.3f\n", util,
           (double)g->devices[0].rate_ppm / 1e6);
    r.sync();
}

/* ==== agent-owned limits, region hardening and exact accounting ====
 * Each attack below is a tenant trying to lift its memory limit; each must still end in
 * CUDA_ERROR_OUT_OF_MEMORY at the limits file's value. */

static void write_text(const char *path, const char *text, mode_t mode) {
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    CHECK(fd >= 0, "create %s", path);
    size_t n = strlen(text);
    CHECK(write(fd, text, n) == (ssize_t)n, "write %s", path);
    CHECK(fchmod(fd, mode) == 0, "chmod %s", path);
    close(fd);
}

/* Writes the container's limits file and points this process (and its workers) at it. */
static const char *use_limits(const char *text, mode_t mode) {
    static char path[700];
    snprintf(path, sizeof path, "%s/limits", tmpdir);
    write_text(path, text, mode);
    setenv("LIBVGPU_LIMITS_FILE", path, 1);
    return path;
}

/* 256 MiB allocations until the first refusal: exit status = successes (OOM), 200 another
 * error, 201 never refused. */
static int worker_oom_count(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p;
    for (int i = 0; i < 64; i++) {
        CUresult rc = r.alloc(&p, 256 * MiB);
        if (rc == CUDA_ERROR_OUT_OF_MEMORY) return i;
        if (rc != CUDA_SUCCESS) return 200;
    }
    return 201;
}

/* 0 when a 1 MiB allocation is refused with error 2 before reaching the driver. */
static int worker_refused(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p;
    uint64_t before = r.calls("cuMemAlloc_v2");
    if (r.alloc(&p, MiB) != CUDA_ERROR_OUT_OF_MEMORY) return 1;
    return r.calls("cuMemAlloc_v2") == before ? 0 : 2;
}

static void case_limits_parse(void) {
    vgpu_log_level = 0;
    vgpu_limits l;
    vgpu_limits_error e;
    const char *good = "# written by the hami node agent at Allocate; mounted read-only\n\nversion=1\n"
                       "memory_limit_0=1073741824      # bytes\nmemory_limit_1 = 2g\r\nsm_limit=30\nsm_limit_1=70%\n"
                       "core_policy=force\npriority=0\noversubscribe=false\nfuture_key=whatever\nmemory_limit_99=1\n";
    CHECK(vgpu_limits_parse(good, strlen(good), &l, &e) == 0, "good file refused: line %d %s", e.line, e.reason);
    CHECK(l.version == 1 && l.mem_set == 3 && l.mem_limit[0] == GiB && l.mem_limit[1] == 2 * GiB, "memory keys");
    CHECK(l.sm_global_set && l.sm_global == 30 && l.sm_set == 2 && l.sm_limit[1] == 70, "sm keys");
    CHECK(l.core_policy_set && l.core_policy == VGPU_POLICY_FORCE && l.priority_set && l.priority == 0 &&
              l.oversubscribe_set && l.oversubscribe == 0 && l.unknown_keys == 2, "policy, priority, unknown keys");
    vgpu_config c;
    memset(&c, 0, sizeof c);
    c.mem_limit[2] = 5 * GiB; /* env for a device the file does not name */
    c.sm_limit[3] = 90;
    c.core_policy = VGPU_POLICY_DISABLE;
    vgpu_limits_apply(&c, &l);
    CHECK(c.mem_limit[0] == GiB && c.mem_limit[1] == 2 * GiB && c.mem_limit[2] == 5 * GiB, "memory: file wins, env falls back");
    CHECK(c.sm_limit[0] == 30 && c.sm_limit[1] == 70 && c.sm_limit[3] == 30 && c.core_policy == VGPU_POLICY_FORCE &&
              c.file_mem_mask == 3, "sm: the file's global covers every device");
    static const struct {
        const char *text;
        int line;
        const char *key;
    } bad[] = {
        {"version=1\nmemory_limit_0=lots\n", 2, "memory_limit_0"},
        {"memory_limit_0=-1\n", 1, "memory_limit_0"},
        {"memory_limit_0=\n", 1, "memory_limit_0"},
        {"memory_limit_0=0x40000000\n", 1, "memory_limit_0"},
        {"sm_limit=101\n", 1, "sm_limit"},
        {"\n\n# c\nsm_limit_0=x\n", 4, "sm_limit_0"},
        {"core_policy=always\n", 1, "core_policy"},
        {"priority=high\n", 1, "priority"},
        {"oversubscribe=maybe\n", 1, "oversubscribe"},
        {"version=one\n", 1, "version"},
        {"memory_limit_0=1g\nmemory_limit_0=2g\n", 2, "memory_limit_0"},
        {"memory_limit_0 1g\n", 1, ""},
        {"Memory_Limit_0=1g\n", 1, "Memory_Limit_0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(vgpu_limits_parse(bad[i].text, strlen(bad[i].text), &l, &e) != 0, "accepted: %s", bad[i].text);
        CHECK(e.line == bad[i].line && !strcmp(e.key, bad[i].key), "\"%s\": line %d key %s", bad[i].text, e.line, e.key);
    }
    CHECK(vgpu_limits_parse("memory_limit_0=1g\0x", 19, &l, &e) != 0, "NUL byte accepted");

    /* the path rule: the fixed path whenever it exists, the env's only when it does not */
    char fixed[700], env_file[700], under_file[760];
    snprintf(fixed, sizeof fixed, "%s/fixed-limits", tmpdir);
    snprintf(env_file, sizeof env_file, "%s/env-limits", tmpdir);
    snprintf(under_file, sizeof under_file, "%s/x", env_file);
    write_text(env_file, "memory_limit_0=1g\n", 0444);
    CHECK(vgpu_limits_choose(fixed, env_file) == env_file, "fixed path absent: the env's file");
    write_text(fixed, "memory_limit_0=1g\n", 0444);
    CHECK(vgpu_limits_choose(fixed, env_file) == fixed, "fixed path present: it wins");
    CHECK(vgpu_limits_choose(fixed, NULL) == fixed, "fixed path without env");
    unlink(fixed);
    CHECK(vgpu_limits_choose(fixed, NULL) == NULL, "no file at all: env");
    CHECK(vgpu_limits_choose(under_file, NULL) == NULL, "ENOTDIR is absent");
    CHECK(mkdir(fixed, 0755) == 0 && vgpu_limits_choose(fixed, env_file) == fixed, "a directory there still exists");

    /* liveness: only positive evidence of death reclaims */
    static const struct {
        int open_errno;
        char state;
        uint64_t start, want;
        int kill_errno, alive;
    } v[] = {
        {0, 'S', 100, 100, 0, 1},      {0, 'R', 100, 0, 0, 1},         {0, 'Z', 100, 100, 0, 0},
        {0, 'S', 100, 200, 0, 0},      {EACCES, 0, 0, 100, 0, 1},      {EPERM, 0, 0, 100, 0, 1},
        {ENOENT, 0, 0, 100, ESRCH, 0}, {ENOENT, 0, 0, 100, EPERM, 1}, {ENOENT, 0, 0, 100, 0, 1},
        {ESRCH, 0, 0, 100, ESRCH, 0},  {EIO, 0, 0, 100, ESRCH, 1},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CHECK(vgpu_proc_verdict(v[i].open_errno, v[i].state, v[i].start, v[i].want, v[i].kill_errno) == v[i].alive,
              "verdict %zu: /proc errno %d, state %c, kill errno %d", i, v[i].open_errno, v[i].state ? v[i].state : '-',
              v[i].kill_errno);
    uint64_t mine = proc_start_time(getpid());
    CHECK(vgpu_proc_alive(getpid(), mine) == VGPU_PROC_ALIVE && vgpu_proc_alive(getpid(), mine + 1) == VGPU_PROC_DEAD,
          "own process: alive, or dead under another start time");
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    CHECK(vgpu_proc_alive(child, 0) == VGPU_PROC_DEAD, "a reaped child is dead");
}

static void case_limits_file_wins(void) {
    use_limits("version=1\nmemory_limit_0=1g\n", 0444);
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p[5];
    for (int i = 0; i < 4; i++) CHECK(r.alloc(&p[i], 256 * MiB) == CUDA_SUCCESS, "alloc %d", i);
    CHECK(r.alloc(&p[4], 256 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "env CUDA_DEVICE_MEMORY_LIMIT_0=0 lifted the file's limit");
    size_t f, t;
    CHECK(r.mem_info(&f, &t) == CUDA_SUCCESS && t == GiB && f == 0, "cuMemGetInfo %zu / %zu", f, t);
    vgpu_region *g = map_region();
    CHECK(g->devices[0].mem_limit == GiB, "the region's informational copy is the file's: %llu",
          (unsigned long long)g->devices[0].mem_limit);
    CHECK(r.free_(p[0]) == CUDA_SUCCESS && r.free_(p[1]) == CUDA_SUCCESS, "free");
    const char *bigger[] = {"CUDA_DEVICE_MEMORY_LIMIT_0=8g", "CUDA_DEVICE_MEMORY_LIMIT=8g", NULL};
    CHECK(run_worker("oom_count", bigger) == 2, "a new process with a bigger env limit, 512 MiB left");
    const char *zero[] = {"CUDA_DEVICE_MEMORY_LIMIT_0=0", "CUDA_DEVICE_MEMORY_LIMIT=0", NULL};
    CHECK(run_worker("oom_count", zero) == 2, "a new process with env limit 0, 512 MiB left");
    CHECK(r.free_(p[2]) == CUDA_SUCCESS && r.free_(p[3]) == CUDA_SUCCESS, "free");
    CHECK(run_worker("oom_count", bigger) == 4, "alone with a bigger env limit");
    CHECK(g->devices[0].mem_used == 0, "usage left %llu", (unsigned long long)g->devices[0].mem_used);
}

static void case_limits_file_invalid(void) {
    char log[700], log_env[720], dir[700], dir_env[720], missing_env[720];
    snprintf(log, sizeof log, "%s/invalid.log", tmpdir);
    snprintf(log_env, sizeof log_env, "LIBVGPU_LOG_FILE=%s", log);
    const char *path = use_limits("version=1\nmemory_limit_0=lots\n", 0444);
    const char *w[] = {log_env, "LIBCUDA_LOG_LEVEL=1", NULL};
    CHECK(run_worker("refused", w) == 0, "an invalid limits file must refuse, not fall back to env (no limit)");
    char needle[800];
    snprintf(needle, sizeof needle, "limits file %s line 2: memory_limit_0=\"lots\"", path);
    CHECK(count_lines(log, needle) >= 1, "no log line naming file, line and value (%s)", needle);
    snprintf(dir, sizeof dir, "%s/limits-dir", tmpdir);
    CHECK(mkdir(dir, 0755) == 0, "mkdir");
    snprintf(dir_env, sizeof dir_env, "LIBVGPU_LIMITS_FILE=%s", dir);
    const char *unreadable[] = {dir_env, log_env, "LIBCUDA_LOG_LEVEL=1", NULL};
    CHECK(run_worker("refused", unreadable) == 0, "an unreadable limits file must refuse");
    CHECK(count_lines(log, "cannot be read") >= 1, "no log line for the unreadable file");
    snprintf(missing_env, sizeof missing_env, "LIBVGPU_LIMITS_FILE=%s/none", tmpdir);
    const char *missing[] = {missing_env, "CUDA_DEVICE_MEMORY_LIMIT=1g", NULL};
    CHECK(run_worker("oom_count", missing) == 4, "no file: the env applies");
}

static void case_region_attacks(void) {
    const char *cache = getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
    use_limits("version=1\nmemory_limit_0=1g\n", 0444);
    /* a region made beforehand by a process without limits */
    const char *nolimits[] = {"LIBVGPU_LIMITS_FILE=", NULL};
    CHECK(run_worker("oom_count", nolimits) == 201, "a process without file or env limit was refused");
    CHECK(run_worker("oom_count", NULL) == 4, "pre-created region without limits");
    /* the region deleted, then a restart */
    CHECK(unlink(cache) == 0, "unlink");
    CHECK(run_worker("oom_count", NULL) == 4, "region deleted and recreated");
    /* a foreign layout at the path: this process's limits still apply, per process */
    static const uint32_t foreign = 0xdeadbeef;
    int fd = open(cache, O_RDWR | O_CREAT | O_TRUNC, 0666);
    CHECK(fd >= 0 && ftruncate(fd, VGPU_REGION_SIZE) == 0 && pwrite(fd, &foreign, 4, 0) == 4, "foreign magic");
    CHECK(run_worker("oom_count", NULL) == 4, "region with a foreign magic");
    const char *closed[] = {"LIBVGPU_FAIL_POLICY=closed", NULL};
    CHECK(run_worker("oom_count", closed) == 0, "foreign magic, fail-closed");
    CHECK(ftruncate(fd, 0) == 0 && ftruncate(fd, 2008952) == 0, "HAMi-core's size");
    CHECK(run_worker("oom_count", NULL) == 4, "region of a foreign size");
    close(fd);
    /* no file: the smaller of env and an existing region's limit */
    unlink(cache);
    const char *creator[] = {"LIBVGPU_LIMITS_FILE=", "CUDA_DEVICE_MEMORY_LIMIT_0=1g", NULL};
    const char *lifter[] = {"LIBVGPU_LIMITS_FILE=", "CUDA_DEVICE_MEMORY_LIMIT=0", "CUDA_DEVICE_MEMORY_LIMIT_0=0", NULL};
    CHECK(run_worker("oom_count", creator) == 4 && run_worker("oom_count", lifter) == 4, "no file: env 0 lifted the region's 1g");

    /* the tenant rewrites the region's limits under a running process */
    unlink(cache);
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) __atomic_store_n(&g->devices[i].mem_limit, 0, __ATOMIC_RELEASE);
    CUdeviceptr p[5];
    for (int i = 0; i < 4; i++) CHECK(r.alloc(&p[i], 256 * MiB) == CUDA_SUCCESS, "alloc %d", i);
    CHECK(r.alloc(&p[4], 256 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "limit zeroed in the region lifted it");
    /* ... and zeroes the usage: this process alone still holds its limit */
    __atomic_store_n(&g->devices[0].mem_used, 0, __ATOMIC_RELEASE);
    slot_of_pid(g, getpid())->used[0] = 0;
    CHECK(r.alloc(&p[4], 256 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "usage zeroed in the region lifted the limit");
    CHECK(r.free_(p[3]) == CUDA_SUCCESS, "free");
    CHECK(g->devices[0].mem_used == 768 * MiB && slot_of_pid(g, getpid())->used[0] == 768 * MiB,
          "usage not restored from process memory: %llu", (unsigned long long)g->devices[0].mem_used);
    CHECK(r.alloc(&p[3], 256 * MiB) == CUDA_SUCCESS, "realloc");
    /* truncation while this process holds 1 GiB (it does not touch the mapping meanwhile) */
    fd = open(cache, O_RDWR);
    CHECK(fd >= 0 && ftruncate(fd, 0) == 0, "truncate");
    close(fd);
    CHECK(run_worker("oom_count", NULL) == 4, "a new process after truncation");
    /* the holder's next call finds its slot gone and charges its allocations again */
    CHECK(r.free_(p[3]) == CUDA_SUCCESS, "free");
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine && mine->used[0] == 768 * MiB && g->devices[0].mem_used == 768 * MiB,
          "after the wipe: slot %llu, total %llu", mine ? (unsigned long long)mine->used[0] : 0ull,
          (unsigned long long)g->devices[0].mem_used);
    CHECK(run_worker("oom_count", NULL) == 1, "container total after the holder re-charged");
    for (int i = 0; i < 3; i++) r.free_(p[i]);
}

static void case_limits_rewritten(void) {
    const char *path = use_limits("version=1\nmemory_limit_0=1g\n", 0644);
    rt r;
    rt_open(&r, 12080, 0);
    CUdeviceptr p[5];
    CHECK(r.alloc(&p[0], 256 * MiB) == CUDA_SUCCESS, "alloc");
    write_text(path, "version=1\nmemory_limit_0=100g\n", 0644);
    for (int i = 1; i < 4; i++) CHECK(r.alloc(&p[i], 256 * MiB) == CUDA_SUCCESS, "alloc %d", i);
    CHECK(r.alloc(&p[4], 256 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "a running process re-read its limits file");
    /* a new process reads the file as it is now: only the read-only mount keeps it the agent's */
    CHECK(run_worker("oom_count", NULL) == 201, "a new process did not read the rewritten file");
    if (system("unshare -Urm true >/dev/null 2>&1") != 0) {
        printf("    read-only bind mount not checked: unshare -Urm is not available here\n");
        return;
    }
    write_text(path, "version=1\nmemory_limit_0=1g\n", 0644);
    char cmd[2400];
    snprintf(cmd, sizeof cmd,
             "unshare -Urm sh -c 'mount --bind %s %s && mount -o remount,bind,ro %s && "
             "! (echo memory_limit_0=0 > %s) 2>/dev/null && ! rm -f %s 2>/dev/null'",
             path, path, path, path, path);
    CHECK(system(cmd) == 0, "a read-only bind-mounted limits file could be rewritten or removed");
    CHECK(count_lines(path, "memory_limit_0=1g") == 1, "file changed under the read-only mount");
    printf("    read-only bind mount: rewrite and removal refused (EROFS/EBUSY)\n");
}

/* 8 processes allocate and free at random; SIGKILLs land at random points (inside the driver,
 * between the charge and the table, holding the region lock); killed workers are replaced. */
#define SK_WORKERS 8
typedef struct sk_shared {
    int stop;
    int done[SK_WORKERS];
    uint64_t live[SK_WORKERS];
    uint64_t cycles;
} sk_shared;

static void sk_worker(rt *r, sk_shared *sh, int idx) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed case */
    unsigned seed = (unsigned)getpid() * 2654435761u;
    CUdeviceptr held[8];
    uint64_t size[8], live = 0;
    int n = 0;
    while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
        if (n == 8 || (n > 0 && rand_r(&seed) % 2)) {
            int k = (int)(rand_r(&seed) % (unsigned)n);
            if (r->free_(held[k]) != CUDA_SUCCESS) _exit(3);
            live -= size[k];
            held[k] = held[--n];
            size[k] = size[n];
        } else {
            uint64_t b = (1 + rand_r(&seed) % 16) * MiB;
            CUresult rc = r->alloc(&held[n], b);
            if (rc != CUDA_SUCCESS) _exit(4);
            size[n++] = b;
            live += b;
        }
        __atomic_store_n(&sh->live[idx], live, __ATOMIC_RELEASE);
        __atomic_add_fetch(&sh->cycles, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&sh->done[idx], 1, __ATOMIC_RELEASE);
    for (;;) pause();
}

static void case_accounting_sigkill(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    sk_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED, "mmap");
    pid_t pids[SK_WORKERS];
    for (int w = 0; w < SK_WORKERS; w++) {
        pids[w] = fork();
        CHECK(pids[w] >= 0, "fork");
        if (pids[w] == 0) sk_worker(&r, sh, w);
    }
    const uint64_t target = sanitizer() ? 2000 : 8000;
    unsigned seed = 12345;
    int kills = 0;
    uint64_t t0 = now_ns();
    const int min_kills = sanitizer() ? 100 : 300;
    while ((__atomic_load_n(&sh->cycles, __ATOMIC_ACQUIRE) < target || kills < min_kills) &&
           now_ns() - t0 < 60000000000ull) {
        struct timespec ts = {0, (long)(rand_r(&seed) % (sanitizer() ? 2000 : 200)) * 1000L};
        nanosleep(&ts, NULL);
        int w = (int)(rand_r(&seed) % SK_WORKERS);
        kill(pids[w], SIGKILL);
        waitpid(pids[w], NULL, 0);
        kills++;
        sh->live[w] = 0;
        pids[w] = fork();
        CHECK(pids[w] >= 0, "fork");
        if (pids[w] == 0) sk_worker(&r, sh, w);
    }
    uint64_t cycles = __atomic_load_n(&sh->cycles, __ATOMIC_ACQUIRE);
    CHECK(cycles >= target, "only %llu cycles in 60 s", (unsigned long long)cycles);
    __atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
    for (int w = 0; w < SK_WORKERS; w++) {
        uint64_t until = now_ns() + 10000000000ull;
        while (!__atomic_load_n(&sh->done[w], __ATOMIC_ACQUIRE) && now_ns() < until) {
            int st;
            CHECK(waitpid(pids[w], &st, WNOHANG) == 0, "worker %d exited with %d", w, st);
            sleep_ms(1);
        }
        CHECK(sh->done[w], "worker %d did not stop", w);
    }
    uint64_t ms = (now_ns() - t0) / 1000000;
    /* reclaim: an allocation that fits this process but not beside the others' charges */
    vgpu_slot *mine = slot_of_pid(g, getpid());
    uint64_t own = mine ? mine->used[0] : 0;
    CUdeviceptr big;
    CUresult rc = r.alloc(&big, 2 * GiB - own);
    uint64_t expect = own, slots_used = 0;
    int live_slots = 0, live_slots_expected = 1;
    for (int w = 0; w < SK_WORKERS; w++) {
        vgpu_slot *s = slot_of_pid(g, pids[w]);
        CHECK(s || sh->live[w] == 0, "worker %d has no slot", w);
        if (!s) continue; /* stopped before its first allocation */
        live_slots_expected++;
        CHECK(s->used[0] == sh->live[w] + s->context[0], "worker %d: slot %llu, live %llu", w,
              (unsigned long long)s->used[0], (unsigned long long)sh->live[w]);
        expect += sh->live[w] + s->context[0];
    }
    for (int k = 0; k < VGPU_MAX_SLOTS; k++)
        if (g->slots[k].pid) {
            live_slots++;
            slots_used += g->slots[k].used[0];
        }
    if (rc == CUDA_SUCCESS) {
        expect += 2 * GiB - own;
        CHECK(expect == 2 * GiB, "accepted %llu B beside %llu B of live allocations",
              (unsigned long long)(2 * GiB - own), (unsigned long long)(expect - 2 * GiB + own));
    }
    printf("    %llu alloc/free cycles in %d processes, %d SIGKILLs, %llu ms; after reclaim: total %llu B, "
           "live allocations %llu B, %d slots\n",
           (unsigned long long)cycles, SK_WORKERS, kills, (unsigned long long)ms,
           (unsigned long long)g->devices[0].mem_used, (unsigned long long)expect, live_slots);
    CHECK(g->devices[0].mem_used == expect && slots_used == expect, "device total %llu, slots %llu, live %llu",
          (unsigned long long)g->devices[0].mem_used, (unsigned long long)slots_used, (unsigned long long)expect);
    CHECK(live_slots == live_slots_expected, "%d slots left for %d processes", live_slots, live_slots_expected);
    for (int w = 0; w < SK_WORKERS; w++) {
        kill(pids[w], SIGKILL);
        waitpid(pids[w], NULL, 0);
    }
    if (rc == CUDA_SUCCESS) r.free_(big);
}

static int worker_track_full(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    CUdeviceptr p;
    int n = 0;
    CUresult rc = CUDA_SUCCESS;
    while (n < 20000 && (rc = r.alloc(&p, MiB)) == CUDA_SUCCESS) n++;
    if (rc != CUDA_ERROR_OUT_OF_MEMORY || n < 1000 || n >= 20000) return 1;
    /* the refused allocation reached the driver, was freed again and charged nowhere */
    if (r.calls("cuMemAlloc_v2") != (uint64_t)n + 1 || r.calls("cuMemFree_v2") != 1) return 2;
    if (r.used(0) != (uint64_t)n * MiB || g->devices[0].mem_used != (uint64_t)n * MiB) return 3;
    vgpu_slot *s = slot_of_pid(g, getpid());
    return s && s->used[0] == (uint64_t)n * MiB ? 0 : 4;
}

static void case_track_full(void) {
    if (sanitizer()) {
        printf("    skipped under a sanitizer (calloc is replaced by a preload)\n");
        return;
    }
    static char preload[800];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s/libfailcalloc.so", getenv("VGPU_TESTLIB"));
    const char *w[] = {preload, "FAILCALLOC_ABOVE=100000", NULL};
    CHECK(run_worker("track_full", w) == 0, "an untrackable allocation was kept or charged");
}

static void case_no_slot(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    CUdeviceptr p;
    CHECK(r.alloc(&p, 64 * MiB) == CUDA_SUCCESS, "alloc");
    /* every free slot taken by a live process (the suite's runner) */
    int runner = (int)getppid(), forged = 0;
    uint64_t start = proc_start_time(runner);
    for (int k = 0; k < VGPU_MAX_SLOTS; k++)
        if (g->slots[k].pid == 0) {
            g->slots[k].start_time = start;
            g->slots[k].status = VGPU_SLOT_RUNNING;
            __atomic_store_n(&g->slots[k].pid, runner, __ATOMIC_RELEASE);
            forged++;
        }
    char log[700], log_env[720];
    snprintf(log, sizeof log, "%s/noslot.log", tmpdir);
    snprintf(log_env, sizeof log_env, "LIBVGPU_LOG_FILE=%s", log);
    const char *w[] = {log_env, "LIBCUDA_LOG_LEVEL=1", NULL};
    CHECK(run_worker("refused", w) == 0, "a process without a slot was allowed to allocate");
    CHECK(count_lines(log, "no slot") >= 1, "no log line for the refusal");
    for (int k = 0; k < VGPU_MAX_SLOTS; k++)
        if (g->slots[k].pid == runner) __atomic_store_n(&g->slots[k].pid, 0, __ATOMIC_RELEASE);
    CHECK(g->devices[0].mem_used == 64 * MiB, "total changed: %llu", (unsigned long long)g->devices[0].mem_used);
    printf("    %d slots taken; the slotless process was refused before the driver\n", forged);
    r.free_(p);
}

/* A broker answering one request with the peer's pid plus `offset`. */
static pid_t spawn_broker(const char *path, uint32_t offset) {
    int ready[2];
    CHECK(pipe(ready) == 0, "pipe");
    pid_t broker = fork();
    if (broker == 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 4) != 0) _exit(1);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        int c = accept(s, NULL, NULL);
        unsigned char req[8];
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (c < 0 || read(c, req, 8) != 8 || getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) _exit(2);
        uint32_t hp = htonl((uint32_t)cred.pid + offset);
        unsigned char rep[12] = {'H', 'P', 'I', 'D', 0, 1, 0, 0};
        memcpy(rep + 8, &hp, 4);
        _exit(write(c, rep, 12) == 12 ? 0 : 4);
    }
    char ch;
    CHECK(read(ready[0], &ch, 1) == 1, "broker not ready");
    close(ready[0]);
    close(ready[1]);
    return broker;
}

static void case_context_cost(void) {
    static char path[100];
    snprintf(path, sizeof path, "%.80s/ctx-broker.sock", tmpdir);
    pid_t broker = spawn_broker(path, 100000);
    setenv("LIBVGPU_HOSTPID_SOCKET", path, 1);
    rt r;
    rt_open(&r, 12080, 0);
    int st;
    CHECK(waitpid(broker, &st, 0) == broker && WIFEXITED(st) && WEXITSTATUS(st) == 0, "broker");
    vgpu_region *g = map_region();
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine && mine->host_pid == getpid() + 100000, "host pid not taken from the broker");
    CHECK(r.used(0) == 576 * MiB, "fake: context 64 MiB plus another tenant's 512 MiB, %llu", (unsigned long long)r.used(0));
    CHECK(mine->context[0] == 64 * MiB && mine->used[0] == 64 * MiB && g->devices[0].mem_used == 64 * MiB,
          "context charged %llu B (the device's change was 576 MiB)", (unsigned long long)mine->context[0]);
    size_t f, t;
    CHECK(r.mem_info(&f, &t) == CUDA_SUCCESS && t == GiB && f == GiB - 64 * MiB, "free %zu", f);
}

static void case_sm_region_tamper(void) {
    use_limits("version=1\nsm_limit=30\ncore_policy=force\n", 0444);
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    __atomic_store_n(&g->devices[0].sm_limit, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&g->devices[0].rate_ppm, 1000000, __ATOMIC_RELEASE);
    __atomic_store_n(&g->devices[0].pool_capacity, 1ull << 60, __ATOMIC_RELEASE);
    __atomic_store_n(&g->devices[0].tokens, INT64_MAX / 2, __ATOMIC_RELEASE);
    __atomic_store_n(&g->utilization_switch, 0, __ATOMIC_RELEASE);
    double f = drive(&r, l_kernel, (void *)r.launch, 1500, 1000);
    printf("    limit 30 from the file, region's copy zeroed and pool filled: busy fraction %.3f\n", f);
    CHECK(f < 0.65, "region writes lifted the compute limit: busy %.3f", f);
}

typedef struct gate_launch {
    rt *r;
    atomic_int done;
} gate_launch;

static void *gate_launch_main(void *arg) {
    gate_launch *g = arg;
    CUcontext ctx;
    CHECK(g->r->retain(&ctx, 0) == CUDA_SUCCESS && g->r->set_current(ctx) == CUDA_SUCCESS, "context");
    CHECK(g->r->launch((CUfunction)0x10, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS, "launch");
    atomic_store(&g->done, 1);
    return NULL;
}

/* A launch held by a closed gate is released within `ms` of opening it, and not before. */
static void gate_holds(rt *r, int32_t *field, int32_t closed, int32_t open_value) {
    gate_launch gl = {r, 0};
    __atomic_store_n(field, closed, __ATOMIC_RELEASE);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, gate_launch_main, &gl) == 0, "thread");
    sleep_ms(300);
    CHECK(!atomic_load(&gl.done), "a launch passed a closed gate (field value %d)", closed);
    __atomic_store_n(field, open_value, __ATOMIC_RELEASE);
    uint64_t until = now_ns() + 2000000000ull;
    while (!atomic_load(&gl.done) && now_ns() < until) sleep_ms(5);
    CHECK(atomic_load(&gl.done), "the launch stayed blocked after the gate opened");
    pthread_join(t, NULL);
}

/* The monitor's gates hold for a container without any SM limit, as in HAMi-core. */
static void case_gates_without_limit(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    uint64_t before = (uint64_t)time(NULL);
    CHECK(r.launch((CUfunction)0x10, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS, "launch");
    CHECK(g->last_kernel_time + 2 >= before, "last_kernel_time not kept without a limit: %llu",
          (unsigned long long)g->last_kernel_time);
    gate_holds(&r, &g->recent_kernel, -1, 0);
    vgpu_slot *mine = slot_of_pid(g, getpid());
    CHECK(mine, "slot");
    gate_holds(&r, (int32_t *)&mine->status, VGPU_SLOT_SUSPENDED, VGPU_SLOT_RUNNING);
}

/* ---- runner ---- */

typedef struct test_case {
    const char *name;
    void (*fn)(void);
    const char *env[8];
} test_case;

static void case_force_ignores_switch(void); /* monitor feedback block at the end */
static void case_priority_gate(void);

static const test_case cases[] = {
    {"env_parsing", case_env, {NULL}},
    {"alloc_limit", case_alloc_limit, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"other_allocators", case_allocators, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"mem_get_info", case_mem_info,
     {"CUDA_DEVICE_MEMORY_LIMIT=4g", "CUDA_DEVICE_MEMORY_LIMIT_1=100g", "FAKE_GPUS=2", NULL}},
    {"nvml_memory_info", case_nvml, {"CUDA_DEVICE_MEMORY_LIMIT=2048m", NULL}},
    {"cross_process", case_cross_process, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"dead_process_reclaim", case_dead_reclaim, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"stale_slot", case_stale_slot, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"proc_address", case_procaddr, {NULL}},
    {"dlsym_hygiene", case_dlsym, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"launch_throttle", case_throttle,
     {"CUDA_DEVICE_SM_LIMIT=30", "GPU_CORE_UTILIZATION_POLICY=force", "FAKE_KERNEL_NS=1000000", NULL}},
    {"force_ignores_switch", case_force_ignores_switch,
     {"CUDA_DEVICE_SM_LIMIT=30", "GPU_CORE_UTILIZATION_POLICY=force", "FAKE_KERNEL_NS=1000000", NULL}},
    {"priority_gate", case_priority_gate, {"CUDA_DEVICE_SM_LIMIT=30", "FAKE_KERNEL_NS=1000000", NULL}},
    {"thread_safety", case_threads, {"CUDA_DEVICE_MEMORY_LIMIT=4g", NULL}},
    {"fork_safety", case_fork, {"CUDA_DEVICE_MEMORY_LIMIT=4g", NULL}},
    {"clone_child", case_clone, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"failure_policy", case_fail_policy,
     {"CUDA_DEVICE_MEMORY_LIMIT=1g", "CUDA_DEVICE_MEMORY_SHARED_CACHE=/dev/null/vgpu.cache", "LIBCUDA_LOG_LEVEL=1",
      NULL}},
    {"symbol_hygiene", case_symbols, {NULL}},
    {"layout", case_layout,
     {"CUDA_DEVICE_MEMORY_LIMIT_0=3g", "CUDA_DEVICE_SM_LIMIT=40", "GPU_CORE_UTILIZATION_POLICY=force", NULL}},
    {"hostpid_broker", case_broker,
     {"CUDA_DEVICE_SM_LIMIT=30", "GPU_CORE_UTILIZATION_POLICY=force", "FAKE_KERNEL_NS=1000000",
      "LIBVGPU_HOSTPID_BROKER=1", NULL}},
    /* agent-owned limits, region hardening, exact accounting */
    {"limits_file_parse", case_limits_parse, {NULL}},
    {"limits_file_wins", case_limits_file_wins,
     {"CUDA_DEVICE_MEMORY_LIMIT=100g", "CUDA_DEVICE_MEMORY_LIMIT_0=0", NULL}},
    {"limits_file_invalid", case_limits_file_invalid, {NULL}},
    {"region_attacks", case_region_attacks, {"CUDA_DEVICE_MEMORY_LIMIT_0=0", NULL}},
    {"limits_file_rewritten", case_limits_rewritten, {NULL}},
    {"accounting_sigkill", case_accounting_sigkill, {"CUDA_DEVICE_MEMORY_LIMIT=2g", "FAKE_MEM_BYTES=1099511627776", NULL}},
    {"track_table_full", case_track_full, {NULL}},
    {"no_slot", case_no_slot, {"CUDA_DEVICE_MEMORY_LIMIT=1g", NULL}},
    {"context_cost", case_context_cost,
     {"CUDA_DEVICE_MEMORY_LIMIT=1g", "FAKE_CTX_BYTES=67108864", "FAKE_CTX_OTHER_BYTES=536870912",
      "LIBVGPU_HOSTPID_BROKER=1", NULL}},
    {"gates_without_limit", case_gates_without_limit, {NULL}},
    {"sm_region_tamper", case_sm_region_tamper,
     {"CUDA_DEVICE_SM_LIMIT=0", "GPU_CORE_UTILIZATION_POLICY=disable", "FAKE_KERNEL_NS=1000000", NULL}},
};

static const struct {
    const char *name;
    int (*fn)(void);
} workers[] = {
    {"nocuda", worker_nocuda},         {"unthrottled", worker_unthrottled}, {"switch_off", worker_switch_off},
    {"failopen", worker_failopen},     {"failclosed", worker_failclosed},
    {"oom_count", worker_oom_count},   {"refused", worker_refused},         {"track_full", worker_track_full},
};

static int run_case(const test_case *c, int index) {
    char cache[600], fake[600];
    snprintf(cache, sizeof cache, "CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/%02d.cache", tmpdir, index);
    snprintf(fake, sizeof fake, "FAKE_STATE=%s/%02d.fake", tmpdir, index);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    uint64_t t0 = now_ns();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        putenv(cache);
        putenv(fake);
        if (!getenv("LIBCUDA_LOG_LEVEL")) putenv("LIBCUDA_LOG_LEVEL=0");
        for (int i = 0; c->env[i]; i++) putenv((char *)c->env[i]);
        char *argv[] = {exe, "--case", (char *)c->name, NULL};
        execv(exe, argv);
        _exit(127);
    }
    int st = 0;
    uint64_t deadline = t0 + 240ull * 1000000000ull;
    pid_t w;
    while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now_ns() < deadline) sleep_ms(5);
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        printf("FAIL %2d %s (timed out)\n", index, c->name);
        return 0;
    }
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("%s %2d %s (%llu ms)%s\n", ok ? "ok  " : "FAIL", index, c->name,
           (unsigned long long)((now_ns() - t0) / 1000000), ok ? "" : WIFSIGNALED(st) ? " killed by a signal" : "");
    return ok;
}

int main(int argc, char **argv) {
    size_t n_cases = sizeof cases / sizeof cases[0];
    if (argc >= 3 && !strcmp(argv[1], "--case")) {
        setvbuf(stdout, NULL, _IONBF, 0); /* forked workers must not repeat buffered output */
        char *tdir = getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
        static char dir[600];
        snprintf(dir, sizeof dir, "%s", getenv("FAKE_STATE") ? getenv("FAKE_STATE") : "/tmp/x");
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        tmpdir = dir;
        (void)tdir;
        for (size_t i = 0; i < n_cases; i++)
            if (!strcmp(cases[i].name, argv[2])) {
                cases[i].fn();
                fflush(stdout);
                return 0;
            }
        return 99;
    }
    if (argc >= 3 && !strcmp(argv[1], "--worker")) {
        for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++)
            if (!strcmp(workers[i].name, argv[2])) return workers[i].fn();
        return 99;
    }
    static char dir[] = "/tmp/vgpu-test.XXXXXX";
    tmpdir = mkdtemp(dir);
    CHECK(tmpdir, "mkdtemp");
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n_cases; i++) {
        int selected = argc < 2;
        for (int a = 1; a < argc; a++) selected |= strcmp(argv[a], cases[i].name) == 0;
        if (!selected) continue;
        if (run_case(&cases[i], (int)i + 1)) passed++;
        else failed++;
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* ==== monitor feedback (node agent monitor; appended block) ====
 * The node agent's monitor writes utilization_switch and recent_kernel into the region; these
 * cases pin what the library does with them: force keeps the SM limit when the monitor switches
 * it off, and a negative recent_kernel holds new launches back until it is non-negative again. */

static void case_force_ignores_switch(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    __atomic_store_n(&g->utilization_switch, 0, __ATOMIC_RELEASE);
    /* Under force the limit stays: launches are measured and the busy fraction stays capped. */
    uint64_t rec0 = r.calls("cuEventRecord");
    double f = drive(&r, l_kernel, (void *)r.launch, 1500, 1000);
    uint64_t measured = r.calls("cuEventRecord") - rec0;
    printf("    force, switch 0: %llu launches measured, busy fraction %.3f\n", (unsigned long long)measured, f);
    CHECK(measured > 0, "force with utilization_switch=0: launches not measured (limit lifted)");
    CHECK(f < 0.55, "force with utilization_switch=0: busy %.3f at limit 30", f);
}

typedef struct gated_launch {
    rt *r;
    CUcontext ctx;
    atomic_int done;
    CUresult rc;
} gated_launch;

static void *gated_launch_main(void *arg) {
    gated_launch *l = arg;
    l->r->set_current(l->ctx);
    l->rc = l_kernel(l->r, (void *)l->r->launch);
    atomic_store(&l->done, 1);
    return NULL;
}

static void case_priority_gate(void) {
    rt r;
    rt_open(&r, 12080, 0);
    vgpu_region *g = map_region();
    CUcontext ctx;
    CHECK(r.retain(&ctx, 0) == CUDA_SUCCESS, "ctx");
    r.set_current(ctx);
    CHECK(l_kernel(&r, (void *)r.launch) == CUDA_SUCCESS, "first launch");
    /* A higher-priority container became active: the monitor holds this one back. */
    __atomic_store_n(&g->recent_kernel, -1, __ATOMIC_RELEASE);
    gated_launch l = {.r = &r, .ctx = ctx};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, gated_launch_main, &l) == 0, "thread");
    sleep_ms(600);
    CHECK(!atomic_load(&l.done), "launch went through while recent_kernel < 0");
    /* The higher-priority container stopped: the launch proceeds. */
    uint64_t t0 = now_ns();
    __atomic_store_n(&g->recent_kernel, 0, __ATOMIC_RELEASE);
    while (!atomic_load(&l.done) && now_ns() - t0 < 3000000000ull) sleep_ms(5);
    uint64_t waited = (now_ns() - t0) / 1000000;
    CHECK(atomic_load(&l.done), "launch still held %llu ms after recent_kernel became 0", (unsigned long long)waited);
    pthread_join(t, NULL);
    CHECK(l.rc == CUDA_SUCCESS, "held launch failed: %d", (int)l.rc);
    printf("    held launch resumed %llu ms after recent_kernel became 0\n", (unsigned long long)waited);
}
