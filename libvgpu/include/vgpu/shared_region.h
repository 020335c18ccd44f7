/*
 * Shared accounting region of libvgpu: the ABI between the library (every CUDA process of one
 * container) and the node agent's monitor.
 *
 * One file per container, named by CUDA_DEVICE_MEMORY_SHARED_CACHE (default /tmp/cudevshr.cache),
 * mapped MAP_SHARED by every process of the container. All integers are little-endian and naturally
 * aligned; offsets below are from the start of the file and never change within a major version.
 * A reader must check magic, version_major and region_size before trusting anything else.
 *
 *   offset   size  field
 *   ------   ----  -------------------------------------------------------------------------------
 *   HEADER (0 .. 255)
 *        0      4  magic               u32  0x55504756 ("VGPU" as bytes); written last at creation
 *        4      2  version_major       u16  1 (a reader refuses other majors)
 *        6      2  version_minor       u16  0 (additions only, in reserved space)
 *        8      8  region_size         u64  total file size in bytes (532480 for 1.0)
 *       16      4  header_size         u32  offset of the first slot (8192)
 *       20      4  device_record_size  u32  256
 *       24      4  slot_size           u32  512
 *       28      4  slot_count          u32  1024
 *       32      4  device_count        u32  device records in use (<= 16)
 *       36      4  flags               u32  bit 0: fail-closed policy; bit 1: CUDA_OVERSUBSCRIBE
 *       40      4  priority            i32  CUDA_TASK_PRIORITY (0 = high)
 *       44      4  utilization_switch  i32  monitor-writable: 1 = limit compute under the default
 *                                           policy, 0 = do not (FORCE/DISABLE override it)
 *       48      4  recent_kernel       i32  monitor-writable: < 0 blocks new launches (priority)
 *       52      4  core_policy         u32  0 default, 1 force, 2 disable (creator's env)
 *       56      8  last_kernel_time    u64  epoch seconds of the latest launch (max over processes)
 *       64      8  creator_pid         u64  pid (container namespace) of the creating process
 *       72      8  created_at          u64  epoch seconds at creation
 *       80     48  reserved (zero)
 *      128     64  lock                     robust process-shared pthread mutex (opaque; the
 *                                           monitor must not touch it)
 *      192     64  reserved (zero)
 *   DEVICE RECORDS (256 + 256*i, i = 0..15), keyed by UUID; index i is the container's CUDA
 *   ordinal that first claimed it, which is also the i of CUDA_DEVICE_MEMORY_LIMIT_<i>
 *     +0     96  uuid                char  NUL-terminated ("GPU-..."), empty until first use
 *    +96      8  mem_limit           u64  bytes; 0 = unlimited (informational: the creator's limit)
 *   +104      8  mem_used            u64  container total in bytes = sum of used[] over slots with pid != 0
 *   +112      8  mem_total           u64  physical total in bytes, 0 until known
 *   +120      4  sm_limit            u32  percent 1..100; 0 or 100 = unlimited (informational)
 *   +124      4  sm_util             u32  container utilization in percent, last control period
 *   +128      8  tokens              i64  shared launch-token pool, ns of GPU time (may be < 0)
 *   +136      8  refill_ns           u64  CLOCK_MONOTONIC ns of the last refill
 *   +144      8  rate_ppm            u64  refill rate, ppm of wall time (controller output)
 *   +152      8  pool_capacity       u64  token pool bound, ns
 *   +160      8  busy_ns             u64  cumulative GPU time charged to launches, ns
 *   +168      8  launches            u64  cumulative hooked launches
 *   +176      8  throttled_ns        u64  cumulative time launches waited for tokens, ns
 *   +184      8  mem_peak            u64  highest mem_used seen, bytes
 *   +192      8  ctl_ns              u64  CLOCK_MONOTONIC ns of the latest controller step
 *   +200     56  reserved (zero)
 *   (8192 - 4352 bytes after the records are reserved, zero)
 *   SLOTS (8192 + 512*k, k = 0..1023), one per live process; slots never move
 *     +0      4  pid                 i32  container-namespace pid; 0 = free
 *     +4      4  host_pid            i32  host pid, 0 = unknown (monitor-writable)
 *     +8      8  start_time          u64  /proc/<pid>/stat field 22 (clock ticks since boot)
 *    +16      4  status              u32  0 free, 1 running, 2 suspended (monitor-writable:
 *                                           allocation and launch gates wait while 2)
 *    +20      4  generation          u32  bumped on every claim of the slot
 *    +24      8  reserved
 *    +32    128  used[16]            u64  bytes charged by this process per device record
 *   +160    128  context[16]         u64  part of used[] that is context memory
 *   +288     64  sm_util[16]         u32  this process's utilization in percent (host_pid known)
 *   +352    160  reserved (zero)
 *
 * Limits: every process enforces the limits it read at start (the agent's limits file, else its
 * environment, lowered to an existing region's copy for keys the file does not set) from its own
 * memory. mem_limit, sm_limit, core_policy, priority and flags here are informational copies made
 * by the region's creator; nothing read from the region can raise a process's limit.
 *
 * Accounting: a process's used[] is a copy of its own process-local total. mem_used changes only
 * under the lock and in the same critical section as the slot (allocation: limit check on
 * mem_used, then slot and total; free: slot and total), so under the lock the sum of used[i]
 * over slots with pid != 0 equals mem_used[i] exactly. A holder killed inside the critical section
 * is seen by the next holder (robust mutex, EOWNERDEAD), which re-derives every mem_used from the
 * slots; so do the reclaim of dead processes and every slot claim. Readers wanting an exact figure
 * without the lock sum used[] over slots with pid != 0. Token fields change by atomic
 * read-modify-write without the lock.
 *
 * Reclaim: a slot's process is dead only when /proc/<pid> is absent and kill(pid, 0) says ESRCH,
 * when it is a zombie, or when /proc/<pid>/stat's start time differs from start_time (pid
 * reused); an unreadable /proc (EACCES, hidepid) means alive. libvgpu reclaims under the lock. The
 * monitor, which cannot take the lock, may reclaim a slot whose process it knows dead by the same
 * rule (host side: host_pid) only by a compare-and-swap of pid from the dead pid to 0, touching
 * nothing else; libvgpu clears a free slot's counters when it claims it and re-derives mem_used.
 * A process that finds its own slot cleared or taken claims another and charges its process-local
 * totals to it again.
 */
