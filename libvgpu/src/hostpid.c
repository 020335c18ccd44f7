/*
 * Host pid from the node's broker: the container's processes see their own pid namespace, NVML
 * reports host pids. The broker (a root daemon on the node, socket mounted into the container)
 * reads the peer's SO_PEERCRED, which the kernel translates into the broker's namespace.
 *   request, 8 bytes:  "HPID", u16 version = 1, u16 command = 1 (big-endian)
 *   reply, 12 bytes:   "HPID", u16 version, u16 status (0 = ok), u32 host pid (big-endian)
 * Enabled by LIBVGPU_HOSTPID_BROKER=1; socket LIBVGPU_HOSTPID_SOCKET, default
 * /tmp/vgpulock/hostpid/broker.sock. Never called with a lock held.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int vgpu_broker_host_pid(void) {
    int on = 0;
    const char *e = getenv("LIBVGPU_HOSTPID_BROKER");
    if (!e || vgpu_parse_bool(e, &on) != 0 || !on) return 0;
    const char *path = getenv("LIBVGPU_HOSTPID_SOCKET");
    if (!path || !*path) path = "/tmp/vgpulock/hostpid/broker.sock";
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return -1;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int pid = -1;
    unsigned char req[8] = {'H', 'P', 'I', 'D', 0, 1, 0, 1}, rep[12];
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && write_all(fd, req, sizeof req) == 0 &&
        read_all(fd, rep, sizeof rep) == 0) {
        uint16_t status;
        uint32_t hp;
        memcpy(&status, rep + 6, 2);
        memcpy(&hp, rep + 8, 4);
        if (memcmp(rep, "HPID", 4) == 0 && ntohs(status) == 0 && ntohl(hp) > 0 && ntohl(hp) < 0x7fffffffu)
            pid = (int)ntohl(hp);
        else
            VLOG(VGPU_LOG_WARN, "host pid broker %s answered status %u", path, ntohs(status));
    } else {
        VLOG(VGPU_LOG_WARN, "host pid broker %s: %s", path, strerror(errno));
    }
    close(fd);
    return pid;
}
