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

/// memfd_create(2) with MFD_CLOEXEC | MFD_ALLOW_SEALING (Swift's Glibc module does not expose
/// memfd_create, it needs _GNU_SOURCE). The fd, or -1 with errno set.
int layoutd_memfd_create(const char *name);
/// Seals a memfd against every change (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_WRITE, F_SEAL_SEAL).
/// 0 on success, -1 with errno set (EBUSY while a writable shared mapping exists).
int layoutd_memfd_seal(int fd);
/// Whether the fd carries all four seals: 1 yes, 0 no (or not a memfd), -1 with errno set.
int layoutd_memfd_is_sealed(int fd);

#endif
