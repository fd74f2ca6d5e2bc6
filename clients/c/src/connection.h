/* Private: the connection's and the subscriptions' state, shared by client.c (which keeps it)
   and reconnect.c (which rebuilds it after a daemon restart). The layers are internal.h's. */
#ifndef LAYOUTD_CONNECTION_H
#define LAYOUTD_CONNECTION_H
#include "internal.h"

/* What a blocking call (ld_call) waits on: its pending entry points here, and handle_line
   fills it with only what the call asked for (the result's text or its tree), so a huge
   result is neither copied nor parsed twice. */
typedef struct call_state {
    bool want_tree, want_text;
    bool done, failed;
    ld_json *tree;          /* want_tree: the result (a root with its own copy of the text) */
    char *text;             /* want_text: the result's text, malloc'd */
    layoutd_error error;
} call_state;

/* The stray lines kept for inspection (layoutd_client_stray), each cut to its first bytes. */
#define LD_STRAYS_KEPT 16
#define LD_STRAY_BYTES 1024

/* A request waiting for its reply, in request order. Lives only until its reply (or the end of
   the connection, or its caller's deadline) takes it out of the list. */
typedef struct pending {
    int64_t id;
    layoutd_reply_cb cb;    /* layoutd_send's callback (may be NULL) */
    void *user;
    call_state *call;       /* a blocking call's state instead of a callback */
    struct pending *next;
} pending;

/* An input buffer given up by a read inside a callback while an outer dispatch still points
   into it; freed when the outermost dispatch returns. */
typedef struct retired_buffer {
    char *block;
    struct retired_buffer *next;
} retired_buffer;

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
    /* Input: in[in_off, in_len) is read and not yet handled; in[in_off, scanned) holds no
       newline; in[tail, in_len) is the last line, still without its newline (tail >= in_off). */
    char *in;
    size_t in_off, in_len, in_cap, scanned, tail;
    size_t line_cap;
    int dispatch_depth;         /* dispatches running (a callback's blocking call nests one) */
    retired_buffer *retired;
    uint64_t strays;
    char *kept_strays[LD_STRAYS_KEPT];  /* the most recent strays' first bytes, a ring by count */
    uint64_t dropped_events;            /* events neither a subscription nor the event handler took */
    int64_t next_id;
    pending *head, *tail_pending;
    size_t pending_count;
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
/* A connected non-blocking fd, or -1: within timeout_ms (-1: no limit) or Timeout. */
int ld_open_socket(const char *path, int timeout_ms, layoutd_error *err);
/* Closes; pending requests fail with `why`, or NULL: ConnectionClosed (DaemonShutdown after a
   daemon.shutdown event). */
void ld_drop_connection(layoutd_client *c, const layoutd_error *why);
int64_t ld_now_ms(void);                                    /* CLOCK_MONOTONIC */
#endif
