/* The typed API against a real daemon (README.md §11's worked session and every other method;
   the orthogonal section scrolls, interactive moves and interactive transitions),
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
    /* export in parts of 2, import under another name: the same view at the same epoch */
    layoutd_snapshot before, copied;
    CHECK(layoutd_view_get(c, "photos", &before, &err) == 0, "get before export");
    layoutd_export_part parts[16];
    size_t part_count = 0;
    const char *cursor = NULL;
    do {
        CHECK(layoutd_view_export(c, "photos", cursor, 2, &parts[part_count], &err) == 0, "export: %s", err.message);
        CHECK(parts[part_count].part == (int64_t)part_count + 1 && parts[part_count].epoch == before.epoch, "part %zu", part_count + 1);
        cursor = parts[part_count++].next;
    } while (cursor && part_count < 16);
    CHECK(part_count >= 2 && !cursor, "4 items in parts of 2: %zu parts", part_count);
    layoutd_import_result imported;
    CHECK(layoutd_view_import(c, "photos-copy", NULL, parts[0].json, &imported, &err) == 0 && imported.part == 1 && imported.import_id[0],
          "import part 1: %s", err.message);
    for (size_t i = 1; i < part_count; i++) {
        char id[64];
        strcpy(id, imported.import_id);
        CHECK(layoutd_view_import(c, NULL, id, parts[i].json, &imported, &err) == 0, "import part %zu: %s", i + 1, err.message);
    }
    CHECK(imported.created && imported.epoch == before.epoch && !imported.import_id[0], "the last part creates the view at the export's epoch");
    CHECK(layoutd_view_get(c, "photos-copy", &copied, &err) == 0 && copied.element_count == before.element_count && copied.epoch == before.epoch,
          "the copy's window");
    for (size_t i = 0; i < copied.element_count && i < before.element_count; i++) {
        CHECK(!strcmp(copied.elements[i].id, before.elements[i].id) && copied.elements[i].frame.y == before.elements[i].frame.y,
              "element %zu equal", i);
    }
    layoutd_snapshot_free(&before);
    layoutd_snapshot_free(&copied);
    CHECK(layoutd_view_import(c, "bad", NULL, "{\"format\":\"layoutd.view\",\"version\":2}", NULL, &err) == -1 &&
          !strcmp(err.name, "UnsupportedExportVersion"), "another version is refused by name: %s", err.name);
    CHECK(layoutd_view_import(c, "bad", NULL, "{\"a\":1}\n{", NULL, &err) == -1 && err.code == LAYOUTD_ERR_ARGUMENT, "a blob that is not one object");
    CHECK(layoutd_view_import(c, "bad", "i1", parts[0].json, NULL, &err) == -1 && err.code == LAYOUTD_ERR_ARGUMENT, "view and import_id both");
    for (size_t i = 0; i < part_count; i++) layoutd_export_part_free(&parts[i]);
    CHECK(layoutd_view_delete(c, "photos-copy", &err) == 0, "delete the copy");
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

/* ---- the section scrolls, interactive moves and interactive transitions ---- */

static layoutd_client *connect_to(td_daemon *d)
{
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(d->path, &err);
    CHECK(c != NULL, "connect: %s", err.message);
    return c;
}

/* A compositional view whose first section scrolls across on its own (groupPaging), as
   protocol/examples/orthogonal-sections.jsonl: scrollSection, scrollSectionEnd (a fling, a dry
   run), and the refusals. */
