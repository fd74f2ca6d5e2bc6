/* The connection: socket discovery, framing, request/reply matching, events, subscriptions and
   their mirrors, the views to restore after a restart (reconnect.c restores them). */
#define _GNU_SOURCE
#include "connection.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The default line cap: the daemon's default output-limit, so no legal reply is longer. */
#define LD_DEFAULT_LINE_CAP ((size_t)64 * 1024 * 1024)
#define LD_DEFAULT_TIMEOUT_MS 30000
/* Bytes asked of each recv, and the free room kept at the buffer's end. */
#define LD_READ_CHUNK ((size_t)65536)
/* An emptied input buffer larger than this is given back after a dispatch. */
#define LD_KEEP_BUFFER ((size_t)1024 * 1024)

static void set_errno_error(layoutd_error *err, const char *what)
{
    ld_set_error(err, LAYOUTD_ERR_IO, "IOError", "%s: %s", what, strerror(errno));
}

static int protocol_error(layoutd_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int protocol_error(layoutd_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "the daemon wrote an unreadable line: %s", msg);
    return -1;
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

int64_t ld_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none), at least 0. */
static int left_ms(int64_t deadline)
{
    if (deadline < 0) return -1;
    int64_t left = deadline - ld_now_ms();
    return left <= 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (int)left;
}

static void sleep_ms(int ms)
{
    struct pollfd none;
    poll(&none, 0, ms);
}

/* A non-blocking connect: a Unix socket whose listener's backlog is full answers EAGAIN (the
   blocking connect would wait for ever), so it is retried with a short backoff until the
   deadline; EINPROGRESS is waited out with poll. */
int ld_open_socket(const char *path, int timeout_ms, layoutd_error *err)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "socket path too long");
        return -1;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) { set_errno_error(err, "socket"); return -1; }
    int64_t deadline = timeout_ms < 0 ? -1 : ld_now_ms() + timeout_ms;
    int backoff = 1;
    while (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {   /* the listener's backlog is full */
            int left = left_ms(deadline);
            if (left == 0) goto timed_out;
            sleep_ms(left < 0 || left > backoff ? backoff : left);
            if (backoff < 50) backoff *= 2;
            continue;
        }
        if (errno == EINPROGRESS || errno == EINTR) {
            struct pollfd p = {fd, POLLOUT, 0};
            int n;
            do n = poll(&p, 1, left_ms(deadline)); while (n < 0 && errno == EINTR);
            if (n == 0) goto timed_out;
            int so = 0;
            socklen_t solen = sizeof so;
            if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &solen) < 0) { set_errno_error(err, "connect"); close(fd); return -1; }
            if (so == 0) return fd;
            errno = so;
        }
        ld_set_error(err, LAYOUTD_ERR_IO, "IOError", "connect %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
timed_out:
    ld_set_error(err, LAYOUTD_ERR_TIMEOUT, "Timeout", "connect %s: not accepted within %d ms", path, timeout_ms);
    close(fd);
    return -1;
}

layoutd_client *layoutd_client_connect_timeout(const char *explicit_path, int timeout_ms, layoutd_error *err)
{
    char path[128];
    if (layoutd_socket_path(explicit_path, path, sizeof path, err)) return NULL;
    int fd = ld_open_socket(path, timeout_ms, err);
    if (fd < 0) return NULL;
    layoutd_client *c = calloc(1, sizeof *c);
    if (!c) { close(fd); ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return NULL; }
    c->fd = fd;
    snprintf(c->path, sizeof c->path, "%s", path);
    c->next_id = 1;
    c->timeout_ms = LD_DEFAULT_TIMEOUT_MS;
    c->line_cap = LD_DEFAULT_LINE_CAP;
    return c;
}

layoutd_client *layoutd_client_connect(const char *explicit_path, layoutd_error *err)
{
    return layoutd_client_connect_timeout(explicit_path, LD_DEFAULT_TIMEOUT_MS, err);
}

/* Takes p out of the list (prev: the entry before it, NULL at the head). */
static void unlink_pending(layoutd_client *c, pending *prev, pending *p)
{
    if (prev) prev->next = p->next;
    else c->head = p->next;
    if (c->tail_pending == p) c->tail_pending = prev;
    c->pending_count--;
}

