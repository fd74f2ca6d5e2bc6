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

#endif
