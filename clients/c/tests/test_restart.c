/* Restart: the daemon is killed (SIGKILL) and, in a second round, stopped (SIGTERM: the client
   sees daemon.shutdown) and restarted on the same socket; layoutd_client_reconnect re-creates
   the view from the caller's own data and re-subscribes; the mirror converges to the new
   daemon's window and keeps following it. */
#include "testutil.h"

/* The caller's own data: what it would re-create the view from. */
static layoutd_item items[200];
static char ids[200][16];
static size_t item_count = 120;
static layoutd_point offset = {0, 0};

static int restore(layoutd_client *c, const char *view, layoutd_view_spec *spec, void *user)
{
    (void)c;
    int *calls = user;
    ++*calls;
    if (strcmp(view, "photos")) return 1;
    static layoutd_section section;
    section = (layoutd_section){.id = "s", .item_count = item_count, .items = items};
    spec->strategy = "flow";
    spec->params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}";
    spec->viewport = (layoutd_viewport){.width = 320, .height = 200, .has_offset = true, .offset = offset};
    spec->window_margin = 50;
    spec->section_count = 1;
    spec->sections = &section;
    return 0;
}

static int shutdowns;
static void on_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    (void)c;
    (void)user;
    if (!strcmp(ev->name, "daemon.shutdown")) shutdowns++;
}

static void converged(layoutd_client *c, layoutd_subscription *s, const char *when)
{
    layoutd_snapshot snap;
    layoutd_error err;
    CHECK(layoutd_sync(c, &err) == 0, "%s: sync: %s", when, err.message);
    CHECK(layoutd_view_get(c, "photos", &snap, &err) == 0, "%s: view.get: %s", when, err.message);
    layoutd_mirror *m = layoutd_subscription_mirror(s);
    CHECK(layoutd_mirror_valid(m) && layoutd_mirror_epoch(m) == snap.epoch, "%s: epoch %lld vs %lld", when,
          (long long)layoutd_mirror_epoch(m), (long long)snap.epoch);
    CHECK(layoutd_mirror_equals(m, snap.element_count, snap.elements), "%s: mirror %zu elements, view %zu", when,
          layoutd_mirror_count(m), snap.element_count);
    CHECK(snap.item_count == (int64_t)item_count, "%s: %lld items", when, (long long)snap.item_count);
    layoutd_snapshot_free(&snap);
}

static void wait_closed(layoutd_client *c)
{
    double deadline = t_now() + 10;
    while (layoutd_client_connected(c) && t_now() < deadline) layoutd_client_wait(c, 500, NULL);
    CHECK(!layoutd_client_connected(c), "the client saw the connection end");
}

int main(void)
{
    for (int i = 0; i < 200; i++) {
        snprintf(ids[i], sizeof ids[i], "i%d", i);
        items[i].id = ids[i];
    }
    td_daemon d = {0};
    if (td_start(&d, NULL)) return 1;
    layoutd_error err;
    int restores = 0;
    layoutd_client *c = layoutd_client_connect(d.path, &err);
    CHECK(c != NULL, "connect");
    layoutd_client_set_restore_handler(c, restore, &restores);
    layoutd_client_set_event_handler(c, on_event, NULL);
    layoutd_view_spec spec = {.view = "photos"};
    restore(c, "photos", &spec, &restores);
    CHECK(layoutd_view_create(c, &spec, NULL, &err) == 0, "create: %s", err.message);
    layoutd_subscription *s = layoutd_subscribe(c, "photos", NULL, NULL, &err);
    CHECK(s != NULL, "subscribe: %s", err.message);
    if (!s) return 1;
    offset.y = 400;
    CHECK(layoutd_view_scroll(c, "photos", offset, NULL, 0, NULL, NULL, &err) == 0, "scroll: %s", err.message);
    converged(c, s, "before the restart");

    for (int round = 0; round < 2; round++) {
        const char *when = round ? "after SIGTERM and restart" : "after SIGKILL and restart";
        td_wait_exit(&d, round ? SIGTERM : SIGKILL);
        wait_closed(c);
        if (round) CHECK(shutdowns == 1, "daemon.shutdown arrived");
        /* a request now fails cleanly */
        layoutd_invalidation inv;
        CHECK(layoutd_view_scroll(c, "photos", offset, NULL, 0, NULL, &inv, &err) == -1 && err.code == LAYOUTD_ERR_CLOSED,
              "a call while disconnected: %s", err.name);
        /* the caller's data changed meanwhile: 20 more items, another offset */
        item_count += 20;
        offset.y = 300 + 100 * round;
        CHECK(td_start(&d, NULL) == 0, "restart");
        int before = restores;
        uint64_t resyncs = layoutd_subscription_resyncs(s);
        CHECK(layoutd_client_reconnect(c, 10000, &err) == 0, "reconnect: %s %s", err.name, err.message);
        CHECK(restores == before + 1, "the restore handler was asked once");
        CHECK(layoutd_subscription_resyncs(s) == resyncs + 1, "re-subscribed");
        CHECK(layoutd_subscription_active(s), "still active");
        converged(c, s, when);
        CHECK(layoutd_mirror_content_offset(layoutd_subscription_mirror(s)).y == offset.y, "%s: offset restored", when);
        /* another client changes the view: the mirror follows */
        layoutd_client *other = layoutd_client_connect(d.path, &err);
        layoutd_update u = {.op = "deleteItems", .id_count = 3, .ids = (const char *const[]){items[10].id, items[11].id, items[12].id}};
        CHECK(layoutd_view_update(other, "photos", 1, &u, NULL, &inv, &err) == 0, "update: %s", err.message);
        CHECK(inv.has_changes && inv.changes.deleted_items.count == 3, "typed changes");
        layoutd_invalidation_free(&inv);
        item_count -= 3;
        memmove(&items[10], &items[13], (200 - 13) * sizeof items[0]);
        layoutd_client_close(other);
        converged(c, s, when);
    }
    layoutd_unsubscribe(c, s, NULL);
    layoutd_client_close(c);
    td_cleanup(&d);
    return t_report("test_restart");
}
