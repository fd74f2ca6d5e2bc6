/* The connection: socket discovery, framing, request/reply matching, events, subscriptions and
   their mirrors, the views to restore after a restart (reconnect.c restores them). */
#define _GNU_SOURCE
#include "connection.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Longest line accepted from the daemon (its output limit is 64 MiB by default). */
#define LD_MAX_INPUT_LINE (256 * 1024 * 1024)

static void set_errno_error(layoutd_error *err, const char *what)
{
    ld_set_error(err, LAYOUTD_ERR_IO, "IOError", "%s: %s", what, strerror(errno));
}

int layoutd_socket_path(const char *explicit_path, char *buf, size_t size, layoutd_error *err)
{
    const char *env = getenv("LAYOUTD_SOCKET"), *xdg = getenv("XDG_RUNTIME_DIR");
    int n;
    if (explicit_path && *explicit_path) n = snprintf(buf, size, "%s", explicit_path);
    else if (env && *env) n = snprintf(buf, size, "%s", env);
    else if (xdg && *xdg) n = snprintf(buf, size, "%s/layoutd/ipc.sock", xdg);
    else n = snprintf(buf, size, "/run/layoutd/ipc.sock");
    if (n < 0 || (size_t)n >= size || n > 107) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "socket path longer than 107 bytes");
        return -1;
    }
    return 0;
}

int ld_open_socket(const char *path, layoutd_error *err)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "socket path too long");
        return -1;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { set_errno_error(err, "socket"); return -1; }
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        ld_set_error(err, LAYOUTD_ERR_IO, "IOError", "connect %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) { set_errno_error(err, "fcntl"); close(fd); return -1; }
    return fd;
}

layoutd_client *layoutd_client_connect(const char *explicit_path, layoutd_error *err)
{
    char path[128];
    if (layoutd_socket_path(explicit_path, path, sizeof path, err)) return NULL;
    int fd = ld_open_socket(path, err);
    if (fd < 0) return NULL;
    layoutd_client *c = calloc(1, sizeof *c);
    if (!c) { close(fd); ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return NULL; }
    c->fd = fd;
    snprintf(c->path, sizeof c->path, "%s", path);
    c->next_id = 1;
    c->timeout_ms = 30000;
    return c;
}

static void fail_pending(layoutd_client *c)
{
    layoutd_error e;
    if (c->shutdown_seen) ld_set_error(&e, LAYOUTD_ERR_SHUTDOWN, "DaemonShutdown", "the daemon shut down before replying");
    else ld_set_error(&e, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "the connection closed before the reply");
    while (c->head) {
        pending *p = c->head;
        c->head = p->next;
        if (p->cb) {
            layoutd_reply r = {p->id, NULL, NULL, &e, ""};
            p->cb(c, &r, p->user);
        }
        free(p);
    }
}

void ld_drop_connection(layoutd_client *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    ld_buf_free(&c->out);
    c->out_off = 0;
    c->in_len = 0;
    fail_pending(c);
}

void layoutd_client_close(layoutd_client *c)
{
    if (!c) return;
    ld_drop_connection(c);
    free(c->in);
    while (c->subs) {
        layoutd_subscription *s = c->subs;
        c->subs = s->next;
        layoutd_mirror_free(s->mirror);
        free(s->view);
        free(s);
    }
    while (c->views) {
        tracked *t = c->views;
        c->views = t->next;
        free(t->name);
        free(t);
    }
    free(c);
}

const char *layoutd_client_path(const layoutd_client *c) { return c->path; }
bool layoutd_client_connected(const layoutd_client *c) { return c->fd >= 0; }
int layoutd_client_fd(const layoutd_client *c) { return c->fd; }
bool layoutd_client_wants_write(const layoutd_client *c) { return c->fd >= 0 && c->out.len > c->out_off; }
bool layoutd_client_shutting_down(const layoutd_client *c) { return c->shutdown_seen; }
void layoutd_client_set_timeout(layoutd_client *c, int timeout_ms) { c->timeout_ms = timeout_ms; }
void layoutd_client_set_line_handler(layoutd_client *c, layoutd_line_cb cb, void *user) { c->line_cb = cb; c->line_user = user; }
void layoutd_client_set_event_handler(layoutd_client *c, layoutd_event_cb cb, void *user) { c->event_cb = cb; c->event_user = user; }
void layoutd_client_set_error_handler(layoutd_client *c, layoutd_conn_error_cb cb, void *user) { c->error_cb = cb; c->error_user = user; }
void layoutd_client_set_restore_handler(layoutd_client *c, layoutd_restore_cb cb, void *user) { c->restore_cb = cb; c->restore_user = user; }

