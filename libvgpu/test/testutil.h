/* Shared helpers of the suite and the benchmarks: a mini-runtime that finds the driver the way
 * cudart does (dlopen, dlsym of cuGetProcAddress_v2, then lookups by version and flags). */
#ifndef VGPU_TESTUTIL_H
#define VGPU_TESTUTIL_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../src/cuda_abi.h"
#include "../src/nvml_abi.h"
#include "fake/fake.h"
#include "vgpu/shared_region.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "  check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fprintf(stderr, "\n");                                                        \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

typedef CUresult (*gpa_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

typedef struct rt {
    void *cuda;
    int version;
    cuuint64_t flags;
    gpa_v2_fn gpa;
    CUresult (*init)(unsigned);
    CUresult (*retain)(CUcontext *, CUdevice);
    CUresult (*set_current)(CUcontext);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*free_)(CUdeviceptr);
    CUresult (*mem_info)(size_t *, size_t *);
    CUresult (*total_mem)(size_t *, CUdevice);
    CUresult (*sync)(void);
    launch_fn launch;
    fake_calls_fn calls;
    fake_used_fn used;
    fake_busy_fn busy;
    fake_pid_busy_fn pid_busy;
    void *(*raw)(const char *);
} rt;

static inline void *rt_sym(rt *r, const char *name, int version, cuuint64_t flags) {
    void *fn = NULL;
    CUdriverProcAddressQueryResult st = -1;
    CUresult rc = r->gpa(name, &fn, version, flags, &st);
    CHECK(rc == CUDA_SUCCESS && fn && st == CU_GET_PROC_ADDRESS_SUCCESS, "cuGetProcAddress(%s, %d, %llu) = %d",
          name, version, (unsigned long long)flags, rc);
    return fn;
}

/* Opens the driver, initialises it and makes device 0's primary context current. */
static inline void rt_open(rt *r, int version, cuuint64_t flags) {
    memset(r, 0, sizeof *r);
    r->version = version;
    r->flags = flags;
    r->cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CHECK(r->cuda, "dlopen libcuda.so.1: %s", dlerror());
    r->gpa = (gpa_v2_fn)dlsym(r->cuda, "cuGetProcAddress_v2");
    CHECK(r->gpa, "no cuGetProcAddress_v2");
    r->init = (CUresult (*)(unsigned))rt_sym(r, "cuInit", version, flags);
    r->retain = (CUresult (*)(CUcontext *, CUdevice))rt_sym(r, "cuDevicePrimaryCtxRetain", version, flags);
    r->set_current = (CUresult (*)(CUcontext))rt_sym(r, "cuCtxSetCurrent", version, flags);
    r->alloc = (CUresult (*)(CUdeviceptr *, size_t))rt_sym(r, "cuMemAlloc", version, flags);
    r->free_ = (CUresult (*)(CUdeviceptr))rt_sym(r, "cuMemFree", version, flags);
    r->mem_info = (CUresult (*)(size_t *, size_t *))rt_sym(r, "cuMemGetInfo", version, flags);
    r->total_mem = (CUresult (*)(size_t *, CUdevice))rt_sym(r, "cuDeviceTotalMem", version, flags);
    r->sync = (CUresult (*)(void))rt_sym(r, "cuCtxSynchronize", version, flags);
    r->launch = (launch_fn)rt_sym(r, "cuLaunchKernel", version, flags);
    r->calls = (fake_calls_fn)dlsym(r->cuda, "fake_calls");
    r->used = (fake_used_fn)dlsym(r->cuda, "fake_used");
    r->busy = (fake_busy_fn)dlsym(r->cuda, "fake_busy");
    r->pid_busy = (fake_pid_busy_fn)dlsym(r->cuda, "fake_pid_busy");
    r->raw = (void *(*)(const char *))dlsym(r->cuda, "fake_raw");
    CHECK(r->calls && r->used && r->busy && r->raw, "fake test API missing");
    CHECK(r->init(0) == CUDA_SUCCESS, "cuInit");
    CUcontext ctx;
    CHECK(r->retain(&ctx, 0) == CUDA_SUCCESS, "primary context");
    CHECK(r->set_current(ctx) == CUDA_SUCCESS, "set current");
}

static inline vgpu_region *map_region(void) {
    const char *p = getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
    CHECK(p, "no cache path");
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0, "open %s", p);
    void *m = mmap(NULL, VGPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(m != MAP_FAILED, "mmap");
    return m;
}

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline vgpu_slot *slot_of_pid(vgpu_region *r, int pid) {
    for (int k = 0; k < VGPU_MAX_SLOTS; k++)
        if (__atomic_load_n(&r->slots[k].pid, __ATOMIC_ACQUIRE) == pid) return &r->slots[k];
    return NULL;
}

/* field 22 of /proc/<pid>/stat, read independently of the library */
static inline uint64_t proc_start_time(int pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    p += 2;
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    return p ? strtoull(p, NULL, 10) : 0;
}

#endif
