/* The cost of one huge reply line: a forked fake daemon answers daemon.sync with a result of
   60,000,000 bytes (under the default 64 MiB line cap); layoutd_call_raw returns its text. The
   peak RSS (VmHWM) may grow by at most 2.5 times the line: the line in the input buffer and the
   result's text handed out, no tree and no other copy. Built without sanitizers (their
   allocator would be measured). Prints the ratio. */
#include "testutil.h"

#include <sys/socket.h>
#include <sys/un.h>

#define PAD 60000000

static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field))) kib = atol(line + strlen(field));
    if (f) fclose(f);
    return kib;
}

static void serve(int listener)
{
    int fd = accept(listener, NULL, NULL);
    char req[4096];
    size_t n = 0;
    while (n < sizeof req && !memchr(req, '\n', n)) {
        ssize_t k = read(fd, req + n, sizeof req - n);
        if (k <= 0) _exit(1);
        n += (size_t)k;
    }
    static char chunk[1 << 16];
    memset(chunk, 'x', sizeof chunk);
    const char *head = "{\"id\":1,\"result\":{\"pad\":\"";
    if (write(fd, head, strlen(head)) < 0) _exit(1);
    for (size_t sent = 0; sent < PAD;) {
        size_t k = PAD - sent < sizeof chunk ? PAD - sent : sizeof chunk;
        ssize_t w = write(fd, chunk, k);
        if (w <= 0) _exit(1);
        sent += (size_t)w;
    }
    if (write(fd, "\"}}\n", 4) < 0) _exit(1);
    char rest[64];
    while (read(fd, rest, sizeof rest) > 0) {}
    _exit(0);
}

int main(void)
{
    char dir[] = "/tmp/layoutd-c-bigline-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s/s.sock", dir);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) || listen(listener, 4)) { perror("bind"); return 1; }
    pid_t pid = fork();
    if (pid == 0) serve(listener);
    close(listener);

    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(addr.sun_path, &err);
    CHECK(c != NULL, "connect: %s", err.message);
    long before = status_kib("VmHWM:");
    char *text = NULL;
    int rc = c ? layoutd_call_raw(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, &text, NULL, &err) : -1;
    long peak = status_kib("VmHWM:");
    size_t line = PAD + 30;
    CHECK(rc == 0, "the call: %s %s", err.name, err.message);
    CHECK(text && strlen(text) == PAD + 10, "the result's text");
    double ratio = (double)(peak - before) * 1024 / (double)line;
    printf("test_bigline: a %zu-byte reply line, result as text: peak RSS grew %ld KiB = %.2f x the line\n", line, peak - before, ratio);
    CHECK(ratio <= 2.5, "peak RSS grew %.2f x the line", ratio);
    free(text);
    /* the input buffer a huge line grew is given back once the line is handled */
    long after = status_kib("VmRSS:");
    CHECK(after - before < (long)(line / 1024 / 4), "RSS after the call: %ld KiB over the start", after - before);
    layoutd_client_close(c);
    int status;
    waitpid(pid, &status, 0);
    unlink(addr.sun_path);
    rmdir(dir);
    return t_report("test_bigline");
}
