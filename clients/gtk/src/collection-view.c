/* LayoutdCollectionView: a GtkWidget (GtkScrollable) that shows a GListModel through a layoutd
 * view.
 *
 * The daemon owns the layout; this widget owns widgets. Its life (LayoutdViewState): once it has
 * a connection, a model and a size it sends view.create (data inline, or as a staged upload when
 * it would not fit one line) and view.subscribe; from the subscription's snapshot on it is READY
 * and keeps a mirror of the daemon's window. Nothing here waits for the daemon: every request's
 * reply is handled when it arrives (connection.c's GSource), and the subscription's events are
 * queued and applied once a frame, from the frame clock's tick, where the widgets are reconciled
 * with the mirror: an element entering the window takes a slot (LayoutdListItem + child widget)
 * from its kind's pool and is bound; one leaving is unbound and goes back to the pool, so the
 * number of widgets follows the window, not the data.
 *
 * Requests that follow the user keep one request in flight and send the latest value when it
 * returns (view.scroll, view.resize, view.updateMove): the daemon is never flooded, and the last
 * word is always the user's. Scrolling is drawn at once from the mirror (the window margin
 * covers the distance until the daemon's next window arrives).
 *
 * Offsets: the widget draws at its adjustments' values; the daemon's content offset is followed
 * only where the daemon moved it by itself (an anchor kept still across a change, another
 * client): see follow_daemon_offset(). scrollEnd's and scrollTo's targets are glided to by the
 * widget itself. */
#include "private.h"
#include <math.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_WINDOW_MARGIN 256.0
/* Data up to this many bytes of JSON goes inline in view.create / view.update; more goes as a
   staged upload in parts of this size (the daemon's default line limit is 1 MiB). */
#define INLINE_DATA_BYTES (256 * 1024)
#define BATCH_IDS 10000
/* Unbound slots kept per kind beyond the window's needs. */
#define POOL_LIMIT 64
#define LONG_PRESS_MOVE_THRESHOLD 8.0
/* UIKit's normal deceleration rate per millisecond: a fling at v points/s comes to rest
   v·r/(1−r)/1000 ≈ 0.5·v points further on. */
#define DECELERATION_RATE 0.998
#define SETTLE_SECONDS 0.35
/* A fling glides for about as long as UIKit's deceleration takes to slow to 20 points/s:
   ln(v / 20) / (1000 · −ln r) seconds, held to a quarter second … 2.5 s. */
static double fling_seconds(double vx, double vy)
{
    double v = hypot(vx, vy);
    return CLAMP(log(MAX(v, 20) / 20) / (1000 * -log(DECELERATION_RATE)), 0.25, 2.5);
}

typedef struct {
    char *key;                 /* kind "\x1f" id */
    char *kind;
    char *id;
    LayoutdListItem *li;
    LayoutdCellFactory *factory;
    layoutd_attributes attrs;  /* the mirror's (id → id, no effects) */
    layoutd_attributes shown;  /* what was allocated last: attrs, or a transition's sample */
    guint generation;
    gboolean leaving;          /* out of the window, kept while a transition plays it out */
    double reported_width, reported_height;  /* the last self-sizing measurement sent */
} Element;

typedef enum { QUEUED_INVALIDATION, QUEUED_SNAPSHOT, QUEUED_DELETED } QueuedKind;
typedef struct {
    QueuedKind kind;
    layoutd_invalidation *inv;
    layoutd_snapshot *snap;
    gboolean initial;          /* a subscription's snapshot: its offset is the view's, outright */
} Queued;

/* What a request's reply is for. */
typedef enum {
    REQ_CREATE, REQ_STAGE_BEGIN, REQ_STAGE_PART, REQ_SUBSCRIBE, REQ_UNSUBSCRIBE, REQ_DELETE_FOR_RECREATE,
    REQ_SCROLL, REQ_SCROLL_END, REQ_SCROLL_TO, REQ_RESIZE, REQ_UPDATE, REQ_MEASURE, REQ_SELECT, REQ_NEIGHBOR,
    REQ_CONFIGURE, REQ_SET_STRATEGY, REQ_DIRECTION, REQ_BEGIN_MOVE, REQ_UPDATE_MOVE, REQ_END_MOVE,
} RequestKind;

typedef struct {
    LayoutdCollectionView *view;   /* a reference, so a reply never meets a freed view */
    RequestKind kind;
    guint generation;              /* the view's session when sent: replies of an older one are ignored */
    double x, y;                   /* scroll: the offset sent */
    char *text;                    /* select: mode; neighbor: direction */
    char **ids;                    /* select: ids */
    LayoutdSyncData *data;         /* stage commit: the data the daemon holds once applied */
    gboolean upload_commit;        /* update: a staged upload's commit */
    gboolean animate;              /* scrollTo: the adjustments glide to the target */
    gboolean for_focus;            /* scrollTo: following the keyboard focus */
} Request;

struct _LayoutdCollectionView {
    GtkWidget parent_instance;

    LayoutdConnection *conn;
    gulong conn_lost_id, conn_back_id;
    guint event_handler_id;
    char *socket_path;
    char *view_name;
    char *strategy;
    char *parameters;
    GListModel *model;
    gulong items_changed_id;
    LayoutdCellFactory *cell_factory;
    GHashTable *factories;         /* kind → LayoutdCellFactory */
    gboolean animated;
    gboolean self_sizing;
    double window_margin;

    GtkAdjustment *hadj, *vadj;
    GtkScrollablePolicy hpolicy, vpolicy;
    gulong hadj_id, vadj_id;

    LayoutdViewState state;
    guint session;                 /* bumped when the view is (re)created: old replies are ignored */
    gint64 subscription;
    layoutd_mirror *mirror;
    gint64 epoch;
    gint64 awaited_epoch;          /* the newest epoch a reply of ours announced: its event is due */
    double content_w, content_h;
    GQueue queued;                 /* Queued *, applied on the next tick */
    int in_flight;                 /* requests sent, replies not yet handled */

    LayoutdSyncData *sent;         /* the data the daemon holds (as applied or about to be) */
    LayoutdSyncData *current;      /* the model's data (positions by id), as last read */
    gboolean current_stale;        /* the model changed since: read it again before a lookup */
    gboolean model_dirty;
    gboolean data_in_flight;       /* a staged upload is on its way: the next change waits for it */
    char *upload_id;
    LayoutdSyncData *upload_data;
    guint upload_from;

    GHashTable *elements;          /* key → Element * */
    GHashTable *pools;             /* kind → GPtrArray of LayoutdListItem * */
    guint generation;
    guint widget_count;

    double width, height;          /* the allocation */
    double sent_w, sent_h;         /* the viewport the daemon has or is getting */
    gboolean resize_in_flight;
    double ack_x, ack_y;           /* the daemon's offset after the newest scroll of ours it answered */
    gint64 ack_epoch;              /* the epoch that scroll (or an adopted move) gave the view */
    double daemon_x, daemon_y;     /* the daemon's offset after the last event applied */
    GHashTable *own_scrolls;       /* epochs of our view.scroll / scrollEnd / scrollTo, event not yet applied */
    gboolean scroll_in_flight, scroll_dirty;
    double last_scroll_x, last_scroll_y;
    gint64 last_scroll_us;
    double velocity_x, velocity_y;
    gboolean rtl, direction_in_flight;

    guint tick_id;
    layoutd_invalidation *transition;
    gint64 transition_start_us;
    double transition_time;        /* >= 0: paused at that time (tests, scrubbing) */

    gboolean settling;             /* a fling or scrollTo animating the adjustments */
    gboolean settle_step;          /* the settle animation is setting the adjustments now */
    double settle_seconds;
    double settle_from_x, settle_from_y, settle_to_x, settle_to_y;
    gint64 settle_start_us;

    GHashTable *selection;         /* item id → TRUE */
    char *range_anchor;
    char *focus_id;

    gboolean moving, move_in_flight, move_dirty, move_pending_end, move_commit;
    double move_x, move_y;
    double auto_scroll_x, auto_scroll_y;
    gint64 auto_scroll_us;
    double press_x, press_y;
    gboolean suppress_click;

    GPtrArray *measure_queue;      /* char * JSON entries for view.measure */

    char *restore;                 /* save_state() text to apply once ready */
    gboolean restore_due;          /* apply it once the subscription's snapshot is applied */
    double create_offset_x, create_offset_y;

    guint64 frames, round_trips;
    double last_frame_ms, frame_work_ms;
};

enum {
    PROP_0, PROP_CONNECTION, PROP_SOCKET_PATH, PROP_VIEW_NAME, PROP_STRATEGY, PROP_PARAMETERS, PROP_MODEL,
    PROP_FACTORY, PROP_ANIMATED, PROP_SELF_SIZING, PROP_WINDOW_MARGIN, PROP_STATE, PROP_EPOCH, PROP_FOCUS_ID,
    PROP_TRANSITION_TIME, N_PROPS,
    PROP_HADJUSTMENT = N_PROPS, PROP_VADJUSTMENT, PROP_HSCROLL_POLICY, PROP_VSCROLL_POLICY,
};
static GParamSpec *props[N_PROPS];
enum { SIGNAL_READY, SIGNAL_SELECTION_CHANGED, SIGNAL_ACTIVATE, SIGNAL_ERROR, SIGNAL_ITEM_MOVED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE(LayoutdCollectionView, layoutd_collection_view, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(GTK_TYPE_SCROLLABLE, NULL))

GType layoutd_view_state_get_type(void)
{
    static gsize type;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {LAYOUTD_VIEW_STATE_IDLE, "LAYOUTD_VIEW_STATE_IDLE", "idle"},
            {LAYOUTD_VIEW_STATE_CREATING, "LAYOUTD_VIEW_STATE_CREATING", "creating"},
            {LAYOUTD_VIEW_STATE_READY, "LAYOUTD_VIEW_STATE_READY", "ready"},
            {LAYOUTD_VIEW_STATE_RECONNECTING, "LAYOUTD_VIEW_STATE_RECONNECTING", "reconnecting"},
            {LAYOUTD_VIEW_STATE_FAILED, "LAYOUTD_VIEW_STATE_FAILED", "failed"},
            {0, NULL, NULL},
        };
        g_once_init_leave(&type, g_enum_register_static("LayoutdViewState", values));
    }
    return type;
}

static void ensure_tick(LayoutdCollectionView *self);
static void try_create(LayoutdCollectionView *self);
static void flush_data(LayoutdCollectionView *self);
static void flush_pending(LayoutdCollectionView *self);
static void send_scroll(LayoutdCollectionView *self);
static void send_resize(LayoutdCollectionView *self);
static void send_update_move(LayoutdCollectionView *self);
static void reconcile(LayoutdCollectionView *self);
static void apply_restore(LayoutdCollectionView *self);
static void record_strategy(LayoutdCollectionView *self, const char *strategy, const char *parameters_json);
static char *merge_parameters(const char *base, const char *changes);

/* ---------------------------------------------------------------------------------------- */
/* Small helpers                                                                              */

static void set_state(LayoutdCollectionView *self, LayoutdViewState state)
{
    if (self->state == state) return;
    self->state = state;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STATE]);
}

static void report(LayoutdCollectionView *self, GError *error)
{
    g_debug("view %s: %s", self->view_name, error->message);
    g_signal_emit(self, signals[SIGNAL_ERROR], 0, error);
    g_error_free(error);
}

static void fail(LayoutdCollectionView *self, GError *error)
{
    set_state(self, LAYOUTD_VIEW_STATE_FAILED);
    report(self, error);
}

static char *element_key(const char *kind, const char *id)
{
    return g_strconcat(kind, "\x1f", id, NULL);
}

static double adj_value(GtkAdjustment *adj)
{
    return adj ? gtk_adjustment_get_value(adj) : 0;
}

static GString *params_begin(LayoutdCollectionView *self)
{
    GString *p = g_string_new("{\"view\":");
    layoutd_gtk_json_string(p, self->view_name);
    return p;
}

static void reply_done(Request *r)
{
    r->view->in_flight--;
    r->view->round_trips++;
    g_object_unref(r->view);
    g_free(r->text);
    g_strfreev(r->ids);
    layoutd_sync_data_free(r->data);
    g_free(r);
}

static void on_reply(LayoutdConnection *conn, const layoutd_reply *reply, gpointer user);

/* Sends a request; the Request (kind, extras) comes back in on_reply. */
static gboolean send_request(LayoutdCollectionView *self, const char *method, GString *params, Request *r)
{
    r->view = g_object_ref(self);
    r->generation = self->session;
    GError *error = NULL;
    gboolean ok = self->conn && layoutd_gtk_connection_send(self->conn, method, params->str, on_reply, r, &error);
    g_string_free(params, TRUE);
    if (!ok) {
        g_object_unref(r->view);
        g_free(r->text);
        g_strfreev(r->ids);
        layoutd_sync_data_free(r->data);
        g_free(r);
        /* Not connected: the reconnect brings the view back; anything else is worth telling. */
        if (error && error->code != LAYOUTD_ERROR_CONNECTION_CLOSED) report(self, error);
        else g_clear_error(&error);
        return FALSE;
    }
    self->in_flight++;
    return TRUE;
}

static Request *request(RequestKind kind)
{
    Request *r = g_new0(Request, 1);
    r->kind = kind;
    return r;
}

/* ---------------------------------------------------------------------------------------- */
/* Slots: factories, pools, binding                                                           */

static LayoutdCellFactory *factory_for(LayoutdCollectionView *self, const char *kind)
{
    if (strcmp(kind, "cell") == 0) return self->cell_factory;
    return g_hash_table_lookup(self->factories, kind);
}

static GObject *model_item_for(LayoutdCollectionView *self, const char *id)
{
    if (!self->model) return NULL;
    if (!self->current || self->current_stale) {
        /* Positions in the model now: read again once after a change, not per lookup. */
        GError *error = NULL;
        LayoutdSyncData *d = layoutd_sync_data_from_model(self->model, &error);
        if (!d) {
            g_clear_error(&error);
            return NULL;
        }
        layoutd_sync_data_free(self->current);
        self->current = d;
        self->current_stale = FALSE;
    }
    gint64 flat = layoutd_sync_data_flat_index(self->current, id);
    return flat < 0 ? NULL : g_list_model_get_item(self->model, (guint)flat);
}

static void apply_child_state(Element *el)
{
    GtkWidget *child = layoutd_list_item_get_child(el->li);
    if (!child) return;
    if (layoutd_list_item_get_selected(el->li)) gtk_widget_set_state_flags(child, GTK_STATE_FLAG_SELECTED, FALSE);
    else gtk_widget_unset_state_flags(child, GTK_STATE_FLAG_SELECTED);
}

static void set_focus_class(LayoutdCollectionView *self, const char *id, gboolean on)
{
    if (!id) return;
    char *key = element_key("cell", id);
    Element *el = g_hash_table_lookup(self->elements, key);
    g_free(key);
    GtkWidget *child = el ? layoutd_list_item_get_child(el->li) : NULL;
    if (!child) return;
    if (on) gtk_widget_add_css_class(child, "layoutd-focus");
    else gtk_widget_remove_css_class(child, "layoutd-focus");
}

static Element *element_new(LayoutdCollectionView *self, const char *kind, const char *id, LayoutdCellFactory *factory)
{
    Element *el = g_new0(Element, 1);
    el->kind = g_strdup(kind);
    el->id = g_strdup(id);
    el->key = element_key(kind, id);
    el->factory = g_object_ref(factory);
    GPtrArray *pool = g_hash_table_lookup(self->pools, kind);
    if (pool && pool->len) {
        el->li = g_ptr_array_steal_index_fast(pool, pool->len - 1);
    } else {
        el->li = layoutd_gtk_list_item_new(kind);
        layoutd_gtk_cell_factory_emit_setup(factory, el->li);
        GtkWidget *child = layoutd_list_item_get_child(el->li);
        if (child) {
            gtk_widget_set_parent(child, GTK_WIDGET(self));
            self->widget_count++;
        }
    }
    return el;
}

