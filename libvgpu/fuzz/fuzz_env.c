/*
 * Fuzz target for the env parsers. With libFuzzer (clang -fsanitize=fuzzer -DVGPU_LIBFUZZER) it is
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
                                    "30%", "force", "true", " 7 ", "1GiB", "-3", "99999999999999999999k"};

int main(int argc, char **argv) {
    double seconds = 10;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    vgpu_log_level = 0;
    const char alphabet[] = "0123456789kKmMgGtTiIbBxX -+.%\t";
    unsigned seed = (unsigned)time(NULL);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long n = 0;
    uint8_t buf[64];
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
