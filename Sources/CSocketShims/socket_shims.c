#define _GNU_SOURCE
#include "socket_shims.h"

#include <stddef.h>
#include <sys/socket.h>
#include <malloc.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <unistd.h>

int layoutd_accept(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int layoutd_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int layoutd_set_malloc_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }

int layoutd_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int layoutd_epoll_control(int epoll, int op, int fd, uint32_t events) {
    struct epoll_event event = {.events = events, .data = {.fd = fd}};
    return epoll_ctl(epoll, op, fd, &event);
}

int layoutd_epoll_wait(int epoll, int *fds, uint32_t *events, int maximum, int timeout_ms) {
    struct epoll_event ready[64];
    if (maximum > 64) maximum = 64;
    int count = epoll_wait(epoll, ready, maximum, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return count;
}

int layoutd_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void layoutd_eventfd_signal(int fd) {
    uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
}

void layoutd_eventfd_drain(int fd) {
    uint64_t count;
    (void)!read(fd, &count, sizeof count);
}

static const int layoutd_all_seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

int layoutd_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int layoutd_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, layoutd_all_seals);
}

int layoutd_memfd_is_sealed(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) return errno == EINVAL ? 0 : -1;
    return (seals & layoutd_all_seals) == layoutd_all_seals;
}
