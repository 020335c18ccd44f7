/*
 * libvgpu benchmarks on the fake driver; prints figures, asserts nothing. Run with libvgpu
 * preloaded (make bench). Each figure comes from a child process with its own env and cache.
 *   launch overhead: ns added per hooked cuLaunchKernel (no limit, limit 100, limit 30), against the
 *                    fake's own function called directly in the same process
 *   alloc overhead:  ns added per cuMemAlloc_v2 + cuMemFree_v2 pair
 *   throttle:        busy fraction of 1 ms kernels launched flat out at limit 30 and 70
 *   controller:      the same at limit 30 with NVML feedback (host pids written as a monitor would)
 *   two containers:  shares of two processes at 30 and 70 on one device
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "../test/testutil.h"

static char tmpdir[] = "/tmp/vgpu-bench.XXXXXX";

static double per_call_ns(launch_fn f, long n) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < n; i++) f((CUfunction)0x10, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
    return (double)(now_ns() - t0) / (double)n;
}

/* min over interleaved rounds of 10^5 calls each, 10^6 calls per side in all */
static int child_launch_overhead(const char *label) {
    rt r;
    rt_open(&r, 12080, 0);
    launch_fn raw = (launch_fn)r.raw("cuLaunchKernel");
    per_call_ns(r.launch, 100000);
    double base = 1e18, hooked = 1e18;
    for (int round = 0; round < 10; round++) {
        double b = per_call_ns(raw, 100000), h = per_call_ns(r.launch, 100000);
        if (b < base) base = b;
        if (h < hooked) hooked = h;
    }
    printf("launch overhead (%s): driver %.1f ns, hooked %.1f ns, added %.1f ns per launch (target < 200)\n", label,
           base, hooked, hooked - base);
    return 0;
}

static int child_alloc_overhead(void) {
    rt r;
    rt_open(&r, 12080, 0);
    CUresult (*raw_alloc)(CUdeviceptr *, size_t) = (CUresult (*)(CUdeviceptr *, size_t))r.raw("cuMemAlloc_v2");
    CUresult (*raw_free)(CUdeviceptr) = (CUresult (*)(CUdeviceptr))r.raw("cuMemFree_v2");
    double best[2] = {1e18, 1e18};
    for (int rep = 0; rep < 5; rep++)
        for (int k = 0; k < 2; k++) {
            uint64_t t0 = now_ns();
            for (int i = 0; i < 100000; i++) {
                CUdeviceptr p;
                if (k == 0) {
                    raw_alloc(&p, 2 * MiB);
                    raw_free(p);
                } else {
                    r.alloc(&p, 2 * MiB);
                    r.free_(p);
                }
            }
            double ns = (double)(now_ns() - t0) / 100000.0;
            if (ns < best[k]) best[k] = ns;
        }
    printf("alloc+free overhead (limit 4g): driver %.1f ns, hooked %.1f ns, added %.1f ns per pair\n", best[0],
           best[1], best[1] - best[0]);
    return 0;
}

/* Launches 1 ms kernels flat out for `secs`; prints the busy fraction after 1 s of settling. */
static int child_throttle(const char *label, double secs, int as_monitor) {
    rt r;
    rt_open(&r, 12080, 0);
    if (as_monitor) {
        vgpu_region *g = map_region();
        vgpu_slot *s = slot_of_pid(g, getpid());
        CUdeviceptr p;
        if (!s && r.alloc(&p, MiB) == CUDA_SUCCESS) s = slot_of_pid(g, getpid());
        if (s) __atomic_store_n(&s->host_pid, getpid() + 100000, __ATOMIC_RELEASE);
    }
    uint64_t t0 = now_ns(), settle = t0 + 1000000000ull, end = t0 + (uint64_t)(secs * 1e9);
    uint64_t b0 = 0, tb0 = 0, pb0 = 0;
    long launches = 0;
    for (;;) {
        uint64_t t = now_ns();
        if (!tb0 && t >= settle) {
            tb0 = t;
            b0 = r.busy(0, t);
            pb0 = r.pid_busy(getpid());
        }
        if (t >= end) break;
        r.launch((CUfunction)0x10, 132, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
        launches++;
    }
    uint64_t t1 = now_ns();
    double dev = (double)(r.busy(0, t1) - b0) / (double)(t1 - tb0);
    double own = (double)(r.pid_busy(getpid()) - pb0) / (double)(t1 - tb0);
    printf("%s: busy fraction %.3f of the device (own share %.3f), %ld launches\n", label, dev, own, launches);
    r.sync();
    return 0;
}

static pid_t spawn(const char *what, const char *const *env) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; env[i]; i++) putenv((char *)env[i]);
        char *argv[] = {exe, "--child", (char *)what, NULL};
        execv(exe, argv);
        _exit(127);
    }
    return pid;
}

