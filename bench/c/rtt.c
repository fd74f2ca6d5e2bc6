/* layoutd-bench-rtt: round trips against any line-delimited JSON socket (the daemon or the
 * echo floor). One request in flight: send a line, read until its reply's newline.
 *
 *   layoutd-bench-rtt --socket PATH --requests FILE [--warmup N] [--count M] [--pid PID]
 *
 * The lines of --requests are sent in turn, cycled. N warm-up round trips (default 500), then
 * M timed ones (default 20000); prints one JSON line: p50/p90/p99/mean/min/max in µs, mean
 * request and reply bytes, and how many replies were errors. With --pid, also the CPU µs and
 * context switches per request that process spent over the timed run (/proc). */
#include "bench.h"

#include <signal.h>

static const char *program = "layoutd-bench-rtt";

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *socket_path = NULL, *requests_path = NULL;
    long warmup = 500, count = 20000;
    int pid = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) socket_path = argv[++i];
        else if (!strcmp(argv[i], "--requests") && i + 1 < argc) requests_path = argv[++i];
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atol(argv[++i]);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atol(argv[++i]);
        else if (!strcmp(argv[i], "--pid") && i + 1 < argc) pid = atoi(argv[++i]);
        else { fprintf(stderr, "usage: %s --socket PATH --requests FILE [--warmup N] [--count M] [--pid PID]\n", program); return 64; }
    }
    if (!socket_path || !requests_path || warmup < 0 || count < 1) {
        fprintf(stderr, "usage: %s --socket PATH --requests FILE [--warmup N] [--count M] [--pid PID]\n", program);
        return 64;
    }
    struct lines requests = read_lines(program, requests_path);
    signal(SIGPIPE, SIG_IGN);
    int fd = connect_unix(program, socket_path);

    size_t capacity = 1 << 20;
    char *buffer = malloc(capacity);
    uint64_t *samples = malloc((size_t)count * sizeof *samples);
    if (!buffer || !samples) die(program, "malloc");
    unsigned long long request_bytes = 0, reply_bytes = 0, errors = 0;
    struct proc_sample before = {0}, after = {0};
    long total = warmup + count;
    for (long i = 0; i < total; i++) {
        if (i == warmup && pid && sample_proc(pid, &before) != 0) die(program, "/proc sample");
        size_t index = (size_t)i % requests.count;
        uint64_t started = now_ns();
        write_all(program, fd, requests.line[index], requests.length[index]);
        /* One request in flight, so the reply's newline is the last byte read. */
        size_t used = 0;
        for (;;) {
            if (used == capacity) {
                capacity *= 2;
                buffer = realloc(buffer, capacity);
                if (!buffer) die(program, "realloc");
            }
            ssize_t got = read(fd, buffer + used, capacity - used);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) { errno = got ? errno : 0; die(program, got ? "read" : "connection closed"); }
            used += (size_t)got;
            if (buffer[used - 1] == '\n') break;
        }
        uint64_t elapsed = now_ns() - started;
        if (i >= warmup) {
            samples[i - warmup] = elapsed;
            request_bytes += requests.length[index];
            reply_bytes += used;
            if (is_error_head(buffer, used < 48 ? used : 48)) errors++;
        }
    }
    if (pid && sample_proc(pid, &after) != 0) die(program, "/proc sample");
    close(fd);

    double sum = 0;
    for (long i = 0; i < count; i++) sum += (double)samples[i];
    qsort(samples, (size_t)count, sizeof *samples, compare);
#define AT(fraction) ((double)samples[(long)((fraction) * (double)count) < count ? (long)((fraction) * (double)count) : count - 1] / 1000.0)
    printf("{\"requests\":%ld,\"warmup\":%ld,\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,\"mean_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,"
           "\"request_bytes\":%.1f,\"reply_bytes\":%.1f,\"errors\":%llu",
           count, warmup, AT(0.5), AT(0.9), AT(0.99), sum / (double)count / 1000.0, (double)samples[0] / 1000.0,
           (double)samples[count - 1] / 1000.0, (double)request_bytes / (double)count, (double)reply_bytes / (double)count, errors);
    if (pid) print_proc_delta(pid, &before, &after, (unsigned long long)count);
    printf("}\n");
    return 0;
}