static void fail_one(layoutd_client *c, pending *p, const layoutd_error *e)
{
    if (p->call) {
        p->call->done = true;
        p->call->failed = true;
        p->call->error = *e;
    } else if (p->cb) {
        layoutd_reply r = {p->id, NULL, NULL, e, ""};
        p->cb(c, &r, p->user);
    }
    free(p);
}

static void fail_pending(layoutd_client *c, const layoutd_error *why)
{
    layoutd_error e;
    if (why) e = *why;
    else if (c->shutdown_seen) ld_set_error(&e, LAYOUTD_ERR_SHUTDOWN, "DaemonShutdown", "the daemon shut down before replying");
    else ld_set_error(&e, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "the connection closed before the reply");
    while (c->head) {
        pending *p = c->head;
        unlink_pending(c, NULL, p);
        fail_one(c, p, &e);
    }
}

static void free_retired(layoutd_client *c)
{
    while (c->retired) {
        retired_buffer *r = c->retired;
        c->retired = r->next;
        free(r->block);
        free(r);
    }
}

void ld_drop_connection(layoutd_client *c, const layoutd_error *why)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    ld_buf_free(&c->out);
    c->out_off = 0;
    c->in_off = c->in_len = c->scanned = c->tail = 0;
    fail_pending(c, why);
}

void layoutd_client_close(layoutd_client *c)
{
    if (!c) return;
    ld_drop_connection(c, NULL);
    free(c->in);
    free_retired(c);
    for (size_t i = 0; i < LD_STRAYS_KEPT; i++) free(c->kept_strays[i]);
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
void layoutd_client_set_line_cap(layoutd_client *c, size_t bytes) { c->line_cap = bytes ? bytes : LD_DEFAULT_LINE_CAP; }
size_t layoutd_client_line_cap(const layoutd_client *c) { return c->line_cap; }
uint64_t layoutd_client_stray_count(const layoutd_client *c) { return c->strays; }
uint64_t layoutd_client_dropped_events(const layoutd_client *c) { return c->dropped_events; }

const char *layoutd_client_stray(const layoutd_client *c, size_t index)
{
    if (index >= LD_STRAYS_KEPT || index >= c->strays) return NULL;
    return c->kept_strays[(c->strays - 1 - index) % LD_STRAYS_KEPT];
}

/* Counts a stray and keeps its first bytes in the ring of the most recent ones. */
static void note_stray(layoutd_client *c, const char *line, size_t len)
{
    char **slot = &c->kept_strays[c->strays % LD_STRAYS_KEPT];
    c->strays++;
    if (!*slot && !(*slot = malloc(LD_STRAY_BYTES + 1))) return;
    size_t n = len < LD_STRAY_BYTES ? len : LD_STRAY_BYTES;
    memcpy(*slot, line, n);
    (*slot)[n] = 0;
}
size_t layoutd_client_pending_count(const layoutd_client *c) { return c->pending_count; }
void layoutd_client_set_line_handler(layoutd_client *c, layoutd_line_cb cb, void *user) { c->line_cb = cb; c->line_user = user; }
void layoutd_client_set_event_handler(layoutd_client *c, layoutd_event_cb cb, void *user) { c->event_cb = cb; c->event_user = user; }
void layoutd_client_set_error_handler(layoutd_client *c, layoutd_conn_error_cb cb, void *user) { c->error_cb = cb; c->error_user = user; }
void layoutd_client_set_restore_handler(layoutd_client *c, layoutd_restore_cb cb, void *user) { c->restore_cb = cb; c->restore_user = user; }

bool layoutd_client_has_pending(const layoutd_client *c)
{
    if (c->fd < 0 || c->in_len <= c->in_off) return false;
    size_t from = c->scanned > c->in_off ? c->scanned : c->in_off;
    return from < c->in_len && memchr(c->in + from, '\n', c->in_len - from) != NULL;
}

static int flush_out(layoutd_client *c, layoutd_error *err)
{
    while (c->out.len > c->out_off) {
        ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == EPIPE || errno == ECONNRESET) {
                /* the daemon closed: what it wrote before (an id-null error) is still to be read */
                ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "the daemon closed the connection");
                return -1;
            }
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

static pending *send_request(layoutd_client *c, const char *method, const char *params_json, layoutd_reply_cb cb, void *user,
                             call_state *call, layoutd_error *err)
{
    pending *p = calloc(1, sizeof *p);
    if (!p) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return NULL; }
    p->id = c->next_id++;
    p->cb = cb;
    p->user = user;
    p->call = call;
    if (write_request(c, p->id, method, params_json, err)) { free(p); return NULL; }
    if (c->tail_pending) c->tail_pending->next = p;
    else c->head = p;
    c->tail_pending = p;
    c->pending_count++;
    return p;
}

