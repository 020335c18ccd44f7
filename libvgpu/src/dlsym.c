/*
 * The dlsym hook. It only answers for names of driver entry points we hook, and only when the
 * caller asked libcuda/NVML for them: either through their own handle, or through
 * RTLD_DEFAULT/RTLD_NEXT from outside the driver libraries. Everything else, including every
 * lookup made while one is in progress on this thread, goes to the real dlsym by a tail jump so
 * that RTLD_NEXT keeps meaning "next after the caller".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "internal.h"

static VGPU_TLS int in_dlsym;

static int same_object(void *addr, void *handle) {
    Dl_info info;
    struct link_map *lm = handle;
    if (!addr || !handle || !dladdr(addr, &info)) return 0;
    return info.dli_fbase == (void *)lm->l_addr || (lm->l_name && info.dli_fname && strcmp(lm->l_name, info.dli_fname) == 0);
}

/* Returns our hook, or NULL to let the trampoline jump to the real dlsym. */
void *vgpu_dlsym_decide(void *handle, const char *name, void *caller) __attribute__((visibility("hidden")));
void *vgpu_dlsym_decide(void *handle, const char *name, void *caller) {
    extern void *vgpu_real_dlsym_ptr;
    if (!__atomic_load_n(&vgpu_real_dlsym_ptr, __ATOMIC_ACQUIRE)) (void)vgpu_real_dlsym(NULL, "");
    if (!name || in_dlsym) return NULL;
    int cu = name[0] == 'c' && name[1] == 'u';
    int nv = name[0] == 'n' && name[1] == 'v' && name[2] == 'm' && name[3] == 'l';
    if (!cu && !nv) return NULL;
    void *hook = vgpu_find_hook(name);
    if (!hook) return NULL;
    in_dlsym = 1;
    void *result = NULL;
    void *lib = cu ? vgpu_cuda_handle_if_loaded() : vgpu_nvml_handle_if_loaded();
    /* the driver looking itself up must get itself, whatever the handle */
    if (lib && !same_object(caller, lib) && (handle == RTLD_DEFAULT || handle == RTLD_NEXT || handle == lib)) {
        /* a name this driver does not have stays unresolved, as it would without us */
        if (vgpu_real_dlsym(lib, name)) result = hook;
    }
    in_dlsym = 0;
    return result;
}

#if !defined(__x86_64__)
/* Without the trampoline, RTLD_NEXT is resolved relative to this library. */
VGPU_EXPORT void *dlsym(void *handle, const char *name) {
    void *h = vgpu_dlsym_decide(handle, name, __builtin_return_address(0));
    return h ? h : vgpu_real_dlsym(handle, name);
}
#endif