#ifndef VGPU_SHARED_REGION_H
#define VGPU_SHARED_REGION_H

#include <stdint.h>

#define VGPU_REGION_MAGIC 0x55504756u
#define VGPU_REGION_VERSION_MAJOR 1
#define VGPU_REGION_VERSION_MINOR 0
#define VGPU_MAX_DEVICES 16
#define VGPU_MAX_SLOTS 1024
#define VGPU_UUID_LEN 96
#define VGPU_HEADER_SIZE 8192
#define VGPU_DEVICE_RECORD_OFFSET 256
#define VGPU_DEVICE_RECORD_SIZE 256
#define VGPU_SLOT_SIZE 512
#define VGPU_REGION_SIZE (VGPU_HEADER_SIZE + VGPU_MAX_SLOTS * VGPU_SLOT_SIZE)

#define VGPU_FLAG_FAIL_CLOSED 1u
#define VGPU_FLAG_OVERSUBSCRIBE 2u

#define VGPU_POLICY_DEFAULT 0u
#define VGPU_POLICY_FORCE 1u
#define VGPU_POLICY_DISABLE 2u

#define VGPU_SLOT_FREE 0u
#define VGPU_SLOT_RUNNING 1u
#define VGPU_SLOT_SUSPENDED 2u

typedef struct vgpu_device_record {
    char uuid[VGPU_UUID_LEN];
    uint64_t mem_limit;
    uint64_t mem_used;
    uint64_t mem_total;
    uint32_t sm_limit;
    uint32_t sm_util;
    int64_t tokens;
    uint64_t refill_ns;
    uint64_t rate_ppm;
    uint64_t pool_capacity;
    uint64_t busy_ns;
    uint64_t launches;
    uint64_t throttled_ns;
    uint64_t mem_peak;
    uint64_t ctl_ns;
    uint8_t reserved[56];
} vgpu_device_record;