static void run(const char *what, const char *const *env) {
    pid_t pid = spawn(what, env);
    waitpid(pid, NULL, 0);
}

static char *fmt(const char *f, const char *a) {
    char *s = malloc(700);
    snprintf(s, 700, f, a);
    return s;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--child")) {
        const char *w = argv[2];
        if (!strcmp(w, "launch")) return child_launch_overhead("no limit");
        if (!strcmp(w, "launch100")) return child_launch_overhead("limit 100");
        if (!strcmp(w, "launch30")) return child_launch_overhead("limit 30 active, tokens to spare");
        if (!strcmp(w, "alloc")) return child_alloc_overhead();
        if (!strcmp(w, "t30")) return child_throttle("throttle, limit 30, 3 s", 3.0, 0);
        if (!strcmp(w, "t70")) return child_throttle("throttle, limit 70, 3 s", 3.0, 0);
        if (!strcmp(w, "c30")) return child_throttle("controller (NVML feedback), limit 30, 5 s", 5.0, 1);
        if (!strcmp(w, "p30")) return child_throttle("  container A, limit 30", 6.0, 0);
        if (!strcmp(w, "p70")) return child_throttle("  container B, limit 70", 6.0, 0);
        return 2;
    }
    if (!getenv("LD_PRELOAD") || !strstr(getenv("LD_PRELOAD"), "libvgpu")) {
        fprintf(stderr, "run with LD_PRELOAD=.../libvgpu.so (make bench)\n");
        return 2;
    }
    if (!mkdtemp(tmpdir)) return 2;
    char *fake = fmt("FAKE_STATE=%s/fake", tmpdir);
    const char *e1[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/1.cache", tmpdir), fake, NULL};
    run("launch", e1);
    const char *e2[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/2.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=100", NULL};
    run("launch100", e2);
    const char *e2b[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/2b.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=30",
                         "GPU_CORE_UTILIZATION_POLICY=force", NULL};
    run("launch30", e2b);
    const char *e3[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/3.cache", tmpdir), fake, "CUDA_DEVICE_MEMORY_LIMIT=4g", NULL};
    run("alloc", e3);
    const char *e4[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/4.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=30",
                        "FAKE_KERNEL_NS=1000000", NULL};
    run("t30", e4);
    const char *e5[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/5.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=70",
                        "FAKE_KERNEL_NS=1000000", NULL};
    run("t70", e5);
    const char *e6[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/6.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=30",
                        "FAKE_KERNEL_NS=1000000", NULL};
    run("c30", e6);
    printf("two containers on one device, 6 s each:\n");
    const char *ea[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/a.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=30",
                        "FAKE_KERNEL_NS=1000000", NULL};
    const char *eb[] = {fmt("CUDA_DEVICE_MEMORY_SHARED_CACHE=%s/b.cache", tmpdir), fake, "CUDA_DEVICE_SM_LIMIT=70",
                        "FAKE_KERNEL_NS=1000000", NULL};
    pid_t a = spawn("p30", ea), b = spawn("p70", eb);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : 1;
}
