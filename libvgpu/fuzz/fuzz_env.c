/*
 * Fuzz target for the env parsers and the limits-file parser. With libFuzzer (clang -fsanitize=fuzzer -DVGPU_LIBFUZZER) it is
 * a regular LLVMFuzzerTestOneInput; otherwise main() feeds it bounded random and mutated inputs
 * for --seconds N (default 10) and checks the parsers' invariants.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/internal.h"

static void fail(const char *what, const char *input) {
    fprintf(stderr, "fuzz_env: %s for input \"%s\"\n", what, input);
    abort();
}

/* The whole input as a limits file: accepted or refused with a line inside it, never more. */
static void limits_file(const uint8_t *data, size_t size) {
    vgpu_limits l;
    vgpu_limits_error e;
    int lines = 1;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    char shown[80];
    snprintf(shown, sizeof shown, "%.*s", (int)(size < 64 ? size : 64), (const char *)data);
    if (vgpu_limits_parse((const char *)data, size, &l, &e) == 0) {
        if (l.mem_set >> VGPU_MAX_DEVICES || l.sm_set >> VGPU_MAX_DEVICES) fail("device index out of range", shown);
        for (int i = 0; i < VGPU_MAX_DEVICES; i++)
            if (l.sm_limit[i] > 100) fail("sm limit out of range", shown);
        if (l.sm_global > 100 || l.core_policy > VGPU_POLICY_DISABLE) fail("sm or policy out of range", shown);
    } else if (e.line < 0 || e.line > lines || !e.reason[0]) {
        fail("error outside the file or without a reason", shown);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    limits_file(data, size);
    char buf[128];
    if (size >= sizeof buf) size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = 0;
    uint64_t v;
    if (vgpu_parse_size(buf, &v) == 0) {
        /* an accepted value re-parses to itself in plain bytes */
        char again[32];
        snprintf(again, sizeof again, "%llu", (unsigned long long)v);
        uint64_t w;
        if (vgpu_parse_size(again, &w) != 0 || w != v) fail("size does not round-trip", buf);
        if (strchr(buf, 'x') || strchr(buf, 'X') || strchr(buf, '-') || strchr(buf, '.')) fail("accepted junk", buf);
    }
    uint32_t p;
    if (vgpu_parse_percent(buf, &p) == 0 && p > 100) fail("percent out of range", buf);
    long l;
    if (vgpu_parse_int(buf, -5, 5, &l) == 0 && (l < -5 || l > 5)) fail("int out of range", buf);
    int b;
    if (vgpu_parse_bool(buf, &b) == 0 && b != 0 && b != 1) fail("bool", buf);
    uint32_t pol = vgpu_parse_policy(buf);
    if (pol > VGPU_POLICY_DISABLE) fail("policy", buf);
    return 0;
}

#ifndef VGPU_LIBFUZZER
static const char *const seeds[] = {"1g", "1024m", "0x10", "010g", "16777215t", "18446744073709551615",
                                    "30%", "force", "true", " 7 ", "1GiB", "-3", "99999999999999999999k",
                                    "version=1\nmemory_limit_0=1g # c\nsm_limit=30\n",
                                    "memory_limit_15=2g\nsm_limit_3=70%\ncore_policy=force\npriority=0\n",
                                    "oversubscribe=true\r\nmemory_limit_1=0\n\n#x\nfoo=bar\n"};

int main(int argc, char **argv) {
    double seconds = 10;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    vgpu_log_level = 0;
    const char alphabet[] = "0123456789kKmMgGtTiIbBxX -+.%\t=\n#_";
    unsigned seed = (unsigned)time(NULL);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long n = 0;
    uint8_t buf[128];
    for (;; n++) {
        if ((n & 1023) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > seconds) break;
        }
        size_t len = (size_t)(rand_r(&seed) % 24);
        if (n % 3 == 0) {
            /* mutate a seed */
            const char *s = seeds[rand_r(&seed) % (sizeof seeds / sizeof seeds[0])];
            len = strlen(s);
            memcpy(buf, s, len);
            if (len) buf[rand_r(&seed) % len] = (uint8_t)alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        } else if (n % 3 == 1) {
            for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        } else {
            for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(rand_r(&seed) & 0xff);
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("fuzz_env: %lu inputs in %.0f s, no failures\n", n, seconds);
    return 0;
}
#endif
