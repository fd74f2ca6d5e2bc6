/* layoutd-bench-echo: the IPC floor. A Unix-socket server that answers every request line
 * with a captured reply line (the daemon's own bytes for the same request), cycling through
 * the lines of --replies, each connection counting on its own.
 *
 *   layoutd-bench-echo --socket PATH --replies FILE
 *
 * The simplest efficient shape: one thread, epoll (level-triggered) over blocking sockets, one
 * read per wake-up into a reused buffer, and the replies to every complete line in that read
 * gathered into one reused output buffer and written at once. Per request on a single
 * connection that is epoll_wait + read + write. It prints "ready" on stdout once listening and
 * runs until killed. */
#include "bench.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/stat.h>

static const char *program = "layoutd-bench-echo";

enum { READ_SIZE = 256 * 1024, MAX_EVENTS = 128 };

struct connection {
    int fd;
    size_t next_reply; /* index into the replies, cycled */
};

int main(int argc, char **argv) {
    const char *socket_path = NULL, *replies_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) socket_path = argv[++i];
        else if (!strcmp(argv[i], "--replies") && i + 1 < argc) replies_path = argv[++i];
        else { fprintf(stderr, "usage: %s --socket PATH --replies FILE\n", program); return 64; }
    }
    if (!socket_path || !replies_path) { fprintf(stderr, "usage: %s --socket PATH --replies FILE\n", program); return 64; }
    struct lines replies = read_lines(program, replies_path);
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof address.sun_path) { errno = ENAMETOOLONG; die(program, socket_path); }
    strcpy(address.sun_path, socket_path);
    unlink(socket_path);
    umask(077);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) die(program, "socket");
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0) die(program, socket_path);
    if (listen(listener, 128) != 0) die(program, "listen");
    int poll = epoll_create1(EPOLL_CLOEXEC);
    if (poll < 0) die(program, "epoll_create1");
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(poll, EPOLL_CTL_ADD, listener, &event) != 0) die(program, "epoll_ctl");
    printf("ready\n");
    fflush(stdout);

    char *input = malloc(READ_SIZE);
    size_t output_capacity = 1 << 20;
    char *output = malloc(output_capacity);
    if (!input || !output) die(program, "malloc");
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int ready = epoll_wait(poll, events, MAX_EVENTS, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die(program, "epoll_wait");
        }
        for (int e = 0; e < ready; e++) {
            struct connection *connection = events[e].data.ptr;
            if (!connection) {
                int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0) continue;
                connection = calloc(1, sizeof *connection);
                if (!connection) die(program, "calloc");
                connection->fd = fd;
                struct epoll_event add = {.events = EPOLLIN, .data.ptr = connection};
                if (epoll_ctl(poll, EPOLL_CTL_ADD, fd, &add) != 0) die(program, "epoll_ctl");
                continue;
            }
            ssize_t got = read(connection->fd, input, READ_SIZE);
            if (got <= 0) {
                if (got < 0 && errno == EINTR) continue;
                epoll_ctl(poll, EPOLL_CTL_DEL, connection->fd, NULL);
                close(connection->fd);
                free(connection);
                continue;
            }
            /* A request's content does not matter, only where it ends: a partial line at the
             * end of a read is answered when its newline arrives. */
            size_t used = 0;
            for (char *at = input, *end = input + got; (at = memchr(at, '\n', (size_t)(end - at))); at++) {
                size_t index = connection->next_reply++ % replies.count;
                size_t length = replies.length[index];
                if (used + length > output_capacity) {
                    while (used + length > output_capacity) output_capacity *= 2;
                    output = realloc(output, output_capacity);
                    if (!output) die(program, "realloc");
                }
                memcpy(output + used, replies.line[index], length);
                used += length;
            }
            if (used) write_all(program, connection->fd, output, used);
        }
    }
}
