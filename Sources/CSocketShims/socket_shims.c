#define _GNU_SOURCE
#include "socket_shims.h"

#include <stddef.h>
#include <sys/socket.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/epoll.h>
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
