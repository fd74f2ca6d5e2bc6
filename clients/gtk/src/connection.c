/* LayoutdConnection: one C client inside the GLib main loop.
 *
 * A GSource watches the client's fd (and reports lines the client already buffered, which no fd
 * watch sees), so replies and events are handled from the main loop and no call ever blocks it.
 * When the daemon goes away (a restart, an upgrade, a crash), every pending request fails with
 * ConnectionClosed, "disconnected" is emitted, and a timer tries the socket again (50 ms, doubling
 * to 1 s) until it serves; then "reconnected" is emitted and each collection view re-creates its
 * view and subscribes again. */
#include "private.h"

typedef struct {
    LayoutdEventFunc func;
    gpointer user;
    guint id;
} EventHandler;

struct _LayoutdConnection {
    GObject parent_instance;
    layoutd_client *client;
    char *socket_path;
    GSource *source;
    GArray *event_handlers;     /* EventHandler */
    guint next_handler_id;
    guint reconnect_id;
    guint backoff_ms;
    gboolean closed;            /* layoutd_connection_close(): no reconnecting */
};

enum { PROP_0, PROP_SOCKET_PATH, PROP_CONNECTED, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_DISCONNECTED, SIGNAL_RECONNECTED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(LayoutdConnection, layoutd_connection, G_TYPE_OBJECT)

/* ---- the GSource ---- */

typedef struct {
    GSource source;
    LayoutdConnection *conn;    /* not a reference: the connection destroys its source */
    gpointer tag;
} ClientSource;

static void connection_lost(LayoutdConnection *self, const layoutd_error *err);

static gboolean source_prepare(GSource *s, gint *timeout)
{
    ClientSource *cs = (ClientSource *)s;
    *timeout = -1;
    layoutd_client *c = cs->conn->client;
    if (!c) return FALSE;
    g_source_modify_unix_fd(s, cs->tag, G_IO_IN | G_IO_HUP | G_IO_ERR | (layoutd_client_wants_write(c) ? G_IO_OUT : 0));
    return layoutd_client_has_pending(c);
}

static gboolean source_check(GSource *s)
{
    ClientSource *cs = (ClientSource *)s;
    if (!cs->conn->client) return FALSE;
    return layoutd_client_has_pending(cs->conn->client) || g_source_query_unix_fd(s, cs->tag) != 0;
}

static gboolean source_dispatch(GSource *s, GSourceFunc cb, gpointer data)
{
    ClientSource *cs = (ClientSource *)s;
    LayoutdConnection *self = cs->conn;
    layoutd_error err;
    g_object_ref(self);
    gboolean keep = TRUE;
    /* Bounded: a daemon that floods this connection still lets the main loop draw frames. */
    for (int rounds = 0; self->client && rounds < 64; rounds++) {
        if (layoutd_client_dispatch(self->client, &err) < 0) {
            connection_lost(self, &err);
            keep = FALSE;
            break;
        }
        if (layoutd_client_shutting_down(self->client)) {
            /* daemon.shutdown: the daemon reads nothing more from us and waits for this
               connection to drain before it exits; closing now lets it go at once, and the
               retries find its successor. */
            layoutd_error shutdown = {.code = LAYOUTD_ERR_SHUTDOWN};
            g_strlcpy(shutdown.name, "DaemonShutdown", sizeof shutdown.name);
            g_strlcpy(shutdown.message, "the daemon is stopping", sizeof shutdown.message);
            connection_lost(self, &shutdown);
            keep = FALSE;
            break;
        }
        if (!layoutd_client_has_pending(self->client)) break;
    }
    g_object_unref(self);
    return keep ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static GSourceFuncs source_funcs = {source_prepare, source_check, source_dispatch, NULL, NULL, NULL};

static void on_client_event(layoutd_client *c, const layoutd_event *ev, void *user)
{
    LayoutdConnection *self = user;
    /* A handler may remove itself (or another) while we walk: walk a copy. */
    GArray *copy = g_array_copy(self->event_handlers);
    for (guint i = 0; i < copy->len; i++) {
        EventHandler *h = &g_array_index(copy, EventHandler, i);
        gboolean live = FALSE;
        for (guint j = 0; j < self->event_handlers->len; j++)
            if (g_array_index(self->event_handlers, EventHandler, j).id == h->id) live = TRUE;
        if (live) h->func(self, ev, h->user);
    }
    g_array_unref(copy);
}

static void attach_client(LayoutdConnection *self, layoutd_client *client)
{
    self->client = client;
    layoutd_client_set_event_handler(client, on_client_event, self);
    GSource *s = g_source_new(&source_funcs, sizeof(ClientSource));
    ClientSource *cs = (ClientSource *)s;
    cs->conn = self;
    cs->tag = g_source_add_unix_fd(s, layoutd_client_fd(client), G_IO_IN);
    g_source_set_name(s, "layoutd connection");
    g_source_attach(s, NULL);
    self->source = s;
}

static void detach_client(LayoutdConnection *self)
{
    if (self->source) {
        g_source_destroy(self->source);
        g_source_unref(self->source);
        self->source = NULL;
    }
    if (self->client) {
        layoutd_client *c = self->client;
        self->client = NULL;
        layoutd_client_close(c);    /* pending requests fail with ConnectionClosed now */
    }
}

/* ---- reconnecting ---- */

static gboolean try_reconnect(gpointer data)
{
    LayoutdConnection *self = data;
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect_timeout(self->socket_path, 100, &err);
    if (!c) {
        self->backoff_ms = MIN(self->backoff_ms * 2, 1000);
        self->reconnect_id = g_timeout_add(self->backoff_ms, try_reconnect, self);
        return G_SOURCE_REMOVE;
    }
    self->reconnect_id = 0;
    attach_client(self, c);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CONNECTED]);
    g_signal_emit(self, signals[SIGNAL_RECONNECTED], 0);
    return G_SOURCE_REMOVE;
}