static void section_scrolls(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_client *c = connect_to(&d);
    if (!c) { td_cleanup(&d); return; }
    layoutd_error err;
    layoutd_item featured[5] = {{.id = "a"}, {.id = "b"}, {.id = "c"}, {.id = "d"}, {.id = "e"}}, rows[2] = {{.id = "r0"}, {.id = "r1"}};
    layoutd_section secs[2] = {{.id = "featured", .item_count = 5, .items = featured}, {.id = "rows", .item_count = 2, .items = rows}};
    const char *params =
        "{\"section\":{\"list\":{\"appearance\":\"plain\"}},\"sections\":{\"featured\":{\"group\":{\"direction\":\"horizontal\","
        "\"size\":{\"width\":{\"absolute\":150},\"height\":{\"absolute\":100}},\"subitems\":[{\"size\":{\"width\":{\"fractionalWidth\":1},"
        "\"height\":{\"fractionalHeight\":1}},\"supplementaryItems\":[{\"kind\":\"badge\",\"size\":{\"width\":{\"absolute\":20},"
        "\"height\":{\"absolute\":20}},\"containerAnchor\":{\"edges\":[\"top\",\"trailing\"],\"fractionalOffset\":{\"x\":0.3,\"y\":-0.3}}}]}]},"
        "\"interGroupSpacing\":10,\"contentInsets\":{\"leading\":16,\"trailing\":16},\"orthogonalScrollingBehavior\":\"groupPaging\","
        "\"boundarySupplementaryItems\":[{\"kind\":\"header\",\"size\":{\"width\":{\"fractionalWidth\":1},\"height\":{\"absolute\":30}},"
        "\"alignment\":\"top\"}],\"decorationItems\":[{\"kind\":\"background\"}]}}}";
    layoutd_view_spec spec = {.view = "store", .strategy = "compositional", .params_json = params,
                              .viewport = {.width = 375, .height = 400}, .section_count = 2, .sections = secs};
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0, "create the store: %s", err.message);
    layoutd_subscription *sub = layoutd_subscribe(c, "store", NULL, NULL, &err);
    CHECK(sub != NULL, "subscribe: %s", err.message);

    layoutd_invalidation inv;
    layoutd_section_scroll section;
    CHECK(layoutd_view_scroll_section(c, "store", "featured", 100, NULL, &inv, &err) == 0, "scrollSection: %s", err.message);
    CHECK(inv.epoch == 1 && layoutd_invalidation_section(&inv, &section) == 1 && !strcmp(section.id, "featured") &&
          section.offset == 100 && section.maximum_offset == 447 && !strcmp(section.behavior, "groupPaging"),
          "the section at 100 of 447, groupPaging");
    const layoutd_attributes *a = NULL;
    for (size_t i = 0; i < inv.changed_count; i++)
        if (inv.changed[i].kind == LAYOUTD_CELL && !strcmp(inv.changed[i].id, "a")) a = &inv.changed[i];
    CHECK(a && a->frame.x == -84, "cell a moved 100 to the left: %g", a ? a->frame.x : 0);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_sync(c, &err) == 0, "sync");
    layoutd_mirror *m = sub ? layoutd_subscription_mirror(sub) : NULL;
    a = m ? layoutd_mirror_find(m, LAYOUTD_CELL, "a") : NULL;
    CHECK(m && layoutd_mirror_epoch(m) == 1 && a && a->frame.x == -84, "the mirror followed");

    double proposed = 130;
    CHECK(layoutd_view_scroll_section_end(c, "store", "featured", &proposed, 800, NULL, &inv, &err) == 0, "scrollSectionEnd: %s", err.message);
    CHECK(inv.epoch == 2 && layoutd_invalidation_section(&inv, &section) == 1 && section.offset == 160, "a fling rests on a page: %g",
          section.offset);
    layoutd_invalidation_free(&inv);
    layoutd_mutation_options dry = {.dry_run = true};
    CHECK(layoutd_view_scroll_section_end(c, "store", "featured", NULL, -800, &dry, &inv, &err) == 0 && inv.dry_run && inv.epoch == 3 &&
          layoutd_invalidation_section(&inv, &section) == 1 && section.offset == 0, "a dry run back to the start");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_scroll_section(c, "store", "rows", 10, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_SECTION_NOT_ORTHOGONAL) &&
          err.code == LAYOUTD_CODE_SECTION_NOT_ORTHOGONAL && !strcmp(err.data, "{\"id\":\"rows\"}"), "SectionNotOrthogonal: %s", err.name);
    CHECK(layoutd_view_scroll_section(c, "store", "nope", 10, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_SECTION_NOT_FOUND),
          "SectionNotFound: %s", err.name);
    layoutd_mutation_options stale = {.has_if_epoch = true, .if_epoch = 0};
    CHECK(layoutd_view_scroll_section(c, "store", "featured", 10, &stale, NULL, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_STALE_EPOCH),
          "ifEpoch: %s", err.name);
    /* an invalidation of another method has no section */
    CHECK(layoutd_view_scroll(c, "store", (layoutd_point){0, 10}, NULL, 0, NULL, &inv, &err) == 0 &&
          layoutd_invalidation_section(&inv, &section) == 0 && section.id == NULL, "no section in a scroll");
    layoutd_invalidation_free(&inv);
    layoutd_client_close(c);
    td_cleanup(&d);
}