int64_t layoutd_send(layoutd_client *c, const char *method, const char *params_json, layoutd_reply_cb cb, void *user,
                     layoutd_error *err)
{
    pending *p = send_request(c, method, params_json, cb, user, NULL, err);
    return p ? p->id : -1;
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
    else if (!ev.sub) c->dropped_events++;
}

/* Whether the member is a JSON integer (no fraction, no exponent, within ±2^53). */
static bool is_integer(const ld_member *m)
{
    if (!m->value || !(m->type == '-' || (m->type >= '0' && m->type <= '9'))) return false;
    if (memchr(m->value, '.', m->value_len) || memchr(m->value, 'e', m->value_len) || memchr(m->value, 'E', m->value_len))
        return false;
    return m->value_len <= 17;
}

/* A tree of one value of the line (its text, in the line, stays where it is). */
static ld_json *tree_of(ld_arena *a, const ld_member *m, layoutd_error *err)
{
    char msg[200];
    ld_json *v = ld_json_parse_in(a, m->value, m->value_len, msg, sizeof msg);
    if (!v) protocol_error(err, "%s", msg);
    return v;
}

enum { M_ID, M_RESULT, M_ERROR, M_EVENT, M_SEQ, M_PARAMS, M_SUBSCRIPTION, M_COUNT };
static const char *const line_members[] = {"id", "result", "error", "event", "seq", "params", "subscription", NULL};

/* An event line: checked, then read into a tree (events are small; a subscription's mirror
   needs their attributes). */
static int handle_event_line(layoutd_client *c, const char *line, size_t len, const ld_member *m, layoutd_error *err)
{
    if (m[M_EVENT].type != '"') return protocol_error(err, "an event whose name is not a string");
    if (!is_integer(&m[M_SEQ])) return protocol_error(err, "an event whose seq is not an integer");
    if (m[M_PARAMS].type != '{') return protocol_error(err, "an event whose params is not an object");
    if (m[M_SUBSCRIPTION].value && !is_integer(&m[M_SUBSCRIPTION]))
        return protocol_error(err, "an event whose subscription is not an integer");
    ld_arena *a = ld_arena_new();
    if (!a) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
    char msg[200];
    ld_json *tree = ld_json_parse_in(a, line, len, msg, sizeof msg);
    if (!tree) { ld_arena_free(a); return protocol_error(err, "%s", msg); }
    handle_event(c, tree, line);
    ld_arena_free(a);
    return 0;
}

/* The error object of a reply (checked to be an object by the caller). */
static int read_error(const ld_member *m, layoutd_error *out, layoutd_error *err)
{
    ld_arena *a = ld_arena_new();
    if (!a) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
    ld_json *e = tree_of(a, m, err);
    if (e) ld_error_from_json(out, e);
    ld_arena_free(a);
    return e ? 0 : -1;
}

