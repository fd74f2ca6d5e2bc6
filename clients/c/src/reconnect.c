/* Reconnecting after a daemon restart: the same path, hello, every tracked view re-created
   from the caller's restore handler, every live subscription re-subscribed (README.md
   "Reconnecting"). The top layer of the connection: it uses client.c's state and typed.c's
   methods. */
#include "connection.h"

#include <string.h>
#include <time.h>

int layoutd_client_reconnect(layoutd_client *c, int timeout_ms, layoutd_error *err)
{
    ld_drop_connection(c, NULL);
    c->last_seq = 0;
    c->shutdown_seen = false;
    int64_t deadline = ld_now_ms() + (timeout_ms < 0 ? 0x7fffffff : timeout_ms);
    layoutd_error e;
    while (1) {
        int left = (int)(deadline - ld_now_ms());
        int fd = ld_open_socket(c->path, left > 0 ? left : 0, &e);
        if (fd >= 0) {
            c->fd = fd;
            layoutd_hello_result h;
            if (layoutd_hello(c, &h, &e) == 0) { layoutd_hello_free(&h); break; }
            ld_drop_connection(c, NULL);
        }
        if (ld_now_ms() >= deadline) {
            if (err) *err = e;
            return -1;
        }
        struct timespec ts = {0, 20 * 1000000}; /* retry until the socket serves */
        nanosleep(&ts, NULL);
    }
    if (c->restore_cb) {
        for (tracked *t = c->views; t; t = t->next) {
            layoutd_view_spec spec;
            memset(&spec, 0, sizeof spec);
            if (c->restore_cb(c, t->name, &spec, c->restore_user) != 0) continue;
            spec.view = t->name;
            if (layoutd_view_create(c, &spec, NULL, &e) && strcmp(e.name, LAYOUTD_ERROR_VIEW_EXISTS) != 0) {
                if (err) *err = e;
                return -1;
            }
        }
    }
    for (layoutd_subscription *s = c->subs; s; s = s->next) {
        if (!s->active) continue;
        s->id = 0;
        if (layoutd_subscription_resync(c, s, &e)) {
            if (strcmp(e.name, LAYOUTD_ERROR_VIEW_NOT_FOUND) == 0) { s->active = false; ld_mirror_invalidate(s->mirror); continue; }
            if (err) *err = e;
            return -1;
        }
    }
    return 0;
}