static void schedule_reconnect(LayoutdConnection *self)
{
    if (self->closed || self->reconnect_id) return;
    self->backoff_ms = 50;
    self->reconnect_id = g_timeout_add(self->backoff_ms, try_reconnect, self);
}

static void connection_lost(LayoutdConnection *self, const layoutd_error *err)
{
    g_debug("connection to %s lost: %s: %s", self->socket_path, err->name, err->message);
    /* The source is being dispatched: let the dispatch return G_SOURCE_REMOVE, then drop it. */
    GSource *s = self->source;
    self->source = NULL;
    layoutd_client *c = self->client;
    self->client = NULL;
    if (s) {
        g_source_destroy(s);
        g_source_unref(s);
    }
    if (c) layoutd_client_close(c);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CONNECTED]);
    GError *error = layoutd_gtk_error_from(err);
    g_signal_emit(self, signals[SIGNAL_DISCONNECTED], 0, error);
    g_error_free(error);
    schedule_reconnect(self);
}

/* ---- requests ---- */

typedef struct {
    LayoutdConnection *conn;
    LayoutdReplyFunc func;
    gpointer user;
} Pending;

static void on_reply(layoutd_client *c, const layoutd_reply *reply, void *user)
{
    Pending *p = user;
    p->func(p->conn, reply, p->user);
    g_object_unref(p->conn);
    g_free(p);
}

gboolean layoutd_gtk_connection_send(LayoutdConnection *self, const char *method, const char *params_json,
                                 LayoutdReplyFunc func, gpointer user, GError **error)
{
    if (!self->client) {
        g_set_error(error, LAYOUTD_ERROR, LAYOUTD_ERROR_CONNECTION_CLOSED, "ConnectionClosed: not connected to %s",
                    self->socket_path);
        return FALSE;
    }
    Pending *p = g_new(Pending, 1);
    p->conn = g_object_ref(self);
    p->func = func;
    p->user = user;
    layoutd_error err;
    if (layoutd_send(self->client, method, params_json, on_reply, p, &err) < 0) {
        g_object_unref(p->conn);
        g_free(p);
        if (error) *error = layoutd_gtk_error_from(&err);
        return FALSE;
    }
    return TRUE;
}