/* Hands a result to the waiting call or callback p (already out of the list). */
static int deliver_result(layoutd_client *c, pending *p, const char *line, const ld_member *result, layoutd_error *err)
{
    call_state *call = p->call;
    if (call) {
        call->done = true;
        if (call->want_tree) {
            char msg[200];
            call->tree = layoutd_json_parse(result->value, result->value_len, msg, sizeof msg);
            if (!call->tree) {
                protocol_error(err, "%s", msg);
                call->failed = true;
                call->error = *err;
                return -1;
            }
        }
        if (call->want_text && !(call->text = strndup(result->value, result->value_len))) {
            call->failed = true;
            ld_set_error(&call->error, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory");
        }
        return 0;
    }
    if (!p->cb) return 0;
    ld_arena *a = ld_arena_new();
    char *text = a ? ld_arena_strndup(a, result->value, result->value_len) : NULL;
    if (!text) { ld_arena_free(a); ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
    char msg[200];
    ld_json *tree = ld_json_parse_in(a, text, result->value_len, msg, sizeof msg);
    if (!tree) {
        ld_arena_free(a);
        protocol_error(err, "%s", msg);
        layoutd_reply r = {p->id, NULL, NULL, err, line};
        p->cb(c, &r, p->user);
        return -1;
    }
    layoutd_reply r = {p->id, tree, text, NULL, line};
    p->cb(c, &r, p->user);
    ld_arena_free(a);
    return 0;
}

/* One line (NUL-terminated, without its newline). Checked in one pass without a tree; a reply's
   result is parsed only as its receiver asks. -1 (err: ProtocolError) for a line no layoutd
   writes; the caller then drops the connection. */
static int handle_line(layoutd_client *c, const char *line, size_t len, layoutd_error *err)
{
    if (c->line_cb) c->line_cb(c, line, len, c->line_user);
    ld_member m[M_COUNT];
    char msg[200];
    if (ld_json_scan_object(line, len, line_members, m, msg, sizeof msg)) return protocol_error(err, "%s", msg);
    if (m[M_EVENT].value) return handle_event_line(c, line, len, m, err);
    const ld_member *id = &m[M_ID], *result = &m[M_RESULT], *error = &m[M_ERROR];
    if (!id->value) return protocol_error(err, "neither an event nor a reply (no id)");
    bool id_number = id->type == '-' || (id->type >= '0' && id->type <= '9');
    if (!id_number && id->type != '"' && id->type != 'n') return protocol_error(err, "a reply whose id is not a number, string or null");
    if (!result->value && !error->value) return protocol_error(err, "a reply with neither result nor error");
    if (result->value && error->value) return protocol_error(err, "a reply with both result and error");
    if (result->value && result->type != '{') return protocol_error(err, "a reply whose result is not an object");
    if (error->value && error->type != '{') return protocol_error(err, "a reply whose error is not an object");
    layoutd_error e;
    if (id->type == 'n') {
        /* A connection-level error: reported; one the daemon does not close after is a stray. */
        if (!error->value) { note_stray(c, line, len); return 0; }
        if (read_error(error, &e, err)) return -1;
        const layoutd_error_info *info = layoutd_error_named(e.name);
        if (!info || !info->closes_connection) note_stray(c, line, len);
        if (c->error_cb) c->error_cb(c, &e, c->error_user);
        return 0;
    }
    pending *prev = NULL, *p = c->head;
    if (id_number) {
        char num[32];
        size_t n = id->value_len < sizeof num ? id->value_len : sizeof num - 1;
        memcpy(num, id->value, n);
        num[n] = 0;
        double v = strtod(num, NULL);
        for (; p && (double)p->id != v; prev = p, p = p->next) {}
    } else {
        p = NULL; /* this client's ids are numbers */
    }
    if (!p) { note_stray(c, line, len); return 0; }
    unlink_pending(c, prev, p);
    int rc = 0;
    if (result->value) {
        rc = deliver_result(c, p, line, result, err);
    } else if (read_error(error, &e, err)) {
        fail_one(c, p, err);
        return -1;
    } else if (p->call) {
        p->call->done = p->call->failed = true;
        p->call->error = e;
    } else if (p->cb) {
        layoutd_reply r = {p->id, NULL, NULL, &e, line};
        p->cb(c, &r, p->user);
    }
    free(p);
    return rc;
}

/* Makes room for a read of LD_READ_CHUNK at the buffer's end. Inside a nested dispatch the
   outer one's line may point into the buffer: the unhandled bytes then move to a new buffer and
   the old one lives until the outermost dispatch returns. Otherwise the unhandled bytes move to
   the start when that frees at least as much as it moves (amortised linear), or the buffer doubles;
   never beyond the unhandled whole lines + the line cap + a chunk. */
static int make_room(layoutd_client *c, layoutd_error *err)
{
    if (c->in_cap - c->in_len >= LD_READ_CHUNK) return 0;
    size_t live = c->in_len - c->in_off;
    size_t limit = (c->tail - c->in_off) + c->line_cap + 2 + LD_READ_CHUNK;
    if (c->dispatch_depth == 0 && c->in_off > 0 && (c->in_off >= live || c->in_cap >= limit)) {
        memmove(c->in, c->in + c->in_off, live);
        c->scanned -= c->in_off;
        c->tail -= c->in_off;
        c->in_len = live;
        c->in_off = 0;
        if (c->in_cap - c->in_len >= LD_READ_CHUNK) return 0;
    }
    size_t cap = c->in_cap ? c->in_cap * 2 : 2 * LD_READ_CHUNK;
    while (cap < live + LD_READ_CHUNK) cap *= 2;
    if (cap > limit) cap = limit > live + LD_READ_CHUNK ? limit : live + LD_READ_CHUNK;
    if (c->dispatch_depth > 0 && c->in) {
        char *n = malloc(cap);
        retired_buffer *r = malloc(sizeof *r);
        if (!n || !r) { free(n); free(r); ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
        memcpy(n, c->in + c->in_off, live);
        r->block = c->in;
        r->next = c->retired;
        c->retired = r;
        c->in = n;
    } else {
        char *n = realloc(c->in, cap);
        if (!n) { ld_set_error(err, LAYOUTD_ERR_NOMEM, "OutOfMemory", "out of memory"); return -1; }
        c->in = n;
        if (c->in_off) { memmove(c->in, c->in + c->in_off, live); }
    }
    c->scanned -= c->in_off;
    c->tail -= c->in_off;
    c->in_len = live;
    c->in_off = 0;
    c->in_cap = cap;
    return 0;
}

/* Reads what the socket has, without blocking, until a newline arrives (then the lines are
   handled before more is read, so a flood never piles up) or it has nothing more. A last line
   longer than the line cap is refused as soon as the cap is passed. */
static int read_some(layoutd_client *c, bool *eof, layoutd_error *err)
{
    *eof = false;
    while (1) {
        if (make_room(c, err)) return -1;
        size_t room = c->in_cap - c->in_len;
        ssize_t n = recv(c->fd, c->in + c->in_len, room, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == ECONNRESET) { *eof = true; return 0; }
            set_errno_error(err, "recv");
            return -1;
        }
        if (n == 0) { *eof = true; return 0; }
        const char *fresh = c->in + c->in_len, *last = memrchr(fresh, '\n', (size_t)n);
        c->in_len += (size_t)n;
        if (last) c->tail = (size_t)(last - c->in) + 1;
        if (c->in_len - c->tail > c->line_cap)
            return protocol_error(err, "a line longer than the line cap (%zu bytes)", c->line_cap);
        if (last || (size_t)n < room) return 0;
    }
}

/* The next whole line: NUL-terminated in place (its newline, and a '\r' before it, replaced),
   consumed before its handlers run. 0: none; -1: longer than the line cap. */
static int next_line(layoutd_client *c, char **line, size_t *len, layoutd_error *err)
{
    size_t from = c->scanned > c->in_off ? c->scanned : c->in_off;
    char *nl = from < c->in_len ? memchr(c->in + from, '\n', c->in_len - from) : NULL;
    if (!nl) { c->scanned = c->in_len; return 0; }
    *line = c->in + c->in_off;
    *len = (size_t)(nl - *line);
    c->in_off = c->scanned = (size_t)(nl - c->in) + 1;
    if (c->tail < c->in_off) c->tail = c->in_off;
    *nl = 0;
    if (*len > c->line_cap) return protocol_error(err, "a line longer than the line cap (%zu bytes)", c->line_cap);
    if (*len && (*line)[*len - 1] == '\r') (*line)[--*len] = 0;
    return 1;
}

/* After the outermost dispatch: old buffers freed, an emptied buffer reset (or given back when
   a huge line grew it), a mostly handled one compacted. */
static void settle_input(layoutd_client *c)
{
    if (c->dispatch_depth > 0) return;
    free_retired(c);
    if (c->in_off == c->in_len) {
        c->in_off = c->in_len = c->scanned = c->tail = 0;
        if (c->in_cap > LD_KEEP_BUFFER) { free(c->in); c->in = NULL; c->in_cap = 0; }
    } else if (c->in_off >= c->in_len - c->in_off) {
        size_t live = c->in_len - c->in_off;
        memmove(c->in, c->in + c->in_off, live);
        c->scanned -= c->in_off;
        c->tail -= c->in_off;
        c->in_len = live;
        c->in_off = 0;
    }
}

static int fail_dispatch(layoutd_client *c, const layoutd_error *e, layoutd_error *err)
{
    ld_drop_connection(c, e->code == LAYOUTD_ERR_PROTOCOL ? e : NULL);
    settle_input(c);
    if (err) *err = *e;
    return -1;
}

int layoutd_client_dispatch(layoutd_client *c, layoutd_error *err)
{
    if (c->fd < 0) { ld_set_error(err, LAYOUTD_ERR_CLOSED, "ConnectionClosed", "not connected"); return -1; }
    layoutd_error e;
    /* a closed peer: read what it wrote before closing, then its end */
    if (flush_out(c, &e) && e.code != LAYOUTD_ERR_CLOSED) return fail_dispatch(c, &e, err);
    bool eof;
    if (read_some(c, &eof, &e)) return fail_dispatch(c, &e, err);
    int handled = 0;
    /* Each line is taken out of the buffer before its handlers run, so a handler may call
       blocking functions (which dispatch further, nested). */
    c->dispatch_depth++;
    while (c->fd >= 0) {
        char *line;
        size_t len;
        int got = next_line(c, &line, &len, &e);
        if (got == 0) break;
        if (got < 0 || handle_line(c, line, len, &e)) {
            c->dispatch_depth--;
            return fail_dispatch(c, &e, err);
        }
        handled++;
    }
    c->dispatch_depth--;
    settle_input(c);
    if (eof && c->fd >= 0) {
        ld_drop_connection(c, NULL);
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
    if (layoutd_client_has_pending(c)) return layoutd_client_dispatch(c, err);
    struct pollfd p = {c->fd, (short)(POLLIN | (layoutd_client_wants_write(c) ? POLLOUT : 0)), 0};
    int n;
    do n = poll(&p, 1, timeout_ms); while (n < 0 && errno == EINTR);
    if (n < 0) { set_errno_error(err, "poll"); return -1; }
    if (n == 0) return 0;
    return layoutd_client_dispatch(c, err);
}

/* A blocking call: one deadline for the send and every wait until the reply (each wait gets
   what is left of it, so a peer trickling bytes or events cannot stretch the call). On the
   deadline the request is forgotten: its late reply counts as a stray. */
static int call_within(layoutd_client *c, const char *method, const char *params, int timeout_ms, call_state *st,
                       layoutd_error *err)
{
    int64_t deadline = timeout_ms < 0 ? -1 : ld_now_ms() + timeout_ms;
    pending *p = send_request(c, method, params, NULL, NULL, st, err);
    if (!p) return -1;
    while (!st->done) {
        int left = left_ms(deadline);
        if (left == 0) {
            pending *prev = NULL;
            for (pending *q = c->head; q; prev = q, q = q->next)
                if (q->call == st) { unlink_pending(c, prev, q); free(q); break; }
            ld_set_error(err, LAYOUTD_ERR_TIMEOUT, "Timeout", "no reply to %s within %d ms", method, timeout_ms);
            return -1;
        }
        layoutd_error e;
        if (layoutd_client_wait(c, left, &e) < 0 && !st->done) {
            if (err) *err = e;
            return -1;
        }
    }
    if (st->failed) {
        layoutd_json_free(st->tree);
        free(st->text);
        st->tree = NULL;
        st->text = NULL;
        if (err) *err = st->error;
        return -1;
    }
    return 0;
}

ld_json *ld_call(layoutd_client *c, const char *method, const char *params, layoutd_error *err)
{
    call_state st = {.want_tree = true};
    return call_within(c, method, params, c->timeout_ms, &st, err) ? NULL : st.tree;
}

int layoutd_call_raw_timeout(layoutd_client *c, const char *method, const char *params_json, int timeout_ms,
                             char **result_json, layoutd_json **result, layoutd_error *err)
{
    /* Only what is asked for is made: text alone is one copy of the result, no tree. */
    call_state st = {.want_tree = result != NULL, .want_text = result_json != NULL};
    if (result_json) *result_json = NULL;
    if (result) *result = NULL;
    if (call_within(c, method, params_json, timeout_ms, &st, err)) return -1;
    if (result_json) *result_json = st.text;
    if (result) *result = st.tree;
    return 0;
}

int layoutd_call_raw(layoutd_client *c, const char *method, const char *params_json, char **result_json,
                     layoutd_json **result, layoutd_error *err)
{
    return layoutd_call_raw_timeout(c, method, params_json, c->timeout_ms, result_json, result, err);
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
            if (p->user == s && !p->call) p->cb = NULL;
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
        if (p->user == s && !p->call && p->cb == resubscribe_reply) p->cb = NULL;
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
