#ifndef LAYOUTD_SOCKET_SHIMS_H
#define LAYOUTD_SOCKET_SHIMS_H

#include <sys/types.h>

/// accept4(2) with SOCK_CLOEXEC | SOCK_NONBLOCK: the accepted fd is never inherited and never
/// blocks. Swift's Glibc module does not expose accept4 (it needs _GNU_SOURCE).
int layoutd_accept(int listener);

/// SO_PEERCRED of a connected Unix socket; 0 on success, -1 with errno set.
int layoutd_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas (glibc's malloc.h, which Swift's
/// Glibc module does not expose). Returns 1 on success.
int layoutd_set_malloc_arena_max(int count);

#include <stdint.h>

/// epoll and eventfd, which Swift's Glibc module does not expose. Each registered fd is its own
/// epoll data. `events` are the kernel's bits (EPOLLIN 0x1, EPOLLOUT 0x4, EPOLLERR 0x8,
/// EPOLLHUP 0x10, EPOLLRDHUP 0x2000), level-triggered.
int layoutd_epoll_create(void);
/// op: 1 add, 2 delete, 3 modify (EPOLL_CTL_*). 0 on success, -1 with errno set.
int layoutd_epoll_control(int epoll, int op, int fd, uint32_t events);
/// Up to `maximum` ready fds and their events; the count, or -1 with errno set.
int layoutd_epoll_wait(int epoll, int *fds, uint32_t *events, int maximum, int timeout_ms);
/// A non-blocking, close-on-exec eventfd.
int layoutd_eventfd(void);
/// Adds 1 to the eventfd's counter (wakes its epoll set).
void layoutd_eventfd_signal(int fd);
/// Resets the counter.
void layoutd_eventfd_drain(int fd);

#endif
