/*
 * A fake libnvidia-ml.so.1 answering from the fake driver's state: memory info from the true
 * usage, process utilisation from the simulated busy clock. Host pids are container pids plus
 * FAKE_HOST_PID_OFFSET (100000), to imitate a pid namespace.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/nvml_abi.h"
#include "fake.h"

#define API __attribute__((visibility("default")))

uint64_t fake_used(int dev);
fake_state *fake_state_get(void);
void fake_uuid_bytes(int dev, unsigned char out[16]);

typedef struct nvmlDevice_st {
    int index;
} fake_dev;
static fake_dev devs[FAKE_MAX_DEV];
static int inited;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void setup(void) {
    for (int i = 0; i < FAKE_MAX_DEV; i++) devs[i].index = i;
    __atomic_store_n(&inited, 1, __ATOMIC_RELEASE);
}

static int n_gpus(void) {
    const char *s = getenv("FAKE_GPUS");
    int n = s ? atoi(s) : 1;
    return n < 0 || n > FAKE_MAX_DEV ? 1 : n;
}
static uint64_t mem_bytes(void) {
    const char *s = getenv("FAKE_MEM_BYTES");
    return s && *s ? strtoull(s, NULL, 10) : 80ull << 30;
}

API nvmlReturn_t nvmlInit_v2(void) {
    pthread_once(&once, setup);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }
API nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!n) return NVML_ERROR_INVALID_ARGUMENT;
    *n = (unsigned)n_gpus();
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || i >= (unsigned)n_gpus()) return NVML_ERROR_INVALID_ARGUMENT;
    *d = &devs[i];
    return NVML_SUCCESS;
}
static void uuid_str(int i, char *buf, unsigned n) {
    unsigned char b[16];
    fake_uuid_bytes(i, b);
    snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned n) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !buf) return NVML_ERROR_INVALID_ARGUMENT;
    if (n < 41) return NVML_ERROR_INSUFFICIENT_SIZE;
    uuid_str(d->index, buf, n);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *d) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !d) return NVML_ERROR_INVALID_ARGUMENT;
    char buf[96];
    for (int i = 0; i < n_gpus(); i++) {
        uuid_str(i, buf, sizeof buf);
        if (strcmp(buf, uuid) == 0) {
            *d = &devs[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}
API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned *i) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !i) return NVML_ERROR_INVALID_ARGUMENT;
    *i = (unsigned)d->index;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !m) return NVML_ERROR_INVALID_ARGUMENT;
    uint64_t t = mem_bytes(), u = fake_used(d->index);
    m->total = t;
    m->used = u;
    m->free = u >= t ? 0 : t - u;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !m || m->version != NVML_MEMORY_V2_VERSION) return NVML_ERROR_INVALID_ARGUMENT;
    uint64_t t = mem_bytes(), u = fake_used(d->index), r = 64ull << 20;
    m->total = t;
    m->reserved = r;
    m->used = u;
    m->free = u + r >= t ? 0 : t - u - r;
    return NVML_SUCCESS;
}

/* per-pid utilisation since the previous call of this process, from the busy clock */
static struct { int pid; uint64_t busy, at; } prev[FAKE_MAX_PIDS];

API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *s, unsigned *n,
                                                 unsigned long long since) {
    (void)since;
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !n) return NVML_ERROR_INVALID_ARGUMENT;
    const char *o = getenv("FAKE_HOST_PID_OFFSET");
    int off = o ? atoi(o) : 100000;
    fake_state *st = fake_state_get();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    unsigned k = 0;
    for (int i = 0; i < FAKE_MAX_PIDS; i++) {
        int pid = __atomic_load_n(&st->pids[i].pid, __ATOMIC_RELAXED);
        if (!pid) continue;
        uint64_t busy = __atomic_load_n(&st->pids[i].busy_ns, __ATOMIC_RELAXED);
        int j = 0;
        while (j < FAKE_MAX_PIDS && prev[j].pid && prev[j].pid != pid) j++;
        if (j == FAKE_MAX_PIDS) continue;
        unsigned util = 0;
        if (prev[j].pid == pid && now > prev[j].at) {
            uint64_t db = busy > prev[j].busy ? busy - prev[j].busy : 0;
            util = (unsigned)(db * 100 / (now - prev[j].at));
            if (util > 100) util = 100;
        }
        prev[j].pid = pid;
        prev[j].busy = busy;
        prev[j].at = now;
        if (s && k < *n)
            s[k] = (nvmlProcessUtilizationSample_t){(unsigned)(pid + off), now / 1000, util, 0, 0, 0};
        k++;
    }
    if (!s || k > *n) {
        *n = k;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *n = k;
    return NVML_SUCCESS;
}

/* per-process memory from the fake driver's per-pid charges, host pids = pid + offset */
static nvmlReturn_t running(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_t *infos) {
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !n) return NVML_ERROR_INVALID_ARGUMENT;
    const char *o = getenv("FAKE_HOST_PID_OFFSET");
    int off = o ? atoi(o) : 100000;
    fake_state *st = fake_state_get();
    unsigned k = 0;
    for (int i = 0; i < FAKE_MAX_PIDS; i++) {
        int pid = __atomic_load_n(&st->pids[i].pid, __ATOMIC_RELAXED);
        uint64_t m = __atomic_load_n(&st->pids[i].mem[d->index], __ATOMIC_RELAXED);
        if (!pid || !m) continue;
        if (infos && k < *n) infos[k] = (nvmlProcessInfo_t){(unsigned)(pid + off), m, 0xffffffffu, 0xffffffffu};
        k++;
    }
    if (!infos || k > *n) {
        *n = k;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *n = k;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_t *infos) {
    return running(d, n, infos);
}
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_t *infos) {
    return running(d, n, infos);
}

/* device utilisation since the previous call of this process, from the busy clock */
uint64_t fake_busy(int dev, uint64_t now);
API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, unsigned *rates) {
    static uint64_t prev_busy[FAKE_MAX_DEV], prev_at[FAKE_MAX_DEV];
    if (!inited) return NVML_ERROR_UNINITIALIZED;
    if (!d || !rates) return NVML_ERROR_INVALID_ARGUMENT;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    uint64_t busy = fake_busy(d->index, now);
    unsigned u = 0;
    if (prev_at[d->index] && now > prev_at[d->index])
        u = (unsigned)((busy - prev_busy[d->index]) * 100 / (now - prev_at[d->index]));
    prev_busy[d->index] = busy;
    prev_at[d->index] = now;
    rates[0] = u > 100 ? 100 : u;
    rates[1] = 0;
    return NVML_SUCCESS;
}
