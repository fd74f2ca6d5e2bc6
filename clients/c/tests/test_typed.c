/* The typed API against a real daemon (README.md §11's worked session and every other method),
   the non-blocking API driven by poll(), errors as structs, and seq/epoch gap handling,
   view.resync and view.deleted against a scripted fake daemon. */
#include "testutil.h"
#include <sys/socket.h>
#include <sys/un.h>

static const char *const abcd[] = {"a", "b", "c", "d"};

static int async_done;
static char async_name[64];
static void on_reply(layoutd_client *c, const layoutd_reply *r, void *user)
{
    (void)c;
    async_done++;
    snprintf(async_name, sizeof async_name, "%s", r->error ? r->error->name : (const char *)user);
}

static void real_daemon(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(d.path, &err);
    layoutd_hello_result h;
    CHECK(layoutd_hello(c, &h, &err) == 0 && h.protocol == 1 && !strcmp(h.server, "layoutd") && h.maximum_line_length == 1048576 &&
          h.maximum_window_elements == 20000, "hello");
    layoutd_hello_free(&h);

    layoutd_item items[4] = {{.id = "a"}, {.id = "b"}, {.id = "c"}, {.id = "d"}};
    layoutd_section sec = {.id = "s", .item_count = 4, .items = items};
    layoutd_view_spec spec = {.view = "photos", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 200}, .section_count = 1, .sections = &sec};
    layoutd_snapshot s;
    CHECK(layoutd_view_create(c, &spec, &s, &err) == 0, "create: %s", err.message);
    CHECK(s.epoch == 0 && s.element_count == 4 && s.elements[3].frame.y == 110 && s.content_size.height == 210 &&
          s.item_count == 4 && !strcmp(s.strategy, "flow") && s.elements[1].frame.x == 110, "snapshot fields");
    layoutd_snapshot_free(&s);
    CHECK(layoutd_view_create(c, &spec, &s, &err) == -1 && !strcmp(err.name, "ViewExists") && err.code == -32002 &&
          !strcmp(err.data, "{\"view\":\"photos\"}"), "ViewExists: %s %s", err.name, err.data);

    layoutd_subscription *sub = layoutd_subscribe(c, "photos", NULL, NULL, &err);
    layoutd_mirror *m = layoutd_subscription_mirror(sub);
    CHECK(sub && layoutd_subscription_id(sub) == 1 && layoutd_mirror_count(m) == 4, "subscribe");
    layoutd_invalidation inv;
    CHECK(layoutd_view_scroll(c, "photos", (layoutd_point){0, 100}, NULL, 0, NULL, &inv, &err) == 0, "scroll");
    CHECK(inv.epoch == 1 && inv.left_count == 3 && !strcmp(inv.left[0].id, "a") && inv.left[2].kind == LAYOUTD_CELL &&
          inv.window.y == 100 && inv.context.content_offset_adjustment.y == 100 && !inv.anchor, "scroll invalidation");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_sync(c, &err) == 0 && layoutd_mirror_epoch(m) == 1 && layoutd_mirror_count(m) == 1, "mirror after scroll");
    layoutd_update del = {.op = "deleteItems", .id_count = 1, .ids = abcd};
    CHECK(layoutd_view_update(c, "photos", 1, &del, NULL, &inv, &err) == 0, "update");
    CHECK(inv.epoch == 2 && inv.entered_count == 2 && inv.changed_count == 1 && !strcmp(inv.anchor, "d") && inv.has_changes &&
          inv.changes.deleted_items.count == 1 && inv.context.data_source_counts && inv.context.content_size_adjustment.height == -110,
          "update invalidation");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_notify(c, "view.select", "{\"view\":\"photos\",\"ids\":[\"b\"]}", &err) == 0, "notify");
    CHECK(layoutd_sync(c, &err) == 0 && layoutd_mirror_epoch(m) == 3 && layoutd_mirror_count(m) == 3, "mirror after the notification");
    const layoutd_attributes *b = layoutd_mirror_find(m, LAYOUTD_CELL, "b");
    CHECK(b && b->item == 0 && b->frame.x == 0, "find b");
    CHECK(layoutd_unsubscribe(c, sub, &err) == 0, "unsubscribe");
    CHECK(layoutd_view_get(c, "albums", &s, &err) == -1 && !strcmp(err.name, "ViewNotFound") && err.code == -32001 &&
          strstr(err.message, "albums") && !strcmp(err.data, "{\"view\":\"albums\"}"), "ViewNotFound");

    /* every other method, typed */
    layoutd_status st;
    CHECK(layoutd_status_get(c, &st, &err) == 0 && st.views == 1 && st.items == 3 && st.connections_open >= 1, "status");
    layoutd_status_free(&st);
    layoutd_result r;
    CHECK(layoutd_describe(c, &r, &err) == 0 && layoutd_json_get(r.json, "methods"), "describe");
    layoutd_result_free(&r);
    CHECK(layoutd_reload(c, &r, &err) == 0 && layoutd_json_get(r.json, "generation"), "reload: %s", err.message);
    layoutd_result_free(&r);
    layoutd_strategy_list sl;
    int flow = 0;
    CHECK(layoutd_strategies(c, &sl, &err) == 0 && sl.count >= 4, "strategy.list");
    for (size_t i = 0; i < sl.count; i++) flow |= !strcmp(sl.names[i], "flow");
    CHECK(flow, "flow is listed");
    layoutd_strategy_list_free(&sl);
    layoutd_strings views;
    CHECK(layoutd_view_list(c, &views, &err) == 0 && views.count == 1 && !strcmp(views.items[0], "photos"), "view.list");
    layoutd_strings_free(&views);
    layoutd_query_result q;
    CHECK(layoutd_view_query(c, "photos", (layoutd_rect){0, 0, 320, 1000}, 2, NULL, &q, &err) == 0 && q.count == 2 && q.has_next &&
          q.selected.count == 1 && !strcmp(q.selected.ids[0], "b"), "query page 1: %s", err.message);
    layoutd_key after = q.next;
    after.id = strdup(after.id);
    layoutd_query_result_free(&q);
    CHECK(layoutd_view_query(c, "photos", (layoutd_rect){0, 0, 320, 1000}, 2, &after, &q, &err) == 0 && q.count == 1 && !q.has_next,
          "query page 2");
    free((char *)after.id);
    layoutd_query_result_free(&q);
    layoutd_element_result e;
    CHECK(layoutd_view_item(c, "photos", "c", &e, &err) == 0 && e.found && e.attributes.frame.x == 110, "item");
    layoutd_element_result_free(&e);
    CHECK(layoutd_view_hit_test(c, "photos", (layoutd_point){115, 5}, NULL, &e, &err) == 0 && e.found && !strcmp(e.attributes.id, "c"),
          "hitTest: %s", err.message);
    layoutd_element_result_free(&e);
    CHECK(layoutd_view_hit_test(c, "photos", (layoutd_point){315, 150}, (const char *const[]){"cell", NULL}, &e, &err) == 0 && !e.found,
          "hitTest miss: %s", err.message);
    layoutd_element_result_free(&e);
    CHECK(layoutd_view_neighbor(c, "photos", "b", "right", &e, &err) == 0 && e.found && !strcmp(e.attributes.id, "c"), "neighbor: %s",
          err.message);
    layoutd_element_result_free(&e);

    layoutd_mutation_options animated = {.animated = true}, stale = {.has_if_epoch = true, .if_epoch = 1},
                             dry = {.dry_run = true};
    layoutd_measurement ms = {"c", {100, 150}};
    CHECK(layoutd_view_measure(c, "photos", 1, &ms, &animated, &inv, &err) == 0 && inv.epoch == 4 && inv.transition &&
          inv.transition->duration > 0 && inv.transition->segment_count > 0, "measure animated: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_select(c, "photos", 1, &abcd[2], "add", &stale, &inv, &err) == -1 && !strcmp(err.name, "StaleEpoch"), "StaleEpoch");
    CHECK(layoutd_view_select(c, "photos", 1, &abcd[2], "add", &dry, &inv, &err) == 0 && inv.dry_run && inv.epoch == 5, "dry run");
    layoutd_invalidation_free(&inv);
    layoutd_point vel = {0, 800};
    CHECK(layoutd_view_scroll(c, "photos", (layoutd_point){0, 10}, &vel, 0, NULL, &inv, &err) == 0 && inv.has_prefetch, "velocity");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_scroll_end(c, "photos", (layoutd_point){0, -40}, NULL, NULL, &inv, &err) == 0 && inv.has_target_content_offset &&
          inv.target_content_offset.y == 0, "scrollEnd");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_scroll_to(c, "photos", "d", NULL, NULL, false, 0, NULL, &inv, &err) == 0 && !strcmp(inv.anchor, "d") &&
          inv.has_needs_measure && !strcmp(inv.anchor_policy, "scrollTo"), "scrollTo: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_resize(c, "photos", (layoutd_size){200, 200}, NULL, &inv, &err) == 0 && inv.context.everything, "resize");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_configure(c, "photos", "{\"minimumLineSpacing\":20}", NULL, &inv, &err) == 0 && inv.context.everything,
          "configure");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_set_strategy(c, "photos", "display", "{\"mode\":\"list\"}", NULL, &inv, &err) == 0, "setStrategy: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_set_window_margin(c, "photos", 100, NULL, &inv, &err) == 0 && inv.window.height == 400, "margin: %g", inv.window.height);
    layoutd_invalidation_free(&inv);
    layoutd_anchor end = {.policy = "end"}, elem = {.id = "c", .edge = "center"};
    CHECK(layoutd_view_set_anchor(c, "photos", &end, NULL, &inv, &err) == 0, "setAnchor: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_set_anchor(c, "photos", &elem, NULL, NULL, &err) == 0, "setAnchor element: %s", err.message);
    CHECK(layoutd_view_set_layout_direction(c, "photos", "rtl", NULL, &inv, &err) == 0, "rtl: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_get(c, "photos", &s, &err) == 0 && s.rtl && s.anchor && !strcmp(s.strategy, "display"), "state");
    layoutd_snapshot_free(&s);
    CHECK(layoutd_view_set_data(c, "photos", 1, &sec, &animated, &inv, &err) == 0 && inv.has_changes && inv.transition, "setData");
    layoutd_invalidation_free(&inv);
    char upload[64];
    int64_t n = 0;
    CHECK(layoutd_stage_begin(c, "photos", NULL, upload, sizeof upload, &err) == 0, "stage.begin: %s", err.message);
    CHECK(layoutd_stage_append(c, upload, 1, &sec, &n, &err) == 0 && n == 4, "stage.append: %s", err.message);
    CHECK(layoutd_stage_commit(c, upload, NULL, &inv, &err) == 0 && inv.has_changes, "stage.commit: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_stage_begin(c, "photos", NULL, upload, sizeof upload, &err) == 0 && layoutd_stage_abort(c, upload, &err) == 0, "abort");
    /* raw API for what is new */
    char *text;
    layoutd_json *tree;
    CHECK(layoutd_call_raw(c, "view.get", "{\"view\":\"photos\"}", &text, &tree, &err) == 0 && !strncmp(text, "{\"view\":\"photos\"", 16) &&
          layoutd_json_get(tree, "elements"), "raw call");
    free(text);
    layoutd_json_free(tree);
    CHECK(layoutd_call_raw(c, "view.nope", NULL, NULL, NULL, &err) == -1 && !strcmp(err.name, "MethodNotFound"), "raw error");
    CHECK(layoutd_call_raw(c, "view.get", "[1]", NULL, NULL, &err) == -1 && err.code == LAYOUTD_ERR_ARGUMENT, "params checked");
    const char bad_utf8[] = {'\xff', 0};
    CHECK(layoutd_view_get(c, bad_utf8, &s, &err) == -1 && err.code == LAYOUTD_ERR_ARGUMENT, "invalid UTF-8 argument refused");

    /* non-blocking: three requests in flight, driven by poll() on the fd */
    async_done = 0;
    layoutd_send(c, "daemon.sync", NULL, on_reply, "sync", &err);
    layoutd_send(c, "view.get", "{\"view\":\"x\"}", on_reply, "get", &err);
    layoutd_send(c, "view.delete", "{\"view\":\"photos\"}", on_reply, "delete", &err);
    double deadline = t_now() + 10;
    while (async_done < 3 && t_now() < deadline) {
        struct pollfd p = {layoutd_client_fd(c), (short)(POLLIN | (layoutd_client_wants_write(c) ? POLLOUT : 0)), 0};
        if (poll(&p, 1, 1000) > 0) CHECK(layoutd_client_dispatch(c, &err) >= 0, "dispatch");
    }
    CHECK(async_done == 3 && !strcmp(async_name, "delete"), "async replies in order: %d %s", async_done, async_name);
    layoutd_client_close(c);
    td_cleanup(&d);
}

/* ---- a scripted fake daemon ---- */

static void put(int fd, const char *s) { if (write(fd, s, strlen(s)) < 0) {} }
static void snap_line(char *out, size_t n, const char *prefix, int64_t epoch, const char *id, const char *suffix)
{
    snprintf(out, n,
             "%s{\"view\":\"v\",\"strategy\":\"flow\",\"params\":{},\"epoch\":%lld,\"viewport\":{\"width\":10,\"height\":10,\"offset\":"
             "{\"x\":0,\"y\":0},\"contentInsets\":{\"top\":0,\"left\":0,\"bottom\":0,\"right\":0}},\"windowMargin\":0,\"window\":{\"x\":0,"
             "\"y\":0,\"width\":10,\"height\":10},\"contentSize\":{\"width\":10,\"height\":10},\"sectionCount\":1,\"itemCount\":1,"
             "\"elements\":[{\"id\":\"%s\",\"kind\":\"cell\",\"section\":0,\"item\":0,\"frame\":{\"x\":0,\"y\":0,\"width\":5,\"height\":5},"
             "\"zIndex\":0,\"alpha\":1,\"hidden\":false}]}%s\n",
             prefix, (long long)epoch, id, suffix);
}

static int read_request(FILE *in, const char *method, int *id)
{
    char line[4096];
    if (!fgets(line, sizeof line, in)) return -1;
    char want[80];
    snprintf(want, sizeof want, "\"method\":\"%s\"", method);
    if (!strstr(line, want)) { fprintf(stderr, "fake daemon: expected %s, got %s", method, line); return -1; }
    *id = atoi(strstr(line, "\"id\":") + 5);
    return 0;
}

static void fake_daemon(int listener)
{
    int fd = accept(listener, NULL, NULL);
    FILE *in = fdopen(dup(fd), "r");
    char buf[4096], pre[64];
    int id;
    const char *inv = "{\"event\":\"view.invalidated\",\"subscription\":%d,\"seq\":%d,\"params\":{\"view\":\"v\",\"epoch\":%d,"
                      "\"contentSize\":{\"width\":10,\"height\":10},\"contentOffset\":{\"x\":0,\"y\":0},\"context\":{\"everything\":false,"
                      "\"dataSourceCounts\":false,\"invalidated\":[],\"contentSizeAdjustment\":{\"width\":0,\"height\":0},"
                      "\"contentOffsetAdjustment\":{\"x\":0,\"y\":0}},\"window\":{\"x\":0,\"y\":0,\"width\":10,\"height\":10},"
                      "\"entered\":[{\"id\":\"%s\",\"kind\":\"cell\",\"section\":0,\"item\":1,\"frame\":{\"x\":5,\"y\":0,\"width\":5,"
                      "\"height\":5},\"zIndex\":0,\"alpha\":1,\"hidden\":false}],\"changed\":[],\"left\":[]}}\n";
    if (read_request(in, "view.subscribe", &id)) _exit(1);
    snprintf(pre, sizeof pre, "{\"id\":%d,\"result\":{\"subscription\":1,\"snapshot\":", id);
    snap_line(buf, sizeof buf, pre, 0, "a", "}}");
    put(fd, buf);
    snprintf(buf, sizeof buf, inv, 1, 1, 1, "b");   /* seq 1, epoch 1: applied */
    put(fd, buf);
    snprintf(buf, sizeof buf, inv, 1, 3, 2, "c");   /* seq 3: a gap -> re-subscribe */
    put(fd, buf);
    if (read_request(in, "view.subscribe", &id)) _exit(1);
    snprintf(pre, sizeof pre, "{\"id\":%d,\"result\":{\"subscription\":2,\"snapshot\":", id);
    snap_line(buf, sizeof buf, pre, 5, "e", "}}");
    put(fd, buf);
    if (read_request(in, "view.unsubscribe", &id)) _exit(1);
    snprintf(buf, sizeof buf, "{\"id\":%d,\"result\":{}}\n", id);
    put(fd, buf);
    snap_line(buf, sizeof buf, "{\"event\":\"view.resync\",\"subscription\":2,\"seq\":4,\"params\":{\"view\":\"v\",\"skipped\":3,\"snapshot\":",
              9, "r", "}}");
    put(fd, buf);
    put(fd, "{\"event\":\"view.future\",\"subscription\":2,\"seq\":5,\"params\":{}}\n");  /* unknown: ignored */
    snprintf(buf, sizeof buf, inv, 2, 6, 20, "x");  /* epoch 20 after 9: re-subscribe */
    put(fd, buf);
    if (read_request(in, "view.subscribe", &id)) _exit(1);
    snprintf(pre, sizeof pre, "{\"id\":%d,\"result\":{\"subscription\":3,\"snapshot\":", id);
    snap_line(buf, sizeof buf, pre, 21, "z", "}}");
    put(fd, buf);
    if (read_request(in, "view.unsubscribe", &id)) _exit(1);
    snprintf(buf, sizeof buf, "{\"id\":%d,\"result\":{}}\n", id);
    put(fd, buf);
    put(fd, "{\"event\":\"view.deleted\",\"subscription\":3,\"seq\":7,\"params\":{\"view\":\"v\"}}\n");
    put(fd, "{\"event\":\"daemon.shutdown\",\"seq\":8,\"params\":{\"reason\":\"SIGTERM\",\"deadline\":5}}\n");
    shutdown(fd, SHUT_WR);
    while (fgets(buf, sizeof buf, in)) {}
    _exit(0);
}

typedef struct { int64_t seq, epoch, id; size_t count; char name[32]; } seen;
static seen seen_events[16];
static int nseen;
static void on_fake_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    (void)c;
    (void)user;
    if (nseen == 16) return;
    layoutd_mirror *m = layoutd_subscription_mirror(ev->sub);
    seen_events[nseen++] = (seen){ev->seq, layoutd_mirror_epoch(m), layoutd_subscription_id(ev->sub), layoutd_mirror_count(m), ""};
    snprintf(seen_events[nseen - 1].name, sizeof seen_events[0].name, "%s", ev->name);
}

static int64_t mirror_epoch(layoutd_subscription *s) { return layoutd_mirror_epoch(layoutd_subscription_mirror(s)); }

static void wait_for(layoutd_client *c, layoutd_subscription *s, int64_t epoch)
{
    double deadline = t_now() + 10;
    while (mirror_epoch(s) != epoch && t_now() < deadline && layoutd_client_connected(c)) layoutd_client_wait(c, 500, NULL);
}

static void fake(void)
{
    char dir[] = "/tmp/layoutd-c-fake-XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/ipc.sock", dir);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) { perror("bind"); return; }
    pid_t pid = fork();
    if (pid == 0) fake_daemon(l);
    close(l);
    layoutd_error err;
    setenv("LAYOUTD_SOCKET", path, 1); /* discovery through the environment */
    layoutd_client *c = layoutd_client_connect(NULL, &err);
    unsetenv("LAYOUTD_SOCKET");
    CHECK(c && !strcmp(layoutd_client_path(c), path), "connect by LAYOUTD_SOCKET");
    layoutd_subscription *s = layoutd_subscribe(c, "v", on_fake_event, NULL, &err);
    CHECK(s != NULL, "fake subscribe: %s", err.message);
    if (!s) return;
    wait_for(c, s, 21);
    CHECK(mirror_epoch(s) == 21 && layoutd_subscription_id(s) == 3 && layoutd_mirror_find(layoutd_subscription_mirror(s), LAYOUTD_CELL, "z"),
          "epoch gap: re-subscribed");
    /* what the subscription's callback saw, event by event (seq 3 came while re-subscribing: not delivered) */
    CHECK(nseen >= 4, "events seen: %d", nseen);
    CHECK(seen_events[0].seq == 1 && seen_events[0].epoch == 1 && seen_events[0].count == 2 && seen_events[0].id == 1, "seq 1 applied");
    CHECK(seen_events[1].seq == 4 && !strcmp(seen_events[1].name, "view.resync") && seen_events[1].id == 2 && seen_events[1].epoch == 9 &&
          seen_events[1].count == 1, "after the seq gap: re-subscribed as 2, then view.resync replaced the mirror");
    CHECK(seen_events[2].seq == 5 && !strcmp(seen_events[2].name, "view.future") && seen_events[2].epoch == 9, "unknown event ignored");
    CHECK(seen_events[3].seq == 6 && seen_events[3].epoch == 9, "epoch 20 after 9 not applied");
    double deadline = t_now() + 10;
    while (layoutd_client_connected(c) && t_now() < deadline) layoutd_client_wait(c, 500, NULL);
    CHECK(!layoutd_subscription_active(s) && !layoutd_mirror_valid(layoutd_subscription_mirror(s)), "view.deleted ended it");
    CHECK(nseen == 5 && seen_events[4].seq == 7 && !strcmp(seen_events[4].name, "view.deleted"), "view.deleted delivered");
    CHECK(layoutd_client_shutting_down(c), "daemon.shutdown seen");
    CHECK(layoutd_subscription_resyncs(s) == 3, "three resyncs: %llu", (unsigned long long)layoutd_subscription_resyncs(s));
    CHECK(layoutd_sync(c, &err) == -1 && err.code == LAYOUTD_ERR_CLOSED, "closed: %s", err.name);
    layoutd_client_close(c);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fake daemon saw the requests it expected");
    unlink(path);
    rmdir(dir);
}

