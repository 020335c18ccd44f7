/*
 * Reads or writes one header field of a libvgpu shared region, playing the node agent's monitor in
 * the GPU checks (run.sh G8, G9), which run without the agent. Checks magic, major version and size
 * before touching anything; stores and loads are atomic, as the monitor's are.
 *   region_poke FILE get32 OFFSET      prints the i32 at OFFSET
 *   region_poke FILE get64 OFFSET      prints the u64 at OFFSET
 *   region_poke FILE set32 OFFSET VAL  stores the i32 VAL at OFFSET, prints the value read back
 * OFFSET is a byte offset (decimal or 0x hex) or a header field's name (priority,
 * utilization_switch, recent_kernel, core_policy, last_kernel_time, ...); it must be aligned to the
 * access's size and lie inside the 256-byte header, and set32 never touches the lock.
 * Exit status: 0 done, 1 the region is missing or not valid, 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vgpu/shared_region.h"

static int usage(void) {
    fprintf(stderr, "usage: region_poke FILE get32|get64 OFFSET | region_poke FILE set32 OFFSET VALUE\n");
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static const struct {
    const char *name;
    long offset;
    int width;
} fields[] = {
    {"magic", offsetof(vgpu_region, magic), 4},
    {"device_count", offsetof(vgpu_region, device_count), 4},
    {"flags", offsetof(vgpu_region, flags), 4},
    {"priority", offsetof(vgpu_region, priority), 4},
    {"utilization_switch", offsetof(vgpu_region, utilization_switch), 4},
    {"recent_kernel", offsetof(vgpu_region, recent_kernel), 4},
    {"core_policy", offsetof(vgpu_region, core_policy), 4},
    {"last_kernel_time", offsetof(vgpu_region, last_kernel_time), 8},
    {"creator_pid", offsetof(vgpu_region, creator_pid), 8},
    {"created_at", offsetof(vgpu_region, created_at), 8},
};

/* A field's name or a numeric offset; -1 when neither, or when a named field has another width. */
static long field_offset(const char *s, int width) {
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!strcmp(s, fields[i].name)) return fields[i].width == width ? fields[i].offset : -1;
    long off;
    return parse_long(s, 0, VGPU_DEVICE_RECORD_OFFSET - width, &off) || off % width ? -1 : off;
}

int main(int argc, char **argv) {
    if (argc < 4) return usage();
    const char *path = argv[1], *op = argv[2];
    int set = !strcmp(op, "set32"), width = !strcmp(op, "get64") ? 8 : 4;
    if (!set && strcmp(op, "get32") && strcmp(op, "get64")) return usage();
    if (set != (argc == 5)) return usage();
    long val = 0, off = field_offset(argv[3], width);
    long lock = (long)offsetof(vgpu_region, lock);
    if (off < 0 || (set && off + width > lock && off < lock + 64)) {
        fprintf(stderr, "region_poke: %s is not a header field or aligned header offset for %s\n", argv[3], op);
        return 2;
    }
    if (set && parse_long(argv[4], INT32_MIN, INT32_MAX, &val)) {
        fprintf(stderr, "region_poke: value %s is not an i32\n", argv[4]);
        return 2;
    }
    int fd = open(path, set ? O_RDWR : O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "region_poke: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) || st.st_size < (off_t)VGPU_REGION_SIZE) {
        fprintf(stderr, "region_poke: %s is smaller than a region (%lld bytes)\n", path, (long long)st.st_size);
        close(fd);
        return 1;
    }
    unsigned char *r = mmap(NULL, VGPU_REGION_SIZE, PROT_READ | (set ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
    close(fd);
    if (r == MAP_FAILED) {
        fprintf(stderr, "region_poke: cannot map %s: %s\n", path, strerror(errno));
        return 1;
    }
    const vgpu_region *g = (const vgpu_region *)r;
    uint32_t magic = __atomic_load_n(&g->magic, __ATOMIC_ACQUIRE);
    if (magic != VGPU_REGION_MAGIC || g->version_major != VGPU_REGION_VERSION_MAJOR ||
        g->region_size != VGPU_REGION_SIZE) {
        fprintf(stderr, "region_poke: %s is not a version %d region (magic 0x%08x, major %u, size %llu)\n", path,
                VGPU_REGION_VERSION_MAJOR, magic, g->version_major, (unsigned long long)g->region_size);
        munmap(r, VGPU_REGION_SIZE);
        return 1;
    }
    if (set) __atomic_store_n((int32_t *)(r + off), (int32_t)val, __ATOMIC_RELEASE);
    if (width == 8)
        printf("%llu\n", (unsigned long long)__atomic_load_n((uint64_t *)(r + off), __ATOMIC_ACQUIRE));
    else
        printf("%d\n", __atomic_load_n((int32_t *)(r + off), __ATOMIC_ACQUIRE));
    munmap(r, VGPU_REGION_SIZE);
    return 0;
}