typedef struct vgpu_slot {
    int32_t pid;
    int32_t host_pid;
    uint64_t start_time;
    uint32_t status;
    uint32_t generation;
    uint64_t reserved0;
    uint64_t used[VGPU_MAX_DEVICES];
    uint64_t context[VGPU_MAX_DEVICES];
    uint32_t sm_util[VGPU_MAX_DEVICES];
    uint8_t reserved[160];
} vgpu_slot;

typedef struct vgpu_region {
    uint32_t magic;
    uint16_t version_major;
    uint16_t version_minor;
    uint64_t region_size;
    uint32_t header_size;
    uint32_t device_record_size;
    uint32_t slot_size;
    uint32_t slot_count;
    uint32_t device_count;
    uint32_t flags;
    int32_t priority;
    int32_t utilization_switch;
    int32_t recent_kernel;
    uint32_t core_policy;
    uint64_t last_kernel_time;
    uint64_t creator_pid;
    uint64_t created_at;
    uint8_t reserved0[48];
    uint8_t lock[64]; /* pthread_mutex_t, robust and process-shared */
    uint8_t reserved1[64];
    vgpu_device_record devices[VGPU_MAX_DEVICES];
    uint8_t reserved2[VGPU_HEADER_SIZE - VGPU_DEVICE_RECORD_OFFSET
                      - VGPU_MAX_DEVICES * VGPU_DEVICE_RECORD_SIZE];
    vgpu_slot slots[VGPU_MAX_SLOTS];
} vgpu_region;

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(vgpu_device_record) == VGPU_DEVICE_RECORD_SIZE, "device record size");
_Static_assert(sizeof(vgpu_slot) == VGPU_SLOT_SIZE, "slot size");
_Static_assert(sizeof(vgpu_region) == VGPU_REGION_SIZE, "region size");
_Static_assert(VGPU_REGION_SIZE == 532480, "region size 1.0");
_Static_assert(offsetof(vgpu_region, region_size) == 8, "region_size");
_Static_assert(offsetof(vgpu_region, device_count) == 32, "device_count");
_Static_assert(offsetof(vgpu_region, utilization_switch) == 44, "utilization_switch");
_Static_assert(offsetof(vgpu_region, recent_kernel) == 48, "recent_kernel");
_Static_assert(offsetof(vgpu_region, last_kernel_time) == 56, "last_kernel_time");
_Static_assert(offsetof(vgpu_region, created_at) == 72, "created_at");
_Static_assert(offsetof(vgpu_region, lock) == 128, "lock");
_Static_assert(offsetof(vgpu_region, devices) == VGPU_DEVICE_RECORD_OFFSET, "devices");
_Static_assert(offsetof(vgpu_region, slots) == VGPU_HEADER_SIZE, "slots");
_Static_assert(offsetof(vgpu_device_record, mem_limit) == 96, "mem_limit");
_Static_assert(offsetof(vgpu_device_record, mem_used) == 104, "mem_used");
_Static_assert(offsetof(vgpu_device_record, sm_limit) == 120, "sm_limit");
_Static_assert(offsetof(vgpu_device_record, tokens) == 128, "tokens");
_Static_assert(offsetof(vgpu_device_record, mem_peak) == 184, "mem_peak");
_Static_assert(offsetof(vgpu_device_record, ctl_ns) == 192, "ctl_ns");
_Static_assert(offsetof(vgpu_slot, start_time) == 8, "start_time");
_Static_assert(offsetof(vgpu_slot, status) == 16, "status");
_Static_assert(offsetof(vgpu_slot, used) == 32, "used");
_Static_assert(offsetof(vgpu_slot, context) == 160, "context");
_Static_assert(offsetof(vgpu_slot, sm_util) == 288, "sm_util");
#endif

#endif
