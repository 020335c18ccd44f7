/* Resolution of the real dlsym, libcuda and NVML, without any link-time dependency on them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "internal.h"

/* Read by the dlsym trampoline (dlsym_x86_64.S). */
void *vgpu_real_dlsym_ptr __attribute__((visibility("hidden")));

static void *resolve_dlsym(void) {
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"};
    void *p = __atomic_load_n(&vgpu_real_dlsym_ptr, __ATOMIC_ACQUIRE);
    if (p) return p;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !p; i++)
        p = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    __atomic_store_n(&vgpu_real_dlsym_ptr, p, __ATOMIC_RELEASE);
    return p;
}

void *vgpu_real_dlsym(void *handle, const char *name) {
    void *(*fn)(void *, const char *) = (void *(*)(void *, const char *))resolve_dlsym();
    return fn ? fn(handle, name) : NULL;
}

static _Atomic(void *) cuda_handle;
static _Atomic(void *) nvml_handle;
static atomic_int cuda_tried, nvml_tried;

static void *open_lib(_Atomic(void *) *slot, atomic_int *tried, const char *soname) {
    void *h = atomic_load_explicit(slot, memory_order_acquire);
    if (h || atomic_load_explicit(tried, memory_order_acquire)) return h;
    h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) VLOG(VGPU_LOG_WARN, "cannot load %s: %s", soname, dlerror());
    void *expected = NULL;
    if (h && !atomic_compare_exchange_strong(slot, &expected, h)) h = expected;
    atomic_store_explicit(tried, 1, memory_order_release);
    return h;
}

void *vgpu_cuda_handle(void) { return open_lib(&cuda_handle, &cuda_tried, "libcuda.so.1"); }
void *vgpu_nvml_handle(void) { return open_lib(&nvml_handle, &nvml_tried, "libnvidia-ml.so.1"); }

static void *if_loaded(_Atomic(void *) *slot, const char *soname) {
    void *h = atomic_load_explicit(slot, memory_order_acquire);
    if (h) return h;
    h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
    if (h) {
        void *expected = NULL;
        if (!atomic_compare_exchange_strong(slot, &expected, h)) h = expected;
    }
    return h;
}

void *vgpu_cuda_handle_if_loaded(void) { return if_loaded(&cuda_handle, "libcuda.so.1"); }
void *vgpu_nvml_handle_if_loaded(void) { return if_loaded(&nvml_handle, "libnvidia-ml.so.1"); }

void *vgpu_cuda_sym(const char *name) {
    void *h = vgpu_cuda_handle();
    return h ? vgpu_real_dlsym(h, name) : NULL;
}

void *vgpu_nvml_sym(const char *name) {
    void *h = vgpu_nvml_handle();
    return h ? vgpu_real_dlsym(h, name) : NULL;
}

void *vgpu_real_resolve(vgpu_real *r) {
    void *f = r->nvml ? vgpu_nvml_sym(r->name) : vgpu_cuda_sym(r->name);
    if (f) atomic_store_explicit(&r->fn, f, memory_order_release);
    else VLOG(VGPU_LOG_DEBUG, "real %s not found", r->name);
    return f;
}