static layoutd_item board_items[12];
static char board_ids[12][16];

static layoutd_section board(void)
{
    for (int i = 0; i < 12; i++) {
        snprintf(board_ids[i], sizeof board_ids[i], "p%d", i);
        board_items[i] = (layoutd_item){.id = board_ids[i]};
    }
    return (layoutd_section){.id = "s", .item_count = 12, .items = board_items};
}

/* A flow board of 12 cells, three a row, as protocol/examples/move.jsonl: p0 dragged to the
   bottom edge (auto-scroll), scrolled under the finger, dropped; p5 picked up and put back. The
   subscriber's mirror follows the dragged item. Then a collapsible stack moving as one. */
static void moves(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_client *c = connect_to(&d);
    if (!c) { td_cleanup(&d); return; }
    layoutd_error err;
    layoutd_section sec = board();
    layoutd_view_spec spec = {.view = "board", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 240}, .section_count = 1, .sections = &sec};
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0, "create the board: %s", err.message);
    layoutd_subscription *sub = layoutd_subscribe(c, "board", NULL, NULL, &err);
    layoutd_mirror *m = sub ? layoutd_subscription_mirror(sub) : NULL;
    CHECK(m != NULL, "subscribe: %s", err.message);

    layoutd_invalidation inv;
    layoutd_move_state move;
    CHECK(layoutd_view_update_move(c, "board", (layoutd_point){160, 120}, NULL, &inv, &err) == -1 &&
          !strcmp(err.name, LAYOUTD_ERROR_NO_ACTIVE_MOVE) && err.code == LAYOUTD_CODE_NO_ACTIVE_MOVE, "no move yet: %s", err.name);
    CHECK(layoutd_view_begin_move(c, "board", "p0", NULL, NULL, &inv, &err) == 0, "beginMove: %s", err.message);
    CHECK(inv.epoch == 1 && layoutd_invalidation_move(&inv, &move) == 1 && move.moving && !strcmp(move.id, "p0") &&
          move.target_section == 0 && move.target_item == 0 && move.auto_scroll.y == 0 && move.moving_items.count == 0 && !move.ended,
          "p0 picked up where it is");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_begin_move(c, "board", "p1", NULL, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_MOVE_IN_PROGRESS) &&
          !strcmp(err.data, "{\"id\":\"p0\"}"), "one move at a time: %s", err.name);
    CHECK(layoutd_view_update_move(c, "board", (layoutd_point){180, 225}, NULL, &inv, &err) == 0 &&
          layoutd_invalidation_move(&inv, &move) == 1 && move.target_item == 6 && move.auto_scroll.x == 0 && move.auto_scroll.y == 750,
          "at the bottom edge: target 6, auto-scroll 750: %s", err.message);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_sync(c, &err) == 0, "sync");
    const layoutd_attributes *p0 = layoutd_mirror_find(m, LAYOUTD_CELL, "p0");
    CHECK(layoutd_mirror_epoch(m) == 2 && p0 && p0->frame.x == 130 && p0->frame.y == 175 && p0->item == 6,
          "the mirror holds p0 under the finger");
    /* the client scrolls by the auto-scroll; the item rides along under the still finger */
    CHECK(layoutd_view_scroll(c, "board", (layoutd_point){0, 190}, NULL, 0, NULL, &inv, &err) == 0 &&
          layoutd_invalidation_move(&inv, &move) == 1 && move.moving && move.target_item == 10 && move.auto_scroll.y == 0,
          "a scroll under the finger re-targets: %lld", (long long)move.target_item);
    layoutd_invalidation_free(&inv);
    layoutd_mutation_options dry = {.dry_run = true};
    CHECK(layoutd_view_end_move(c, "board", true, &dry, &inv, &err) == 0 && inv.dry_run && layoutd_invalidation_move(&inv, &move) == 1 &&
          move.ended && !move.moving, "a dry-run drop changes nothing");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_end_move(c, "board", true, NULL, &inv, &err) == 0, "endMove: %s", err.message);
    CHECK(layoutd_invalidation_move(&inv, &move) == 1 && !move.moving && move.ended && !strcmp(move.ended_id, "p0") &&
          !strcmp(move.end_reason, "committed") && inv.transition && inv.transition->segment_count > 0 && inv.has_changes &&
          inv.changes.moved_items.count == 1 && !strcmp(inv.changes.moved_items.ids[0], "p0"), "dropped at 10, animated into place");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_end_move(c, "board", true, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_NO_ACTIVE_MOVE), "ended");
    CHECK(layoutd_view_begin_move(c, "board", "nope", NULL, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_ITEM_NOT_FOUND),
          "ItemNotFound: %s", err.name);
    layoutd_point finger = {20, 60};
    CHECK(layoutd_view_begin_move(c, "board", "p5", &finger, NULL, &inv, &err) == 0 && layoutd_invalidation_move(&inv, &move) == 1 &&
          move.moving && !strcmp(move.id, "p5") && move.target_item == 5, "picked up at a point: %lld", (long long)move.target_item);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_end_move(c, "board", false, NULL, &inv, &err) == 0 && layoutd_invalidation_move(&inv, &move) == 1 &&
          !strcmp(move.end_reason, "cancelled") && inv.transition && !inv.has_changes, "put back");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_sync(c, &err) == 0, "sync");
    layoutd_snapshot s;
    CHECK(layoutd_view_get(c, "board", &s, &err) == 0 && layoutd_mirror_epoch(m) == s.epoch &&
          layoutd_mirror_equals(m, s.element_count, s.elements), "the mirror equals the view after the moves");
    layoutd_snapshot_free(&s);

    /* collapsible, collapsed: a selected run of items is a stack and moves as one */
    layoutd_view_spec stacks = {.view = "stacks", .strategy = "collapsible",
                                .params_json = "{\"itemSize\":{\"width\":100,\"height\":100},\"itemSpacing\":10,\"rowSpacing\":10,\"collapsed\":true}",
                                .viewport = {.width = 320, .height = 330}, .section_count = 1, .sections = &sec};
    const char *const run[] = {"p2", "p3", "p4"};
    CHECK(layoutd_view_create(c, &stacks, NULL, &err) == 0 && layoutd_view_select(c, "stacks", 3, run, NULL, NULL, NULL, &err) == 0,
          "a stack: %s", err.message);
    CHECK(layoutd_view_begin_move(c, "stacks", "p3", NULL, NULL, &inv, &err) == 0 && layoutd_invalidation_move(&inv, &move) == 1 &&
          move.moving_items.count == 3 && !strcmp(move.moving_items.ids[0], "p2") && !strcmp(move.moving_items.ids[2], "p4") &&
          move.target_item == 2, "the stack moves as one: %zu", move.moving_items.count);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_begin_transition(c, "stacks", NULL, "{\"collapsed\":false}", NULL, NULL, NULL, &err) == -1 &&
          !strcmp(err.name, LAYOUTD_ERROR_MOVE_IN_PROGRESS), "one gesture at a time: %s", err.name);
    layoutd_client_close(c);
    td_cleanup(&d);
}