static int flush_out(layoutd_client *c, layoutd_error *err)
{
    while (c->out.len > c->out_off) {
        ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            set_errno_error(err, "send");
            return -1;
        }
        c->out_off += (size_t)n;
    }
    c->out.len = c->out_off = 0;
    return 0;
}

int layoutd_send_raw(layoutd_client *c, const char *bytes, size_t len, layoutd_error *err)
{
    if (c->fd < 0) { ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "not connected"); return -1; }
    ld_buf_put(&c->out, bytes, len);
    if (c->out.failed) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
    return flush_out(c, err);
}

static int check_params(const char *params_json, layoutd_error *err)
{
    if (!params_json) return 0;
    char msg[200];
    ld_json *p = layoutd_json_parse(params_json, strlen(params_json), msg, sizeof msg);
    if (!p) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "params: %s", msg); return -1; }
    int ok = p->type == LD_JSON_OBJECT;
    layoutd_json_free(p);
    if (!ok) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "params must be a JSON object"); return -1; }
    return 0;
}

static int write_request(layoutd_client *c, int64_t id, const char *method, const char *params_json, layoutd_error *err)
{
    if (!method || !*method) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "no method"); return -1; }
    if (check_params(params_json, err)) return -1;
    ld_buf b = {0};
    if (id > 0) ld_buf_printf(&b, "{\"id\":%lld,\"method\":", (long long)id);
    else ld_buf_puts(&b, "{\"method\":");
    ld_buf_string(&b, method);
    if (params_json) { ld_buf_puts(&b, ",\"params\":"); ld_buf_puts(&b, params_json); }
    ld_buf_puts(&b, "}\n");
    if (b.failed) { ld_buf_free(&b); ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "method is not UTF-8"); return -1; }
    int rc = layoutd_send_raw(c, b.data, b.len, err);
    ld_buf_free(&b);
    return rc;
}

int64_t layoutd_send(layoutd_client *c, const char *method, const char *params_json, layoutd_reply_cb cb, void *user,
                     layoutd_error *err)
{
    pending *p = calloc(1, sizeof *p);
    if (!p) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
    p->id = c->next_id++;
    p->cb = cb;
    p->user = user;
    if (write_request(c, p->id, method, params_json, err)) { free(p); return -1; }
    pending **tail = &c->head;
    while (*tail) tail = &(*tail)->next;
    *tail = p;
    return p->id;
}

int layoutd_notify(layoutd_client *c, const char *method, const char *params_json, layoutd_error *err)
{
    return write_request(c, 0, method, params_json, err);
}

/* ---- subscriptions (event side) ---- */

static void resubscribe_reply(layoutd_client *c, const layoutd_reply *r, void *user);

/* Sends view.subscribe for s; the reply (handled in resubscribe_reply, in line order, so the
   events that follow it in the same read already find the new id) replaces the mirror. */
static int send_subscribe(layoutd_client *c, layoutd_subscription *s, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, s->view);
    ld_buf_puts(&b, "}");
    if (b.failed) { ld_buf_free(&b); ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "view is not UTF-8"); return -1; }
    s->resyncing = true; /* events of the old id until the reply are stale */
    s->failed = false;
    int64_t id = layoutd_send(c, LAYOUTD_METHOD_VIEW_SUBSCRIBE, b.data, resubscribe_reply, s, err);
    ld_buf_free(&b);
    if (id < 0) { s->resyncing = false; return -1; }
    return 0;
}

static void start_resync(layoutd_client *c, layoutd_subscription *s)
{
    if (!s->active || s->resyncing || c->fd < 0) return;
    send_subscribe(c, s, NULL);
}

static void resubscribe_reply(layoutd_client *c, const layoutd_reply *r, void *user)
{
    layoutd_subscription *s = user;
    s->resyncing = false;
    if (!r->result) {
        s->failed = true;
        s->last_error = *r->error;
        if (strcmp(r->error->name, LAYOUTD_ERROR_VIEW_NOT_FOUND) == 0) {
            s->active = false;
            ld_mirror_invalidate(s->mirror);
        }
        return;
    }
    int64_t old = s->id;
    layoutd_snapshot snap;
    if (layoutd_snapshot_from_json(layoutd_json_get(r->result, "snapshot"), &snap, &s->last_error)) {
        s->failed = true;
        return;
    }
    layoutd_mirror_reset(s->mirror, &snap);
    layoutd_snapshot_free(&snap);
    s->id = ld_int(layoutd_json_number(layoutd_json_get(r->result, "subscription"), 0), 0);
    s->active = true;
    s->resyncs++;
    if (old > 0 && old != s->id && c->fd >= 0) {
        char p[64];
        snprintf(p, sizeof p, "{\"subscription\":%lld}", (long long)old);
        layoutd_send(c, LAYOUTD_METHOD_VIEW_UNSUBSCRIBE, p, NULL, NULL, NULL);
    }
}

