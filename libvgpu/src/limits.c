/*
 * The agent-owned limits file: `key=value` lines written by the node agent at Allocate and mounted
 * read-only at VGPU_LIMITS_PATH. Every key the file sets wins over the matching environment
 * variable; the environment stays the fallback for keys the file does not set and when no file
 * exists. A file that exists but cannot be read or parsed makes the process fail closed: its device
 * allocations are refused, never silently limited by the (tenant-controlled) environment instead.
 * The file is read once per process; nothing read later from the shared region can lift it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define LIMITS_MAX_BYTES 65536

static void set_error(vgpu_limits_error *e, int line, const char *key, const char *value, const char *why) {
    e->line = line;
    snprintf(e->key, sizeof e->key, "%s", key ? key : "");
    snprintf(e->value, sizeof e->value, "%s", value ? value : "");
    snprintf(e->reason, sizeof e->reason, "%s", why);
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

/* "memory_limit_7" with prefix "memory_limit_" -> 7; -1 when the suffix is not a device index. */
static int device_suffix(const char *key, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(key, prefix, n) != 0) return -2;
    const char *s = key + n;
    if (!*s || strlen(s) > 3 || (s[0] == '0' && s[1])) return -1;
    int v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* Applies one known key; returns 0 applied, 1 unknown key, -1 malformed value. */
static int apply_key(vgpu_limits *l, const char *key, const char *value, const char **why) {
    int dev;
    long v;
    *why = "malformed value";
    if (!strcmp(key, "version")) {
        if (vgpu_parse_int(value, 1, 1000000, &v) != 0) return -1;
        l->version = (int)v;
        return 0;
    }
    if ((dev = device_suffix(key, "memory_limit_")) != -2) {
        if (dev < 0 || dev >= VGPU_MAX_DEVICES) return 1;
        if (vgpu_parse_size(value, &l->mem_limit[dev]) != 0) {
            *why = "expected bytes with an optional k/m/g/t suffix";
            return -1;
        }
        l->mem_set |= 1u << dev;
        return 0;
    }
    if (!strcmp(key, "sm_limit")) {
        if (vgpu_parse_percent(value, &l->sm_global) != 0) {
            *why = "expected a percentage 0..100";
            return -1;
        }
        l->sm_global_set = 1;
        return 0;
    }
    if ((dev = device_suffix(key, "sm_limit_")) != -2) {
        if (dev < 0 || dev >= VGPU_MAX_DEVICES) return 1;
        if (vgpu_parse_percent(value, &l->sm_limit[dev]) != 0) {
            *why = "expected a percentage 0..100";
            return -1;
        }
        l->sm_set |= 1u << dev;
        return 0;
    }
    if (!strcmp(key, "core_policy")) {
        if (!strcmp(value, "default")) l->core_policy = VGPU_POLICY_DEFAULT;
        else if (!strcmp(value, "force")) l->core_policy = VGPU_POLICY_FORCE;
        else if (!strcmp(value, "disable")) l->core_policy = VGPU_POLICY_DISABLE;
        else {
            *why = "expected default, force or disable";
            return -1;
        }
        l->core_policy_set = 1;
        return 0;
    }
    if (!strcmp(key, "priority")) {
        if (vgpu_parse_int(value, -1000, 1000, &v) != 0) {
            *why = "expected an integer";
            return -1;
        }
        l->priority = (int32_t)v;
        l->priority_set = 1;
        return 0;
    }
    if (!strcmp(key, "oversubscribe")) {
        if (vgpu_parse_bool(value, &l->oversubscribe) != 0) {
            *why = "expected true or false";
            return -1;
        }
        l->oversubscribe_set = 1;
        return 0;
    }
    return 1;
}