static void on_task_reply(LayoutdConnection *conn, const layoutd_reply *reply, gpointer user)
{
    GTask *task = user;
    if (reply->error) g_task_return_error(task, layoutd_gtk_error_from(reply->error));
    else g_task_return_pointer(task, g_strdup(reply->result_text), g_free);
    g_object_unref(task);
}

/**
 * layoutd_connection_call_async:
 * @self: a connection
 * @method: a protocol method ("view.get", ...)
 * @params_json: (nullable): the params object as JSON text
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the reply
 * @user_data: (closure): data for @callback
 *
 * Sends any protocol request without blocking; finish with layoutd_connection_call_finish().
 */
void layoutd_connection_call_async(LayoutdConnection *self, const char *method, const char *params_json,
                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
    g_return_if_fail(LAYOUTD_IS_CONNECTION(self));
    GTask *task = g_task_new(self, cancellable, callback, user_data);
    g_task_set_source_tag(task, layoutd_connection_call_async);
    GError *error = NULL;
    if (!layoutd_gtk_connection_send(self, method, params_json, on_task_reply, task, &error)) {
        g_task_return_error(task, error);
        g_object_unref(task);
    }
}

/**
 * layoutd_connection_call_finish:
 * @self: a connection
 * @result: the #GAsyncResult
 * @error: a #GError
 *
 * Returns: (transfer full): the result object as JSON text, or %NULL with @error set (the
 *   daemon's refusal, or the connection's end)
 */
char *layoutd_connection_call_finish(LayoutdConnection *self, GAsyncResult *result, GError **error)
{
    g_return_val_if_fail(g_task_is_valid(result, self), NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}

guint layoutd_gtk_connection_add_event_handler(LayoutdConnection *self, LayoutdEventFunc func, gpointer user)
{
    EventHandler h = {func, user, ++self->next_handler_id};
    g_array_append_val(self->event_handlers, h);
    return h.id;
}

void layoutd_gtk_connection_remove_event_handler(LayoutdConnection *self, guint id)
{
    for (guint i = 0; i < self->event_handlers->len; i++)
        if (g_array_index(self->event_handlers, EventHandler, i).id == id) {
            g_array_remove_index(self->event_handlers, i);
            return;
        }
}

/* ---- construction ---- */

/**
 * layoutd_connection_new:
 * @socket_path: (nullable): the daemon's socket; %NULL looks where layoutctl looks
 *   ($LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock, /run/layoutd/ipc.sock)
 * @error: a #GError
 *
 * Connects (a local socket: connecting never waits on the daemon).
 *
 * Returns: (transfer full): the connection, or %NULL with @error set (no daemon there: IO)
 */
LayoutdConnection *layoutd_connection_new(const char *socket_path, GError **error)
{
    layoutd_error err;
    char path[4096];
    if (layoutd_socket_path(socket_path, path, sizeof path, &err) < 0) {
        if (error) *error = layoutd_gtk_error_from(&err);
        return NULL;
    }
    layoutd_client *c = layoutd_client_connect_timeout(path, 1000, &err);
    if (!c) {
        if (error) *error = layoutd_gtk_error_from(&err);
        return NULL;
    }
    return layoutd_connection_new_for_client(c);
}

/**
 * layoutd_connection_new_for_client: (skip)
 * @client: a connected `layoutd_client *` from liblayoutd-client; the connection takes it over
 *
 * Returns: (transfer full): a connection using @client
 */
LayoutdConnection *layoutd_connection_new_for_client(gpointer client)
{
    g_return_val_if_fail(client != NULL, NULL);
    LayoutdConnection *self = g_object_new(LAYOUTD_TYPE_CONNECTION, NULL);
    self->socket_path = g_strdup(layoutd_client_path(client));
    attach_client(self, client);
    return self;
}

/**
 * layoutd_connection_get_client: (skip)
 * @self: a connection
 *
 * Returns: (transfer none) (nullable): the `layoutd_client *` in use (NULL while reconnecting);
 *   valid until the connection is lost
 */
gpointer layoutd_connection_get_client(LayoutdConnection *self)
{
    return self->client;
}

/**
 * layoutd_connection_get_socket_path:
 * @self: a connection
 *
 * Returns: (transfer none): the socket it connects to
 */
const char *layoutd_connection_get_socket_path(LayoutdConnection *self)
{
    return self->socket_path;
}

/**
 * layoutd_connection_get_connected:
 * @self: a connection
 *
 * Returns: whether it is connected now (FALSE while it waits to reconnect)
 */
gboolean layoutd_connection_get_connected(LayoutdConnection *self)
{
    return self->client != NULL;
}

/**
 * layoutd_connection_reconnect:
 * @self: a connection
 * @error: a #GError
 *
 * Tries the socket now instead of waiting for the next retry.
 *
 * Returns: whether it is connected
 */
gboolean layoutd_connection_reconnect(LayoutdConnection *self, GError **error)
{
    if (self->client) return TRUE;
    self->closed = FALSE;
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect_timeout(self->socket_path, 100, &err);
    if (!c) {
        if (error) *error = layoutd_gtk_error_from(&err);
        schedule_reconnect(self);
        return FALSE;
    }
    g_clear_handle_id(&self->reconnect_id, g_source_remove);
    attach_client(self, c);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CONNECTED]);
    g_signal_emit(self, signals[SIGNAL_RECONNECTED], 0);
    return TRUE;
}

