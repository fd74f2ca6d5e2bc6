#define _GNU_SOURCE
#include "socket_shims.h"

#include <stddef.h>
#include <sys/socket.h>
#include <malloc.h>

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