static layoutd_subscription *find_sub(layoutd_client *c, int64_t id)
{
    for (layoutd_subscription *s = c->subs; s; s = s->next)
        if (s->id == id) return s;
    return NULL;
}

static void handle_event(layoutd_client *c, const ld_json *msg, const char *line)
{
    layoutd_event ev = {0};
    ev.name = layoutd_json_string(layoutd_json_get(msg, "event"));
    ev.subscription = ld_int(layoutd_json_number(layoutd_json_get(msg, "subscription"), 0), 0);
    ev.seq = ld_int(layoutd_json_number(layoutd_json_get(msg, "seq"), 0), 0);
    ev.params = layoutd_json_get(msg, "params");
    ev.line = line;
    if (!ev.name) return;
    bool gap = ev.seq != c->last_seq + 1;
    c->last_seq = ev.seq;
    if (gap) /* lost events: every subscription of the connection re-subscribes */
        for (layoutd_subscription *s = c->subs; s; s = s->next) start_resync(c, s);
    layoutd_subscription *s = ev.subscription ? find_sub(c, ev.subscription) : NULL;
    if (strcmp(ev.name, LAYOUTD_EVENT_DAEMON_SHUTDOWN) == 0) c->shutdown_seen = true;
    if (s && !s->resyncing && s->active) {
        ev.sub = s;
        if (strcmp(ev.name, LAYOUTD_EVENT_VIEW_INVALIDATED) == 0) {
            layoutd_invalidation inv;
            if (layoutd_invalidation_from_json(ev.params, &inv, NULL) == 0) {
                if (layoutd_mirror_apply(s->mirror, &inv) != 0) start_resync(c, s);
                layoutd_invalidation_free(&inv);
            } else {
                start_resync(c, s);
            }
        } else if (strcmp(ev.name, LAYOUTD_EVENT_VIEW_RESYNC) == 0) {
            layoutd_snapshot snap;
            if (layoutd_snapshot_from_json(layoutd_json_get(ev.params, "snapshot"), &snap, NULL) == 0) {
                layoutd_mirror_reset(s->mirror, &snap);
                layoutd_snapshot_free(&snap);
                s->resyncs++;
            } else {
                start_resync(c, s);
            }
        } else if (strcmp(ev.name, LAYOUTD_EVENT_VIEW_DELETED) == 0) {
            s->active = false;
            ld_mirror_invalidate(s->mirror);
        }
        if (s->cb) s->cb(c, &ev, s->user);
    }
    if (c->event_cb) c->event_cb(c, &ev, c->event_user);
}

static void handle_line(layoutd_client *c, const char *line, size_t len)
{
    if (c->line_cb) c->line_cb(c, line, len, c->line_user);
    ld_arena *a = ld_arena_new();
    if (!a) return;
    char *copy = ld_arena_strndup(a, line, len);
    ld_json *msg = copy ? ld_json_parse_in(a, copy, len, NULL, 0) : NULL;
    if (!msg || msg->type != LD_JSON_OBJECT) { ld_arena_free(a); return; }
    if (layoutd_json_get(msg, "event")) {
        handle_event(c, msg, copy);
        ld_arena_free(a);
        return;
    }
    const ld_json *id = layoutd_json_get(msg, "id"), *result = layoutd_json_get(msg, "result"),
                  *error = layoutd_json_get(msg, "error");
    if (id && id->type == LD_JSON_NULL) {
        layoutd_error e;
        ld_error_from_json(&e, error);
        if (c->error_cb) c->error_cb(c, &e, c->error_user);
        ld_arena_free(a);
        return;
    }
    if (id && id->type == LD_JSON_NUMBER) {
        for (pending **pp = &c->head; *pp; pp = &(*pp)->next) {
            pending *p = *pp;
            if ((double)p->id != id->num) continue;
            *pp = p->next;
            layoutd_reply r = {p->id, NULL, NULL, NULL, copy};
            layoutd_error e;
            if (result) {
                r.result = result;
                r.result_text = ld_arena_strndup(a, result->text, result->text_len);
            } else {
                ld_error_from_json(&e, error);
                r.error = &e;
            }
            if (p->cb) p->cb(c, &r, p->user);
            free(p);
            break;
        }
    }
    ld_arena_free(a);
}

