/*
 * Liveness of the processes that own slots. A slot is reclaimed only on positive evidence that
 * its process is gone: /proc has no entry and kill(pid, 0) says ESRCH, the process is a zombie, or
 * the pid now belongs to a process that started at another time. A /proc we are not allowed to
 * read (hidepid, EACCES) proves nothing, so such a process counts as alive: reclaiming a live
 * process's slot would drop its charges and let the container exceed its limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int vgpu_proc_verdict(int open_errno, char state, uint64_t start, uint64_t want_start, int kill_errno) {
    if (open_errno == 0) {
        if (state == 'Z' || state == 'X' || state == 'x') return VGPU_PROC_DEAD; /* exited, not reaped */
        if (want_start && start && start != want_start) return VGPU_PROC_DEAD; /* pid reused */
        return VGPU_PROC_ALIVE;
    }
    if (open_errno == ENOENT || open_errno == ESRCH) return kill_errno == ESRCH ? VGPU_PROC_DEAD : VGPU_PROC_ALIVE;
    return VGPU_PROC_ALIVE;
}

/* Reads fields 3 and 22 of /proc/<pid>/stat; returns 0 or the errno of the failure. */
static int read_stat(pid_t pid, char *state, uint64_t *start) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ssize_t n;
    do n = read(fd, buf, sizeof buf - 1);
    while (n < 0 && errno == EINTR);
    int e = n < 0 ? errno : 0;
    close(fd);
    if (n < 0) return e;
    if (n == 0) return ESRCH; /* the task went away between open and read */
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2]) return EIO;
    p += 2;
    *state = *p;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) return EIO;
        p++;
    }
    *start = strtoull(p, NULL, 10);
    return 0;
}

uint64_t vgpu_proc_start_time(pid_t pid) {
    char state = 0;
    uint64_t start = 0;
    if (read_stat(pid, &state, &start) != 0 || state == 'Z' || state == 'X' || state == 'x') return 0;
    return start;
}

int vgpu_proc_alive(pid_t pid, uint64_t want_start) {
    if (pid <= 0) return VGPU_PROC_DEAD;
    char state = 0;
    uint64_t start = 0;
    int e = read_stat(pid, &state, &start);
    int ke = 0;
    if (e == ENOENT || e == ESRCH) ke = kill(pid, 0) == 0 ? 0 : errno;
    return vgpu_proc_verdict(e, state, start, want_start, ke);
}
