/* liblayoutd-gtk: a GTK 4 collection view whose layout comes from layoutd.
 *
 * GObject introspection namespace Layoutd, version 1 (Layoutd-1.gir / Layoutd-1.typelib), so Python
 * (PyGObject), GJS and Vala use it unchanged. Built on the C client (liblayoutd-client1, whose
 * `layoutd_*` lower-case API stays out of these headers) and GTK 4.8.
 *
 * The pieces:
 * - LayoutdConnection: one connection to the daemon inside the GLib main loop (a GSource over the
 *   client), asynchronous calls, reconnection after a restart.
 * - LayoutdItem: an item with a stable id and an optional section id; any GObject with a string
 *   "id" property (and optionally "section") works as a model item too.
 * - LayoutdCellFactory: setup / bind / unbind / teardown, as GtkSignalListItemFactory.
 * - LayoutdListItem: what a factory's handlers get: the element's id, kind, position, model item,
 *   selection, and the child widget the factory made.
 * - LayoutdCollectionView: the GtkWidget (GtkScrollable) that shows a GListModel through a layoutd
 *   view: recycling, transitions, self-sizing, selection, keyboard focus, drag to reorder.
 */
#ifndef LAYOUTD_GTK_H
#define LAYOUTD_GTK_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                     */

/**
 * LAYOUTD_ERROR:
 *
 * The error domain of liblayoutd-gtk. A refusal by the daemon carries the protocol's own code
 * (protocol/errors.md: -32602 InvalidParams, -32003 UnknownStrategy, ...) and a message that
 * starts with the protocol's error name and a colon ("UnknownStrategy: ..."); failures on this
 * side use the values of #LayoutdError.
 */
#define LAYOUTD_ERROR (layoutd_error_quark())
GQuark layoutd_error_quark(void);

/**
 * LayoutdError:
 * @LAYOUTD_ERROR_IO: a system call failed (no daemon at the socket, for one)
 * @LAYOUTD_ERROR_CONNECTION_CLOSED: the connection ended before the reply
 * @LAYOUTD_ERROR_PROTOCOL: the daemon wrote something no layoutd writes
 * @LAYOUTD_ERROR_INVALID_ARGUMENT: an argument was refused before anything was sent
 * @LAYOUTD_ERROR_TIMEOUT: no reply in time
 * @LAYOUTD_ERROR_DAEMON_SHUTDOWN: the daemon announced it is stopping
 *
 * Local error codes in the %LAYOUTD_ERROR domain. Any other code is the daemon's (negative
 * JSON-RPC-style codes, see protocol/errors.md); its name is the message's first word.
 */
typedef enum {
    LAYOUTD_ERROR_IO = -1,
    LAYOUTD_ERROR_CONNECTION_CLOSED = -2,
    LAYOUTD_ERROR_PROTOCOL = -3,
    LAYOUTD_ERROR_INVALID_ARGUMENT = -4,
    LAYOUTD_ERROR_TIMEOUT = -5,
    LAYOUTD_ERROR_DAEMON_SHUTDOWN = -7,
} LayoutdError;

GType layoutd_error_get_type(void);
#define LAYOUTD_TYPE_ERROR (layoutd_error_get_type())

/* ---------------------------------------------------------------------------------------- */
/* LayoutdConnection                                                                          */

#define LAYOUTD_TYPE_CONNECTION (layoutd_connection_get_type())
G_DECLARE_FINAL_TYPE(LayoutdConnection, layoutd_connection, LAYOUTD, CONNECTION, GObject)

