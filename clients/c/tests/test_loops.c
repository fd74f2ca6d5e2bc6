/* Runs the main-loop examples (examples/glib_source.c, examples/poll_loop.c) against a fresh
   daemon, each twice (each makes a view of its own and deletes it, so a re-run is clean): each
   must exit 0 having scrolled ten times without blocking and seen the mirror change after
   every scroll, and leave no view behind. usage: test_loops BINARY... */
#include "testutil.h"

/* Blocking calls from inside callbacks while much more is buffered: each event's handler
   makes a blocking call, whose nested dispatch reads ahead while the outer dispatch's line and
   the event's tree still point into the input buffer (the buffer then moves to a new block
   and the old one lives until the outer dispatch returns; ASan checks it). */
typedef struct { int events, nested_ok, replies; } nested_state;

static void on_nested_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    nested_state *st = user;
    st->events++;
    size_t before = strlen(ev->line);
    if (layoutd_sync(c, NULL) == 0 && strlen(ev->line) == before && ev->params && ev->params->type == LAYOUTD_JSON_OBJECT) st->nested_ok++;
}

static void on_nested_reply(layoutd_client *c, const layoutd_reply *r, void *user)
{
    (void)c;
    if (!r->error) ((nested_state *)user)->replies++;
}

static void nested_calls(const char *socket)
{
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(socket, &err);
    CHECK(c != NULL, "connect");
    if (!c) return;
    static layoutd_item items[2000];
    static char ids[2000][16];
    for (int i = 0; i < 2000; i++) { snprintf(ids[i], sizeof ids[i], "n%d", i); items[i] = (layoutd_item){.id = ids[i]}; }
    layoutd_section section = {.id = "s", .item_count = 2000, .items = items};
    layoutd_view_spec spec = {.view = "nested", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":20,\"height\":20}}",
                              .viewport = {.width = 320, .height = 100}, .section_count = 1, .sections = &section};
    nested_state st = {0};
    layoutd_subscription *sub = NULL;
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0 && (sub = layoutd_subscribe(c, "nested", on_nested_event, &st, &err)),
          "setup: %s", err.message);
    const int scrolls = 100; /* under the daemon's 8 MiB output cap, so no event is coalesced into a resync */
    for (int i = 0; i < scrolls; i++) {
        char params[120];
        snprintf(params, sizeof params, "{\"view\":\"nested\",\"offset\":{\"x\":0,\"y\":%d}}", (i % 2) * 1000 + i);
        layoutd_send(c, LAYOUTD_METHOD_VIEW_SCROLL, params, on_nested_reply, &st, NULL);
    }
    double deadline = t_now() + 20;
    while ((st.replies < scrolls || st.events < scrolls) && t_now() < deadline)
        if (layoutd_client_wait(c, 1000, &err) < 0) break;
    CHECK(st.replies == scrolls && st.events == scrolls && st.nested_ok == scrolls,
          "nested blocking calls: %d replies, %d events, %d nested calls ok of %d", st.replies, st.events, st.nested_ok, scrolls);
    CHECK(layoutd_mirror_valid(layoutd_subscription_mirror(sub)) && layoutd_subscription_resyncs(sub) == 0, "the mirror kept up");
    CHECK(layoutd_client_pending_count(c) == 0 && !layoutd_client_has_pending(c), "nothing left");
    layoutd_view_delete(c, "nested", NULL);
    layoutd_client_close(c);
}

int main(int argc, char **argv)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) return 1;
    nested_calls(d.path);
    for (int i = 1; i < argc; i++)
        for (int round = 0; round < 2; round++) {
            char cmd[800];
            snprintf(cmd, sizeof cmd, "LAYOUTD_SOCKET='%s' '%s'", d.path, argv[i]);
            FILE *p = popen(cmd, "r");
            char line[512];
            int changes = 0, scrolls = -1;
            while (p && fgets(line, sizeof line, p)) {
                if (!strncmp(line, "change: ", 8)) changes++;
                if (sscanf(line, "scrolls %d", &scrolls) == 1 && round == 0) fputs(line, stdout);
            }
            int status = p ? pclose(p) : -1;
            CHECK(status == 0, "%s (run %d) exited with %d", argv[i], round + 1, status);
            CHECK(scrolls == 10 && changes >= 10, "%s (run %d): %d scrolls, %d changes", argv[i], round + 1, scrolls, changes);
        }
    layoutd_client *c = layoutd_client_connect(d.path, NULL);
    layoutd_strings views = {0};
    CHECK(c && layoutd_view_list(c, &views, NULL) == 0 && views.count == 0, "no view left behind (%zu)", views.count);
    layoutd_strings_free(&views);
    layoutd_client_close(c);
    td_cleanup(&d);
    return t_report("test_loops");
}
