/* layoutd-bench-load: throughput with K pipelining connections from one thread.
 *
 *   layoutd-bench-load --socket PATH --requests FILE --connections K [--window W]
 *                      [--seconds S] [--per-connection L] [--pid PID]
 *
 * Each connection keeps W requests in flight (default 16): a reply read is answered by the
 * next request at once. Connection c sends lines c*L .. c*L+L-1 of --requests (modulo the
 * file's length), cycled, so a file of K*L lines gives every connection requests of its own
 * (its own view) and a file of L lines gives them all the same. One thread and epoll, so the
 * load generator spends one core at most. Replies completed within S seconds (default 3) make
 * the rate; what is still in flight is then drained. Prints one JSON line: requests_per_second,
 * replies, mean reply bytes, error replies, and with --pid the CPU µs and context switches
 * per request of that process over the run (/proc). */
#include "bench.h"

#include <signal.h>
#include <sys/epoll.h>

static const char *program = "layoutd-bench-load";

enum { READ_SIZE = 256 * 1024, HEAD = 48 };

struct connection {
    int fd;
    size_t first, next; /* its lines, and how many it has sent */
    long in_flight;
    char head[HEAD];    /* the start of the reply being read, to spot errors */
    size_t head_length;
};

int main(int argc, char **argv) {
    const char *socket_path = NULL, *requests_path = NULL;
    long connections = 1, window = 16, per_connection = 0;
    double seconds = 3;
    int pid = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) socket_path = argv[++i];
        else if (!strcmp(argv[i], "--requests") && i + 1 < argc) requests_path = argv[++i];
        else if (!strcmp(argv[i], "--connections") && i + 1 < argc) connections = atol(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--per-connection") && i + 1 < argc) per_connection = atol(argv[++i]);
        else if (!strcmp(argv[i], "--pid") && i + 1 < argc) pid = atoi(argv[++i]);
        else goto usage;
    }
    if (!socket_path || !requests_path || connections < 1 || window < 1 || seconds <= 0) goto usage;
    struct lines requests = read_lines(program, requests_path);
    if (per_connection <= 0) per_connection = (long)requests.count;
    signal(SIGPIPE, SIG_IGN);

    int poll = epoll_create1(EPOLL_CLOEXEC);
    if (poll < 0) die(program, "epoll_create1");
    struct connection *all = calloc((size_t)connections, sizeof *all);
    char *input = malloc(READ_SIZE);
    size_t output_capacity = 1 << 16;
    char *output = malloc(output_capacity);
    if (!all || !input || !output) die(program, "malloc");
    for (long c = 0; c < connections; c++) {
        all[c].fd = connect_unix(program, socket_path);
        all[c].first = (size_t)(c * per_connection);
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = &all[c]};
        if (epoll_ctl(poll, EPOLL_CTL_ADD, all[c].fd, &event) != 0) die(program, "epoll_ctl");
    }

    /* Appends connection c's next request to the output buffer. */
#define QUEUE(c)                                                                                       \
    do {                                                                                               \
        size_t index = ((c)->first + (c)->next++ % (size_t)per_connection) % requests.count;           \
        size_t length = requests.length[index];                                                        \
        if (used + length > output_capacity) {                                                         \
            while (used + length > output_capacity) output_capacity *= 2;                              \
            if (!(output = realloc(output, output_capacity))) die(program, "realloc");                 \
        }                                                                                              \
        memcpy(output + used, requests.line[index], length);                                           \
        used += length;                                                                                \
        (c)->in_flight++;                                                                              \
    } while (0)

    struct proc_sample before = {0}, after = {0};
    if (pid && sample_proc(pid, &before) != 0) die(program, "/proc sample");
    uint64_t started = now_ns();
    uint64_t deadline = started + (uint64_t)(seconds * 1e9);
    for (long c = 0; c < connections; c++) {
        size_t used = 0;
        for (long w = 0; w < window; w++) QUEUE(&all[c]);
        write_all(program, all[c].fd, output, used);
    }
    unsigned long long replies = 0, late = 0, reply_bytes = 0, errors = 0;
    long in_flight = connections * window;
    int sending = 1;
    uint64_t stopped = 0;
    struct epoll_event events[256];
    while (in_flight > 0) {
        int ready = epoll_wait(poll, events, 256, 10000);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die(program, "epoll_wait");
        }
        if (ready == 0) { errno = 0; die(program, "no reply for 10 s"); }
        uint64_t now = now_ns();
        if (sending && now >= deadline) {
            sending = 0;
            stopped = now;
            if (pid && sample_proc(pid, &after) != 0) die(program, "/proc sample");
        }
        for (int e = 0; e < ready; e++) {
            struct connection *connection = events[e].data.ptr;
            ssize_t got = read(connection->fd, input, READ_SIZE);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) { errno = got ? errno : 0; die(program, got ? "read" : "connection closed"); }
            size_t used = 0;
            char *at = input, *end = input + got;
            while (at < end) {
                char *newline = memchr(at, '\n', (size_t)(end - at));
                char *stop = newline ? newline : end;
                if (connection->head_length < HEAD) {
                    size_t take = (size_t)(stop - at);
                    if (take > HEAD - connection->head_length) take = HEAD - connection->head_length;
                    memcpy(connection->head + connection->head_length, at, take);
                    connection->head_length += take;
                }
                if (!newline) break;
                if (is_error_head(connection->head, connection->head_length)) errors++;
                connection->head_length = 0;
                connection->in_flight--;
                in_flight--;
                if (sending) {
                    replies++;
                    QUEUE(connection);
                    in_flight++;
                } else {
                    late++;
                }
                at = newline + 1;
            }
            if (sending) reply_bytes += (unsigned long long)got;
            if (used) write_all(program, connection->fd, output, used);
        }
    }
    double elapsed = (double)(stopped - started) / 1e9;
    for (long c = 0; c < connections; c++) close(all[c].fd);
    printf("{\"connections\":%ld,\"window\":%ld,\"seconds\":%.3f,\"replies\":%llu,\"drained\":%llu,\"requests_per_second\":%.1f,"
           "\"reply_bytes\":%.1f,\"errors\":%llu",
           connections, window, elapsed, replies, late, (double)replies / elapsed, replies ? (double)reply_bytes / (double)replies : 0.0, errors);
    if (pid) print_proc_delta(pid, &before, &after, replies ? replies : 1);
    printf("}\n");
    return 0;
usage:
    fprintf(stderr, "usage: %s --socket PATH --requests FILE --connections K [--window W] [--seconds S] [--per-connection L] [--pid PID]\n", program);
    return 64;
}