static void bind_element(LayoutdCollectionView *self, Element *el)
{
    gboolean cell = strcmp(el->kind, "cell") == 0;
    GObject *item = cell ? model_item_for(self, el->id) : NULL;
    gboolean selected = cell && g_hash_table_contains(self->selection, el->id);
    layoutd_gtk_list_item_bind_to(el->li, el->id, item, (int)el->attrs.section, cell ? (int)el->attrs.item : -1, selected);
    if (item) g_object_unref(item);
    layoutd_gtk_cell_factory_emit_bind(el->factory, el->li);
    GtkWidget *child = layoutd_list_item_get_child(el->li);
    if (child) {
        gtk_widget_set_child_visible(child, TRUE);
        apply_child_state(el);
        if (self->focus_id && cell && strcmp(self->focus_id, el->id) == 0) gtk_widget_add_css_class(child, "layoutd-focus");
    }
}

static void teardown_slot(LayoutdCollectionView *self, LayoutdListItem *li, LayoutdCellFactory *factory)
{
    GtkWidget *child = layoutd_list_item_get_child(li);
    if (factory) layoutd_gtk_cell_factory_emit_teardown(factory, li);
    if (child && gtk_widget_get_parent(child) == GTK_WIDGET(self)) {
        gtk_widget_unparent(child);
        self->widget_count--;
    }
    g_object_unref(li);
}

/* Unbinds the element's slot and puts it back in its kind's pool (or tears it down past the
   pool's limit), then frees the element. */
static void element_release(LayoutdCollectionView *self, Element *el)
{
    layoutd_gtk_cell_factory_emit_unbind(el->factory, el->li);
    layoutd_gtk_list_item_unbind_from(el->li);
    GtkWidget *child = layoutd_list_item_get_child(el->li);
    if (child) {
        gtk_widget_set_child_visible(child, FALSE);
        gtk_widget_remove_css_class(child, "layoutd-focus");
        gtk_widget_unset_state_flags(child, GTK_STATE_FLAG_SELECTED);
    }
    GPtrArray *pool = g_hash_table_lookup(self->pools, el->kind);
    if (!pool) {
        pool = g_ptr_array_new();
        g_hash_table_insert(self->pools, g_strdup(el->kind), pool);
    }
    if (pool->len < POOL_LIMIT) g_ptr_array_add(pool, el->li);
    else teardown_slot(self, el->li, el->factory);
    g_object_unref(el->factory);
    g_free(el->key);
    g_free(el->kind);
    g_free(el->id);
    g_free(el);
}

static void drop_all_elements(LayoutdCollectionView *self)
{
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        element_release(self, value);
        g_hash_table_iter_steal(&it);
    }
}

static void drop_pools(LayoutdCollectionView *self)
{
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, self->pools);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        GPtrArray *pool = value;
        LayoutdCellFactory *factory = factory_for(self, key);
        for (guint i = 0; i < pool->len; i++) teardown_slot(self, g_ptr_array_index(pool, i), factory);
        g_ptr_array_set_size(pool, 0);
    }
}

static gboolean transition_moves(LayoutdCollectionView *self, const char *kind, const char *id)
{
    if (!self->transition) return FALSE;
    const layoutd_transition *tr = self->transition->transition;
    layoutd_kind k = layoutd_kind_named(kind);
    for (size_t i = 0; i < tr->segment_count; i++)
        if (tr->segments[i].kind == k && strcmp(tr->segments[i].id, id) == 0) return TRUE;
    return FALSE;
}

/* Makes the slots match the mirror: every element of the window has a bound slot with its
   attributes; the others go back to their pools (unless a transition still plays them out). */
static void reconcile(LayoutdCollectionView *self)
{
    guint gen = ++self->generation;
    if (self->mirror && layoutd_mirror_valid(self->mirror)) {
        char key_buf[512];
        for (size_t i = 0;; i++) {
            const layoutd_attributes *a = layoutd_mirror_at(self->mirror, i);
            if (!a) break;
            const char *kind = layoutd_kind_name(a->kind);
            char *key = (strlen(kind) + strlen(a->id) + 2 <= sizeof key_buf)
                            ? (g_snprintf(key_buf, sizeof key_buf, "%s\x1f%s", kind, a->id), key_buf)
                            : element_key(kind, a->id);
            Element *el = g_hash_table_lookup(self->elements, key);
            gboolean fresh = FALSE;
            if (!el) {
                LayoutdCellFactory *factory = factory_for(self, kind);
                if (!factory) {
                    if (key != key_buf) g_free(key);
                    continue;
                }
                el = element_new(self, kind, a->id, factory);
                g_hash_table_insert(self->elements, el->key, el);
                fresh = TRUE;
            }
            if (key != key_buf) g_free(key);
            gboolean moved_position = !fresh && (el->attrs.section != a->section || el->attrs.item != a->item);
            if (a->effect_count || fresh) {
                const char *names[32];
                double values[32];
                size_t n = MIN(a->effect_count, G_N_ELEMENTS(names));
                for (size_t k = 0; k < n; k++) {
                    names[k] = a->effects[k].name;
                    values[k] = a->effects[k].value;
                }
                layoutd_gtk_list_item_set_effects(el->li, n, names, values);
            }
            el->attrs = *a;
            el->attrs.id = el->id;
            el->attrs.effect_count = 0;
            el->attrs.effects = NULL;
            el->generation = gen;
            el->leaving = FALSE;
            if (fresh) {
                el->shown = el->attrs;
                bind_element(self, el);
            } else if (moved_position) {
                layoutd_gtk_list_item_set_position(el->li, (int)a->section, strcmp(kind, "cell") == 0 ? (int)a->item : -1);
            }
        }
    }
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        if (el->generation == gen) continue;
        if (transition_moves(self, el->kind, el->id)) {
            el->leaving = TRUE;
            continue;
        }
        g_hash_table_iter_steal(&it);
        element_release(self, el);
    }
    gtk_widget_queue_allocate(GTK_WIDGET(self));
}

/* ---------------------------------------------------------------------------------------- */
/* Adjustments                                                                                */

static void configure_adjustments(LayoutdCollectionView *self)
{
    if (self->vadj) {
        double page = self->height, upper = MAX(self->content_h, page);
        gtk_adjustment_configure(self->vadj, CLAMP(gtk_adjustment_get_value(self->vadj), 0, MAX(0, upper - page)), 0,
                                 upper, page * 0.1, page * 0.9, page);
    }
    if (self->hadj) {
        double page = self->width, upper = MAX(self->content_w, page);
        gtk_adjustment_configure(self->hadj, CLAMP(gtk_adjustment_get_value(self->hadj), 0, MAX(0, upper - page)), 0,
                                 upper, page * 0.1, page * 0.9, page);
    }
}

static void set_offset(LayoutdCollectionView *self, double x, double y)
{
    /* The handlers send view.scroll when the values differ from what the daemon acknowledged. */
    if (self->hadj) gtk_adjustment_set_value(self->hadj, x);
    if (self->vadj) gtk_adjustment_set_value(self->vadj, y);
}

static void on_adjustment_changed(GtkAdjustment *adj, LayoutdCollectionView *self)
{
    gint64 now = g_get_monotonic_time();
    /* The user (a scrollbar, a wheel) takes over from a glide. */
    if (self->settling && !self->settle_step) self->settling = FALSE;
    double x = adj_value(self->hadj), y = adj_value(self->vadj);
    if (self->last_scroll_us && now > self->last_scroll_us) {
        double dt = (now - self->last_scroll_us) / 1e6;
        if (dt < 0.2) {
            self->velocity_x = (x - self->last_scroll_x) / dt;
            self->velocity_y = (y - self->last_scroll_y) / dt;
        } else {
            self->velocity_x = self->velocity_y = 0;
        }
    }
    self->last_scroll_x = x;
    self->last_scroll_y = y;
    self->last_scroll_us = now;
    gtk_widget_queue_allocate(GTK_WIDGET(self));
    send_scroll(self);
}

static void set_adjustment(LayoutdCollectionView *self, GtkAdjustment **slot, gulong *handler, GtkAdjustment *adj,
                           guint prop)
{
    if (*slot == adj && adj) return;
    if (*slot) {
        g_signal_handler_disconnect(*slot, *handler);
        g_object_unref(*slot);
    }
    if (!adj) adj = gtk_adjustment_new(0, 0, 0, 0, 0, 0);
    *slot = g_object_ref_sink(adj);
    *handler = g_signal_connect(adj, "value-changed", G_CALLBACK(on_adjustment_changed), self);
    configure_adjustments(self);
    g_object_notify(G_OBJECT(self), prop == PROP_HADJUSTMENT ? "hadjustment" : "vadjustment");
}

/* ---------------------------------------------------------------------------------------- */
/* Applying what the daemon says                                                              */

static void queued_free(Queued *q)
{
    if (q->inv) {
        layoutd_invalidation_free(q->inv);
        g_free(q->inv);
    }
    if (q->snap) {
        layoutd_snapshot_free(q->snap);
        g_free(q->snap);
    }
    g_free(q);
}

static void enqueue(LayoutdCollectionView *self, Queued *q)
{
    g_queue_push_tail(&self->queued, q);
    ensure_tick(self);
}

static void end_transition(LayoutdCollectionView *self)
{
    if (!self->transition) return;
    layoutd_invalidation_free(self->transition);
    g_free(self->transition);
    self->transition = NULL;
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        if (!el->leaving) continue;
        g_hash_table_iter_steal(&it);
        element_release(self, el);
    }
    gtk_widget_queue_allocate(GTK_WIDGET(self));
}

/* What an event does to the offset the widget shows. The daemon's offset moves for two kinds of
   reason: our own scrolls (view.scroll, and scrollEnd and scrollTo, which the widget glides to
   itself), which the widget already shows, and everything else: an anchor kept still across a
   change, another client's scroll. Our scrolls are known by the epochs their replies carried
   (a reply comes before its event); for any other event the daemon's move since the previous
   event is added to where the user is now, which keeps both the user's motion and that move. */
static void follow_daemon_offset(LayoutdCollectionView *self, gint64 epoch, double x, double y)
{
    double dx = x - self->daemon_x, dy = y - self->daemon_y;
    self->daemon_x = x;
    self->daemon_y = y;
    if (g_hash_table_remove(self->own_scrolls, &epoch)) return;
    if (dx == 0 && dy == 0) return;
    if (epoch > self->ack_epoch) {
        /* The daemon is there now, unless a later scroll of ours was already answered. */
        self->ack_x = x;
        self->ack_y = y;
        self->ack_epoch = epoch;
    }
    set_offset(self, adj_value(self->hadj) + dx, adj_value(self->vadj) + dy);
}

static gboolean epoch_at_most(gpointer key, gpointer value, gpointer limit)
{
    return *(gint64 *)key <= *(gint64 *)limit;
}

/* A snapshot replaces everything: the subscription's first (the view as created or restored)
   sets the offset outright; a view.resync (we fell behind) does too unless the user has moved
   since our last acknowledged scroll, whose newer offset then goes out as usual. */
static void take_snapshot_offset(LayoutdCollectionView *self, const layoutd_snapshot *s, gboolean initial)
{
    double x = s->viewport.offset.x, y = s->viewport.offset.y;
    g_hash_table_foreach_remove(self->own_scrolls, epoch_at_most, (gpointer)&s->epoch);
    self->daemon_x = x;
    self->daemon_y = y;
    gboolean user_moved = !initial && (self->scroll_in_flight || self->scroll_dirty || adj_value(self->hadj) != self->ack_x ||
                                       adj_value(self->vadj) != self->ack_y);
    self->ack_x = x;
    self->ack_y = y;
    self->ack_epoch = s->epoch;
    if (user_moved) send_scroll(self);
    else set_offset(self, x, y);
}

static void resubscribe(LayoutdCollectionView *self);

static void apply_queued(LayoutdCollectionView *self)
{
    gboolean changed = FALSE;
    Queued *q;
    while ((q = g_queue_pop_head(&self->queued))) {
        if (q->kind == QUEUED_DELETED) {
            queued_free(q);
            /* The window is gone with the view: an empty, invalid mirror until a new one. */
            layoutd_mirror_free(self->mirror);
            self->mirror = layoutd_mirror_new();
            self->subscription = 0;
            drop_all_elements(self);
            fail(self, g_error_new(LAYOUTD_ERROR, -32001, "ViewNotFound: the view '%s' was deleted", self->view_name));
            return;
        }
        if (q->kind == QUEUED_SNAPSHOT) {
            layoutd_snapshot *s = q->snap;
            layoutd_mirror_reset(self->mirror, s);
            self->epoch = s->epoch;
            self->content_w = s->content_size.width;
            self->content_h = s->content_size.height;
            configure_adjustments(self);
            take_snapshot_offset(self, s, q->initial);
            changed = TRUE;
            if (self->restore_due) {
                /* Now that the adjustments span the content, a saved offset can be set. */
                self->restore_due = FALSE;
                apply_restore(self);
            }
        } else {
            layoutd_invalidation *inv = q->inv;
            if (layoutd_mirror_apply(self->mirror, inv) < 0) {
                /* An epoch gap: the mirror cannot follow; a fresh snapshot replaces it. */
                queued_free(q);
                resubscribe(self);
                continue;
            }
            self->epoch = inv->epoch;
            self->content_w = inv->content_size.width;
            self->content_h = inv->content_size.height;
            configure_adjustments(self);
            follow_daemon_offset(self, inv->epoch, inv->content_offset.x, inv->content_offset.y);
            if (inv->transition && inv->transition->segment_count) {
                end_transition(self);
                self->transition = inv;
                q->inv = NULL;
                GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(self));
                self->transition_start_us = clock ? gdk_frame_clock_get_frame_time(clock) : g_get_monotonic_time();
            }
            changed = TRUE;
        }
        queued_free(q);
    }
    if (changed) {
        reconcile(self);
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_EPOCH]);
    }
}

static double transition_elapsed(LayoutdCollectionView *self, gint64 now_us)
{
    if (self->transition_time >= 0) return self->transition_time;
    return (now_us - self->transition_start_us) / 1e6;
}

static void queue_measurements(LayoutdCollectionView *self);
static void send_measurements(LayoutdCollectionView *self);

