/* Test-only API of the fake driver (libcuda.so.1 built from test/fake). */
#ifndef FAKE_H
#define FAKE_H
#include <stdint.h>

#define FAKE_MAX_DEV 16
#define FAKE_MAX_FUNCS 96
#define FAKE_MAX_PIDS 64

typedef struct fake_pid_entry {
    int32_t pid;
    int32_t pad;
    uint64_t busy_ns;
    uint64_t mem[FAKE_MAX_DEV]; /* device memory of this pid, reported by the fake NVML */
} fake_pid_entry;

typedef struct fake_state {
    uint32_t magic;
    uint32_t pad;
    uint8_t lock[64];
    uint64_t used[FAKE_MAX_DEV];
    uint64_t busy_total[FAKE_MAX_DEV];
    uint64_t dev_end[FAKE_MAX_DEV];
    uint64_t calls[FAKE_MAX_FUNCS];
    uint64_t last_arg[FAKE_MAX_FUNCS];
    fake_pid_entry pids[FAKE_MAX_PIDS];
    char last_gpa[64];
} fake_state;

/* Exported by the fake libcuda; tests look them up with dlsym. */
typedef uint64_t (*fake_calls_fn)(const char *name);
typedef uint64_t (*fake_last_arg_fn)(const char *name);
typedef uint64_t (*fake_used_fn)(int dev);
/* busy GPU time completed by `now` (CLOCK_MONOTONIC ns) */
typedef uint64_t (*fake_busy_fn)(int dev, uint64_t now);
typedef uint64_t (*fake_pid_busy_fn)(int pid);
typedef void (*fake_reset_fn)(void);
typedef fake_state *(*fake_state_fn)(void);
#endif
