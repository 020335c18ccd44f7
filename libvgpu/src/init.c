/* Load-time setup, fork handling and exit. No signal handlers are installed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "internal.h"

pid_t vgpu_cached_pid;

void vgpu_region_after_fork_child(void);
void vgpu_memory_after_fork_child(void);

/* Every process-local mutex is held across fork(), so none is copied locked into the child.
 * Order: init, then track, then watcher (no path takes them in another order). */
static void prepare(void) {
    pthread_mutex_lock(&vgpu_init_lock);
    pthread_mutex_lock(&vgpu_track_lock);
    pthread_mutex_lock(&vgpu_watcher_lock);
}

static void parent(void) {
    pthread_mutex_unlock(&vgpu_watcher_lock);
    pthread_mutex_unlock(&vgpu_track_lock);
    pthread_mutex_unlock(&vgpu_init_lock);
}

static void child(void) {
    vgpu_cached_pid = getpid();
    vgpu_memory_after_fork_child();
    vgpu_region_after_fork_child();
    vgpu_throttle_reset_after_fork();
}

__attribute__((constructor)) static void vgpu_load(void) {
    vgpu_log_init();
    vgpu_cached_pid = getpid();
    pthread_atfork(prepare, parent, child);
}

__attribute__((destructor)) static void vgpu_unload(void) { vgpu_region_release_self(); }
