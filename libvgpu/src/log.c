/* Logging: the level and destination are read once; nothing is printed at level 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int vgpu_log_level = VGPU_LOG_ERROR;
static int log_fd = 2;

void vgpu_log_init(void) {
    long lvl;
    const char *s = getenv("LIBCUDA_LOG_LEVEL");
    if (s && vgpu_parse_int(s, 0, 4, &lvl) == 0) vgpu_log_level = (int)lvl;
    const char *path = getenv("LIBVGPU_LOG_FILE");
    if (path && *path && vgpu_log_level > 0) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) log_fd = fd;
    }
}

void vgpu_log(int level, const char *fmt, ...) {
    static const char *const names[] = {"", "ERROR", "WARN", "INFO", "DEBUG"};
    char buf[512];
    int saved = errno;
    int n = snprintf(buf, sizeof buf, "[libvgpu %d %s] ", (int)getpid(), names[level & 7 ? level : 0]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    size_t len = (size_t)n + ((size_t)m < sizeof buf - (size_t)n - 1 ? (size_t)m : sizeof buf - (size_t)n - 2);
    buf[len++] = '\n';
    ssize_t w = write(log_fd, buf, len);
    (void)w;
    errno = saved;
}