/* A flow view of 9 cells switched to display's list interactively, as
   protocol/examples/transition.jsonl: the pairs, scrubbing, a scroll re-planning the
   transition, commit; then a revert from a quarter of the way. */
static void transitions(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_client *c = connect_to(&d);
    if (!c) { td_cleanup(&d); return; }
    layoutd_error err;
    layoutd_item items[9];
    static const char *const nine[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    for (int i = 0; i < 9; i++) items[i] = (layoutd_item){.id = nine[i]};
    layoutd_section sec = {.id = "s", .item_count = 9, .items = items};
    layoutd_view_spec spec = {.view = "photos", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 200}, .section_count = 1, .sections = &sec};
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0, "create: %s", err.message);
    layoutd_subscription *sub = layoutd_subscribe(c, "photos", NULL, NULL, &err);
    layoutd_mirror *m = sub ? layoutd_subscription_mirror(sub) : NULL;
    CHECK(m != NULL, "subscribe: %s", err.message);

    layoutd_interactive_transition tr;
    layoutd_transition_update_result up;
    layoutd_invalidation inv;
    CHECK(layoutd_view_update_transition(c, "photos", 0.5, &up, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_NO_ACTIVE_TRANSITION) &&
          err.code == LAYOUTD_CODE_NO_ACTIVE_TRANSITION, "none yet: %s", err.name);
    CHECK(layoutd_view_begin_transition(c, "photos", "nope", NULL, NULL, NULL, &tr, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_UNKNOWN_STRATEGY),
          "UnknownStrategy: %s", err.name);
    CHECK(layoutd_view_begin_transition(c, "photos", NULL, NULL, NULL, NULL, &tr, &err) == -1 && err.code == LAYOUTD_ERR_ARGUMENT,
          "neither strategy nor params: refused before sending");
    CHECK(layoutd_view_begin_transition(c, "photos", "display", "{\"mode\":\"list\",\"rowHeight\":50}", NULL, NULL, &tr, &err) == 0,
          "beginTransition: %s", err.message);
    CHECK(!strcmp(tr.view, "photos") && tr.epoch == 0 && !strcmp(tr.strategy, "display") && tr.progress == 0 && tr.duration == 0.3 &&
          tr.content_size_from.height == 320 && tr.content_size_to.height == 530 && tr.content_offset_to.y == 0 && tr.left_count == 0,
          "the transition: %s %g %g", tr.strategy, tr.duration, tr.content_size_to.height);
    CHECK(tr.pair_count >= 6 && tr.pairs[0].kind == LAYOUTD_CELL && !strcmp(tr.pairs[0].id, "a") && tr.pairs[0].from.frame.width == 100 &&
          tr.pairs[0].to.frame.width == 320 && tr.pairs[0].to.frame.height == 50 && !strcmp(tr.pairs[1].id, "b") &&
          tr.pairs[1].to.frame.y == 60, "the pairs: %zu", tr.pair_count);
    layoutd_interactive_transition_free(&tr);
    CHECK(tr.pairs == NULL && tr.arena_ == NULL, "freed");
    CHECK(layoutd_view_begin_transition(c, "photos", NULL, "{\"minimumLineSpacing\":30}", NULL, NULL, NULL, &err) == -1 &&
          !strcmp(err.name, LAYOUTD_ERROR_TRANSITION_IN_PROGRESS), "one at a time: %s", err.name);
    CHECK(layoutd_view_update_transition(c, "photos", 0.5, &up, &err) == 0 && !strcmp(up.view, "photos") && up.progress == 0.5 &&
          up.content_size.height == 425 && up.element_count >= 6 && !strcmp(up.elements[0].id, "a") && up.elements[0].frame.width == 210 &&
          up.elements[0].frame.height == 75 && up.elements[1].frame.x == 55, "halfway: %s", err.message);
    layoutd_transition_update_result_free(&up);
    CHECK(layoutd_view_update_transition(c, "photos", 1.5, &up, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_INVALID_PARAMETER) &&
          strstr(err.data, "progress"), "progress past 1: %s", err.name);
    /* a scroll during the transition re-plans it: the invalidation carries interactiveTransition */
    CHECK(layoutd_view_scroll(c, "photos", (layoutd_point){0, 60}, NULL, 0, NULL, &inv, &err) == 0, "scroll: %s", err.message);
    const layoutd_json *replan = layoutd_json_get(inv.json, "interactiveTransition");
    CHECK(replan && layoutd_interactive_transition_from_json(replan, &tr, &err) == 0 && !tr.view && !strcmp(tr.strategy, "display") &&
          tr.progress == 0.5 && tr.content_offset_from.y == 60 && tr.pair_count > 0 && tr.element_count == tr.pair_count,
          "the re-plan: %zu pairs, %zu elements", tr.pair_count, tr.element_count);
    layoutd_interactive_transition_free(&tr);
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_end_transition(c, "photos", true, NULL, &inv, &err) == 0, "endTransition: %s", err.message);
    CHECK(inv.epoch == 2 && inv.context.everything && inv.transition && inv.transition->segment_count > 0 && inv.content_size.height == 530,
          "committed, animated from the progress");
    layoutd_invalidation_free(&inv);
    CHECK(layoutd_view_end_transition(c, "photos", true, NULL, &inv, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_NO_ACTIVE_TRANSITION),
          "ended: %s", err.name);
    layoutd_snapshot s;
    CHECK(layoutd_view_get(c, "photos", &s, &err) == 0 && !strcmp(s.strategy, "display"), "the view is display's now");
    layoutd_snapshot_free(&s);

    /* revert from a quarter of the way: 0.3 s x 0.25 back, the view as before */
    int64_t epoch = 2;
    CHECK(layoutd_view_begin_transition(c, "photos", NULL, "{\"mode\":\"grid\",\"columns\":2}", &epoch, NULL, &tr, &err) == 0 &&
          tr.epoch == 2 && tr.content_offset_to.y == 0, "to a grid: %s", err.message);
    layoutd_interactive_transition_free(&tr);
    CHECK(layoutd_view_update_transition(c, "photos", 0.25, NULL, &err) == 0, "a quarter");
    CHECK(layoutd_view_end_transition(c, "photos", false, NULL, &inv, &err) == 0 && inv.epoch == 3 && inv.transition &&
          inv.transition->duration == 0.075 && inv.entered_count == 0 && inv.changed_count == 0 && inv.left_count == 0,
          "reverted: %g", inv.transition ? inv.transition->duration : -1);
    layoutd_invalidation_free(&inv);
    int64_t old = 1;
    CHECK(layoutd_view_begin_transition(c, "photos", NULL, "{\"mode\":\"grid\"}", &old, NULL, &tr, &err) == -1 &&
          !strcmp(err.name, LAYOUTD_ERROR_STALE_EPOCH), "ifEpoch: %s", err.name);
    CHECK(layoutd_sync(c, &err) == 0 && layoutd_view_get(c, "photos", &s, &err) == 0 && layoutd_mirror_epoch(m) == s.epoch &&
          layoutd_mirror_equals(m, s.element_count, s.elements), "the mirror equals the view");
    layoutd_snapshot_free(&s);
    layoutd_client_close(c);
    td_cleanup(&d);
}