int vgpu_limits_parse(const char *text, size_t len, vgpu_limits *out, vgpu_limits_error *err) {
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    if (len > LIMITS_MAX_BYTES) {
        set_error(err, 0, NULL, NULL, "file larger than 64 KiB");
        return -1;
    }
    if (memchr(text, 0, len)) {
        set_error(err, 0, NULL, NULL, "NUL byte in file");
        return -1;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        set_error(err, 0, NULL, NULL, "out of memory");
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    char seen[32][48];
    int n_seen = 0, line_no = 0, rc = 0;
    char *save = NULL;
    /* strtok_r would merge empty lines and lose the numbering: split by hand */
    for (char *line = copy; line && rc == 0; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl) *nl = 0;
        line_no++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            set_error(err, line_no, NULL, s, "expected key=value");
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        int key_ok = *key != 0 && strlen(key) < sizeof seen[0];
        for (const char *k = key; *k && key_ok; k++)
            key_ok = (*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_';
        if (!key_ok) {
            set_error(err, line_no, key, value, "malformed key");
            rc = -1;
            break;
        }
        for (int i = 0; i < n_seen; i++)
            if (!strcmp(seen[i], key)) {
                set_error(err, line_no, key, value, "duplicate key");
                rc = -1;
            }
        if (rc) break;
        const char *why;
        int a = apply_key(out, key, value, &why);
        if (a < 0) {
            set_error(err, line_no, key, value, why);
            rc = -1;
        } else if (a > 0) {
            out->unknown_keys++;
            VLOG(VGPU_LOG_WARN, "limits file line %d: unknown key \"%.40s\" ignored", line_no, key);
        } else if (n_seen < 32) {
            snprintf(seen[n_seen++], sizeof seen[0], "%s", key);
        }
    }
    free(copy);
    if (rc == 0 && out->version > 1)
        VLOG(VGPU_LOG_WARN, "limits file version %d is newer than 1; reading the keys this library knows",
             out->version);
    return rc;
}

void vgpu_limits_apply(vgpu_config *cfg, const vgpu_limits *l) {
    for (int i = 0; i < VGPU_MAX_DEVICES; i++) {
        if (l->mem_set & (1u << i)) cfg->mem_limit[i] = l->mem_limit[i];
        if (l->sm_set & (1u << i)) cfg->sm_limit[i] = l->sm_limit[i];
        else if (l->sm_global_set) cfg->sm_limit[i] = l->sm_global;
    }
    cfg->file_mem_mask = l->mem_set;
    cfg->file_sm_mask = l->sm_global_set ? (uint32_t)((1ull << VGPU_MAX_DEVICES) - 1) : l->sm_set;
    if (l->core_policy_set) cfg->core_policy = l->core_policy;
    if (l->priority_set) cfg->priority = l->priority;
    if (l->oversubscribe_set) cfg->oversubscribe = l->oversubscribe;
}

/* A path "exists" unless the kernel says it does not: any other stat failure (EACCES on a
 * directory, EIO, ELOOP) is an existing file we cannot read, which fails closed. */
static int path_absent(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0) return 0;
    return errno == ENOENT || errno == ENOTDIR;
}

const char *vgpu_limits_choose(const char *fixed, const char *env_path) {
    if (fixed && *fixed && !path_absent(fixed)) return fixed;
    if (env_path && *env_path) {
        if (!path_absent(env_path)) return env_path;
        VLOG(VGPU_LOG_WARN, "LIBVGPU_LIMITS_FILE=%.200s does not exist; limits come from the environment", env_path);
    }
    return NULL;
}

static int read_file(const char *path, char **text, size_t *len, int *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            *err = ENOMEM;
            close(fd);
            return -1;
        }
        if (n == cap) {
            if (cap > LIMITS_MAX_BYTES) break; /* the parser reports the size */
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) free(buf);
            buf = bigger;
            cap *= 2;
            continue;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            *err = errno;
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    *text = buf;
    *len = n;
    return 0;
}

void vgpu_limits_load(vgpu_config *cfg) {
    const char *path = vgpu_limits_choose(VGPU_LIMITS_PATH, getenv("LIBVGPU_LIMITS_FILE"));
    if (!path) return;
    snprintf(cfg->limits_file, sizeof cfg->limits_file, "%s", path);
    char *text = NULL;
    size_t len = 0;
    int e = 0;
    if (read_file(path, &text, &len, &e) != 0) {
        cfg->limits_invalid = 1;
        snprintf(cfg->limits_problem, sizeof cfg->limits_problem, "limits file %.200s cannot be read: %s", path,
                 strerror(e));
        VLOG(VGPU_LOG_ERROR, "%s; device allocations are refused", cfg->limits_problem);
        return;
    }
    vgpu_limits l;
    vgpu_limits_error err;
    int rc = vgpu_limits_parse(text, len, &l, &err);
    free(text);
    if (rc != 0) {
        cfg->limits_invalid = 1;
        snprintf(cfg->limits_problem, sizeof cfg->limits_problem, "limits file %.200s line %d: %s=\"%.64s\": %s",
                 path, err.line, err.key, err.value, err.reason);
        VLOG(VGPU_LOG_ERROR, "%s; device allocations are refused", cfg->limits_problem);
        return;
    }
    vgpu_limits_apply(cfg, &l);
    cfg->limits_from_file = 1;
    VLOG(VGPU_LOG_INFO, "limits from %s (they win over the environment)", path);
}