static int read_some(layoutd_client *c, bool *eof, layoutd_error *err)
{
    *eof = false;
    while (1) {
        if (c->in_len > LD_MAX_INPUT_LINE && !memchr(c->in, '\n', c->in_len)) {
            ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "the daemon wrote a line longer than %d bytes", LD_MAX_INPUT_LINE);
            return -1;
        }
        if (c->in_cap - c->in_len < 65536) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 131072;
            char *n = realloc(c->in, cap);
            if (!n) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
            c->in = n;
            c->in_cap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == ECONNRESET) { *eof = true; return 0; }
            set_errno_error(err, "recv");
            return -1;
        }
        if (n == 0) { *eof = true; return 0; }
        c->in_len += (size_t)n;
        if ((size_t)n < 65536) return 0;
    }
}

int layoutd_client_dispatch(layoutd_client *c, layoutd_error *err)
{
    if (c->fd < 0) { ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "not connected"); return -1; }
    if (flush_out(c, err)) { ld_drop_connection(c); return -1; }
    bool eof;
    if (read_some(c, &eof, err)) { ld_drop_connection(c); return -1; }
    int handled = 0;
    /* Handle complete lines; each is taken out of the buffer before its handlers run, so a
       handler may call blocking functions (which dispatch further). */
    while (c->fd >= 0) {
        char *nl = c->in_len ? memchr(c->in, '\n', c->in_len) : NULL;
        if (!nl) break;
        size_t len = (size_t)(nl - c->in);
        char *line = malloc(len + 1);
        if (!line) break;
        memcpy(line, c->in, len);
        line[len] = 0;
        memmove(c->in, nl + 1, c->in_len - len - 1);
        c->in_len -= len + 1;
        size_t l = len;
        if (l && line[l - 1] == '\r') l--;
        handle_line(c, line, l);
        free(line);
        handled++;
    }
    if (eof && c->fd >= 0) {
        ld_drop_connection(c);
        ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "the daemon closed the connection");
        return -1; /* the lines before the end were handled */
    }
    if (c->fd < 0 && !handled) {
        ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "the daemon closed the connection");
        return -1;
    }
    return handled;
}

int layoutd_client_wait(layoutd_client *c, int timeout_ms, layoutd_error *err)
{
    if (c->fd < 0) { ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "not connected"); return -1; }
    if (c->in_len && memchr(c->in, '\n', c->in_len)) return layoutd_client_dispatch(c, err);
    struct pollfd p = {c->fd, (short)(POLLIN | (layoutd_client_wants_write(c) ? POLLOUT : 0)), 0};
    int n;
    do n = poll(&p, 1, timeout_ms); while (n < 0 && errno == EINTR);
    if (n < 0) { set_errno_error(err, "poll"); return -1; }
    if (n == 0) return 0;
    return layoutd_client_dispatch(c, err);
}

int64_t ld_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct {
    bool done;
    ld_json *result;
    layoutd_error error;
    bool failed;
} call_state;

static void call_reply(layoutd_client *c, const layoutd_reply *r, void *user)
{
    (void)c;
    call_state *st = user;
    st->done = true;
    if (r->result) {
        st->result = layoutd_json_parse(r->result_text, strlen(r->result_text), NULL, 0);
        if (!st->result) { st->failed = true; ld_set_error(&st->error, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); }
    } else {
        st->failed = true;
        st->error = *r->error;
    }
}

ld_json *ld_call(layoutd_client *c, const char *method, const char *params, layoutd_error *err)
{
    call_state st;
    memset(&st, 0, sizeof st);
    if (layoutd_send(c, method, params, call_reply, &st, err) < 0) return NULL;
    int64_t deadline = c->timeout_ms < 0 ? -1 : ld_now_ms() + c->timeout_ms;
    while (!st.done) {
        int left = deadline < 0 ? -1 : (int)(deadline - ld_now_ms());
        if (deadline >= 0 && left <= 0) {
            /* Forget the request: its reply will be ignored. */
            for (pending **pp = &c->head; *pp; pp = &(*pp)->next)
                if ((*pp)->user == &st) { pending *p = *pp; *pp = p->next; free(p); break; }
            ld_set_error(err, LAYOUTD_ERR_TIMEOUT, "Timeout", "no reply to %s within %d ms", method, c->timeout_ms);
            return NULL;
        }
        layoutd_error e;
        if (layoutd_client_wait(c, left, &e) < 0 && !st.done) {
            if (err) *err = e;
            return NULL;
        }
    }
    if (st.failed) {
        if (err) *err = st.error;
        return NULL;
    }
    return st.result;
}

