/* The hostile-server suite: system-tests/hostile/server.py serves one misbehaving fake layoutd per
   scenario of system-tests/hostile/scenarios.json; for each, this connects with the table's deadline
   and line cap, makes the raw call daemon.sync (twice when it should succeed) and checks the
   outcome, the time taken (no later than the deadline plus pollSlack), the stray count and the
   growth of VmRSS. Data-driven: the table (read with the client's own JSON API) is the list of
   cases, and an outcome this suite does not know fails it.

   usage: test_hostile REPO */
#include "testutil.h"

#include <sys/types.h>
#include "rss.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *data = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 65536) { cap = cap * 2 + 65536; data = realloc(data, cap); }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return data;
}

static const char *outcome_of(const layoutd_error *e)
{
    switch (e->code) {
    case LAYOUTD_ERR_TIMEOUT: return "timeout";
    case LAYOUTD_ERR_PROTOCOL: return "protocol";
    case LAYOUTD_ERR_CLOSED: return "closed";
    default: return e->name;
    }
}

typedef struct { bool called; layoutd_error error; } async_reply;
static void on_async(layoutd_client *c, const layoutd_reply *r, void *user)
{
    (void)c;
    async_reply *a = user;
    a->called = true;
    if (r->error) a->error = *r->error;
    else memset(&a->error, 0, sizeof a->error);
}

