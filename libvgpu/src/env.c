/*
 * The env contract. Sizes are decimal only (a leading 0 is still decimal, "0x" is rejected) with
 * an optional k/m/g/t suffix in either case, optionally followed by "i", "b" or "ib". Invalid
 * values are reported and mean "no limit", so a typo never kills the application.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

int vgpu_parse_size(const char *s, uint64_t *out) {
    if (!s) return -1;
    s = skip_ws(s);
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
        s++;
    }
    unsigned shift = 0;
    switch (*s) {
    case 'k': case 'K': shift = 10; s++; break;
    case 'm': case 'M': shift = 20; s++; break;
    case 'g': case 'G': shift = 30; s++; break;
    case 't': case 'T': shift = 40; s++; break;
    default: break;
    }
    if (shift && (*s == 'i' || *s == 'I')) s++;
    if (*s == 'b' || *s == 'B') s++;
    s = skip_ws(s);
    if (*s) return -1;
    if (shift && v > (UINT64_MAX >> shift)) return -1;
    *out = v << shift;
    return 0;
}

int vgpu_parse_int(const char *s, long lo, long hi, long *out) {
    if (!s) return -1;
    s = skip_ws(s);
    int neg = 0;
    if (*s == '-' || *s == '+') { neg = *s == '-'; s++; }
    if (!isdigit((unsigned char)*s)) return -1;
    long v = 0;
    while (isdigit((unsigned char)*s)) {
        if (v > 100000000L) return -1;
        v = v * 10 + (*s - '0');
        s++;
    }
    s = skip_ws(s);
    if (*s) return -1;
    if (neg) v = -v;
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int vgpu_parse_percent(const char *s, uint32_t *out) {
    long v;
    if (!s) return -1;
    size_t n = strlen(s);
    char buf[32];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == '%') buf[n - 1] = 0;
    if (vgpu_parse_int(buf, 0, 100, &v) != 0) return -1;
    *out = (uint32_t)v;
    return 0;
}

uint32_t vgpu_parse_policy(const char *s) {
    if (!s) return VGPU_POLICY_DEFAULT;
    if (strcasecmp(s, "force") == 0) return VGPU_POLICY_FORCE;
    if (strcasecmp(s, "disable") == 0) return VGPU_POLICY_DISABLE;
    return VGPU_POLICY_DEFAULT;
}

int vgpu_parse_bool(const char *s, int *out) {
    if (!s) return -1;
    if (!strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on")) {
        *out = 1;
        return 0;
    }
    if (!strcasecmp(s, "false") || !strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off")) {
        *out = 0;
        return 0;
    }
    return -1;
}

static uint64_t size_env(const char *name, uint64_t fallback) {
    const char *s = getenv(name);
    uint64_t v;
    if (!s) return fallback;
    if (vgpu_parse_size(s, &v) != 0) {
        VLOG(VGPU_LOG_ERROR, "invalid %s=\"%.64s\": expected bytes with an optional k/m/g/t suffix; "
             "no memory limit applied", name, s);
        return 0;
    }
    return v;
}

static uint32_t percent_env(const char *name, uint32_t fallback) {
    const char *s = getenv(name);
    uint32_t v;
    if (!s) return fallback;
    if (vgpu_parse_percent(s, &v) != 0) {
        VLOG(VGPU_LOG_ERROR, "invalid %s=\"%.64s\": expected a percentage 0..100; no compute limit "
             "applied", name, s);
        return 0;
    }
    return v;
}

void vgpu_config_from_env(vgpu_config *cfg) {
    char name[64];
    memset(cfg, 0, sizeof *cfg);
    uint64_t global = size_env("CUDA_DEVICE_MEMORY_LIMIT", 0);
    uint32_t sm_global = percent_env("CUDA_DEVICE_SM_LIMIT", 0);
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        snprintf(name, sizeof name, "CUDA_DEVICE_MEMORY_LIMIT_%d", i);
        cfg->mem_limit[i] = size_env(name, global);
        snprintf(name, sizeof name, "CUDA_DEVICE_SM_LIMIT_%d", i);
        cfg->sm_limit[i] = percent_env(name, sm_global);
    }
    const char *pol = getenv("GPU_CORE_UTILIZATION_POLICY");
    cfg->core_policy = vgpu_parse_policy(pol);
    long prio = 1;
    const char *p = getenv("CUDA_TASK_PRIORITY");
    if (p && vgpu_parse_int(p, -1000, 1000, &prio) != 0) {
        VLOG(VGPU_LOG_WARN, "invalid CUDA_TASK_PRIORITY=\"%.64s\"; using 1", p);
        prio = 1;
    }
    cfg->priority = (int32_t)prio;
    int b = 0;
    const char *o = getenv("CUDA_OVERSUBSCRIBE");
    if (o && vgpu_parse_bool(o, &b) == 0) cfg->oversubscribe = b;
    const char *f = getenv("LIBVGPU_FAIL_POLICY");
    if (f) {
        if (!strcasecmp(f, "closed")) cfg->fail_closed = 1;
        else if (strcasecmp(f, "open") != 0)
            VLOG(VGPU_LOG_WARN, "invalid LIBVGPU_FAIL_POLICY=\"%.32s\"; using open", f);
    }
    const char *c = getenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
    if (!c || !*c) c = "/tmp/cudevshr.cache";
    snprintf(cfg->cache_path, sizeof cfg->cache_path, "%s", c);
}
