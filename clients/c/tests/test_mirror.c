/* The shared mirror scenario (clients/conformance/README.md): a driver connection sends the
   scenario's requests; the client under test keeps a mirror through its subscription; after
   every event the mirror must equal view.get's elements and epoch. Animated events are also
   played: at the end of the transition every element of the mirror that has segments is where
   the mirror says it is. */
#include "testutil.h"

typedef struct { int replies; char *last; } driver_state;

static void on_driver_line(layoutd_client *c, const char *line, size_t len, void *user)
{
    (void)c;
    driver_state *st = user;
    st->replies++;
    free(st->last);
    st->last = strndup(line, len);
}

static int events, animated, truncated;

static void on_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    (void)c;
    (void)user;
    if (!strcmp(ev->name, "view.invalidated")) events++;
}

static int compare(layoutd_client *c, layoutd_subscription *s, int step)
{
    layoutd_snapshot snap;
    layoutd_error err;
    if (layoutd_view_get(c, "mirror", &snap, &err)) { CHECK(0, "view.get: %s", err.message); return -1; }
    layoutd_mirror *m = layoutd_subscription_mirror(s);
    CHECK(layoutd_mirror_epoch(m) == snap.epoch, "step %d: mirror epoch %lld, view %lld", step, (long long)layoutd_mirror_epoch(m),
          (long long)snap.epoch);
    bool same = layoutd_mirror_equals(m, snap.element_count, snap.elements);
    CHECK(same, "step %d: the mirror (%zu elements) differs from view.get (%zu elements)", step, layoutd_mirror_count(m),
          snap.element_count);
    layoutd_rect w = layoutd_mirror_window(m);
    CHECK(w.x == snap.window.x && w.y == snap.window.y && w.width == snap.window.width && w.height == snap.window.height,
          "step %d: window", step);
    truncated += layoutd_mirror_window_truncated(m) && snap.window_truncated;
    CHECK(layoutd_mirror_window_truncated(m) == snap.window_truncated, "step %d: windowTruncated", step);
    const layoutd_transition *tr = layoutd_mirror_transition(m);
    if (tr) {
        animated++;
        for (size_t i = 0; layoutd_mirror_at(m, i); i++) {
            const layoutd_attributes *a = layoutd_mirror_at(m, i);
            layoutd_attributes at;
            if (layoutd_transition_sample(tr, a->kind, a->id, tr->duration, NULL, &at))
                CHECK(at.frame.x == a->frame.x && at.frame.y == a->frame.y && at.frame.width == a->frame.width &&
                      at.alpha == a->alpha, "step %d: transition of %s ends where the mirror is", step, a->id);
        }
    }
    layoutd_snapshot_free(&snap);
    return same ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_mirror mirror-scenario.jsonl [daemon flags]\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    td_daemon d = {0};
    if (td_start(&d, (const char *const *)argv + 2)) return 1;
    layoutd_error err;
    driver_state st = {0};
    layoutd_client *driver = layoutd_client_connect(d.path, &err), *client = layoutd_client_connect(d.path, &err);
    CHECK(driver && client, "connect: %s", err.message);
    layoutd_client_set_line_handler(driver, on_driver_line, &st);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int step = 0, compared = 0, refused = 0;
    layoutd_subscription *s = NULL;
    while ((len = getline(&line, &cap, f)) > 0) {
        step++;
        int before = st.replies;
        layoutd_send_raw(driver, line, (size_t)len, NULL);
        double deadline = t_now() + 10;
        while (st.replies == before && t_now() < deadline && layoutd_client_connected(driver)) layoutd_client_wait(driver, 1000, NULL);
        CHECK(st.replies == before + 1, "step %d: no reply", step);
        if (strstr(st.last, "\"error\":")) refused++;
        if (step == 1) {
            s = layoutd_subscribe(client, "mirror", on_event, NULL, &err);
            CHECK(s != NULL, "subscribe: %s", err.message);
            if (!s) break;
            compare(client, s, step);
            continue;
        }
        int seen = events;
        /* the driver had its reply: daemon.sync on the client covers the event */
        CHECK(layoutd_sync(client, &err) == 0, "sync: %s", err.message);
        if (events > seen) {
            compared++;
            if (compare(client, s, step)) break;
        }
    }
    free(line);
    fclose(f);
    CHECK(s && layoutd_subscription_resyncs(s) == 0, "no resync was needed");
    printf("test_mirror%s%s: %d truncated windows, ", argc > 2 ? " with " : "", argc > 2 ? argv[argc - 1] : "", truncated);
    printf("%d requests, %d refused, %d events, mirror compared after %d events (%d animated): %d checks, %d failures\n",
           step, refused, events, compared, animated, t_checks, t_failures);
    if (s) layoutd_unsubscribe(client, s, NULL);
    free(st.last);
    layoutd_client_close(driver);
    layoutd_client_close(client);
    td_cleanup(&d);
    return t_failures ? 1 : 0;
}