/* ---- view.selection ---- */

/* A daemon that answers a script: for each exchange it reads one request line, checks that it
   holds `expect` (the params as the library must write them) and answers `reply` with the
   request's id in place of %d. Exits 0 when every request was as expected. */
typedef struct { const char *expect, *reply; } exchange;

static void scripted_daemon(int listener, const exchange *script, size_t n)
{
    int fd = accept(listener, NULL, NULL);
    FILE *in = fdopen(dup(fd), "r");
    char line[4096], out[4096];
    for (size_t i = 0; i < n; i++) {
        if (!fgets(line, sizeof line, in) || !strstr(line, script[i].expect)) {
            fprintf(stderr, "scripted daemon: expected %s, got %s", script[i].expect, line);
            _exit(1);
        }
        snprintf(out, sizeof out, script[i].reply, atoi(strstr(line, "\"id\":") + 5));
        put(fd, out);
    }
    shutdown(fd, SHUT_WR);
    while (fgets(line, sizeof line, in)) {}
    _exit(0);
}

/* The pages of views.md's example, from a scripted daemon: the params written, the pages read. */
static void selection_scripted(void)
{
    static const exchange script[] = {
        {"\"method\":\"view.selection\",\"params\":{\"view\":\"photos\"}}",
         "{\"id\":%d,\"result\":{\"ids\":[\"b\",\"c\",\"e\",\"f\"],\"count\":4,\"epoch\":1}}\n"},
        {"\"params\":{\"view\":\"photos\",\"limit\":2}}", "{\"id\":%d,\"result\":{\"ids\":[\"b\",\"c\"],\"count\":4,\"epoch\":1,\"next\":\"c\"}}\n"},
        {"\"params\":{\"view\":\"photos\",\"limit\":2,\"after\":\"c\"}}", "{\"id\":%d,\"result\":{\"ids\":[\"e\",\"f\"],\"count\":4,\"epoch\":1}}\n"},
        {"\"params\":{\"view\":\"photos\",\"after\":\"zz\"}}",
         "{\"id\":%d,\"error\":{\"code\":-32011,\"name\":\"ItemNotFound\",\"message\":\"no item with id 'zz'\",\"data\":{\"id\":\"zz\"}}}\n"},
        {"\"params\":{\"view\":\"photos\"}}", "{\"id\":%d,\"result\":{\"count\":4}}\n"},
    };
    char dir[] = "/tmp/layoutd-c-script-XXXXXX", path[64];
    if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
    snprintf(path, sizeof path, "%s/ipc.sock", dir);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) { CHECK(0, "bind"); return; }
    pid_t pid = fork();
    if (pid == 0) scripted_daemon(l, script, sizeof script / sizeof script[0]);
    close(l);
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(path, &err);
    layoutd_selection_page page;
    CHECK(c && layoutd_view_selection(c, "photos", 0, NULL, &page, &err) == 0, "the whole selection: %s", err.message);
    CHECK(page.ids.count == 4 && !strcmp(page.ids.ids[0], "b") && !strcmp(page.ids.ids[3], "f") && page.total == 4 && page.epoch == 1 &&
          !page.next, "one page of four");
    layoutd_selection_page_free(&page);
    CHECK(layoutd_view_selection(c, "photos", 2, NULL, &page, &err) == 0 && page.ids.count == 2 && page.next && !strcmp(page.next, "c"),
          "a first page of two");
    char after[16];
    snprintf(after, sizeof after, "%s", page.next ? page.next : "");
    layoutd_selection_page_free(&page);
    CHECK(layoutd_view_selection(c, "photos", 2, after, &page, &err) == 0 && page.ids.count == 2 && !strcmp(page.ids.ids[0], "e") &&
          !page.next && page.total == 4, "the last page");
    layoutd_selection_page_free(&page);
    CHECK(layoutd_view_selection(c, "photos", 0, "zz", &page, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_ITEM_NOT_FOUND) &&
          err.code == LAYOUTD_CODE_ITEM_NOT_FOUND && !page.ids.count, "ItemNotFound");
    CHECK(layoutd_view_selection(c, "photos", 0, NULL, &page, &err) == -1 && err.code == LAYOUTD_ERR_PROTOCOL, "a result without ids");
    layoutd_client_close(c);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the scripted daemon saw the params it expected");
    unlink(path);
    rmdir(dir);
}