int layoutd_call_raw(layoutd_client *c, const char *method, const char *params_json, char **result_json,
                     layoutd_json **result, layoutd_error *err)
{
    ld_json *r = ld_call(c, method, params_json, err);
    if (!r) return -1;
    if (result_json) {
        *result_json = strndup(r->text, r->text_len);
        if (!*result_json) {
            layoutd_json_free(r);
            ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory");
            return -1;
        }
    }
    if (result) *result = r;
    else layoutd_json_free(r);
    return 0;
}

/* ---- subscriptions (API) ---- */

layoutd_subscription *layoutd_subscribe(layoutd_client *c, const char *view, layoutd_event_cb cb, void *user,
                                        layoutd_error *err)
{
    if (!view) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "no view"); return NULL; }
    layoutd_subscription *s = calloc(1, sizeof *s);
    if (!s || !(s->view = strdup(view)) || !(s->mirror = layoutd_mirror_new())) {
        if (s) { free(s->view); free(s); }
        ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory");
        return NULL;
    }
    s->c = c;
    s->cb = cb;
    s->user = user;
    s->next = c->subs; /* listed before the reply: events right after it must find it */
    c->subs = s;
    if (layoutd_subscription_resync(c, s, err)) {
        for (layoutd_subscription **pp = &c->subs; *pp; pp = &(*pp)->next)
            if (*pp == s) { *pp = s->next; break; }
        for (pending *p = c->head; p; p = p->next)
            if (p->user == s) p->cb = NULL;
        layoutd_mirror_free(s->mirror);
        free(s->view);
        free(s);
        return NULL;
    }
    s->resyncs--; /* the first snapshot is not a resync (a gap met meanwhile is) */
    return s;
}

int layoutd_subscription_resync(layoutd_client *c, layoutd_subscription *s, layoutd_error *err)
{
    if (send_subscribe(c, s, err)) return -1;
    int64_t deadline = c->timeout_ms < 0 ? -1 : ld_now_ms() + c->timeout_ms;
    while (s->resyncing) {
        int left = deadline < 0 ? -1 : (int)(deadline - ld_now_ms());
        if (deadline >= 0 && left <= 0) {
            ld_set_error(err, LAYOUTD_ERR_TIMEOUT, "Timeout", "no reply to " LAYOUTD_METHOD_VIEW_SUBSCRIBE " within %d ms", c->timeout_ms);
            return -1;
        }
        layoutd_error e;
        if (layoutd_client_wait(c, left, &e) < 0 && s->resyncing) {
            s->resyncing = false; /* the connection ended: the pending reply failed */
        }
    }
    if (s->failed) {
        if (err) *err = s->last_error;
        return -1;
    }
    return 0;
}

int layoutd_unsubscribe(layoutd_client *c, layoutd_subscription *s, layoutd_error *err)
{
    int rc = 0;
    if (s->active && c->fd >= 0) {
        char p[64];
        snprintf(p, sizeof p, "{\"subscription\":%lld}", (long long)s->id);
        ld_json *r = ld_call(c, LAYOUTD_METHOD_VIEW_UNSUBSCRIBE, p, err);
        if (!r) rc = -1;
        layoutd_json_free(r);
    }
    for (layoutd_subscription **pp = &c->subs; *pp; pp = &(*pp)->next)
        if (*pp == s) { *pp = s->next; break; }
    /* a resubscribe in flight refers to s: forget it */
    for (pending *p = c->head; p; p = p->next)
        if (p->user == s && p->cb == resubscribe_reply) p->cb = NULL;
    layoutd_mirror_free(s->mirror);
    free(s->view);
    free(s);
    return rc;
}

layoutd_mirror *layoutd_subscription_mirror(layoutd_subscription *s) { return s->mirror; }
int64_t layoutd_subscription_id(const layoutd_subscription *s) { return s->id; }
const char *layoutd_subscription_view(const layoutd_subscription *s) { return s->view; }
bool layoutd_subscription_active(const layoutd_subscription *s) { return s->active; }
uint64_t layoutd_subscription_resyncs(const layoutd_subscription *s) { return s->resyncs; }

/* ---- views to restore (reconnect.c restores them) ---- */

void layoutd_client_track_view(layoutd_client *c, const char *view)
{
    for (tracked *t = c->views; t; t = t->next)
        if (strcmp(t->name, view) == 0) return;
    tracked *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(view))) { free(t); return; }
    tracked **tail = &c->views;
    while (*tail) tail = &(*tail)->next;
    *tail = t;
}

void ld_untrack_view(layoutd_client *c, const char *view)
{
    for (tracked **pp = &c->views; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, view) == 0) {
            tracked *t = *pp;
            *pp = t->next;
            free(t->name);
            free(t);
            return;
        }
}