static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(widget);
    gint64 start = g_get_monotonic_time();
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    self->last_frame_ms = self->frame_work_ms;
    self->frame_work_ms = 0;
    self->frames++;

    apply_queued(self);
    flush_pending(self);

    if (self->settling) {
        double t = (now - self->settle_start_us) / 1e6 / self->settle_seconds;
        self->settle_step = TRUE;
        if (t >= 1) {
            self->settling = FALSE;
            set_offset(self, self->settle_to_x, self->settle_to_y);
        } else {
            /* A decelerating glide: 1 − (1 − t)³, fast at first like the finger's fling. */
            double p = 1 - pow(1 - t, 3);
            set_offset(self, self->settle_from_x + (self->settle_to_x - self->settle_from_x) * p,
                       self->settle_from_y + (self->settle_to_y - self->settle_from_y) * p);
        }
        self->settle_step = FALSE;
    }
    if (self->moving && (self->auto_scroll_x != 0 || self->auto_scroll_y != 0)) {
        double dt = self->auto_scroll_us ? (now - self->auto_scroll_us) / 1e6 : 0;
        self->auto_scroll_us = now;
        if (dt > 0 && dt < 0.1) {
            set_offset(self, adj_value(self->hadj) + self->auto_scroll_x * dt, adj_value(self->vadj) + self->auto_scroll_y * dt);
            self->move_dirty = TRUE;
            send_update_move(self);
        }
    } else {
        self->auto_scroll_us = 0;
    }
    if (self->transition) {
        if (self->transition_time < 0 && transition_elapsed(self, now) >= self->transition->transition->duration) end_transition(self);
        gtk_widget_queue_allocate(widget);
    }
    if (self->self_sizing) send_measurements(self);

    self->frame_work_ms += (g_get_monotonic_time() - start) / 1000.0;
    gboolean more = !g_queue_is_empty(&self->queued) || self->settling || self->transition ||
                    (self->moving && (self->auto_scroll_x != 0 || self->auto_scroll_y != 0)) ||
                    (self->model_dirty && self->state == LAYOUTD_VIEW_STATE_READY) ||
                    (self->self_sizing && self->measure_queue->len);
    if (!more) {
        self->tick_id = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

static void ensure_tick(LayoutdCollectionView *self)
{
    if (self->tick_id) return;
    self->tick_id = gtk_widget_add_tick_callback(GTK_WIDGET(self), on_tick, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Events                                                                                     */

static void on_event(LayoutdConnection *conn, const layoutd_event *ev, gpointer user)
{
    LayoutdCollectionView *self = user;
    if (!self->subscription || ev->subscription != self->subscription) return;
    /* view.transitionInterrupted needs nothing: the invalidation that follows carries the view
       as it is. Anything else is read now (the event is valid during this call only) and
       applied at the next frame. */
    Queued *q = g_new0(Queued, 1);
    layoutd_error err;
    int rc = 0;
    if (strcmp(ev->name, LAYOUTD_EVENT_VIEW_INVALIDATED) == 0) {
        q->kind = QUEUED_INVALIDATION;
        q->inv = g_new0(layoutd_invalidation, 1);
        rc = layoutd_invalidation_from_json(ev->params, q->inv, &err);
    } else if (strcmp(ev->name, LAYOUTD_EVENT_VIEW_RESYNC) == 0) {
        q->kind = QUEUED_SNAPSHOT;
        q->snap = g_new0(layoutd_snapshot, 1);
        rc = layoutd_snapshot_from_json(layoutd_json_get(ev->params, "snapshot"), q->snap, &err);
    } else if (strcmp(ev->name, LAYOUTD_EVENT_VIEW_DELETED) == 0) {
        q->kind = QUEUED_DELETED;
    } else {
        g_free(q);
        return;
    }
    if (rc < 0) {
        g_free(q->inv);
        g_free(q->snap);
        g_free(q);
        report(self, layoutd_gtk_error_from(&err));
        resubscribe(self);
        return;
    }
    enqueue(self, q);
}

/* ---------------------------------------------------------------------------------------- */
/* Creating the view                                                                          */

static void send_subscribe(LayoutdCollectionView *self)
{
    GString *p = params_begin(self);
    g_string_append_c(p, '}');
    send_request(self, LAYOUTD_METHOD_VIEW_SUBSCRIBE, p, request(REQ_SUBSCRIBE));
}

static void send_upload_part(LayoutdCollectionView *self);

static gboolean data_fits_inline(LayoutdSyncData *d)
{
    /* An estimate: ids plus the {"id":""} around each. */
    gsize bytes = 0;
    for (guint i = 0; i < d->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(d->sections, i);
        bytes += strlen(s->id) + 24;
        for (guint j = 0; j < s->items->len; j++) bytes += strlen(g_ptr_array_index(s->items, j)) + 10;
        if (bytes > INLINE_DATA_BYTES) return FALSE;
    }
    return d->item_count <= BATCH_IDS;
}

/* Starts a staged upload of `data` (view.setData in parts); the commit's reply makes it `sent`. */
static void begin_upload(LayoutdCollectionView *self, LayoutdSyncData *data)
{
    layoutd_sync_data_free(self->upload_data);
    self->upload_data = data;
    self->upload_from = 0;
    self->data_in_flight = TRUE;
    GString *p = params_begin(self);
    g_string_append_c(p, '}');
    send_request(self, LAYOUTD_METHOD_VIEW_STAGE_BEGIN, p, request(REQ_STAGE_BEGIN));
}

static void send_upload_part(LayoutdCollectionView *self)
{
    LayoutdSyncData *d = self->upload_data;
    /* Parts of at most BATCH_IDS items and about INLINE_DATA_BYTES, until all is sent. */
    while (self->upload_from < d->item_count || self->upload_from == 0) {
        guint to = MIN(d->item_count, self->upload_from + BATCH_IDS);
        GString *p = g_string_new("{\"upload\":");
        layoutd_gtk_json_string(p, self->upload_id);
        g_string_append(p, ",\"sections\":");
        layoutd_sync_data_write(d, p, self->upload_from, to);
        g_string_append_c(p, '}');
        self->upload_from = to;
        Request *r = request(REQ_STAGE_PART);
        if (!send_request(self, LAYOUTD_METHOD_VIEW_STAGE_APPEND, p, r)) return;
        if (to >= d->item_count) break;
    }
    GString *p = g_string_new("{\"upload\":");
    layoutd_gtk_json_string(p, self->upload_id);
    g_string_append_printf(p, ",\"animated\":%s}", self->animated && self->sent && self->sent->item_count ? "true" : "false");
    Request *r = request(REQ_UPDATE);
    r->data = self->upload_data;
    self->upload_data = NULL;
    r->upload_commit = TRUE;
    send_request(self, LAYOUTD_METHOD_VIEW_STAGE_COMMIT, p, r);
}

static void try_create(LayoutdCollectionView *self)
{
    if (self->state != LAYOUTD_VIEW_STATE_IDLE && self->state != LAYOUTD_VIEW_STATE_RECONNECTING) return;
    if (!self->model || self->width <= 0 || self->height <= 0 || !gtk_widget_get_realized(GTK_WIDGET(self))) return;
    if (!self->conn) {
        GError *error = NULL;
        LayoutdConnection *conn = layoutd_connection_new(self->socket_path, &error);
        if (!conn) {
            fail(self, error);
            return;
        }
        layoutd_collection_view_set_connection(self, conn);
        g_object_unref(conn);
        if (self->state != LAYOUTD_VIEW_STATE_IDLE) return;
    }
    if (!layoutd_connection_get_connected(self->conn)) {
        set_state(self, LAYOUTD_VIEW_STATE_RECONNECTING);
        return;
    }
    GError *error = NULL;
    LayoutdSyncData *data = layoutd_sync_data_from_model(self->model, &error);
    if (!data) {
        fail(self, error);
        return;
    }
    self->session++;
    self->awaited_epoch = 0;
    self->ack_epoch = 0;
    g_hash_table_remove_all(self->own_scrolls);
    self->model_dirty = FALSE;
    set_state(self, LAYOUTD_VIEW_STATE_CREATING);
    if (self->restore) {
        /* A saved offset goes into view.create itself, so the first window is already there. */
        layoutd_json *j = layoutd_json_parse(self->restore, strlen(self->restore), NULL, 0);
        const layoutd_json *off = j ? layoutd_json_get(j, "offset") : NULL;
        if (off) {
            self->create_offset_x = layoutd_json_number(layoutd_json_get(off, "x"), 0);
            self->create_offset_y = layoutd_json_number(layoutd_json_get(off, "y"), 0);
        }
        layoutd_json_free(j);
    }
    double off_x = self->create_offset_x, off_y = self->create_offset_y;
    self->create_offset_x = self->create_offset_y = 0;
    if (off_x == 0 && off_y == 0) {
        off_x = adj_value(self->hadj);
        off_y = adj_value(self->vadj);
    }
    GString *p = params_begin(self);
    g_string_append(p, ",\"strategy\":");
    layoutd_gtk_json_string(p, self->strategy);
    g_string_append_printf(p, ",\"params\":%s,\"viewport\":{\"width\":", self->parameters);
    layoutd_gtk_json_number(p, self->width);
    g_string_append(p, ",\"height\":");
    layoutd_gtk_json_number(p, self->height);
    layoutd_gtk_json_point(p, "offset", off_x, off_y);
    g_string_append(p, "},\"windowMargin\":");
    layoutd_gtk_json_number(p, self->window_margin);
    self->rtl = gtk_widget_get_direction(GTK_WIDGET(self)) == GTK_TEXT_DIR_RTL;
    g_string_append_printf(p, ",\"layoutDirection\":\"%s\"", self->rtl ? "rtl" : "ltr");
    gboolean inline_data = data_fits_inline(data);
    g_string_append(p, ",\"sections\":");
    if (inline_data) layoutd_sync_data_write(data, p, 0, data->item_count);
    else g_string_append(p, "[]");
    g_string_append_c(p, '}');
    self->sent_w = self->width;
    self->sent_h = self->height;
    self->ack_x = off_x;
    self->ack_y = off_y;
    layoutd_sync_data_free(self->sent);
    self->sent = layoutd_sync_data_new();
    if (!send_request(self, LAYOUTD_METHOD_VIEW_CREATE, p, request(REQ_CREATE))) {
        layoutd_sync_data_free(data);
        set_state(self, LAYOUTD_VIEW_STATE_RECONNECTING);
        return;
    }
    /* Pipelined: the daemon handles a connection's requests in order. */
    if (inline_data) {
        layoutd_sync_data_free(self->sent);
        self->sent = data;
    } else {
        begin_upload(self, data);
    }
    send_subscribe(self);
}

static void resubscribe(LayoutdCollectionView *self)
{
    if (self->subscription) {
        GString *p = g_string_new(NULL);
        g_string_printf(p, "{\"subscription\":%" G_GINT64_FORMAT "}", self->subscription);
        send_request(self, LAYOUTD_METHOD_VIEW_UNSUBSCRIBE, p, request(REQ_UNSUBSCRIBE));
        self->subscription = 0;
    }
    g_queue_clear_full(&self->queued, (GDestroyNotify)queued_free);
    send_subscribe(self);
}

/* ---------------------------------------------------------------------------------------- */
/* Replies                                                                                    */

static void handle_subscribed(LayoutdCollectionView *self, const layoutd_reply *reply)
{
    self->subscription = (gint64)layoutd_json_number(layoutd_json_get(reply->result, "subscription"), 0);
    Queued *q = g_new0(Queued, 1);
    q->kind = QUEUED_SNAPSHOT;
    q->snap = g_new0(layoutd_snapshot, 1);
    layoutd_error err;
    if (layoutd_snapshot_from_json(layoutd_json_get(reply->result, "snapshot"), q->snap, &err) < 0) {
        g_free(q->snap);
        g_free(q);
        fail(self, layoutd_gtk_error_from(&err));
        return;
    }
    /* Events queued before this reply belong to an older subscription. */
    g_queue_clear_full(&self->queued, (GDestroyNotify)queued_free);
    q->initial = TRUE;
    enqueue(self, q);
    if (self->state != LAYOUTD_VIEW_STATE_READY) {
        set_state(self, LAYOUTD_VIEW_STATE_READY);
        /* What changed while the view was being created follows now. */
        if (self->sent_w != self->width || self->sent_h != self->height) send_resize(self);
        gboolean rtl = gtk_widget_get_direction(GTK_WIDGET(self)) == GTK_TEXT_DIR_RTL;
        if (rtl != self->rtl) {
            self->rtl = rtl;
            GString *p = params_begin(self);
            g_string_append_printf(p, ",\"layoutDirection\":\"%s\"}", rtl ? "rtl" : "ltr");
            send_request(self, LAYOUTD_METHOD_VIEW_SET_LAYOUT_DIRECTION, p, request(REQ_DIRECTION));
        }
        self->restore_due = self->restore != NULL;
        if (g_hash_table_size(self->selection)) {
            /* A selection made before (or kept across a restart) goes to the new view. */
            guint n = 0;
            char **ids = (char **)g_hash_table_get_keys_as_array(self->selection, &n);
            char **copy = g_strdupv(ids);
            g_free(ids);
            g_hash_table_remove_all(self->selection);
            layoutd_collection_view_select(self, (const char *const *)copy, "set");
            g_strfreev(copy);
        }
        g_signal_emit(self, signals[SIGNAL_READY], 0);
    }
}

static void finish_move(LayoutdCollectionView *self, const layoutd_json *result);

/* Whether a request's reply is an invalidation (its event follows on our subscription). */
static gboolean request_mutates(RequestKind kind)
{
    switch (kind) {
    case REQ_UPDATE: case REQ_SCROLL: case REQ_SCROLL_END: case REQ_SCROLL_TO: case REQ_RESIZE: case REQ_MEASURE:
    case REQ_SELECT: case REQ_CONFIGURE: case REQ_SET_STRATEGY: case REQ_DIRECTION: case REQ_BEGIN_MOVE:
    case REQ_UPDATE_MOVE: case REQ_END_MOVE:
        return TRUE;
    default:
        return FALSE;
    }
}

/* A move step was refused: NoActiveMove (another change, ours or another client's, ended the
   move) is expected; anything else is reported. Either way the drag is over here too. */
static void move_refused(LayoutdCollectionView *self, const layoutd_error *e)
{
    self->moving = FALSE;
    self->auto_scroll_x = self->auto_scroll_y = 0;
    if (strcmp(e->name, "NoActiveMove") != 0) report(self, layoutd_gtk_error_from(e));
    if (self->model_dirty) ensure_tick(self);   /* model changes waited for the drag */
}

/* A move step was answered: the end the user asked for meanwhile goes now, else the latest point. */
static void move_step_answered(LayoutdCollectionView *self)
{
    if (self->move_pending_end) {
        self->move_pending_end = FALSE;
        layoutd_collection_view_end_move(self, self->move_commit);
    } else {
        send_update_move(self);
    }
}

/* The connection went away with the request unanswered (a restart, a crash, a peer that broke
   the protocol). This is not the request's failure: on_connection_lost keeps the view
   RECONNECTING and says what needs saying, and the view is created again when the daemon is
   back. */
static gboolean lost_with_the_connection(const layoutd_error *e)
{
    return e && (e->code == LAYOUTD_ERR_CLOSED || e->code == LAYOUTD_ERR_IO || e->code == LAYOUTD_ERR_PROTOCOL ||
                 e->code == LAYOUTD_ERR_SHUTDOWN);
}

static void on_reply(LayoutdConnection *conn, const layoutd_reply *reply, gpointer user)
{
    Request *r = user;
    LayoutdCollectionView *self = r->view;
    gboolean stale = r->generation != self->session || lost_with_the_connection(reply->error);
    if (stale) {
        reply_done(r);
        return;
    }
    const layoutd_error *e = reply->error;
    if (!e && reply->result && request_mutates(r->kind)) {
        /* A mutation's reply comes before its event, maybe in another read: until the event
           is applied the view is not idle. */
        const layoutd_json *epoch = layoutd_json_get(reply->result, "epoch");
        if (epoch && epoch->type == LAYOUTD_JSON_NUMBER) {
            gint64 e = (gint64)epoch->num;
            self->awaited_epoch = MAX(self->awaited_epoch, e);
            if (r->kind == REQ_SCROLL || r->kind == REQ_SCROLL_END || r->kind == REQ_SCROLL_TO) {
                /* The widget shows these offsets itself: their events move nothing. */
                gint64 *key = g_new(gint64, 1);
                *key = e;
                g_hash_table_add(self->own_scrolls, key);
                self->ack_epoch = MAX(self->ack_epoch, e);
            }
        }
    }
    switch (r->kind) {
    case REQ_CREATE:
        if (e && strcmp(e->name, "ViewExists") == 0 && self->state == LAYOUTD_VIEW_STATE_CREATING && self->round_trips > 0) {
            /* After a reconnect the daemon may still hold our view (a new daemon restored it,
               or a reconnect raced its deletion): it is ours by name; replace it. */
            GString *p = params_begin(self);
            g_string_append_c(p, '}');
            send_request(self, LAYOUTD_METHOD_VIEW_DELETE, p, request(REQ_DELETE_FOR_RECREATE));
        } else if (e) {
            fail(self, layoutd_gtk_error_from(e));
        }
        break;
    case REQ_DELETE_FOR_RECREATE:
        set_state(self, LAYOUTD_VIEW_STATE_IDLE);
        try_create(self);
        break;
    case REQ_STAGE_BEGIN:
        if (e) {
            if (self->state != LAYOUTD_VIEW_STATE_FAILED) fail(self, layoutd_gtk_error_from(e));
            self->data_in_flight = FALSE;
            break;
        }
        g_free(self->upload_id);
        self->upload_id = g_strdup(layoutd_json_string(layoutd_json_get(reply->result, "upload")));
        send_upload_part(self);
        break;
    case REQ_STAGE_PART:
        if (e && self->state != LAYOUTD_VIEW_STATE_FAILED) report(self, layoutd_gtk_error_from(e));
        break;
    case REQ_SUBSCRIBE:
        if (e) {
            if (self->state != LAYOUTD_VIEW_STATE_FAILED) fail(self, layoutd_gtk_error_from(e));
            break;
        }
        handle_subscribed(self, reply);
        break;
    case REQ_UPDATE:
        if (r->upload_commit) self->data_in_flight = FALSE;
        if (e) {
            report(self, layoutd_gtk_error_from(e));
            /* What the daemon holds is unknown to us now: send the whole model next frame. */
            layoutd_sync_data_free(self->sent);
            self->sent = NULL;
            self->model_dirty = TRUE;
            ensure_tick(self);
        } else if (r->data) {
            layoutd_sync_data_free(self->sent);
            self->sent = r->data;
            r->data = NULL;
        }
        if (self->model_dirty) ensure_tick(self);
        break;
    case REQ_SCROLL:
        self->scroll_in_flight = FALSE;
        /* A refused scroll (the view deleted meanwhile, say) is not sent again: that offset
           counts as answered, and only a newer one goes out. */
        self->ack_x = r->x;
        self->ack_y = r->y;
        if (e) report(self, layoutd_gtk_error_from(e));
        send_scroll(self);
        break;
    case REQ_SCROLL_END:
    case REQ_SCROLL_TO:
        if (e) {
            /* Following the focus to an item deleted meanwhile is nobody's error. */
            if (!(r->for_focus && strcmp(e->name, "ItemNotFound") == 0)) report(self, layoutd_gtk_error_from(e));
            break;
        }
        {
            const layoutd_json *t = layoutd_json_get(reply->result, "targetContentOffset");
            const layoutd_json *o = layoutd_json_get(reply->result, "contentOffset");
            const layoutd_json *target = t ? t : o;
            double tx = layoutd_json_number(layoutd_json_get(target, "x"), 0);
            double ty = layoutd_json_number(layoutd_json_get(target, "y"), 0);
            /* The daemon is at the target already; the adjustments glide there. */
            self->ack_x = tx;
            self->ack_y = ty;
            gboolean animate = r->kind == REQ_SCROLL_END || r->animate;
            if (animate) {
                self->settling = TRUE;
                self->settle_seconds = r->kind == REQ_SCROLL_END ? fling_seconds(r->x, r->y) : SETTLE_SECONDS;
                self->settle_from_x = adj_value(self->hadj);
                self->settle_from_y = adj_value(self->vadj);
                self->settle_to_x = tx;
                self->settle_to_y = ty;
                GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(self));
                self->settle_start_us = clock ? gdk_frame_clock_get_frame_time(clock) : g_get_monotonic_time();
                ensure_tick(self);
            } else {
                set_offset(self, tx, ty);
            }
        }
        break;
    case REQ_RESIZE:
        self->resize_in_flight = FALSE;
        if (e) report(self, layoutd_gtk_error_from(e));
        send_resize(self);
        break;
    case REQ_SELECT:
        if (e) {
            report(self, layoutd_gtk_error_from(e));
            break;
        }
        {
            const char *mode = r->text;
            if (strcmp(mode, "set") == 0) g_hash_table_remove_all(self->selection);
            for (char **id = r->ids; id && *id; id++) {
                if (strcmp(mode, "remove") == 0) g_hash_table_remove(self->selection, *id);
                else if (strcmp(mode, "toggle") == 0 && g_hash_table_contains(self->selection, *id))
                    g_hash_table_remove(self->selection, *id);
                else g_hash_table_add(self->selection, g_strdup(*id));
            }
            GHashTableIter it;
            gpointer value;
            g_hash_table_iter_init(&it, self->elements);
            while (g_hash_table_iter_next(&it, NULL, &value)) {
                Element *el = value;
                if (strcmp(el->kind, "cell") != 0) continue;
                layoutd_gtk_list_item_set_selected(el->li, g_hash_table_contains(self->selection, el->id));
                apply_child_state(el);
            }
            g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
        }
        break;
    case REQ_NEIGHBOR:
        if (e) {
            report(self, layoutd_gtk_error_from(e));
            break;
        }
        {
            const layoutd_json *el = layoutd_json_get(reply->result, "element");
            const char *id = layoutd_json_string(layoutd_json_get(el, "id"));
            /* An answer about an item a model change has deleted since is moot. */
            if (id && self->sent && !layoutd_sync_data_locate(self->sent, id, NULL, NULL)) break;
            if (id) {
                layoutd_collection_view_set_focus_id(self, id);
                Request *s = request(REQ_SCROLL_TO);
                s->animate = TRUE;
                s->for_focus = TRUE;
                GString *p = params_begin(self);
                g_string_append(p, ",\"id\":");
                layoutd_gtk_json_string(p, id);
                g_string_append(p, ",\"align\":\"nearest\"}");
                send_request(self, LAYOUTD_METHOD_VIEW_SCROLL_TO, p, s);
            } else {
                gtk_widget_error_bell(GTK_WIDGET(self));
            }
        }
        break;
    case REQ_BEGIN_MOVE:
        self->move_in_flight = FALSE;
        if (e) move_refused(self, e);
        else move_step_answered(self);
        break;
    case REQ_UPDATE_MOVE:
        self->move_in_flight = FALSE;
        if (e) {
            move_refused(self, e);
            break;
        }
        {
            const layoutd_json *as = layoutd_json_get(reply->result, "autoScroll");
            self->auto_scroll_x = layoutd_json_number(layoutd_json_get(as, "x"), 0);
            self->auto_scroll_y = layoutd_json_number(layoutd_json_get(as, "y"), 0);
            if (self->auto_scroll_x != 0 || self->auto_scroll_y != 0) ensure_tick(self);
        }
        move_step_answered(self);
        break;
    case REQ_END_MOVE:
        self->move_in_flight = FALSE;
        if (e) move_refused(self, e);
        else finish_move(self, reply->result);
        break;
    case REQ_SET_STRATEGY:
        if (e) report(self, layoutd_gtk_error_from(e));
        else record_strategy(self, r->ids[0], r->ids[1]);
        break;
    case REQ_CONFIGURE:
        if (e) {
            report(self, layoutd_gtk_error_from(e));
        } else {
            char *merged = merge_parameters(self->parameters, r->ids[0]);
            record_strategy(self, self->strategy, merged);
            g_free(merged);
        }
        break;
    case REQ_MEASURE:
    case REQ_DIRECTION:
    case REQ_UNSUBSCRIBE:
        if (e && !(r->kind == REQ_UNSUBSCRIBE)) report(self, layoutd_gtk_error_from(e));
        break;
    }
    reply_done(r);
}

/* ---------------------------------------------------------------------------------------- */
/* Requests that follow the user                                                              */

static void send_scroll(LayoutdCollectionView *self)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY) return;
    double x = adj_value(self->hadj), y = adj_value(self->vadj);
    if (self->scroll_in_flight) {
        self->scroll_dirty = TRUE;
        return;
    }
    self->scroll_dirty = FALSE;
    if (x == self->ack_x && y == self->ack_y) return;
    GString *p = params_begin(self);
    layoutd_gtk_json_point(p, "offset", x, y);
    if (self->velocity_x != 0 || self->velocity_y != 0)
        layoutd_gtk_json_point(p, "velocity", CLAMP(self->velocity_x, -1e6, 1e6), CLAMP(self->velocity_y, -1e6, 1e6));
    g_string_append_c(p, '}');
    Request *r = request(REQ_SCROLL);
    r->x = x;
    r->y = y;
    if (send_request(self, LAYOUTD_METHOD_VIEW_SCROLL, p, r)) self->scroll_in_flight = TRUE;
}