/* A subscriber that does not read while 3000 scrolls are applied falls behind the output cap:
   the daemon coalesces its events into one view.resync, which replaces the mirror. */
static int resync_events, invalidated_events;
static void count_events(layoutd_client *c, const layoutd_event *ev, void *user)
{
    (void)c;
    (void)user;
    resync_events += !strcmp(ev->name, "view.resync");
    invalidated_events += !strcmp(ev->name, "view.invalidated");
}

static void real_resync(void)
{
    td_daemon d = {0};
    const char *const flags[] = {"--set", "output-cap=4096", NULL};
    if (td_start(&d, flags)) { CHECK(0, "daemon"); return; }
    layoutd_error err;
    layoutd_client *driver = layoutd_client_connect(d.path, &err), *sub_c = layoutd_client_connect(d.path, &err);
    layoutd_item items[4] = {{.id = "a"}, {.id = "b"}, {.id = "c"}, {.id = "d"}};
    layoutd_section sec = {.id = "s", .item_count = 4, .items = items};
    layoutd_view_spec spec = {.view = "photos", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 200}, .section_count = 1, .sections = &sec};
    CHECK(layoutd_view_create(driver, &spec, NULL, &err) == 0, "create");
    layoutd_subscription *s = layoutd_subscribe(sub_c, "photos", count_events, NULL, &err);
    CHECK(s != NULL, "subscribe");
    char params[128];
    for (int i = 0; i < 3000; i++) {
        snprintf(params, sizeof params, "{\"view\":\"photos\",\"offset\":{\"x\":0,\"y\":%d}}", i % 100);
        if (layoutd_notify(driver, "view.scroll", params, &err)) break;
        if (i % 100 == 99) layoutd_sync(driver, &err); /* keeps the driver's own output flowing */
    }
    CHECK(layoutd_sync(driver, &err) == 0, "driver sync");
    /* now the subscriber reads everything: events, then the resync */
    CHECK(layoutd_sync(sub_c, &err) == 0, "subscriber sync: %s", err.message);
    layoutd_snapshot snap;
    CHECK(layoutd_view_get(sub_c, "photos", &snap, &err) == 0 && snap.epoch == 3000, "view at epoch 3000");
    layoutd_mirror *m = layoutd_subscription_mirror(s);
    CHECK(resync_events >= 1 && layoutd_subscription_resyncs(s) == (uint64_t)resync_events && invalidated_events < 3000,
          "view.resync arrived (%d, with %d events; %llu resyncs: none from a gap)", resync_events, invalidated_events,
          (unsigned long long)layoutd_subscription_resyncs(s));
    CHECK(layoutd_mirror_epoch(m) == snap.epoch && layoutd_mirror_equals(m, snap.element_count, snap.elements), "mirror after the resync");
    layoutd_snapshot_free(&snap);
    layoutd_client_close(driver);
    layoutd_client_close(sub_c);
    td_cleanup(&d);
}