/**
 * layoutd_connection_close:
 * @self: a connection
 *
 * Closes it for good: pending requests fail with ConnectionClosed and it does not reconnect.
 */
void layoutd_connection_close(LayoutdConnection *self)
{
    self->closed = TRUE;
    g_clear_handle_id(&self->reconnect_id, g_source_remove);
    gboolean was = self->client != NULL;
    detach_client(self);
    if (was) g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CONNECTED]);
}

static void layoutd_connection_dispose(GObject *object)
{
    LayoutdConnection *self = LAYOUTD_CONNECTION(object);
    self->closed = TRUE;
    g_clear_handle_id(&self->reconnect_id, g_source_remove);
    detach_client(self);
    G_OBJECT_CLASS(layoutd_connection_parent_class)->dispose(object);
}

static void layoutd_connection_finalize(GObject *object)
{
    LayoutdConnection *self = LAYOUTD_CONNECTION(object);
    g_free(self->socket_path);
    g_array_unref(self->event_handlers);
    G_OBJECT_CLASS(layoutd_connection_parent_class)->finalize(object);
}

static void layoutd_connection_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    LayoutdConnection *self = LAYOUTD_CONNECTION(object);
    switch (id) {
    case PROP_SOCKET_PATH: g_value_set_string(value, self->socket_path); break;
    case PROP_CONNECTED: g_value_set_boolean(value, self->client != NULL); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_connection_class_init(LayoutdConnectionClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->dispose = layoutd_connection_dispose;
    oc->finalize = layoutd_connection_finalize;
    oc->get_property = layoutd_connection_get_property;
    /**
     * LayoutdConnection:socket-path:
     *
     * The daemon's socket.
     */
    props[PROP_SOCKET_PATH] = g_param_spec_string("socket-path", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    /**
     * LayoutdConnection:connected:
     *
     * Whether the connection is up (FALSE while it waits for the daemon to serve again).
     */
    props[PROP_CONNECTED] = g_param_spec_boolean("connected", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(oc, N_PROPS, props);
    /**
     * LayoutdConnection::disconnected:
     * @self: the connection
     * @reason: why: %LAYOUTD_ERROR_CONNECTION_CLOSED (end of stream), %LAYOUTD_ERROR_DAEMON_SHUTDOWN,
     *   %LAYOUTD_ERROR_IO, or %LAYOUTD_ERROR_PROTOCOL when the peer wrote something no layoutd writes
     *
     * The daemon went away; pending requests have failed. The connection retries by itself.
     */
    signals[SIGNAL_DISCONNECTED] = g_signal_new("disconnected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                                NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
    /**
     * LayoutdConnection::reconnected:
     * @self: the connection
     *
     * The daemon serves again on the same socket (views have to be created again).
     */
    signals[SIGNAL_RECONNECTED] = g_signal_new("reconnected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 0);
}

static void layoutd_connection_init(LayoutdConnection *self)
{
    self->event_handlers = g_array_new(FALSE, FALSE, sizeof(EventHandler));
}