static void send_resize(LayoutdCollectionView *self)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY || self->resize_in_flight) return;
    if (self->width <= 0 || self->height <= 0) return;
    if (self->width == self->sent_w && self->height == self->sent_h) return;
    GString *p = params_begin(self);
    layoutd_gtk_json_size(p, "size", self->width, self->height);
    g_string_append_c(p, '}');
    self->sent_w = self->width;
    self->sent_h = self->height;
    if (send_request(self, LAYOUTD_METHOD_VIEW_RESIZE, p, request(REQ_RESIZE))) self->resize_in_flight = TRUE;
}

static void send_update_move(LayoutdCollectionView *self)
{
    if (!self->moving || self->move_in_flight || !self->move_dirty) return;
    self->move_dirty = FALSE;
    GString *p = params_begin(self);
    layoutd_gtk_json_point(p, "point", self->move_x, self->move_y);
    g_string_append_c(p, '}');
    if (send_request(self, LAYOUTD_METHOD_VIEW_UPDATE_MOVE, p, request(REQ_UPDATE_MOVE))) self->move_in_flight = TRUE;
}

/* The model's changes go out now if they can: before a request that names items (a selection
   of an item just inserted must find it), and once a frame. A batch is computed against the
   data the daemon will hold when it applies (`sent` is that, optimistically: a refused batch
   resets it and the whole model follows), so not while a staged upload is on its way, nor
   during a drag, whose commit reorders that data. */
static void flush_pending(LayoutdCollectionView *self)
{
    if (self->model_dirty && !self->data_in_flight && !self->moving && !self->move_in_flight &&
        self->state == LAYOUTD_VIEW_STATE_READY)
        flush_data(self);
}

/* The model changed (or a reply said the daemon's copy is unknown): one batch for all of it. */
static void flush_data(LayoutdCollectionView *self)
{
    GError *error = NULL;
    LayoutdSyncData *now = layoutd_sync_data_from_model(self->model, &error);
    if (!now) {
        self->model_dirty = FALSE;
        report(self, error);
        return;
    }
    self->model_dirty = FALSE;
    layoutd_sync_data_free(self->current);
    self->current = layoutd_sync_data_copy(now);
    self->current_stale = FALSE;
    if (!self->sent) {
        begin_upload(self, now);
        return;
    }
    GString *updates = g_string_new(NULL);
    guint named = 0;
    GPtrArray *deleted = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = layoutd_sync_diff(self->sent, now, updates, &named, deleted);
    for (guint i = 0; i < deleted->len; i++) {
        const char *id = g_ptr_array_index(deleted, i);
        if (g_hash_table_remove(self->selection, id)) g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
        if (self->focus_id && strcmp(self->focus_id, id) == 0) layoutd_collection_view_set_focus_id(self, NULL);
    }
    g_ptr_array_unref(deleted);
    if (ok && named == 0) {
        g_string_free(updates, TRUE);
        layoutd_sync_data_free(self->sent);
        self->sent = now;
        return;
    }
    if (!ok || named > BATCH_IDS || updates->len > INLINE_DATA_BYTES) {
        g_string_free(updates, TRUE);
        begin_upload(self, now);
        return;
    }
    GString *p = params_begin(self);
    g_string_append_printf(p, ",\"animated\":%s,\"updates\":%s}", self->animated ? "true" : "false", updates->str);
    g_string_free(updates, TRUE);
    if (send_request(self, LAYOUTD_METHOD_VIEW_UPDATE, p, request(REQ_UPDATE))) {
        layoutd_sync_data_free(self->sent);
        self->sent = now;
    } else {
        layoutd_sync_data_free(now);
    }
}

static void on_items_changed(GListModel *model, guint position, guint removed, guint added, LayoutdCollectionView *self)
{
    self->model_dirty = TRUE;
    self->current_stale = TRUE;
    if (self->state == LAYOUTD_VIEW_STATE_READY) ensure_tick(self);
    else if (self->state == LAYOUTD_VIEW_STATE_IDLE) try_create(self);
}

/* ---------------------------------------------------------------------------------------- */
/* Self-sizing                                                                                */

static void send_measurements(LayoutdCollectionView *self)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY) return;
    queue_measurements(self);
    if (!self->measure_queue->len) return;
    GString *p = params_begin(self);
    g_string_append(p, ",\"sizes\":[");
    for (guint i = 0; i < self->measure_queue->len; i++) {
        if (i) g_string_append_c(p, ',');
        g_string_append(p, g_ptr_array_index(self->measure_queue, i));
    }
    g_string_append(p, "]}");
    g_ptr_array_set_size(self->measure_queue, 0);
    send_request(self, LAYOUTD_METHOD_VIEW_MEASURE, p, request(REQ_MEASURE));
}

/* Bound cells whose widget wants another height for their width than the layout gave them
   (half a point or more, the daemon's own threshold) are measured; the daemon's anchor keeps
   the viewport still while they change. */