/* Starts server.py on dir; returns its pid with *to_server (its stdin: closing it stops it). */
static pid_t start_server(const char *repo, const char *dir, int *to_server)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out)) return -1;
    char script[600];
    snprintf(script, sizeof script, "%s/system-tests/hostile/server.py", repo);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execlp("python3", "python3", script, dir, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    *to_server = in[1];
    char ready[16] = {0};
    size_t n = 0;
    struct pollfd p = {out[0], POLLIN, 0};
    double deadline = t_now() + 20;
    while (n < 6 && t_now() < deadline && poll(&p, 1, 1000) >= 0) {
        ssize_t k = read(out[0], ready + n, sizeof ready - 1 - n);
        if (k <= 0) break;
        n += (size_t)k;
    }
    close(out[0]);
    if (strncmp(ready, "ready", 5)) { fprintf(stderr, "server.py did not say ready (%s)\n", ready); return -1; }
    return pid;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: test_hostile REPO\n"); return 2; }
    char path[600];
    snprintf(path, sizeof path, "%s/system-tests/hostile/scenarios.json", argv[1]);
    size_t len;
    char *text = read_file(path, &len);
    char why[200];
    layoutd_json *table = text ? layoutd_json_parse(text, len, why, sizeof why) : NULL;
    if (!table) { fprintf(stderr, "%s: %s\n", path, text ? why : strerror(errno)); return 1; }
    double deadline = layoutd_json_number(layoutd_json_get(table, "deadline"), -1);
    double slack = layoutd_json_number(layoutd_json_get(table, "pollSlack"), -1);
    double cap = layoutd_json_number(layoutd_json_get(table, "lineCap"), -1);
    const layoutd_json *scenarios = layoutd_json_get(table, "scenarios");
    CHECK(deadline > 0 && slack >= 0 && cap > 0 && scenarios, "the table has deadline, pollSlack, lineCap and scenarios");
    if (!scenarios) return t_report("test_hostile");
    int deadline_ms = (int)(deadline * 1000);

    char dir[] = "/tmp/layoutd-c-hostile-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    int to_server;
    pid_t server = start_server(argv[1], dir, &to_server);
    if (server < 0) return 1;

    printf("%-26s %-12s %-12s %9s %7s %9s\n", "scenario", "expected", "actual", "seconds", "strays", "grew KiB");
    for (size_t i = 0; i < scenarios->count; i++) {
        const layoutd_json *s = layoutd_json_at(scenarios, i);
        const char *name = layoutd_json_string(layoutd_json_get(s, "name"));
        const char *expected = layoutd_json_string(layoutd_json_get(s, "outcome"));
        double want_strays = layoutd_json_number(layoutd_json_get(s, "strays"), 0);
        double memory_mib = layoutd_json_number(layoutd_json_get(s, "memoryMiB"), 16);
        if (!name || !expected) { CHECK(0, "scenario %zu has a name and an outcome", i); continue; }
        bool known = !strcmp(expected, "ok") || !strcmp(expected, "timeout") || !strcmp(expected, "protocol") ||
                     !strcmp(expected, "closed") || !strcmp(expected, "unreachable");
        CHECK(known, "%s: an outcome this suite does not know: %s", name, expected);
        if (!known) continue;

        char sock[700];
        snprintf(sock, sizeof sock, "%s/%s.sock", dir, name);
        long before = rss_kib();
        double t0 = t_now(), worst = 0;
        const char *actual = "ok";
        layoutd_error err = {0};
        uint64_t strays = 0;
        bool connection_kept = true, async_ok = true;
        layoutd_client *c = layoutd_client_connect_timeout(sock, deadline_ms, &err);
        if (!c) {
            actual = err.code == LAYOUTD_ERR_TIMEOUT || err.code == LAYOUTD_ERR_IO ? "unreachable" : err.name;
            worst = t_now() - t0;
        } else {
            layoutd_client_set_timeout(c, deadline_ms);
            layoutd_client_set_line_cap(c, (size_t)cap);
            /* a protocol error fails every waiting request with it: one more is waiting */
            async_reply pending = {0};
            bool with_async = !strcmp(expected, "protocol");
            if (with_async) layoutd_send(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, on_async, &pending, NULL);
            for (int round = 0; round < (strcmp(expected, "ok") ? 1 : 2); round++) {
                double t1 = t_now();
                char *result = NULL;
                int rc = layoutd_call_raw(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, &result, NULL, &err);
                double took = t_now() - t1;
                if (took > worst) worst = took;
                free(result);
                if (rc) { actual = outcome_of(&err); break; }
            }
            if (with_async) {
                async_ok = pending.called && pending.error.code == LAYOUTD_ERR_PROTOCOL;
                CHECK(async_ok, "%s: the other waiting request failed with ProtocolError too (called %d, %s)", name,
                      pending.called, pending.error.name);
            }
            strays = layoutd_client_stray_count(c);
            CHECK((strays == 0) == (layoutd_client_stray(c, 0) == NULL) && layoutd_client_stray(c, 16) == NULL,
                  "%s: the most recent strays are kept, 16 at most", name);
            connection_kept = layoutd_client_connected(c);
            if (!strcmp(actual, "protocol")) CHECK(!connection_kept, "%s: a protocol error closes the connection", name);
            if (!strcmp(actual, "timeout")) CHECK(connection_kept, "%s: a timeout keeps the connection", name);
            CHECK(layoutd_client_pending_count(c) == 0, "%s: no request left pending (%zu): a timed-out call is forgotten",
                  name, layoutd_client_pending_count(c));
            layoutd_client_close(c);
        }
        long grew = rss_kib() - before;
        printf("%-26s %-12s %-12s %9.3f %7llu %9ld\n", name, expected, actual, worst, (unsigned long long)strays, grew);
        CHECK(!strcmp(actual, expected), "%s: expected %s, got %s (%s: %s)", name, expected, actual, err.name, err.message);
        CHECK(worst <= deadline + slack, "%s: took %.3f s, more than %.1f + %.1f", name, worst, deadline, slack);
        CHECK(strays >= (uint64_t)want_strays, "%s: %llu strays counted, want at least %.0f", name, (unsigned long long)strays, want_strays);
        CHECK(grew <= (long)(memory_mib * 1024), "%s: grew by %ld KiB, more than %.0f MiB", name, grew, memory_mib);
    }
    close(to_server);
    int status;
    waitpid(server, &status, 0);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
    layoutd_json_free(table);
    free(text);
    return t_report("test_hostile");
}