/* The same pages from the daemon under test (protocol/views.md, view.selection). */
static void selection_real(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) { CHECK(0, "daemon"); return; }
    layoutd_client *c = connect_to(&d);
    if (!c) { td_cleanup(&d); return; }
    layoutd_error err;
    layoutd_item first[4] = {{.id = "a"}, {.id = "b"}, {.id = "c"}, {.id = "d"}}, second[2] = {{.id = "e"}, {.id = "f"}};
    layoutd_section secs[2] = {{.id = "s1", .item_count = 4, .items = first}, {.id = "s2", .item_count = 2, .items = second}};
    layoutd_view_spec spec = {.view = "photos", .strategy = "flow", .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}",
                              .viewport = {.width = 320, .height = 200}, .section_count = 2, .sections = secs};
    const char *const picked[] = {"f", "b", "e", "c"};
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0 && layoutd_view_select(c, "photos", 4, picked, NULL, NULL, NULL, &err) == 0,
          "create and select: %s", err.message);
    layoutd_selection_page page;
    CHECK(layoutd_view_selection(c, "photos", 0, NULL, &page, &err) == 0, "view.selection: %s", err.message);
    {
        CHECK(page.ids.count == 4 && !strcmp(page.ids.ids[0], "b") && !strcmp(page.ids.ids[1], "c") && !strcmp(page.ids.ids[2], "e") &&
              !strcmp(page.ids.ids[3], "f") && page.total == 4 && page.epoch == 1 && !page.next, "the selection in data order: %s",
              err.message);
        layoutd_selection_page_free(&page);
        CHECK(layoutd_view_selection(c, "photos", 2, NULL, &page, &err) == 0 && page.ids.count == 2 && page.next && !strcmp(page.next, "c"),
              "a page of two");
        layoutd_selection_page_free(&page);
        CHECK(layoutd_view_selection(c, "photos", 2, "c", &page, &err) == 0 && page.ids.count == 2 && !strcmp(page.ids.ids[0], "e") &&
              !page.next, "the next page");
        layoutd_selection_page_free(&page);
        CHECK(layoutd_view_selection(c, "photos", 0, "zz", &page, &err) == -1 && !strcmp(err.name, LAYOUTD_ERROR_ITEM_NOT_FOUND),
              "ItemNotFound: %s", err.name);
    }
    layoutd_client_close(c);
    td_cleanup(&d);
}

int main(void)
{
    named_kinds();
    real_daemon();
    real_resync();
    section_scrolls();
    moves();
    transitions();
    selection_scripted();
    selection_real();
    fake();
    return t_report("test_typed");
}
