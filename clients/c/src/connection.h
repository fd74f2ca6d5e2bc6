/* Private: the connection's and the subscriptions' state, shared by client.c (which keeps it)
   and reconnect.c (which rebuilds it after a daemon restart). The layers are internal.h's. */
#ifndef LAYOUTD_CONNECTION_H
#define LAYOUTD_CONNECTION_H
#include "internal.h"

/* A request waiting for its reply, in request order. */
typedef struct pending {
    int64_t id;
    layoutd_reply_cb cb;
    void *user;
    struct pending *next;
} pending;

/* A view to re-create after a restart (layoutd_view_create, layoutd_client_track_view). */
typedef struct tracked {
    char *name;
    struct tracked *next;
} tracked;

struct layoutd_subscription {
    layoutd_client *c;
    int64_t id;
    char *view;
    layoutd_mirror *mirror;
    layoutd_event_cb cb;
    void *user;
    bool active;
    bool resyncing;        /* a re-subscribe is on its way: ignore the old id's events */
    bool failed;           /* the last view.subscribe was refused (error in last_error) */
    layoutd_error last_error;
    uint64_t resyncs;
    struct layoutd_subscription *next;
};

struct layoutd_client {
    int fd;
    char path[128];
    ld_buf out;
    size_t out_off;
    char *in;
    size_t in_len, in_cap;
    int64_t next_id;
    pending *head;
    int64_t last_seq;
    bool shutdown_seen;
    int timeout_ms;
    layoutd_line_cb line_cb;
    void *line_user;
    layoutd_event_cb event_cb;
    void *event_user;
    layoutd_conn_error_cb error_cb;
    void *error_user;
    layoutd_restore_cb restore_cb;
    void *restore_user;
    layoutd_subscription *subs;
    tracked *views;
};

/* client.c */
int ld_open_socket(const char *path, layoutd_error *err);   /* a connected non-blocking fd, or -1 */
void ld_drop_connection(layoutd_client *c);                 /* closes; pending requests fail */
int64_t ld_now_ms(void);                                    /* CLOCK_MONOTONIC */
#endif