/* Named kinds: interned values, names back, the protocol's order; then a compositional view
   whose items carry badges and whose sections have backgrounds and legends, mirrored. */
static void named_kinds(void)
{
    layoutd_kind badge = layoutd_kind_named("badge"), background = layoutd_kind_named("background");
    CHECK((int)badge > LAYOUTD_KIND_UNKNOWN && (int)background > LAYOUTD_KIND_UNKNOWN && badge != background, "distinct named kinds");
    CHECK(layoutd_kind_named("badge") == badge && !strcmp(layoutd_kind_name(badge), "badge") &&
          !strcmp(layoutd_kind_name(background), "background"), "stable values, names back");
    CHECK(layoutd_kind_named("header") == LAYOUTD_HEADER && layoutd_kind_named("cell") == LAYOUTD_CELL &&
          layoutd_kind_named("not a kind") == LAYOUTD_KIND_UNKNOWN && layoutd_kind_named("") == LAYOUTD_KIND_UNKNOWN &&
          !strcmp(layoutd_kind_name((layoutd_kind)9999), "unknown"), "constants and refusals");
    CHECK(layoutd_kind_compare(LAYOUTD_CELL, LAYOUTD_FOOTER) < 0 && layoutd_kind_compare(LAYOUTD_FOOTER, background) < 0 &&
          layoutd_kind_compare(background, badge) < 0 && layoutd_kind_compare(badge, background) > 0 &&
          layoutd_kind_compare(badge, LAYOUTD_KIND_UNKNOWN) < 0 && layoutd_kind_compare(badge, badge) == 0, "protocol order");

    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(d.path, &err);
    layoutd_item items[3] = {{.id = "a"}, {.id = "b"}, {.id = "c"}};
    layoutd_section secs[2] = {{.id = "s", .item_count = 2, .items = items}, {.id = "t", .item_count = 1, .items = items + 2}};
    const char *params =
        "{\"section\":{\"group\":{\"direction\":\"horizontal\",\"size\":{\"width\":{\"fractionalWidth\":1},\"height\":{\"absolute\":50}},"
        "\"subitems\":[{\"size\":{\"width\":{\"absolute\":50},\"height\":{\"absolute\":50}},\"supplementaryItems\":[{\"size\":"
        "{\"width\":{\"absolute\":10},\"height\":{\"absolute\":10}},\"containerAnchor\":{\"edges\":[\"top\",\"trailing\"]}}]}]},"
        "\"decorationItems\":[{}],\"boundarySupplementaryItems\":[{\"kind\":\"legend\",\"size\":{\"width\":{\"fractionalWidth\":1},"
        "\"height\":{\"absolute\":20}},\"alignment\":\"bottom\"}]}}";
    layoutd_view_spec spec = {.view = "store", .strategy = "compositional", .params_json = params,
                              .viewport = {.width = 320, .height = 400}, .section_count = 2, .sections = secs};
    layoutd_snapshot s;
    CHECK(layoutd_view_create(c, &spec, &s, &err) == 0, "create compositional: %s", err.message);
    /* 3 cells, 3 badges (keyed by item id), 2 backgrounds and 2 legends (by section id). */
    CHECK(s.element_count == 10, "elements: %zu", s.element_count);
    layoutd_mirror *m = layoutd_mirror_new();
    layoutd_mirror_reset(m, &s);
    layoutd_kind legend = layoutd_kind_named("legend");
    const layoutd_attributes *cell = layoutd_mirror_find(m, LAYOUTD_CELL, "a"), *mark = layoutd_mirror_find(m, badge, "a");
    const layoutd_attributes *back = layoutd_mirror_find(m, background, "s"), *foot = layoutd_mirror_find(m, legend, "s");
    CHECK(layoutd_mirror_count(m) == 10 && cell && mark && back && foot && mark->frame.x == 40 && mark->frame.width == 10 &&
          back->z_index == -1 && foot->frame.y == 50 && foot->frame.height == 20, "badge, background and legend apart in the mirror");
    /* The mirror's order is the protocol's: cells, then named kinds by name (background, badge, legend). */
    const layoutd_attributes *first = layoutd_mirror_at(m, 0), *fourth = layoutd_mirror_at(m, 3), *last = layoutd_mirror_at(m, 9);
    CHECK(first && first->kind == LAYOUTD_CELL && fourth && fourth->kind == background && last && last->kind == legend, "order");
    CHECK(layoutd_mirror_equals(m, s.element_count, s.elements), "mirror equals the snapshot's sorted elements");
    layoutd_mirror_free(m);
    layoutd_snapshot_free(&s);
    layoutd_client_close(c);
    td_cleanup(&d);
}

int main(void)
{
    named_kinds();
    real_daemon();
    real_resync();
    fake();
    return t_report("test_typed");
}