static void queue_measurements(LayoutdCollectionView *self)
{
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        if (el->leaving || strcmp(el->kind, "cell") != 0) continue;
        GtkWidget *child = layoutd_list_item_get_child(el->li);
        if (!child) continue;
        double w = el->attrs.frame.width;
        int min = 0, nat = 0;
        gtk_widget_measure(child, GTK_ORIENTATION_VERTICAL, (int)w, &min, &nat, NULL, NULL);
        double h = nat;
        if (fabs(h - el->attrs.frame.height) < 0.5) continue;
        if (el->reported_width == w && el->reported_height == h) continue;
        el->reported_width = w;
        el->reported_height = h;
        GString *e = g_string_new("{\"id\":");
        layoutd_gtk_json_string(e, el->id);
        layoutd_gtk_json_size(e, "size", w, h);
        g_string_append_c(e, '}');
        g_ptr_array_add(self->measure_queue, g_string_free(e, FALSE));
        if (self->measure_queue->len >= 1000) break;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Moves                                                                                      */

static void finish_move(LayoutdCollectionView *self, const layoutd_json *result)
{
    self->moving = FALSE;
    self->auto_scroll_x = self->auto_scroll_y = 0;
    const layoutd_json *moved = layoutd_json_get(layoutd_json_get(result, "changes"), "movedItems");
    size_t n = 0;
    while (layoutd_json_at(moved, n)) n++;
    if (n == 0 || !self->sent) return;
    /* Where the unit landed: its first item's cell in the result's window (the item ends under
       the finger, so in the window); the daemon's data order is the truth. */
    const char *first = layoutd_json_string(layoutd_json_at(moved, 0));
    gint64 section = -1, position = -1;
    const char *lists[] = {"changed", "entered"};
    for (int l = 0; l < 2 && section < 0; l++) {
        const layoutd_json *arr = layoutd_json_get(result, lists[l]);
        for (size_t i = 0; layoutd_json_at(arr, i); i++) {
            const layoutd_json *a = layoutd_json_at(arr, i);
            const char *id = layoutd_json_string(layoutd_json_get(a, "id"));
            const char *kind = layoutd_json_string(layoutd_json_get(a, "kind"));
            if (id && kind && strcmp(kind, "cell") == 0 && strcmp(id, first) == 0) {
                section = (gint64)layoutd_json_number(layoutd_json_get(a, "section"), -1);
                position = (gint64)layoutd_json_number(layoutd_json_get(a, "item"), -1);
                break;
            }
        }
    }
    if (section >= (gint64)self->sent->sections->len) section = -1;
    if (section < 0) {
        const layoutd_attributes *a = self->mirror ? layoutd_mirror_find(self->mirror, LAYOUTD_CELL, first) : NULL;
        if (!a) {
            /* Unknown: re-send the whole model so the daemon and the model agree again. */
            layoutd_sync_data_free(self->sent);
            self->sent = NULL;
            return;
        }
        section = a->section;
        position = a->item;
        if (section < 0 || section >= (gint64)self->sent->sections->len) {
            layoutd_sync_data_free(self->sent);
            self->sent = NULL;
            return;
        }
    }
    const char **ids = g_new0(const char *, n + 1);
    for (size_t i = 0; i < n; i++) ids[i] = layoutd_json_string(layoutd_json_at(moved, i));
    /* The daemon holds the new order already: `sent` follows it, so the model's own move
       (below, or the app's) diffs to nothing. */
    layoutd_sync_data_move(self->sent, ids, (guint)n, (guint)section, (guint)position);
    gboolean handled = FALSE;
    for (size_t i = 0; i < n; i++)
        g_signal_emit(self, signals[SIGNAL_ITEM_MOVED], 0, ids[i], (int)section, (int)(position + i), &handled);
    if (!handled && G_IS_LIST_STORE(self->model)) {
        GListStore *store = G_LIST_STORE(self->model);
        GPtrArray *objects = g_ptr_array_new_with_free_func(g_object_unref);
        const char *section_id = ((LayoutdSyncSection *)g_ptr_array_index(self->sent->sections, section))->id;
        for (size_t i = 0; i < n; i++) {
            GObject *o = model_item_for(self, ids[i]);
            if (!o) continue;
            guint at;
            if (g_list_store_find(store, o, &at)) g_list_store_remove(store, at);
            /* Dropped into another section: the item says so, or the model would hold a
               section in two pieces. */
            GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(o), "section");
            if (spec && spec->value_type == G_TYPE_STRING && (spec->flags & G_PARAM_WRITABLE) &&
                !(spec->flags & G_PARAM_CONSTRUCT_ONLY))
                g_object_set(o, "section", section_id, NULL);
            g_ptr_array_add(objects, o);
        }
        /* Insert at the flat position the daemon's order gives the first item. */
        gint64 flat = layoutd_sync_data_flat_index(self->sent, ids[0]);
        for (guint i = 0; i < objects->len && flat >= 0; i++)
            g_list_store_insert(store, (guint)flat + i, g_ptr_array_index(objects, i));
        g_ptr_array_unref(objects);
    }
    g_free(ids);
}

/* ---------------------------------------------------------------------------------------- */
/* Input                                                                                      */

static Element *element_at(LayoutdCollectionView *self, double x, double y)
{
    double cx = x + adj_value(self->hadj), cy = y + adj_value(self->vadj);
    Element *best = NULL;
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        if (el->leaving || el->attrs.hidden || strcmp(el->kind, "cell") != 0) continue;
        layoutd_rect f = el->attrs.frame;
        if (cx < f.x || cy < f.y || cx >= f.x + f.width || cy >= f.y + f.height) continue;
        /* Drawn on top wins, as view.hitTest orders them. */
        if (!best || el->attrs.z_index > best->attrs.z_index ||
            (el->attrs.z_index == best->attrs.z_index && strcmp(el->id, best->id) > 0))
            best = el;
    }
    return best;
}

static void on_click_released(GtkGestureClick *gesture, int n_press, double x, double y, LayoutdCollectionView *self)
{
    if (self->suppress_click) {
        self->suppress_click = FALSE;
        return;
    }
    Element *el = element_at(self, x, y);
    gtk_widget_grab_focus(GTK_WIDGET(self));
    if (!el) return;
    char *id = g_strdup(el->id);
    GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    layoutd_collection_view_set_focus_id(self, id);
    if (n_press >= 2) {
        g_signal_emit(self, signals[SIGNAL_ACTIVATE], 0, id);
    } else if ((mods & GDK_SHIFT_MASK) && self->range_anchor && self->sent) {
        /* A range in the data's order, from the anchor to here. */
        gint64 a = layoutd_sync_data_flat_index(self->sent, self->range_anchor), b = layoutd_sync_data_flat_index(self->sent, id);
        if (a >= 0 && b >= 0) {
            gint64 lo = MIN(a, b), hi = MAX(a, b);
            GPtrArray *ids = g_ptr_array_new();
            gint64 flat = 0;
            for (guint s = 0; s < self->sent->sections->len; s++) {
                LayoutdSyncSection *sec = g_ptr_array_index(self->sent->sections, s);
                for (guint i = 0; i < sec->items->len; i++, flat++)
                    if (flat >= lo && flat <= hi) g_ptr_array_add(ids, g_ptr_array_index(sec->items, i));
            }
            g_ptr_array_add(ids, NULL);
            layoutd_collection_view_select(self, (const char *const *)ids->pdata, (mods & GDK_CONTROL_MASK) ? "add" : "set");
            g_ptr_array_unref(ids);
        }
    } else {
        const char *ids[] = {id, NULL};
        layoutd_collection_view_select(self, ids, (mods & GDK_CONTROL_MASK) ? "toggle" : "set");
        g_free(self->range_anchor);
        self->range_anchor = g_strdup(id);
    }
    g_free(id);
}

static gboolean on_key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                               LayoutdCollectionView *self)
{
    const char *direction = NULL;
    switch (keyval) {
    case GDK_KEY_Up: case GDK_KEY_KP_Up: direction = "up"; break;
    case GDK_KEY_Down: case GDK_KEY_KP_Down: direction = "down"; break;
    case GDK_KEY_Left: case GDK_KEY_KP_Left: direction = "left"; break;
    case GDK_KEY_Right: case GDK_KEY_KP_Right: direction = "right"; break;
    case GDK_KEY_Tab: direction = (state & GDK_SHIFT_MASK) ? "previous" : "next"; break;
    case GDK_KEY_ISO_Left_Tab: direction = "previous"; break;
    case GDK_KEY_space:
        if (self->focus_id) {
            const char *ids[] = {self->focus_id, NULL};
            layoutd_collection_view_select(self, ids, (state & GDK_CONTROL_MASK) ? "toggle" : "set");
            return TRUE;
        }
        return FALSE;
    case GDK_KEY_Return: case GDK_KEY_KP_Enter:
        if (self->focus_id) {
            g_signal_emit(self, signals[SIGNAL_ACTIVATE], 0, self->focus_id);
            return TRUE;
        }
        return FALSE;
    case GDK_KEY_Escape:
        if (self->moving) {
            layoutd_collection_view_end_move(self, FALSE);
            return TRUE;
        }
        return FALSE;
    default: return FALSE;
    }
    layoutd_collection_view_move_focus_to(self, direction);
    return TRUE;
}

static void on_long_press(GtkGestureLongPress *gesture, double x, double y, LayoutdCollectionView *self)
{
    if (layoutd_collection_view_begin_move(self, x, y)) self->suppress_click = TRUE;
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, LayoutdCollectionView *self)
{
    self->press_x = x;
    self->press_y = y;
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, LayoutdCollectionView *self)
{
    if (!self->moving) return;
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    layoutd_collection_view_update_move(self, self->press_x + dx, self->press_y + dy);
}

static void on_drag_end(GtkGestureDrag *gesture, double dx, double dy, LayoutdCollectionView *self)
{
    if (!self->moving) return;
    layoutd_collection_view_update_move(self, self->press_x + dx, self->press_y + dy);
    layoutd_collection_view_end_move(self, TRUE);
}

static void on_scroll_begin(GtkEventControllerScroll *controller, LayoutdCollectionView *self)
{
    self->settling = FALSE;
}

static gboolean on_decelerate(GtkEventControllerScroll *controller, double vx, double vy, LayoutdCollectionView *self)
{
    /* The end of a kinetic scroll: where it would come to rest is the strategy's to decide. */
    layoutd_collection_view_fling(self, vx, vy);
    return FALSE;
}

/* ---------------------------------------------------------------------------------------- */
/* GtkWidget                                                                                  */

static void layoutd_collection_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                            int *natural, int *minimum_baseline, int *natural_baseline)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(widget);
    *minimum = 0;
    double content = orientation == GTK_ORIENTATION_HORIZONTAL ? self->content_w : self->content_h;
    *natural = (int)MIN(content, 600);
}

static void allocate_element(LayoutdCollectionView *self, Element *el, double off_x, double off_y, double t)
{
    GtkWidget *child = layoutd_list_item_get_child(el->li);
    if (!child) return;
    layoutd_attributes a = el->attrs;
    if (self->transition) {
        layoutd_attributes sampled;
        if (layoutd_transition_sample(self->transition->transition, layoutd_kind_named(el->kind), el->id, t, NULL, &sampled)) {
            a = sampled;
            a.id = el->id;
            a.effect_count = 0;
            a.effects = NULL;
        }
    }
    el->shown = a;
    gtk_widget_set_child_visible(child, !a.hidden && a.alpha > 0);
    gtk_widget_set_opacity(child, CLAMP(a.alpha, 0, 1));
    double w = MAX(0, a.frame.width), h = MAX(0, a.frame.height);
    GskTransform *tr = gsk_transform_translate(NULL, &GRAPHENE_POINT_INIT((float)(a.frame.x - off_x), (float)(a.frame.y - off_y)));
    if (a.has_transform) {
        /* UIKit's transform is about the element's centre. */
        graphene_matrix_t m;
        graphene_matrix_init_from_2d(&m, a.transform.a, a.transform.b, a.transform.c, a.transform.d, a.transform.tx,
                                     a.transform.ty);
        tr = gsk_transform_translate(tr, &GRAPHENE_POINT_INIT((float)(w / 2), (float)(h / 2)));
        tr = gsk_transform_matrix(tr, &m);
        tr = gsk_transform_translate(tr, &GRAPHENE_POINT_INIT((float)(-w / 2), (float)(-h / 2)));
    }
    /* The layout's size wins over the widget's own minimum: a cell is exactly its frame. */
    int min_w = 0, min_h = 0;
    gtk_widget_measure(child, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL, NULL);
    gtk_widget_measure(child, GTK_ORIENTATION_VERTICAL, MAX((int)round(w), min_w), &min_h, NULL, NULL, NULL);
    gtk_widget_allocate(child, MAX((int)round(w), min_w), MAX((int)round(h), min_h), -1, tr);
}

static void layoutd_collection_view_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(widget);
    gint64 start = g_get_monotonic_time();
    gboolean resized = self->width != width || self->height != height;
    self->width = width;
    self->height = height;
    configure_adjustments(self);
    if (resized) {
        if (self->state == LAYOUTD_VIEW_STATE_IDLE) try_create(self);
        else send_resize(self);
    }
    double off_x = adj_value(self->hadj), off_y = adj_value(self->vadj);
    double t = 0;
    if (self->transition) {
        GdkFrameClock *clock = gtk_widget_get_frame_clock(widget);
        t = transition_elapsed(self, clock ? gdk_frame_clock_get_frame_time(clock) : g_get_monotonic_time());
    }
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) allocate_element(self, value, off_x, off_y, t);
    self->frame_work_ms += (g_get_monotonic_time() - start) / 1000.0;
}

static int compare_z(gconstpointer a, gconstpointer b)
{
    const Element *x = *(Element *const *)a, *y = *(Element *const *)b;
    if (x->shown.z_index != y->shown.z_index) return x->shown.z_index < y->shown.z_index ? -1 : 1;
    int k = layoutd_kind_compare(layoutd_kind_named(x->kind), layoutd_kind_named(y->kind));
    return k ? k : strcmp(x->id, y->id);
}

static void layoutd_collection_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(widget);
    /* GTK draws children in list order; the layout's zIndex decides here instead. */
    GPtrArray *order = g_ptr_array_sized_new(g_hash_table_size(self->elements));
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) g_ptr_array_add(order, value);
    g_ptr_array_sort(order, compare_z);
    for (guint i = 0; i < order->len; i++) {
        Element *el = g_ptr_array_index(order, i);
        GtkWidget *child = layoutd_list_item_get_child(el->li);
        if (child) gtk_widget_snapshot_child(widget, child, snapshot);
    }
    g_ptr_array_unref(order);
}

static void layoutd_collection_view_realize(GtkWidget *widget)
{
    GTK_WIDGET_CLASS(layoutd_collection_view_parent_class)->realize(widget);
    /* The strategy decides where a fling comes to rest (view.scrollEnd: snapping), so the
       scrolled window's own deceleration would fight the glide to it: the view glides. */
    GtkWidget *parent = gtk_widget_get_parent(widget);
    if (GTK_IS_SCROLLED_WINDOW(parent)) gtk_scrolled_window_set_kinetic_scrolling(GTK_SCROLLED_WINDOW(parent), FALSE);
    else if (parent && GTK_IS_VIEWPORT(parent) && GTK_IS_SCROLLED_WINDOW(gtk_widget_get_parent(parent)))
        gtk_scrolled_window_set_kinetic_scrolling(GTK_SCROLLED_WINDOW(gtk_widget_get_parent(parent)), FALSE);
    try_create(LAYOUTD_COLLECTION_VIEW(widget));
}

static void layoutd_collection_view_direction_changed(GtkWidget *widget, GtkTextDirection previous)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(widget);
    gboolean rtl = gtk_widget_get_direction(widget) == GTK_TEXT_DIR_RTL;
    if (self->state != LAYOUTD_VIEW_STATE_READY || rtl == self->rtl) return;
    self->rtl = rtl;
    GString *p = params_begin(self);
    g_string_append_printf(p, ",\"layoutDirection\":\"%s\"}", rtl ? "rtl" : "ltr");
    send_request(self, LAYOUTD_METHOD_VIEW_SET_LAYOUT_DIRECTION, p, request(REQ_DIRECTION));
}

/* ---------------------------------------------------------------------------------------- */
/* The connection's life                                                                      */

static void on_connection_lost(LayoutdConnection *conn, GError *reason, LayoutdCollectionView *self)
{
    /* A restart or a crash (end of stream, a reset) is expected and needs no word; a peer that
       broke the protocol is worth telling the app about (the view keeps retrying either way). */
    if (reason && reason->code == LAYOUTD_ERROR_PROTOCOL) g_signal_emit(self, signals[SIGNAL_ERROR], 0, reason);
    /* The replies owed have failed already; the view waits, keeps its widgets on screen as they
       were, and is created again (data, offset, selection) once the daemon serves. */
    self->subscription = 0;
    self->scroll_in_flight = self->resize_in_flight = self->data_in_flight = self->move_in_flight = FALSE;
    self->moving = FALSE;
    g_queue_clear_full(&self->queued, (GDestroyNotify)queued_free);
    if (self->state != LAYOUTD_VIEW_STATE_FAILED) set_state(self, LAYOUTD_VIEW_STATE_RECONNECTING);
}

static void on_connection_back(LayoutdConnection *conn, LayoutdCollectionView *self)
{
    if (self->state == LAYOUTD_VIEW_STATE_FAILED) set_state(self, LAYOUTD_VIEW_STATE_IDLE);
    self->create_offset_x = adj_value(self->hadj);
    self->create_offset_y = adj_value(self->vadj);
    try_create(self);
}

/* ---------------------------------------------------------------------------------------- */
/* GObject                                                                                    */

