/* The long-run check: N calls (default 1,000,000) against a real daemon, alternating
   daemon.sync with view.scroll on a view of its own (unique name) to which it is subscribed
   with a mirror, so events flow and the mirror applies them while its change handler counts.
   It samples its own VmRSS every N/20 calls and prints one JSON line:
     {"client": "c", "calls": N, "events": E, "changes": C, "seconds": S, "rssKiB": [...],
      "rssWarmKiB": (the sample at 10 %), "rssEndKiB": ..., "strays": ...}
   then deletes its view.

   longrun --socket PATH [--calls N]      (make longrun builds it; LONGRUN_CALLS=N make longrun
                                           also runs it against a fresh LAYOUTD_BINARY) */
#include <layoutd/client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../tests/rss.h"

static void on_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    (void)c;
    (void)ev;
    ++*(long *)user;
}

static void on_change(layoutd_mirror *m, const layoutd_mirror_change *ch, void *user)
{
    (void)m;
    (void)ch;
    ++*(long *)user;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *socket = NULL;
    long calls = 1000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) socket = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atol(argv[++i]);
        else { fprintf(stderr, "usage: longrun --socket PATH [--calls N]\n"); return 2; }
    }
    if (calls < 20) calls = 20;
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(socket, &err);
    if (!c) { fprintf(stderr, "%s: %s\n", err.name, err.message); return 1; }
    char view[64];
    snprintf(view, sizeof view, "longrun-c-%d", (int)getpid());
    enum { ITEMS = 1000 };
    static layoutd_item items[ITEMS];
    static char ids[ITEMS][16];
    for (int i = 0; i < ITEMS; i++) {
        snprintf(ids[i], sizeof ids[i], "i%d", i);
        items[i] = (layoutd_item){.id = ids[i]};
    }
    layoutd_section section = {.id = "s", .item_count = ITEMS, .items = items};
    layoutd_view_spec spec = {.view = view, .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 480}, .section_count = 1, .sections = &section};
    if (layoutd_view_create(c, &spec, NULL, &err)) { fprintf(stderr, "view.create: %s\n", err.message); return 1; }
    long events = 0, changes = 0;
    layoutd_subscription *sub = layoutd_subscribe(c, view, on_event, &events, &err);
    if (!sub) { fprintf(stderr, "view.subscribe: %s\n", err.message); return 1; }
    layoutd_mirror_set_change_handler(layoutd_subscription_mirror(sub), on_change, &changes);

    long every = calls / 20, failures = 0, samples[21], nsamples = 0;
    double start = now();
    for (long i = 0; i < calls; i++) {
        int rc;
        if (i % 2 == 0) rc = layoutd_sync(c, &err);
        else rc = layoutd_view_scroll(c, view, (layoutd_point){0, (double)((i / 2) % 300) * 100}, NULL, 0, NULL, NULL, &err);
        if (rc && ++failures <= 3) fprintf(stderr, "call %ld: %s: %s\n", i, err.name, err.message);
        if ((i + 1) % every == 0 && nsamples < 21) samples[nsamples++] = rss_kib();
    }
    layoutd_sync(c, &err); /* the last scroll's event applied */
    double seconds = now() - start;
    printf("{\"client\": \"c\", \"calls\": %ld, \"events\": %ld, \"changes\": %ld, \"seconds\": %.1f, \"rssKiB\": [", calls, events, changes,
           seconds);
    for (long i = 0; i < nsamples; i++) printf("%s%ld", i ? ", " : "", samples[i]);
    printf("], \"rssWarmKiB\": %ld, \"rssEndKiB\": %ld, \"strays\": %llu, \"failures\": %ld}\n", samples[1], samples[nsamples - 1],
           (unsigned long long)layoutd_client_stray_count(c), failures);
    layoutd_unsubscribe(c, sub, NULL);
    layoutd_view_delete(c, view, NULL);
    layoutd_client_close(c);
    return failures ? 1 : 0;
}
