/* A layoutd connection in a poll() loop, one turn per 16 ms frame, never blocking on the
   daemon: poll the fd (for output only while the client has unsent bytes), dispatch when it is
   ready, and dispatch again while layoutd_client_has_pending() says whole lines wait in the
   client's buffer (poll would not report them). The program creates its own view, subscribes
   with a mirror whose change handler counts what entered, changed and left, scrolls ten times
   (each reply's callback sends the next), deletes the view and exits.

   cc poll_loop.c $(pkg-config --cflags --libs layoutd-client)
   ./a.out [SOCKET] */
#include <layoutd/client.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    layoutd_client *c;
    char view[64];
    int scrolls, changes;
    int64_t last_epoch;
    bool failed, deleted;
} App;

static void on_change(layoutd_mirror *m, const layoutd_mirror_change *ch, void *user)
{
    App *app = user;
    (void)m;
    app->changes++;
    printf("change: epoch %lld, %zu entered, %zu changed, %zu left\n", (long long)ch->epoch, ch->entered_count,
           ch->changed_count, ch->left_count);
}

static void send_scroll(App *app);

static void on_scrolled(layoutd_client *c, const layoutd_reply *r, void *user)
{
    App *app = user;
    (void)c;
    if (r->error) { fprintf(stderr, "view.scroll: %s\n", r->error->message); app->failed = true; return; }
    app->last_epoch = (int64_t)layoutd_json_number(layoutd_json_get(r->result, "epoch"), 0);
    if (++app->scrolls < 10) send_scroll(app);
}

static void send_scroll(App *app)
{
    char params[200];
    snprintf(params, sizeof params, "{\"view\":\"%s\",\"offset\":{\"x\":0,\"y\":%d}}", app->view, 150 * (app->scrolls + 1));
    if (layoutd_send(app->c, LAYOUTD_METHOD_VIEW_SCROLL, params, on_scrolled, app, NULL) < 0) app->failed = true;
}

static void on_deleted(layoutd_client *c, const layoutd_reply *r, void *user)
{
    App *app = user;
    (void)c;
    if (r->error) app->failed = true;
    app->deleted = true;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    App app = {0};
    layoutd_error err;
    app.c = layoutd_client_connect(argc > 1 ? argv[1] : NULL, &err);
    if (!app.c) { fprintf(stderr, "%s: %s\n", err.name, err.message); return 1; }
    snprintf(app.view, sizeof app.view, "poll-demo-%d", (int)getpid());   /* a unique view: re-runs are clean */

    layoutd_item items[200];
    char ids[200][16];
    for (int i = 0; i < 200; i++) {
        snprintf(ids[i], sizeof ids[i], "i%d", i);
        items[i] = (layoutd_item){.id = ids[i]};
    }
    layoutd_section section = {.id = "s", .item_count = 200, .items = items};
    layoutd_view_spec spec = {.view = app.view, .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 480}, .section_count = 1, .sections = &section};
    if (layoutd_view_create(app.c, &spec, NULL, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    layoutd_subscription *sub = layoutd_subscribe(app.c, app.view, NULL, NULL, &err);
    if (!sub) { fprintf(stderr, "%s\n", err.message); return 1; }
    layoutd_mirror *mirror = layoutd_subscription_mirror(sub);
    layoutd_mirror_set_change_handler(mirror, on_change, &app);

    send_scroll(&app);
    bool deleting = false;
    double give_up = now() + 10;
    while (!app.deleted && !app.failed && now() < give_up) {
        struct pollfd p = {layoutd_client_fd(app.c), (short)(POLLIN | (layoutd_client_wants_write(app.c) ? POLLOUT : 0)), 0};
        int ready = layoutd_client_has_pending(app.c) ? 1 : poll(&p, 1, 16);   /* a 16 ms frame */
        if (ready > 0) {
            do {
                if (layoutd_client_dispatch(app.c, &err) < 0) { fprintf(stderr, "%s: %s\n", err.name, err.message); return 1; }
            } while (layoutd_client_has_pending(app.c));
        }
        /* ... draw the frame from the mirror ... */
        if (!deleting && app.scrolls == 10 && layoutd_mirror_epoch(mirror) == app.last_epoch) {
            char params[100];
            snprintf(params, sizeof params, "{\"view\":\"%s\"}", app.view);
            deleting = layoutd_send(app.c, LAYOUTD_METHOD_VIEW_DELETE, params, on_deleted, &app, NULL) > 0;
        }
    }
    printf("scrolls %d, mirror changes %d, %zu elements in the window\n", app.scrolls, app.changes, layoutd_mirror_count(mirror));
    layoutd_client_close(app.c);
    return app.failed || !app.deleted || app.scrolls != 10 || app.changes < 10 ? 1 : 0;
}