static void layoutd_collection_view_dispose(GObject *object)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(object);
    g_queue_clear_full(&self->queued, (GDestroyNotify)queued_free);
    end_transition(self);
    drop_all_elements(self);
    drop_pools(self);
    if (self->model) {
        g_signal_handler_disconnect(self->model, self->items_changed_id);
        g_clear_object(&self->model);
    }
    if (self->conn) {
        if (self->state == LAYOUTD_VIEW_STATE_READY || self->state == LAYOUTD_VIEW_STATE_CREATING) {
            /* Our view goes with us (a notification: nobody waits for its reply). */
            GString *p = params_begin(self);
            g_string_append_c(p, '}');
            gpointer client = layoutd_connection_get_client(self->conn);
            if (client) layoutd_notify(client, LAYOUTD_METHOD_VIEW_DELETE, p->str, NULL);
            g_string_free(p, TRUE);
        }
        layoutd_gtk_connection_remove_event_handler(self->conn, self->event_handler_id);
        g_signal_handler_disconnect(self->conn, self->conn_lost_id);
        g_signal_handler_disconnect(self->conn, self->conn_back_id);
        g_clear_object(&self->conn);
    }
    if (self->hadj) {
        g_signal_handler_disconnect(self->hadj, self->hadj_id);
        g_clear_object(&self->hadj);
    }
    if (self->vadj) {
        g_signal_handler_disconnect(self->vadj, self->vadj_id);
        g_clear_object(&self->vadj);
    }
    g_clear_object(&self->cell_factory);
    G_OBJECT_CLASS(layoutd_collection_view_parent_class)->dispose(object);
}

static void layoutd_collection_view_finalize(GObject *object)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(object);
    g_hash_table_unref(self->elements);
    g_hash_table_unref(self->pools);
    g_hash_table_unref(self->factories);
    g_hash_table_unref(self->selection);
    g_ptr_array_unref(self->measure_queue);
    g_hash_table_unref(self->own_scrolls);
    layoutd_mirror_free(self->mirror);
    layoutd_sync_data_free(self->sent);
    layoutd_sync_data_free(self->current);
    layoutd_sync_data_free(self->upload_data);
    g_free(self->upload_id);
    g_free(self->socket_path);
    g_free(self->view_name);
    g_free(self->strategy);
    g_free(self->parameters);
    g_free(self->range_anchor);
    g_free(self->focus_id);
    g_free(self->restore);
    G_OBJECT_CLASS(layoutd_collection_view_parent_class)->finalize(object);
}

static void layoutd_collection_view_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(object);
    switch (id) {
    case PROP_CONNECTION: layoutd_collection_view_set_connection(self, g_value_get_object(value)); break;
    case PROP_SOCKET_PATH: layoutd_collection_view_set_socket_path(self, g_value_get_string(value)); break;
    case PROP_VIEW_NAME: layoutd_collection_view_set_view_name(self, g_value_get_string(value)); break;
    case PROP_STRATEGY:
        layoutd_collection_view_set_strategy(self, g_value_get_string(value), self->parameters, FALSE);
        break;
    case PROP_PARAMETERS:
        layoutd_collection_view_set_strategy(self, self->strategy, g_value_get_string(value), FALSE);
        break;
    case PROP_MODEL: layoutd_collection_view_set_model(self, g_value_get_object(value)); break;
    case PROP_FACTORY: layoutd_collection_view_set_factory(self, g_value_get_object(value)); break;
    case PROP_ANIMATED: self->animated = g_value_get_boolean(value); break;
    case PROP_SELF_SIZING: layoutd_collection_view_set_self_sizing(self, g_value_get_boolean(value)); break;
    case PROP_WINDOW_MARGIN: self->window_margin = g_value_get_double(value); break;
    case PROP_FOCUS_ID: layoutd_collection_view_set_focus_id(self, g_value_get_string(value)); break;
    case PROP_TRANSITION_TIME: layoutd_collection_view_set_transition_time(self, g_value_get_double(value)); break;
    case PROP_HADJUSTMENT: set_adjustment(self, &self->hadj, &self->hadj_id, g_value_get_object(value), PROP_HADJUSTMENT); break;
    case PROP_VADJUSTMENT: set_adjustment(self, &self->vadj, &self->vadj_id, g_value_get_object(value), PROP_VADJUSTMENT); break;
    case PROP_HSCROLL_POLICY: self->hpolicy = g_value_get_enum(value); gtk_widget_queue_resize(GTK_WIDGET(self)); break;
    case PROP_VSCROLL_POLICY: self->vpolicy = g_value_get_enum(value); gtk_widget_queue_resize(GTK_WIDGET(self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_collection_view_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    LayoutdCollectionView *self = LAYOUTD_COLLECTION_VIEW(object);
    switch (id) {
    case PROP_CONNECTION: g_value_set_object(value, self->conn); break;
    case PROP_SOCKET_PATH: g_value_set_string(value, self->socket_path); break;
    case PROP_VIEW_NAME: g_value_set_string(value, self->view_name); break;
    case PROP_STRATEGY: g_value_set_string(value, self->strategy); break;
    case PROP_PARAMETERS: g_value_set_string(value, self->parameters); break;
    case PROP_MODEL: g_value_set_object(value, self->model); break;
    case PROP_FACTORY: g_value_set_object(value, self->cell_factory); break;
    case PROP_ANIMATED: g_value_set_boolean(value, self->animated); break;
    case PROP_SELF_SIZING: g_value_set_boolean(value, self->self_sizing); break;
    case PROP_WINDOW_MARGIN: g_value_set_double(value, self->window_margin); break;
    case PROP_STATE: g_value_set_enum(value, self->state); break;
    case PROP_EPOCH: g_value_set_int64(value, self->epoch); break;
    case PROP_FOCUS_ID: g_value_set_string(value, self->focus_id); break;
    case PROP_TRANSITION_TIME: g_value_set_double(value, self->transition_time); break;
    case PROP_HADJUSTMENT: g_value_set_object(value, self->hadj); break;
    case PROP_VADJUSTMENT: g_value_set_object(value, self->vadj); break;
    case PROP_HSCROLL_POLICY: g_value_set_enum(value, self->hpolicy); break;
    case PROP_VSCROLL_POLICY: g_value_set_enum(value, self->vpolicy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_collection_view_class_init(LayoutdCollectionViewClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    oc->dispose = layoutd_collection_view_dispose;
    oc->finalize = layoutd_collection_view_finalize;
    oc->set_property = layoutd_collection_view_set_property;
    oc->get_property = layoutd_collection_view_get_property;
    wc->measure = layoutd_collection_view_measure;
    wc->size_allocate = layoutd_collection_view_size_allocate;
    wc->snapshot = layoutd_collection_view_snapshot;
    wc->realize = layoutd_collection_view_realize;
    wc->direction_changed = layoutd_collection_view_direction_changed;
    GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
    GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
    /**
     * LayoutdCollectionView:connection:
     *
     * The connection to the daemon (made from #LayoutdCollectionView:socket-path when unset).
     */
    props[PROP_CONNECTION] = g_param_spec_object("connection", NULL, NULL, LAYOUTD_TYPE_CONNECTION, rw);
    /**
     * LayoutdCollectionView:socket-path:
     *
     * The daemon's socket, when no connection is given (%NULL: where layoutctl looks).
     */
    props[PROP_SOCKET_PATH] = g_param_spec_string("socket-path", NULL, NULL, NULL, rw);
    /**
     * LayoutdCollectionView:view-name:
     *
     * The daemon's name for the view (default "gtk-PID-N"); set it before the view is created.
     */
    props[PROP_VIEW_NAME] = g_param_spec_string("view-name", NULL, NULL, NULL, rw);
    /**
     * LayoutdCollectionView:strategy:
     *
     * The layout strategy ("flow", "collapsible", "display", "ultravisual", "compositional", or
     * a plugin's).
     */
    props[PROP_STRATEGY] = g_param_spec_string("strategy", NULL, NULL, "flow", rw);
    /**
     * LayoutdCollectionView:parameters:
     *
     * The strategy's parameters as a JSON object's text.
     */
    props[PROP_PARAMETERS] = g_param_spec_string("parameters", NULL, NULL, "{}", rw);
    /**
     * LayoutdCollectionView:model:
     *
     * The items: a #GListModel of objects with a string "id" property (and optionally
     * "section"), such as #LayoutdItem.
     */
    props[PROP_MODEL] = g_param_spec_object("model", NULL, NULL, G_TYPE_LIST_MODEL, rw);
    /**
     * LayoutdCollectionView:factory:
     *
     * The factory that makes and binds cells.
     */
    props[PROP_FACTORY] = g_param_spec_object("factory", NULL, NULL, LAYOUTD_TYPE_CELL_FACTORY, rw);
    /**
     * LayoutdCollectionView:animated:
     *
     * Whether data changes (from the model) are animated.
     */
    props[PROP_ANIMATED] = g_param_spec_boolean("animated", NULL, NULL, TRUE, rw);
    /**
     * LayoutdCollectionView:self-sizing:
     *
     * Whether cells are measured (their widget's natural height for the width the layout gives
     * them) and the measurements sent to the daemon (view.measure).
     */
    props[PROP_SELF_SIZING] = g_param_spec_boolean("self-sizing", NULL, NULL, FALSE, rw);
    /**
     * LayoutdCollectionView:window-margin:
     *
     * Points around the viewport the daemon keeps in the window, so a scroll draws at once.
     */
    props[PROP_WINDOW_MARGIN] = g_param_spec_double("window-margin", NULL, NULL, 0, 1e6, DEFAULT_WINDOW_MARGIN, rw);
    /**
     * LayoutdCollectionView:state:
     *
     * Where the view is in its life.
     */
    props[PROP_STATE] = g_param_spec_enum("state", NULL, NULL, LAYOUTD_TYPE_VIEW_STATE, LAYOUTD_VIEW_STATE_IDLE, ro);
    /**
     * LayoutdCollectionView:epoch:
     *
     * The epoch of the daemon's view the widgets show.
     */
    props[PROP_EPOCH] = g_param_spec_int64("epoch", NULL, NULL, -1, G_MAXINT64, 0, ro);
    /**
     * LayoutdCollectionView:focus-id:
     *
     * The item with the keyboard focus (its cell has the CSS class "layoutd-focus").
     */
    props[PROP_FOCUS_ID] = g_param_spec_string("focus-id", NULL, NULL, NULL, rw);
    /**
     * LayoutdCollectionView:transition-time:
     *
     * -1: transitions follow the frame clock; 0 or more: every transition is held at that many
     * seconds (scrubbing, tests).
     */
    props[PROP_TRANSITION_TIME] = g_param_spec_double("transition-time", NULL, NULL, -1, 1e6, -1, rw);
    g_object_class_install_properties(oc, N_PROPS, props);
    g_object_class_override_property(oc, PROP_HADJUSTMENT, "hadjustment");
    g_object_class_override_property(oc, PROP_VADJUSTMENT, "vadjustment");
    g_object_class_override_property(oc, PROP_HSCROLL_POLICY, "hscroll-policy");
    g_object_class_override_property(oc, PROP_VSCROLL_POLICY, "vscroll-policy");

    /**
     * LayoutdCollectionView::ready:
     * @self: the view
     *
     * The view exists in the daemon and the widgets follow it (also after a reconnect).
     */
    signals[SIGNAL_READY] = g_signal_new("ready", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 0);
    /**
     * LayoutdCollectionView::selection-changed:
     * @self: the view
     *
     * The selection changed (layoutd_collection_view_get_selection()).
     */
    signals[SIGNAL_SELECTION_CHANGED] = g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                                     NULL, NULL, NULL, G_TYPE_NONE, 0);
    /**
     * LayoutdCollectionView::activate:
     * @self: the view
     * @id: the item
     *
     * An item was activated (double click, Enter).
     */
    signals[SIGNAL_ACTIVATE] = g_signal_new("activate", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
    /**
     * LayoutdCollectionView::error:
     * @self: the view
     * @error: what went wrong (%LAYOUTD_ERROR)
     *
     * A request was refused or the view could not be created; nothing changed in the daemon.
     */
    signals[SIGNAL_ERROR] = g_signal_new("error", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_ERROR);
    /**
     * LayoutdCollectionView::item-moved:
     * @self: the view
     * @id: the item a drag moved
     * @section: its section's index now
     * @position: its index in that section now
     *
     * A drag reordered items (once per moved item, in order). The daemon has the new order;
     * the model should follow: return %TRUE when the handler moved the model's item itself
     * (and, for a drop into another section, changed the item's section); otherwise a
     * #GListStore model is reordered by the view, which also sets a writable "section"
     * property of the item (as #LayoutdItem's).
     *
     * Returns: whether the handler moved the item in the model
     */
    signals[SIGNAL_ITEM_MOVED] = g_signal_new("item-moved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                              g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 3,
                                              G_TYPE_STRING, G_TYPE_INT, G_TYPE_INT);
    gtk_widget_class_set_css_name(wc, "layoutd-collection-view");
    gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_GRID);
}

static guint view_counter;

static void layoutd_collection_view_init(LayoutdCollectionView *self)
{
    self->view_name = g_strdup_printf("gtk-%d-%u", (int)getpid(), ++view_counter);
    self->strategy = g_strdup("flow");
    self->parameters = g_strdup("{}");
    self->animated = TRUE;
    self->window_margin = DEFAULT_WINDOW_MARGIN;
    self->transition_time = -1;
    self->epoch = 0;
    self->mirror = layoutd_mirror_new();
    self->elements = g_hash_table_new(g_str_hash, g_str_equal);
    self->pools = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
    self->factories = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
    self->selection = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->measure_queue = g_ptr_array_new_with_free_func(g_free);
    self->own_scrolls = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    g_queue_init(&self->queued);
    set_adjustment(self, &self->hadj, &self->hadj_id, NULL, PROP_HADJUSTMENT);
    set_adjustment(self, &self->vadj, &self->vadj_id, NULL, PROP_VADJUSTMENT);
    gtk_widget_set_overflow(GTK_WIDGET(self), GTK_OVERFLOW_HIDDEN);
    gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);

    GtkGesture *click = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
    g_signal_connect(click, "released", G_CALLBACK(on_click_released), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));

    GtkGesture *press = gtk_gesture_long_press_new();
    g_signal_connect(press, "pressed", G_CALLBACK(on_long_press), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(press));

    GtkGesture *drag = gtk_gesture_drag_new();
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key_pressed), self);
    gtk_widget_add_controller(GTK_WIDGET(self), keys);

    GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES |
                                                                 GTK_EVENT_CONTROLLER_SCROLL_KINETIC);
    g_signal_connect(scroll, "decelerate", G_CALLBACK(on_decelerate), self);
    g_signal_connect(scroll, "scroll-begin", G_CALLBACK(on_scroll_begin), self);
    gtk_widget_add_controller(GTK_WIDGET(self), scroll);
}

/* ---------------------------------------------------------------------------------------- */
/* Public API                                                                                 */

/**
 * layoutd_collection_view_new:
 *
 * Returns: (transfer floating): a new collection view; give it a model, a factory and a
 *   strategy, and put it in a #GtkScrolledWindow
 */
GtkWidget *layoutd_collection_view_new(void)
{
    return g_object_new(LAYOUTD_TYPE_COLLECTION_VIEW, NULL);
}

/**
 * layoutd_collection_view_set_connection:
 * @self: a view
 * @connection: (nullable): the connection to use
 *
 * Sets the connection (before the view is created).
 */