LayoutdConnection *layoutd_connection_new(const char *socket_path, GError **error);
LayoutdConnection *layoutd_connection_new_for_client(gpointer client);
const char *layoutd_connection_get_socket_path(LayoutdConnection *self);
gboolean layoutd_connection_get_connected(LayoutdConnection *self);
gpointer layoutd_connection_get_client(LayoutdConnection *self);
void layoutd_connection_call_async(LayoutdConnection *self, const char *method, const char *params_json,
                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
char *layoutd_connection_call_finish(LayoutdConnection *self, GAsyncResult *result, GError **error);
gboolean layoutd_connection_reconnect(LayoutdConnection *self, GError **error);
void layoutd_connection_close(LayoutdConnection *self);

/* ---------------------------------------------------------------------------------------- */
/* LayoutdItem                                                                                */

#define LAYOUTD_TYPE_ITEM (layoutd_item_get_type())
G_DECLARE_DERIVABLE_TYPE(LayoutdItem, layoutd_item, LAYOUTD, ITEM, GObject)

struct _LayoutdItemClass {
    GObjectClass parent_class;
    gpointer padding[8];
};

LayoutdItem *layoutd_item_new(const char *id, const char *section);
const char *layoutd_item_get_id(LayoutdItem *self);
const char *layoutd_item_get_section(LayoutdItem *self);
void layoutd_item_set_section(LayoutdItem *self, const char *section);

/* ---------------------------------------------------------------------------------------- */
/* LayoutdListItem                                                                            */

#define LAYOUTD_TYPE_LIST_ITEM (layoutd_list_item_get_type())
G_DECLARE_FINAL_TYPE(LayoutdListItem, layoutd_list_item, LAYOUTD, LIST_ITEM, GObject)

GObject *layoutd_list_item_get_item(LayoutdListItem *self);
const char *layoutd_list_item_get_id(LayoutdListItem *self);
const char *layoutd_list_item_get_kind(LayoutdListItem *self);
int layoutd_list_item_get_section(LayoutdListItem *self);
int layoutd_list_item_get_position(LayoutdListItem *self);
gboolean layoutd_list_item_get_selected(LayoutdListItem *self);
double layoutd_list_item_get_effect(LayoutdListItem *self, const char *name, double fallback);
GtkWidget *layoutd_list_item_get_child(LayoutdListItem *self);
void layoutd_list_item_set_child(LayoutdListItem *self, GtkWidget *child);

/* ---------------------------------------------------------------------------------------- */
/* LayoutdCellFactory                                                                         */

#define LAYOUTD_TYPE_CELL_FACTORY (layoutd_cell_factory_get_type())
G_DECLARE_FINAL_TYPE(LayoutdCellFactory, layoutd_cell_factory, LAYOUTD, CELL_FACTORY, GObject)

LayoutdCellFactory *layoutd_cell_factory_new(void);

/* ---------------------------------------------------------------------------------------- */
/* LayoutdCollectionView                                                                      */

#define LAYOUTD_TYPE_COLLECTION_VIEW (layoutd_collection_view_get_type())
G_DECLARE_FINAL_TYPE(LayoutdCollectionView, layoutd_collection_view, LAYOUTD, COLLECTION_VIEW, GtkWidget)

/**
 * LayoutdViewState:
 * @LAYOUTD_VIEW_STATE_IDLE: nothing to show yet (no connection, model or size)
 * @LAYOUTD_VIEW_STATE_CREATING: view.create (and the data) sent, no snapshot yet
 * @LAYOUTD_VIEW_STATE_READY: subscribed: the widgets follow the daemon's window
 * @LAYOUTD_VIEW_STATE_RECONNECTING: the connection ended; waiting for the daemon to serve again
 * @LAYOUTD_VIEW_STATE_FAILED: the daemon refused the view (see the error signal)
 *
 * Where a collection view is in its life.
 */
typedef enum {
    LAYOUTD_VIEW_STATE_IDLE,
    LAYOUTD_VIEW_STATE_CREATING,
    LAYOUTD_VIEW_STATE_READY,
    LAYOUTD_VIEW_STATE_RECONNECTING,
    LAYOUTD_VIEW_STATE_FAILED,
} LayoutdViewState;

GType layoutd_view_state_get_type(void);
#define LAYOUTD_TYPE_VIEW_STATE (layoutd_view_state_get_type())

GtkWidget *layoutd_collection_view_new(void);

void layoutd_collection_view_set_connection(LayoutdCollectionView *self, LayoutdConnection *connection);
LayoutdConnection *layoutd_collection_view_get_connection(LayoutdCollectionView *self);
void layoutd_collection_view_set_socket_path(LayoutdCollectionView *self, const char *socket_path);
const char *layoutd_collection_view_get_socket_path(LayoutdCollectionView *self);
void layoutd_collection_view_set_view_name(LayoutdCollectionView *self, const char *name);
const char *layoutd_collection_view_get_view_name(LayoutdCollectionView *self);
void layoutd_collection_view_set_model(LayoutdCollectionView *self, GListModel *model);
GListModel *layoutd_collection_view_get_model(LayoutdCollectionView *self);
void layoutd_collection_view_set_factory(LayoutdCollectionView *self, LayoutdCellFactory *factory);
LayoutdCellFactory *layoutd_collection_view_get_factory(LayoutdCollectionView *self);
void layoutd_collection_view_set_supplementary_factory(LayoutdCollectionView *self, const char *kind,
                                                       LayoutdCellFactory *factory);

const char *layoutd_collection_view_get_strategy(LayoutdCollectionView *self);
const char *layoutd_collection_view_get_parameters(LayoutdCollectionView *self);
void layoutd_collection_view_set_strategy(LayoutdCollectionView *self, const char *strategy, const char *parameters_json,
                                          gboolean animated);
void layoutd_collection_view_configure(LayoutdCollectionView *self, const char *parameters_json, gboolean animated);

LayoutdViewState layoutd_collection_view_get_state(LayoutdCollectionView *self);
gint64 layoutd_collection_view_get_epoch(LayoutdCollectionView *self);
void layoutd_collection_view_get_content_size(LayoutdCollectionView *self, double *width, double *height);

void layoutd_collection_view_select(LayoutdCollectionView *self, const char *const *ids, const char *mode);
char **layoutd_collection_view_get_selection(LayoutdCollectionView *self);
const char *layoutd_collection_view_hit_test(LayoutdCollectionView *self, double x, double y);
void layoutd_collection_view_scroll_to(LayoutdCollectionView *self, const char *id, const char *align, gboolean animated);
void layoutd_collection_view_fling(LayoutdCollectionView *self, double velocity_x, double velocity_y);
void layoutd_collection_view_move_focus_to(LayoutdCollectionView *self, const char *direction);
const char *layoutd_collection_view_get_focus_id(LayoutdCollectionView *self);
void layoutd_collection_view_set_focus_id(LayoutdCollectionView *self, const char *id);

gboolean layoutd_collection_view_begin_move(LayoutdCollectionView *self, double x, double y);
void layoutd_collection_view_update_move(LayoutdCollectionView *self, double x, double y);
void layoutd_collection_view_end_move(LayoutdCollectionView *self, gboolean commit);

char *layoutd_collection_view_save_state(LayoutdCollectionView *self);
gboolean layoutd_collection_view_restore_state(LayoutdCollectionView *self, const char *state, GError **error);

void layoutd_collection_view_set_self_sizing(LayoutdCollectionView *self, gboolean self_sizing);
gboolean layoutd_collection_view_get_self_sizing(LayoutdCollectionView *self);
void layoutd_collection_view_set_transition_time(LayoutdCollectionView *self, double seconds);
double layoutd_collection_view_get_transition_time(LayoutdCollectionView *self);
gboolean layoutd_collection_view_get_transition_running(LayoutdCollectionView *self);

gboolean layoutd_collection_view_get_element_allocation(LayoutdCollectionView *self, const char *kind, const char *id,
                                                        graphene_rect_t *out_rect, double *out_alpha);
char **layoutd_collection_view_list_elements(LayoutdCollectionView *self);
guint layoutd_collection_view_get_widget_count(LayoutdCollectionView *self);
gboolean layoutd_collection_view_is_idle(LayoutdCollectionView *self);
void layoutd_collection_view_get_stats(LayoutdCollectionView *self, guint64 *frames, guint64 *round_trips,
                                       double *last_frame_work_ms);

G_END_DECLS

#endif
