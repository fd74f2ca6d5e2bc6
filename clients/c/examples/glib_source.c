/* A layoutd connection inside a GLib main loop: a GSource watches the connection's fd, and its
   prepare step also reports lines already read into the client's buffer (which no fd watch
   sees). The program creates its own view, subscribes with a mirror whose change handler
   prints what entered, changed and left, scrolls ten times without blocking the loop (each
   reply's callback sends the next scroll), deletes the view and quits.

   cc glib_source.c $(pkg-config --cflags --libs layoutd-client glib-2.0)
   ./a.out [SOCKET]          (default: LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock, ...) */
#include <glib.h>
#include <layoutd/client.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    GSource source;
    layoutd_client *c;
    gpointer tag;
} LayoutdSource;

static gboolean ls_prepare(GSource *s, gint *timeout)
{
    LayoutdSource *ls = (LayoutdSource *)s;
    *timeout = -1;
    g_source_modify_unix_fd(s, ls->tag, G_IO_IN | (layoutd_client_wants_write(ls->c) ? G_IO_OUT : 0));
    return layoutd_client_has_pending(ls->c);   /* buffered lines: dispatch without polling */
}

static gboolean ls_check(GSource *s)
{
    LayoutdSource *ls = (LayoutdSource *)s;
    return layoutd_client_has_pending(ls->c) || g_source_query_unix_fd(s, ls->tag) != 0;
}

static gboolean ls_dispatch(GSource *s, GSourceFunc cb, gpointer data)
{
    LayoutdSource *ls = (LayoutdSource *)s;
    layoutd_error err;
    (void)cb;
    (void)data;
    do {
        if (layoutd_client_dispatch(ls->c, &err) < 0) {
            g_printerr("layoutd: %s: %s\n", err.name, err.message);   /* or layoutd_client_reconnect() later */
            return G_SOURCE_REMOVE;
        }
    } while (layoutd_client_has_pending(ls->c));
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs ls_funcs = {ls_prepare, ls_check, ls_dispatch, NULL, NULL, NULL};

static GSource *layoutd_source_new(layoutd_client *c)
{
    GSource *s = g_source_new(&ls_funcs, sizeof(LayoutdSource));
    ((LayoutdSource *)s)->c = c;
    ((LayoutdSource *)s)->tag = g_source_add_unix_fd(s, layoutd_client_fd(c), G_IO_IN);
    return s;
}

/* ---- the program ---- */

typedef struct {
    GMainLoop *loop;
    layoutd_client *c;
    char view[64];
    int scrolls;
    int64_t last_epoch;       /* the epoch of the last scroll's reply */
    layoutd_mirror *mirror;
    int changes;
    bool failed, deleting;
} App;

static void on_change(layoutd_mirror *m, const layoutd_mirror_change *ch, void *user)
{
    App *app = user;
    (void)m;
    app->changes++;
    printf("change: epoch %lld, %zu entered, %zu changed, %zu left\n", (long long)ch->epoch, ch->entered_count,
           ch->changed_count, ch->left_count);
}

static void on_deleted(layoutd_client *c, const layoutd_reply *r, void *user)
{
    App *app = user;
    (void)c;
    if (r->error) { fprintf(stderr, "view.delete: %s\n", r->error->message); app->failed = true; }
    g_main_loop_quit(app->loop);
}

static void send_scroll(App *app);

static void on_scrolled(layoutd_client *c, const layoutd_reply *r, void *user)
{
    App *app = user;
    (void)c;
    if (r->error) {
        fprintf(stderr, "view.scroll: %s: %s\n", r->error->name, r->error->message);
        app->failed = true;
        g_main_loop_quit(app->loop);
        return;
    }
    app->last_epoch = (int64_t)layoutd_json_number(layoutd_json_get(r->result, "epoch"), 0);
    if (++app->scrolls < 10) send_scroll(app);
}

static void send_scroll(App *app)
{
    char params[200];
    snprintf(params, sizeof params, "{\"view\":\"%s\",\"offset\":{\"x\":0,\"y\":%d}}", app->view, 150 * (app->scrolls + 1));
    layoutd_error err;
    if (layoutd_send(app->c, LAYOUTD_METHOD_VIEW_SCROLL, params, on_scrolled, app, &err) < 0) {
        fprintf(stderr, "%s\n", err.message);
        app->failed = true;
        g_main_loop_quit(app->loop);
    }
}

/* An idle check, once a frame: every scroll answered and its event applied to the mirror. */
static gboolean frame(gpointer user)
{
    App *app = user;
    if (!app->deleting && app->scrolls == 10 && layoutd_mirror_epoch(app->mirror) == app->last_epoch) {
        char params[100];
        snprintf(params, sizeof params, "{\"view\":\"%s\"}", app->view);
        app->deleting = true;
        layoutd_send(app->c, LAYOUTD_METHOD_VIEW_DELETE, params, on_deleted, app, NULL);
    }
    return G_SOURCE_CONTINUE;
}

static gboolean give_up(gpointer user)
{
    App *app = user;
    fprintf(stderr, "gave up after 10 s\n");
    app->failed = true;
    g_main_loop_quit(app->loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
    App app = {0};
    layoutd_error err;
    app.c = layoutd_client_connect(argc > 1 ? argv[1] : NULL, &err);
    if (!app.c) { fprintf(stderr, "%s: %s\n", err.name, err.message); return 1; }
    snprintf(app.view, sizeof app.view, "glib-demo-%d", (int)getpid());   /* a unique view: re-runs are clean */

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
    app.mirror = layoutd_subscription_mirror(sub);
    layoutd_mirror_set_change_handler(app.mirror, on_change, &app);

    app.loop = g_main_loop_new(NULL, FALSE);
    GSource *src = layoutd_source_new(app.c);
    g_source_attach(src, NULL);
    g_timeout_add(16, frame, &app);
    g_timeout_add(10000, give_up, &app);
    send_scroll(&app);
    g_main_loop_run(app.loop);

    printf("scrolls %d, mirror changes %d, %zu elements in the window\n", app.scrolls, app.changes, layoutd_mirror_count(app.mirror));
    g_source_destroy(src);
    g_source_unref(src);
    g_main_loop_unref(app.loop);
    layoutd_client_close(app.c);   /* frees the subscription too */
    return app.failed || app.scrolls != 10 || app.changes < 10 ? 1 : 0;
}