void layoutd_collection_view_set_connection(LayoutdCollectionView *self, LayoutdConnection *connection)
{
    if (self->conn == connection) return;
    if (self->conn) {
        layoutd_gtk_connection_remove_event_handler(self->conn, self->event_handler_id);
        g_signal_handler_disconnect(self->conn, self->conn_lost_id);
        g_signal_handler_disconnect(self->conn, self->conn_back_id);
        g_clear_object(&self->conn);
    }
    if (connection) {
        self->conn = g_object_ref(connection);
        self->event_handler_id = layoutd_gtk_connection_add_event_handler(connection, on_event, self);
        self->conn_lost_id = g_signal_connect(connection, "disconnected", G_CALLBACK(on_connection_lost), self);
        self->conn_back_id = g_signal_connect(connection, "reconnected", G_CALLBACK(on_connection_back), self);
    }
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CONNECTION]);
    try_create(self);
}

/**
 * layoutd_collection_view_get_connection:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the connection
 */
LayoutdConnection *layoutd_collection_view_get_connection(LayoutdCollectionView *self)
{
    return self->conn;
}

/**
 * layoutd_collection_view_set_socket_path:
 * @self: a view
 * @socket_path: (nullable): the daemon's socket
 *
 * Where to connect when no connection is set.
 */
void layoutd_collection_view_set_socket_path(LayoutdCollectionView *self, const char *socket_path)
{
    if (g_strcmp0(self->socket_path, socket_path) == 0) return;
    g_free(self->socket_path);
    self->socket_path = g_strdup(socket_path);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SOCKET_PATH]);
}

/**
 * layoutd_collection_view_get_socket_path:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the socket path set
 */
const char *layoutd_collection_view_get_socket_path(LayoutdCollectionView *self)
{
    return self->socket_path;
}

/**
 * layoutd_collection_view_set_view_name:
 * @self: a view
 * @name: the daemon's name for the view
 *
 * Names the view (before it is created).
 */
void layoutd_collection_view_set_view_name(LayoutdCollectionView *self, const char *name)
{
    if (!name || g_strcmp0(self->view_name, name) == 0) return;
    g_free(self->view_name);
    self->view_name = g_strdup(name);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VIEW_NAME]);
}

/**
 * layoutd_collection_view_get_view_name:
 * @self: a view
 *
 * Returns: (transfer none): the daemon's name for the view
 */
const char *layoutd_collection_view_get_view_name(LayoutdCollectionView *self)
{
    return self->view_name;
}

/**
 * layoutd_collection_view_set_model:
 * @self: a view
 * @model: (nullable): the items
 *
 * Sets the model; its items-changed signals become batched view.update calls, once a frame.
 */
void layoutd_collection_view_set_model(LayoutdCollectionView *self, GListModel *model)
{
    if (self->model == model) return;
    if (self->model) {
        g_signal_handler_disconnect(self->model, self->items_changed_id);
        g_clear_object(&self->model);
    }
    if (model) {
        self->model = g_object_ref(model);
        self->items_changed_id = g_signal_connect(model, "items-changed", G_CALLBACK(on_items_changed), self);
    }
    layoutd_sync_data_free(self->current);
    self->current = NULL;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_MODEL]);
    self->model_dirty = TRUE;
    if (self->state == LAYOUTD_VIEW_STATE_READY) ensure_tick(self);
    else try_create(self);
}

/**
 * layoutd_collection_view_get_model:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the model
 */
GListModel *layoutd_collection_view_get_model(LayoutdCollectionView *self)
{
    return self->model;
}

static void rebind_kind(LayoutdCollectionView *self, const char *kind)
{
    /* Slots of the old factory go: the new one makes its own. */
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        if (strcmp(el->kind, kind) != 0) continue;
        g_hash_table_iter_steal(&it);
        LayoutdCellFactory *old = g_object_ref(el->factory);
        layoutd_gtk_cell_factory_emit_unbind(old, el->li);
        teardown_slot(self, el->li, old);
        g_object_unref(old);
        g_object_unref(el->factory);
        g_free(el->key);
        g_free(el->kind);
        g_free(el->id);
        g_free(el);
    }
    GPtrArray *pool = g_hash_table_lookup(self->pools, kind);
    if (pool) {
        for (guint i = 0; i < pool->len; i++) teardown_slot(self, g_ptr_array_index(pool, i), NULL);
        g_ptr_array_set_size(pool, 0);
    }
    reconcile(self);
}

/**
 * layoutd_collection_view_set_factory:
 * @self: a view
 * @factory: (nullable): the cell factory
 *
 * Sets the factory for cells.
 */
void layoutd_collection_view_set_factory(LayoutdCollectionView *self, LayoutdCellFactory *factory)
{
    if (self->cell_factory == factory) return;
    LayoutdCellFactory *old = self->cell_factory;
    self->cell_factory = factory ? g_object_ref(factory) : NULL;
    rebind_kind(self, "cell");
    if (old) g_object_unref(old);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_FACTORY]);
}

/**
 * layoutd_collection_view_get_factory:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the cell factory
 */
LayoutdCellFactory *layoutd_collection_view_get_factory(LayoutdCollectionView *self)
{
    return self->cell_factory;
}

/**
 * layoutd_collection_view_set_supplementary_factory:
 * @self: a view
 * @kind: an element kind other than "cell" ("header", "footer", "badge", "background", ...)
 * @factory: (nullable): its factory; %NULL: elements of that kind get no widget
 *
 * Sets the factory of a supplementary kind; each kind has its own recycling pool.
 */
void layoutd_collection_view_set_supplementary_factory(LayoutdCollectionView *self, const char *kind,
                                                       LayoutdCellFactory *factory)
{
    g_return_if_fail(kind && strcmp(kind, "cell") != 0);
    if (factory) g_hash_table_insert(self->factories, g_strdup(kind), g_object_ref(factory));
    else g_hash_table_remove(self->factories, kind);
    rebind_kind(self, kind);
}

/**
 * layoutd_collection_view_get_strategy:
 * @self: a view
 *
 * Returns: (transfer none): the strategy
 */
const char *layoutd_collection_view_get_strategy(LayoutdCollectionView *self)
{
    return self->strategy;
}

/**
 * layoutd_collection_view_get_parameters:
 * @self: a view
 *
 * Returns: (transfer none): the strategy's parameters (JSON text, as set)
 */
const char *layoutd_collection_view_get_parameters(LayoutdCollectionView *self)
{
    return self->parameters;
}

static gboolean valid_object_json(const char *text)
{
    layoutd_json *j = text ? layoutd_json_parse(text, strlen(text), NULL, 0) : NULL;
    gboolean ok = j && j->type == LAYOUTD_JSON_OBJECT;
    layoutd_json_free(j);
    return ok;
}

/* The strategy and parameters a re-creation (a restart) uses. */
static void record_strategy(LayoutdCollectionView *self, const char *strategy, const char *parameters_json)
{
    if (g_strcmp0(self->strategy, strategy) != 0) {
        g_free(self->strategy);
        self->strategy = g_strdup(strategy);
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STRATEGY]);
    }
    if (g_strcmp0(self->parameters, parameters_json) != 0) {
        g_free(self->parameters);
        self->parameters = g_strdup(parameters_json);
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PARAMETERS]);
    }
}

/* Parameters with `changes` laid over them (JSON objects' texts). */
static char *merge_parameters(const char *base, const char *changes)
{
    layoutd_json *old = layoutd_json_parse(base, strlen(base), NULL, 0);
    layoutd_json *add = layoutd_json_parse(changes, strlen(changes), NULL, 0);
    GString *merged = g_string_new("{");
    gboolean first = TRUE;
    for (int pass = 0; pass < 2; pass++) {
        const layoutd_json *src = pass == 0 ? old : add;
        for (size_t i = 0; src && i < src->count; i++) {
            const layoutd_json *m = &src->items[i];
            if (pass == 0 && layoutd_json_get(add, m->key)) continue;
            if (!first) g_string_append_c(merged, ',');
            first = FALSE;
            layoutd_gtk_json_string(merged, m->key);
            g_string_append_c(merged, ':');
            g_string_append_len(merged, m->text, (gssize)m->text_len);
        }
    }
    g_string_append_c(merged, '}');
    layoutd_json_free(old);
    layoutd_json_free(add);
    return g_string_free(merged, FALSE);
}

/**
 * layoutd_collection_view_set_strategy:
 * @self: a view
 * @strategy: a registered strategy
 * @parameters_json: (nullable): its parameters (a JSON object's text; %NULL: "{}")
 * @animated: whether the switch is animated
 *
 * Switches the layout (view.setStrategy) or, before the view exists, chooses it. A refusal
 * (UnknownStrategy, InvalidParameter, ...) comes through #LayoutdCollectionView::error and
 * changes nothing.
 */
void layoutd_collection_view_set_strategy(LayoutdCollectionView *self, const char *strategy, const char *parameters_json,
                                          gboolean animated)
{
    if (!parameters_json) parameters_json = "{}";
    if (!strategy || !valid_object_json(parameters_json)) {
        report(self, g_error_new(LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                                 "InvalidArgument: the parameters must be a JSON object's text"));
        return;
    }
    if (self->state == LAYOUTD_VIEW_STATE_READY) {
        /* Recorded when the daemon accepts it: a refusal changes nothing, here either. */
        GString *p = params_begin(self);
        g_string_append(p, ",\"strategy\":");
        layoutd_gtk_json_string(p, strategy);
        g_string_append_printf(p, ",\"params\":%s,\"animated\":%s}", parameters_json, animated ? "true" : "false");
        Request *r = request(REQ_SET_STRATEGY);
        const char *pair[] = {strategy, parameters_json, NULL};
        r->ids = g_strdupv((char **)pair);
        send_request(self, LAYOUTD_METHOD_VIEW_SET_STRATEGY, p, r);
        return;
    }
    record_strategy(self, strategy, parameters_json);
}

/**
 * layoutd_collection_view_configure:
 * @self: a view
 * @parameters_json: parameters to change (a JSON object's text)
 * @animated: whether the change is animated
 *
 * Changes some of the strategy's parameters (view.configure), e.g. collapsible's
 * `{"collapsed": true}`.
 */
void layoutd_collection_view_configure(LayoutdCollectionView *self, const char *parameters_json, gboolean animated)
{
    if (!valid_object_json(parameters_json)) {
        report(self, g_error_new(LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                                 "InvalidArgument: the parameters must be a JSON object's text"));
        return;
    }
    if (self->state != LAYOUTD_VIEW_STATE_READY) {
        char *merged = merge_parameters(self->parameters, parameters_json);
        record_strategy(self, self->strategy, merged);
        g_free(merged);
        return;
    }
    GString *p = params_begin(self);
    g_string_append_printf(p, ",\"params\":%s,\"animated\":%s}", parameters_json, animated ? "true" : "false");
    Request *r = request(REQ_CONFIGURE);
    const char *one[] = {parameters_json, NULL};
    r->ids = g_strdupv((char **)one);
    send_request(self, LAYOUTD_METHOD_VIEW_CONFIGURE, p, r);
}

/**
 * layoutd_collection_view_get_state:
 * @self: a view
 *
 * Returns: where the view is in its life
 */
LayoutdViewState layoutd_collection_view_get_state(LayoutdCollectionView *self)
{
    return self->state;
}

/**
 * layoutd_collection_view_get_epoch:
 * @self: a view
 *
 * Returns: the epoch the widgets show
 */
gint64 layoutd_collection_view_get_epoch(LayoutdCollectionView *self)
{
    return self->epoch;
}

/**
 * layoutd_collection_view_get_content_size:
 * @self: a view
 * @width: (out): the content's width
 * @height: (out): the content's height
 *
 * The content size the daemon reported last.
 */
void layoutd_collection_view_get_content_size(LayoutdCollectionView *self, double *width, double *height)
{
    if (width) *width = self->content_w;
    if (height) *height = self->content_h;
}

/**
 * layoutd_collection_view_select:
 * @self: a view
 * @ids: (array zero-terminated=1): item ids
 * @mode: (nullable): "set" (default), "add", "remove" or "toggle"
 *
 * Changes the selection (view.select); #LayoutdCollectionView::selection-changed follows the
 * daemon's acceptance.
 */
void layoutd_collection_view_select(LayoutdCollectionView *self, const char *const *ids, const char *mode)
{
    if (!mode) mode = "set";
    if (strcmp(mode, "set") && strcmp(mode, "add") && strcmp(mode, "remove") && strcmp(mode, "toggle")) {
        report(self, g_error_new(LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                                 "InvalidArgument: mode must be set, add, remove or toggle, not '%s'", mode));
        return;
    }
    if (self->state != LAYOUTD_VIEW_STATE_READY) {
        /* Kept for when the view exists. */
        if (strcmp(mode, "set") == 0) g_hash_table_remove_all(self->selection);
        for (const char *const *id = ids; id && *id; id++) {
            if (strcmp(mode, "remove") == 0) g_hash_table_remove(self->selection, *id);
            else g_hash_table_add(self->selection, g_strdup(*id));
        }
        return;
    }
    flush_pending(self);
    GString *p = params_begin(self);
    g_string_append(p, ",\"ids\":[");
    for (const char *const *id = ids; id && *id; id++) {
        if (id != ids) g_string_append_c(p, ',');
        layoutd_gtk_json_string(p, *id);
    }
    g_string_append_printf(p, "],\"mode\":\"%s\",\"animated\":true}", mode);
    Request *r = request(REQ_SELECT);
    r->text = g_strdup(mode);
    r->ids = g_strdupv((char **)ids);
    send_request(self, LAYOUTD_METHOD_VIEW_SELECT, p, r);
}

/**
 * layoutd_collection_view_get_selection:
 * @self: a view
 *
 * Returns: (transfer full) (array zero-terminated=1): the selected ids, in the data's order
 */
char **layoutd_collection_view_get_selection(LayoutdCollectionView *self)
{
    GPtrArray *out = g_ptr_array_new();
    if (self->sent) {
        for (guint s = 0; s < self->sent->sections->len; s++) {
            LayoutdSyncSection *sec = g_ptr_array_index(self->sent->sections, s);
            for (guint i = 0; i < sec->items->len; i++) {
                const char *id = g_ptr_array_index(sec->items, i);
                if (g_hash_table_contains(self->selection, id)) g_ptr_array_add(out, g_strdup(id));
            }
        }
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

/**
 * layoutd_collection_view_hit_test:
 * @self: a view
 * @x: in the widget's coordinates
 * @y: in the widget's coordinates
 *
 * The cell drawn on top at a point (from the window the widgets show: no round trip).
 *
 * Returns: (transfer none) (nullable): its item id
 */
const char *layoutd_collection_view_hit_test(LayoutdCollectionView *self, double x, double y)
{
    Element *el = element_at(self, x, y);
    return el ? el->id : NULL;
}

/**
 * layoutd_collection_view_scroll_to:
 * @self: a view
 * @id: an item id
 * @align: (nullable): "start" (default), "center", "end" or "nearest"
 * @animated: whether the adjustments glide there
 *
 * Scrolls so the item sits where asked (view.scrollTo), wherever it is.
 */
void layoutd_collection_view_scroll_to(LayoutdCollectionView *self, const char *id, const char *align, gboolean animated)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY) return;
    flush_pending(self);
    GString *p = params_begin(self);
    g_string_append(p, ",\"id\":");
    layoutd_gtk_json_string(p, id);
    g_string_append(p, ",\"align\":");
    layoutd_gtk_json_string(p, align ? align : "start");
    g_string_append_c(p, '}');
    Request *r = request(REQ_SCROLL_TO);
    r->animate = animated;
    send_request(self, LAYOUTD_METHOD_VIEW_SCROLL_TO, p, r);
}

/**
 * layoutd_collection_view_fling:
 * @self: a view
 * @velocity_x: points per second
 * @velocity_y: points per second
 *
 * The end of a kinetic scroll: asks the strategy where it comes to rest (view.scrollEnd, so
 * snapping strategies snap) and glides the adjustments there.
 */
