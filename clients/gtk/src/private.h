/* What the library's files share and its users do not see. */
#ifndef LAYOUTD_GTK_PRIVATE_H
#define LAYOUTD_GTK_PRIVATE_H

#include "layoutd-gtk/layoutd-gtk.h"
#include <layoutd/client.h>

G_BEGIN_DECLS

/* ---- errors (error.c) ---- */
/* A GError from the C client's error: the daemon's code and "Name: message", or a local code. */
GError *layoutd_gtk_error_from(const layoutd_error *err);

/* ---- JSON text (error.c) ---- */
/* Appends s as a JSON string literal (quotes and escapes). */
void layoutd_gtk_json_string(GString *out, const char *s);
/* Appends a number as the daemon writes it (integers without a fraction). */
void layoutd_gtk_json_number(GString *out, double v);
/* Appends ,"key":{"x":x,"y":y} and ,"key":{"width":w,"height":h} (the protocol's point and
   size members; `key` is a plain name, written as it is). */
void layoutd_gtk_json_point(GString *out, const char *key, double x, double y);
void layoutd_gtk_json_size(GString *out, const char *key, double width, double height);

/* ---- the connection (connection.c) ---- */
/* A reply handler that sees the C client's reply (valid during the call only). The reply is
   NULL-free: on a closed connection it carries a ConnectionClosed error. */
typedef void (*LayoutdReplyFunc)(LayoutdConnection *conn, const layoutd_reply *reply, gpointer user);
/* Sends a request; the handler runs once with its reply (or the connection's end). FALSE (and
   *error) when the request could not be sent; the handler is then never called. */
gboolean layoutd_gtk_connection_send(LayoutdConnection *conn, const char *method, const char *params_json,
                                 LayoutdReplyFunc func, gpointer user, GError **error);
/* Events of this connection, as the C client hands them over (valid during the call only). */
typedef void (*LayoutdEventFunc)(LayoutdConnection *conn, const layoutd_event *event, gpointer user);
guint layoutd_gtk_connection_add_event_handler(LayoutdConnection *conn, LayoutdEventFunc func, gpointer user);
void layoutd_gtk_connection_remove_event_handler(LayoutdConnection *conn, guint handler_id);

/* ---- list items and factories (list-item.c, cell-factory.c) ---- */
LayoutdListItem *layoutd_gtk_list_item_new(const char *kind);
void layoutd_gtk_list_item_bind_to(LayoutdListItem *li, const char *id, GObject *item, int section, int position,
                               gboolean selected);
void layoutd_gtk_list_item_set_selected(LayoutdListItem *li, gboolean selected);
void layoutd_gtk_list_item_set_position(LayoutdListItem *li, int section, int position);
void layoutd_gtk_list_item_unbind_from(LayoutdListItem *li);
void layoutd_gtk_list_item_set_effects(LayoutdListItem *li, size_t count, const char *const *names, const double *values);
void layoutd_gtk_cell_factory_emit_setup(LayoutdCellFactory *f, LayoutdListItem *li);
void layoutd_gtk_cell_factory_emit_bind(LayoutdCellFactory *f, LayoutdListItem *li);
void layoutd_gtk_cell_factory_emit_unbind(LayoutdCellFactory *f, LayoutdListItem *li);
void layoutd_gtk_cell_factory_emit_teardown(LayoutdCellFactory *f, LayoutdListItem *li);

/* ---- the data the daemon holds (sync.c) ---- */
/* A model read as the protocol's sections: ids only (the strategies size items themselves, and
   self-sizing measures them). */
typedef struct {
    char *id;
    GPtrArray *items;          /* char * item ids, owned */
} LayoutdSyncSection;
typedef struct {
    GPtrArray *sections;       /* LayoutdSyncSection *, owned */
    GHashTable *where;         /* item id -> (section index << 32 | item index) + 1, rebuilt lazily */
    gboolean where_valid;
    guint item_count;
} LayoutdSyncData;

LayoutdSyncData *layoutd_sync_data_new(void);
void layoutd_sync_data_free(LayoutdSyncData *d);
LayoutdSyncData *layoutd_sync_data_copy(const LayoutdSyncData *d);
/* Reads a GListModel whose items have a string "id" and optionally a string "section"
   property. Refuses (INVALID_ARGUMENT) an item without an id, an empty id, a duplicate id and a
   section whose items are not consecutive. */
LayoutdSyncData *layoutd_sync_data_from_model(GListModel *model, GError **error);
/* Where an item is: FALSE when the data does not hold it. */
gboolean layoutd_sync_data_locate(LayoutdSyncData *d, const char *id, guint *section, guint *index);
/* The position of an item in the flat model order, or -1. */
gint64 layoutd_sync_data_flat_index(LayoutdSyncData *d, const char *id);
/* Moves items (already in the data) so that they stand consecutively from (section, index)
   on, in the given order, the index counted without them. */
void layoutd_sync_data_move(LayoutdSyncData *d, const char *const *ids, guint count, guint section, guint index);
/* Appends the sections (or the items [from, to) of the flat order, section by section) as the
   protocol's JSON array of sections. */
void layoutd_sync_data_write(const LayoutdSyncData *d, GString *out, guint from, guint to);
/* The view.update batch that turns `old` into `new` (JSON array text appended to out), with
   the number of ids it names; FALSE when no batch can express it (an item leaving a deleted
   section): send the whole data instead. `deleted` receives the deleted item ids. */
gboolean layoutd_sync_diff(LayoutdSyncData *old_data, LayoutdSyncData *new_data, GString *out, guint *named,
                           GPtrArray *deleted);

G_END_DECLS

#endif