void layoutd_collection_view_fling(LayoutdCollectionView *self, double velocity_x, double velocity_y)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY) return;
    double k = DECELERATION_RATE / (1 - DECELERATION_RATE) / 1000.0;
    GString *p = params_begin(self);
    layoutd_gtk_json_point(p, "proposed", adj_value(self->hadj) + velocity_x * k, adj_value(self->vadj) + velocity_y * k);
    layoutd_gtk_json_point(p, "velocity", velocity_x, velocity_y);
    g_string_append_c(p, '}');
    Request *r = request(REQ_SCROLL_END);
    r->x = velocity_x;
    r->y = velocity_y;
    send_request(self, LAYOUTD_METHOD_VIEW_SCROLL_END, p, r);
}

/**
 * layoutd_collection_view_move_focus_to:
 * @self: a view
 * @direction: "up", "down", "left", "right", "next" or "previous"
 *
 * Moves the keyboard focus to the item view.neighbor names, and scrolls it into view.
 */
void layoutd_collection_view_move_focus_to(LayoutdCollectionView *self, const char *direction)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY) return;
    if (!self->focus_id) {
        /* The first cell on screen takes the focus first. */
        Element *best = NULL;
        GHashTableIter it;
        gpointer value;
        double top = adj_value(self->vadj), left = adj_value(self->hadj);
        g_hash_table_iter_init(&it, self->elements);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
            Element *el = value;
            if (el->leaving || strcmp(el->kind, "cell") || el->attrs.hidden) continue;
            if (el->attrs.frame.y + el->attrs.frame.height <= top || el->attrs.frame.x + el->attrs.frame.width <= left) continue;
            if (!best || el->attrs.section < best->attrs.section ||
                (el->attrs.section == best->attrs.section && el->attrs.item < best->attrs.item))
                best = el;
        }
        if (best) layoutd_collection_view_set_focus_id(self, best->id);
        return;
    }
    flush_pending(self);
    if (!self->focus_id) return;   /* the flush deleted the focused item */
    GString *p = params_begin(self);
    g_string_append(p, ",\"id\":");
    layoutd_gtk_json_string(p, self->focus_id);
    g_string_append(p, ",\"direction\":");
    layoutd_gtk_json_string(p, direction);
    g_string_append_c(p, '}');
    send_request(self, LAYOUTD_METHOD_VIEW_NEIGHBOR, p, request(REQ_NEIGHBOR));
}

/**
 * layoutd_collection_view_get_focus_id:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the focused item
 */
const char *layoutd_collection_view_get_focus_id(LayoutdCollectionView *self)
{
    return self->focus_id;
}

/**
 * layoutd_collection_view_set_focus_id:
 * @self: a view
 * @id: (nullable): an item id
 *
 * Moves the keyboard focus to an item.
 */
void layoutd_collection_view_set_focus_id(LayoutdCollectionView *self, const char *id)
{
    if (g_strcmp0(self->focus_id, id) == 0) return;
    set_focus_class(self, self->focus_id, FALSE);
    g_free(self->focus_id);
    self->focus_id = g_strdup(id);
    set_focus_class(self, id, TRUE);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_FOCUS_ID]);
}

/**
 * layoutd_collection_view_begin_move:
 * @self: a view
 * @x: the finger, in the widget's coordinates
 * @y: the finger, in the widget's coordinates
 *
 * Starts dragging the cell under the point (view.beginMove); the long-press drag calls it.
 *
 * Returns: whether a cell is there
 */
gboolean layoutd_collection_view_begin_move(LayoutdCollectionView *self, double x, double y)
{
    if (self->state != LAYOUTD_VIEW_STATE_READY || self->moving) return FALSE;
    flush_pending(self);
    Element *el = element_at(self, x, y);
    if (!el) return FALSE;
    /* A cell whose item the model has just deleted (its widget waits for the delete's event)
       cannot be picked up. */
    if (self->sent && !layoutd_sync_data_locate(self->sent, el->id, NULL, NULL)) return FALSE;
    GString *p = params_begin(self);
    g_string_append(p, ",\"id\":");
    layoutd_gtk_json_string(p, el->id);
    layoutd_gtk_json_point(p, "point", x, y);
    g_string_append_c(p, '}');
    if (!send_request(self, LAYOUTD_METHOD_VIEW_BEGIN_MOVE, p, request(REQ_BEGIN_MOVE))) return FALSE;
    self->moving = TRUE;
    self->move_in_flight = TRUE;
    self->move_dirty = FALSE;
    self->move_pending_end = FALSE;
    self->move_x = x;
    self->move_y = y;
    return TRUE;
}

/**
 * layoutd_collection_view_update_move:
 * @self: a view
 * @x: the finger, in the widget's coordinates
 * @y: the finger, in the widget's coordinates
 *
 * The finger moved (view.updateMove, one in flight, the latest point wins; near an edge the
 * view scrolls by the daemon's autoScroll).
 */
void layoutd_collection_view_update_move(LayoutdCollectionView *self, double x, double y)
{
    if (!self->moving) return;
    self->move_x = x;
    self->move_y = y;
    self->move_dirty = TRUE;
    send_update_move(self);
}

/**
 * layoutd_collection_view_end_move:
 * @self: a view
 * @commit: %TRUE to drop the item at its target, %FALSE to put it back
 *
 * Ends the drag (view.endMove, animated); a commit emits #LayoutdCollectionView::item-moved.
 */
void layoutd_collection_view_end_move(LayoutdCollectionView *self, gboolean commit)
{
    if (!self->moving) return;
    if (self->move_in_flight) {
        /* After the step on its way (the last point counts). */
        self->move_pending_end = TRUE;
        self->move_commit = commit;
        return;
    }
    if (self->move_dirty) {
        self->move_pending_end = TRUE;
        self->move_commit = commit;
        send_update_move(self);
        return;
    }
    self->auto_scroll_x = self->auto_scroll_y = 0;
    GString *p = params_begin(self);
    g_string_append_printf(p, ",\"commit\":%s,\"animated\":true}", commit ? "true" : "false");
    if (send_request(self, LAYOUTD_METHOD_VIEW_END_MOVE, p, request(REQ_END_MOVE))) self->move_in_flight = TRUE;
    else self->moving = FALSE;
}

/**
 * layoutd_collection_view_save_state:
 * @self: a view
 *
 * What an app keeps to show the view as it is after a restart of the app: strategy,
 * parameters, offset, selection and focus, as JSON text (version 1).
 *
 * Returns: (transfer full): the state
 */
char *layoutd_collection_view_save_state(LayoutdCollectionView *self)
{
    GString *s = g_string_new("{\"version\":1,\"strategy\":");
    layoutd_gtk_json_string(s, self->strategy);
    g_string_append_printf(s, ",\"parameters\":%s", self->parameters);
    layoutd_gtk_json_point(s, "offset", adj_value(self->hadj), adj_value(self->vadj));
    g_string_append(s, ",\"selection\":[");
    char **sel = layoutd_collection_view_get_selection(self);
    for (char **id = sel; *id; id++) {
        if (id != sel) g_string_append_c(s, ',');
        layoutd_gtk_json_string(s, *id);
    }
    g_strfreev(sel);
    g_string_append(s, "],\"focus\":");
    if (self->focus_id) layoutd_gtk_json_string(s, self->focus_id);
    else g_string_append(s, "null");
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

static void apply_restore(LayoutdCollectionView *self)
{
    if (!self->restore) return;
    layoutd_json *j = layoutd_json_parse(self->restore, strlen(self->restore), NULL, 0);
    g_clear_pointer(&self->restore, g_free);
    if (!j) return;
    const layoutd_json *off = layoutd_json_get(j, "offset");
    set_offset(self, layoutd_json_number(layoutd_json_get(off, "x"), 0), layoutd_json_number(layoutd_json_get(off, "y"), 0));
    const layoutd_json *sel = layoutd_json_get(j, "selection");
    GPtrArray *ids = g_ptr_array_new();
    for (size_t i = 0; layoutd_json_at(sel, i); i++) {
        const char *id = layoutd_json_string(layoutd_json_at(sel, i));
        if (id) g_ptr_array_add(ids, (gpointer)id);
    }
    g_ptr_array_add(ids, NULL);
    if (ids->len > 1) layoutd_collection_view_select(self, (const char *const *)ids->pdata, "set");
    g_ptr_array_unref(ids);
    const char *focus = layoutd_json_string(layoutd_json_get(j, "focus"));
    if (focus) layoutd_collection_view_set_focus_id(self, focus);
    layoutd_json_free(j);
}

/**
 * layoutd_collection_view_restore_state:
 * @self: a view
 * @state: what layoutd_collection_view_save_state() gave
 * @error: a #GError
 *
 * Shows the view as it was saved: the strategy and parameters at once, the offset, selection
 * and focus as soon as the view exists (in view.create itself when it does not yet).
 *
 * Returns: whether @state was readable (INVALID_ARGUMENT otherwise; nothing changes)
 */
gboolean layoutd_collection_view_restore_state(LayoutdCollectionView *self, const char *state, GError **error)
{
    layoutd_json *j = state ? layoutd_json_parse(state, strlen(state), NULL, 0) : NULL;
    const layoutd_json *version = j ? layoutd_json_get(j, "version") : NULL;
    const char *strategy = j ? layoutd_json_string(layoutd_json_get(j, "strategy")) : NULL;
    const layoutd_json *params = j ? layoutd_json_get(j, "parameters") : NULL;
    if (!j || j->type != LAYOUTD_JSON_OBJECT || layoutd_json_number(version, 0) != 1 || !strategy || !params ||
        params->type != LAYOUTD_JSON_OBJECT) {
        g_set_error(error, LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                    "InvalidArgument: not a saved state of version 1 (strategy, parameters, offset, selection)");
        layoutd_json_free(j);
        return FALSE;
    }
    char *params_text = layoutd_json_write(params, NULL);
    if (g_strcmp0(strategy, self->strategy) != 0 || g_strcmp0(params_text, self->parameters) != 0)
        layoutd_collection_view_set_strategy(self, strategy, params_text, FALSE);
    free(params_text);
    layoutd_json_free(j);
    g_free(self->restore);
    self->restore = g_strdup(state);
    if (self->state == LAYOUTD_VIEW_STATE_READY) apply_restore(self);
    return TRUE;
}

/**
 * layoutd_collection_view_set_self_sizing:
 * @self: a view
 * @self_sizing: whether cells are measured
 *
 * Turns self-sizing on or off.
 */
void layoutd_collection_view_set_self_sizing(LayoutdCollectionView *self, gboolean self_sizing)
{
    if (self->self_sizing == self_sizing) return;
    self->self_sizing = self_sizing;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELF_SIZING]);
    if (self_sizing) ensure_tick(self);
}

/**
 * layoutd_collection_view_get_self_sizing:
 * @self: a view
 *
 * Returns: whether cells are measured
 */
gboolean layoutd_collection_view_get_self_sizing(LayoutdCollectionView *self)
{
    return self->self_sizing;
}

/**
 * layoutd_collection_view_set_transition_time:
 * @self: a view
 * @seconds: -1 to follow the frame clock, or a time to hold every transition at
 *
 * Holds transitions at a time (scrubbing, tests), or lets them run.
 */
void layoutd_collection_view_set_transition_time(LayoutdCollectionView *self, double seconds)
{
    self->transition_time = seconds < 0 ? -1 : seconds;
    if (self->transition && self->transition_time < 0) {
        GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(self));
        self->transition_start_us = clock ? gdk_frame_clock_get_frame_time(clock) : g_get_monotonic_time();
        ensure_tick(self);
    }
    gtk_widget_queue_allocate(GTK_WIDGET(self));
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_TRANSITION_TIME]);
}

/**
 * layoutd_collection_view_get_transition_time:
 * @self: a view
 *
 * Returns: -1, or the time transitions are held at
 */
double layoutd_collection_view_get_transition_time(LayoutdCollectionView *self)
{
    return self->transition_time;
}

/**
 * layoutd_collection_view_get_transition_running:
 * @self: a view
 *
 * Returns: whether a transition is playing (or held)
 */
gboolean layoutd_collection_view_get_transition_running(LayoutdCollectionView *self)
{
    return self->transition != NULL;
}

/**
 * layoutd_collection_view_get_element_allocation:
 * @self: a view
 * @kind: "cell", "header", ...
 * @id: the element's id
 * @out_rect: (out caller-allocates): where its widget was placed last, in the view's
 *   coordinates (the frame minus the offset, before any transform)
 * @out_alpha: (out) (optional): its opacity
 *
 * Returns: whether the element has a widget now
 */
gboolean layoutd_collection_view_get_element_allocation(LayoutdCollectionView *self, const char *kind, const char *id,
                                                        graphene_rect_t *out_rect, double *out_alpha)
{
    char *key = element_key(kind, id);
    Element *el = g_hash_table_lookup(self->elements, key);
    g_free(key);
    if (!el) {
        if (out_rect) graphene_rect_init(out_rect, 0, 0, 0, 0);
        if (out_alpha) *out_alpha = 0;
        return FALSE;
    }
    double off_x = adj_value(self->hadj), off_y = adj_value(self->vadj);
    if (out_rect)
        graphene_rect_init(out_rect, (float)(el->shown.frame.x - off_x), (float)(el->shown.frame.y - off_y),
                           (float)el->shown.frame.width, (float)el->shown.frame.height);
    if (out_alpha) *out_alpha = el->shown.hidden ? 0 : el->shown.alpha;
    return TRUE;
}

static int compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/**
 * layoutd_collection_view_list_elements:
 * @self: a view
 *
 * Returns: (transfer full) (array zero-terminated=1): "kind/id" of every element that has a
 *   widget now, sorted
 */
char **layoutd_collection_view_list_elements(LayoutdCollectionView *self)
{
    GPtrArray *out = g_ptr_array_new();
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, self->elements);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        Element *el = value;
        g_ptr_array_add(out, g_strconcat(el->kind, "/", el->id, NULL));
    }
    g_ptr_array_sort(out, compare_strings);
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

/**
 * layoutd_collection_view_get_widget_count:
 * @self: a view
 *
 * Returns: every child widget the view holds (bound and pooled)
 */
guint layoutd_collection_view_get_widget_count(LayoutdCollectionView *self)
{
    return self->widget_count;
}

/**
 * layoutd_collection_view_is_idle:
 * @self: a view
 *
 * Returns: whether nothing is on its way: no request in flight, no event or model change
 *   waiting for a frame, no transition or scroll animation running, and no drag in progress
 *   (a drag keeps the view busy from begin_move until its end_move is answered)
 */
gboolean layoutd_collection_view_is_idle(LayoutdCollectionView *self)
{
    return self->in_flight == 0 && self->epoch >= self->awaited_epoch && g_queue_is_empty(&self->queued) && !self->model_dirty && !self->transition &&
           !self->settling && !self->moving && self->state != LAYOUTD_VIEW_STATE_CREATING &&
           !(self->self_sizing && self->measure_queue->len);
}

/**
 * layoutd_collection_view_get_stats:
 * @self: a view
 * @frames: (out): frames in which the view did work
 * @round_trips: (out): replies received
 * @last_frame_work_ms: (out): the view's own work in the last complete frame (applying
 *   events, reconciling slots, allocating), in milliseconds
 *
 * Counters for benchmarks.
 */
void layoutd_collection_view_get_stats(LayoutdCollectionView *self, guint64 *frames, guint64 *round_trips,
                                       double *last_frame_work_ms)
{
    if (frames) *frames = self->frames;
    if (round_trips) *round_trips = self->round_trips;
    if (last_frame_work_ms) *last_frame_work_ms = self->last_frame_ms;
}
