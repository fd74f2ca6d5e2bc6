/* The typed methods: each writes its params (wire.c), makes a blocking call (client.c) and reads
   the result into its struct (wire.c). One function per protocol method; coverage.c lists them. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define LD_STRINGIFY(x) #x
#define LD_TEXT(x) LD_STRINGIFY(x)

/* ---- calls ---- */

static ld_json *call_buf(layoutd_client *c, const char *method, ld_buf *b, layoutd_error *err)
{
    if (b->failed || !b->data) {
        ld_buf_free(b);
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "a string argument is not valid UTF-8 or a number is not finite");
        return NULL;
    }
    ld_json *r = ld_call(c, method, b->data, err);
    ld_buf_free(b);
    return r;
}

/* Ends the params in b with the common mutation options, calls, and reads the invalidation. */
static int mutation(layoutd_client *c, const char *method, ld_buf *b, const layoutd_mutation_options *o,
                    layoutd_invalidation *out, layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    ld_write_options(b, o);
    ld_buf_puts(b, "}");
    ld_json *r = call_buf(c, method, b, err);
    if (!r) return -1;
    int rc = 0;
    if (out) rc = layoutd_invalidation_from_json(r, out, err);
    layoutd_json_free(r);
    return rc;
}

static int snapshot_call(layoutd_client *c, const char *method, ld_buf *b, layoutd_snapshot *out, layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    ld_json *r = call_buf(c, method, b, err);
    if (!r) return -1;
    int rc = out ? layoutd_snapshot_from_json(r, out, err) : 0;
    layoutd_json_free(r);
    return rc;
}

static int element_call(layoutd_client *c, const char *method, ld_buf *b, const char *field, layoutd_element_result *out,
                        layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    ld_json *r = call_buf(c, method, b, err);
    return r ? ld_read_element_result(r, field, out, err) : -1;
}

/* A call whose result says nothing beyond success. */
static int empty_call(layoutd_client *c, const char *method, ld_buf *b, layoutd_error *err)
{
    ld_json *r = call_buf(c, method, b, err);
    layoutd_json_free(r);
    return r ? 0 : -1;
}

/* ---- daemon.*, strategy.list ---- */

int layoutd_hello(layoutd_client *c, layoutd_hello_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_DAEMON_HELLO, "{\"protocol\":[" LD_TEXT(LAYOUTD_PROTOCOL_VERSION) "]}", err);
    return r ? ld_read_hello(r, out, err) : -1;
}

int layoutd_status_get(layoutd_client *c, layoutd_status *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_DAEMON_STATUS, NULL, err);
    return r ? ld_read_status(r, out, err) : -1;
}

int layoutd_describe(layoutd_client *c, layoutd_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_DAEMON_DESCRIBE, NULL, err);
    return r ? ld_read_result(r, out, err) : -1;
}

int layoutd_reload(layoutd_client *c, layoutd_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_DAEMON_RELOAD, NULL, err);
    return r ? ld_read_result(r, out, err) : -1;
}

int layoutd_strategies(layoutd_client *c, layoutd_strategy_list *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_STRATEGY_LIST, NULL, err);
    return r ? ld_read_strategy_list(r, out, err) : -1;
}

int layoutd_sync(layoutd_client *c, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, err);
    layoutd_json_free(r);
    return r ? 0 : -1;
}

/* ---- views ---- */

int layoutd_view_create(layoutd_client *c, const layoutd_view_spec *spec, layoutd_snapshot *out, layoutd_error *err)
{
    if (!spec || !spec->view || !spec->strategy) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "view and strategy are required");
        return -1;
    }
    ld_buf b = {0};
    ld_write_view_spec(&b, spec);
    char *name = strdup(spec->view);
    int rc = snapshot_call(c, LAYOUTD_METHOD_VIEW_CREATE, &b, out, err);
    if (rc == 0 && name) layoutd_client_track_view(c, name);
    free(name);
    return rc;
}

int layoutd_view_get(layoutd_client *c, const char *view, layoutd_snapshot *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_buf_puts(&b, "}");
    return snapshot_call(c, LAYOUTD_METHOD_VIEW_GET, &b, out, err);
}

int layoutd_view_delete(layoutd_client *c, const char *view, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_buf_puts(&b, "}");
    if (empty_call(c, LAYOUTD_METHOD_VIEW_DELETE, &b, err)) return -1;
    ld_untrack_view(c, view);
    return 0;
}

int layoutd_view_list(layoutd_client *c, layoutd_strings *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, LAYOUTD_METHOD_VIEW_LIST, NULL, err);
    return r ? ld_read_view_list(r, out, err) : -1;
}

/* ---- reading a view ---- */

int layoutd_view_query(layoutd_client *c, const char *view, layoutd_rect r, int64_t limit, const layoutd_key *after,
                       layoutd_query_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "rect");
    ld_write_rect(&b, r);
    if (limit > 0) ld_buf_printf(&b, ",\"limit\":%lld", (long long)limit);
    if (after) {
        ld_buf_puts(&b, ",\"after\":{\"kind\":");
        ld_buf_string(&b, layoutd_kind_name(after->kind));
        ld_buf_puts(&b, ",\"id\":");
        ld_buf_string(&b, after->id);
        ld_buf_puts(&b, "}");
    }
    ld_buf_puts(&b, "}");
    memset(out, 0, sizeof *out);
    ld_json *res = call_buf(c, LAYOUTD_METHOD_VIEW_QUERY, &b, err);
    return res ? ld_read_query_result(res, out, err) : -1;
}

int layoutd_view_item(layoutd_client *c, const char *view, const char *id, layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "id");
    ld_buf_string(&b, id);
    ld_buf_puts(&b, "}");
    return element_call(c, LAYOUTD_METHOD_VIEW_ITEM, &b, "attributes", out, err);
}

int layoutd_view_selection(layoutd_client *c, const char *view, int64_t limit, const char *after, layoutd_selection_page *out,
                           layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    ld_buf b = {0};
    ld_write_begin(&b, view);
    if (limit > 0) ld_buf_printf(&b, ",\"limit\":%lld", (long long)limit);
    if (after) { ld_write_key(&b, "after"); ld_buf_string(&b, after); }
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_SELECTION, &b, err);
    return r ? ld_read_selection_page(r, out, err) : -1;
}

int layoutd_view_hit_test(layoutd_client *c, const char *view, layoutd_point p, const char *const *kinds,
                          layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "point");
    ld_write_point(&b, p);
    if (kinds) {
        size_t n = 0;
        while (kinds[n]) n++;
        ld_write_key(&b, "kinds");
        ld_write_strings(&b, n, kinds);
    }
    ld_buf_puts(&b, "}");
    return element_call(c, LAYOUTD_METHOD_VIEW_HIT_TEST, &b, "element", out, err);
}

int layoutd_view_neighbor(layoutd_client *c, const char *view, const char *id, const char *direction,
                          layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "id");
    ld_buf_string(&b, id);
    ld_write_key(&b, "direction");
    ld_buf_string(&b, direction);
    ld_buf_puts(&b, "}");
    return element_call(c, LAYOUTD_METHOD_VIEW_NEIGHBOR, &b, "element", out, err);
}

/* ---- mutations ---- */

int layoutd_view_set_data(layoutd_client *c, const char *view, size_t n, const layoutd_section *sections,
                          const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "sections");
    ld_write_sections(&b, n, sections);
    return mutation(c, LAYOUTD_METHOD_VIEW_SET_DATA, &b, o, out, err);
}

int layoutd_view_update(layoutd_client *c, const char *view, size_t n, const layoutd_update *u,
                        const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_buf_puts(&b, ",\"updates\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(&b, ",");
        ld_write_update(&b, &u[i]);
    }
    ld_buf_puts(&b, "]");
    return mutation(c, LAYOUTD_METHOD_VIEW_UPDATE, &b, o, out, err);
}

int layoutd_view_measure(layoutd_client *c, const char *view, size_t n, const layoutd_measurement *m,
                         const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "sizes");
    ld_write_measurements(&b, n, m);
    return mutation(c, LAYOUTD_METHOD_VIEW_MEASURE, &b, o, out, err);
}

int layoutd_view_select(layoutd_client *c, const char *view, size_t n, const char *const *list, const char *mode,
                        const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "ids");
    ld_write_strings(&b, n, list);
    if (mode) { ld_write_key(&b, "mode"); ld_buf_string(&b, mode); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SELECT, &b, o, out, err);
}

int layoutd_view_scroll(layoutd_client *c, const char *view, layoutd_point offset, const layoutd_point *velocity,
                        double horizon, const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "offset");
    ld_write_point(&b, offset);
    if (velocity) { ld_write_key(&b, "velocity"); ld_write_point(&b, *velocity); }
    if (horizon > 0) { ld_write_key(&b, "horizon"); ld_buf_number(&b, horizon); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SCROLL, &b, o, out, err);
}

int layoutd_view_scroll_end(layoutd_client *c, const char *view, layoutd_point proposed, const layoutd_point *velocity,
                            const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "proposed");
    ld_write_point(&b, proposed);
    if (velocity) { ld_write_key(&b, "velocity"); ld_write_point(&b, *velocity); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SCROLL_END, &b, o, out, err);
}

int layoutd_view_scroll_section(layoutd_client *c, const char *view, const char *section, double offset,
                                const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "section");
    ld_buf_string(&b, section);
    ld_write_key(&b, "offset");
    ld_buf_number(&b, offset);
    return mutation(c, LAYOUTD_METHOD_VIEW_SCROLL_SECTION, &b, o, out, err);
}

int layoutd_view_scroll_section_end(layoutd_client *c, const char *view, const char *section, const double *proposed,
                                    double velocity, const layoutd_mutation_options *o, layoutd_invalidation *out,
                                    layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "section");
    ld_buf_string(&b, section);
    if (proposed) { ld_write_key(&b, "proposed"); ld_buf_number(&b, *proposed); }
    if (velocity != 0) { ld_write_key(&b, "velocity"); ld_buf_number(&b, velocity); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SCROLL_SECTION_END, &b, o, out, err);
}

int layoutd_view_scroll_to(layoutd_client *c, const char *view, const char *id, const char *kind, const char *align,
                           bool has_offset, double offset, const layoutd_mutation_options *o, layoutd_invalidation *out,
                           layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "id");
    ld_buf_string(&b, id);
    if (kind) { ld_write_key(&b, "kind"); ld_buf_string(&b, kind); }
    if (align) { ld_write_key(&b, "align"); ld_buf_string(&b, align); }
    if (has_offset) { ld_write_key(&b, "offset"); ld_buf_number(&b, offset); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SCROLL_TO, &b, o, out, err);
}

int layoutd_view_resize(layoutd_client *c, const char *view, layoutd_size s, const layoutd_mutation_options *o,
                        layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "size");
    ld_write_size(&b, s);
    return mutation(c, LAYOUTD_METHOD_VIEW_RESIZE, &b, o, out, err);
}

int layoutd_view_configure(layoutd_client *c, const char *view, const char *params_json, const layoutd_mutation_options *o,
                           layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "params");
    ld_buf_puts(&b, params_json ? params_json : "{}");
    return mutation(c, LAYOUTD_METHOD_VIEW_CONFIGURE, &b, o, out, err);
}

int layoutd_view_set_strategy(layoutd_client *c, const char *view, const char *strategy, const char *params_json,
                              const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "strategy");
    ld_buf_string(&b, strategy);
    if (params_json) { ld_write_key(&b, "params"); ld_buf_puts(&b, params_json); }
    return mutation(c, LAYOUTD_METHOD_VIEW_SET_STRATEGY, &b, o, out, err);
}

int layoutd_view_set_window_margin(layoutd_client *c, const char *view, double margin, const layoutd_mutation_options *o,
                                   layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "margin");
    ld_buf_number(&b, margin);
    return mutation(c, LAYOUTD_METHOD_VIEW_SET_WINDOW_MARGIN, &b, o, out, err);
}

int layoutd_view_set_anchor(layoutd_client *c, const char *view, const layoutd_anchor *anchor,
                            const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    if (!anchor) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "anchor is required"); return -1; }
    layoutd_mutation_options copy = o ? *o : (layoutd_mutation_options){0};
    copy.anchor = anchor;
    ld_buf b = {0};
    ld_write_begin(&b, view);
    return mutation(c, LAYOUTD_METHOD_VIEW_SET_ANCHOR, &b, &copy, out, err);
}

int layoutd_view_set_layout_direction(layoutd_client *c, const char *view, const char *direction,
                                      const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "layoutDirection");
    ld_buf_string(&b, direction);
    return mutation(c, LAYOUTD_METHOD_VIEW_SET_LAYOUT_DIRECTION, &b, o, out, err);
}

/* ---- interactive moves (views.md "Interactive moves") ---- */

int layoutd_view_begin_move(layoutd_client *c, const char *view, const char *id, const layoutd_point *point,
                            const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "id");
    ld_buf_string(&b, id);
    if (point) { ld_write_key(&b, "point"); ld_write_point(&b, *point); }
    return mutation(c, LAYOUTD_METHOD_VIEW_BEGIN_MOVE, &b, o, out, err);
}

int layoutd_view_update_move(layoutd_client *c, const char *view, layoutd_point point, const layoutd_mutation_options *o,
                             layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "point");
    ld_write_point(&b, point);
    return mutation(c, LAYOUTD_METHOD_VIEW_UPDATE_MOVE, &b, o, out, err);
}

int layoutd_view_end_move(layoutd_client *c, const char *view, bool commit, const layoutd_mutation_options *o,
                          layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_buf_puts(&b, commit ? ",\"commit\":true" : ",\"commit\":false");
    return mutation(c, LAYOUTD_METHOD_VIEW_END_MOVE, &b, o, out, err);
}

/* ---- interactive transitions (mutations.md "Interactive transitions") ---- */

int layoutd_view_begin_transition(layoutd_client *c, const char *view, const char *strategy, const char *params_json,
                                  const int64_t *if_epoch, const layoutd_anchor *anchor,
                                  layoutd_interactive_transition *out, layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!strategy && !params_json) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "a strategy, parameters or both are required");
        return -1;
    }
    ld_buf b = {0};
    ld_write_begin(&b, view);
    if (strategy) { ld_write_key(&b, "strategy"); ld_buf_string(&b, strategy); }
    if (params_json) { ld_write_key(&b, "params"); ld_buf_puts(&b, params_json); }
    if (if_epoch) ld_buf_printf(&b, ",\"ifEpoch\":%lld", (long long)*if_epoch);
    if (anchor) { ld_write_key(&b, "anchor"); ld_write_anchor(&b, anchor); }
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_BEGIN_TRANSITION, &b, err);
    if (!r) return -1;
    if (!out) { layoutd_json_free(r); return 0; }
    return ld_read_interactive_transition(r, out, err);
}

int layoutd_view_update_transition(layoutd_client *c, const char *view, double progress, layoutd_transition_update_result *out,
                                   layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_write_key(&b, "progress");
    ld_buf_number(&b, progress);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_UPDATE_TRANSITION, &b, err);
    if (!r) return -1;
    if (!out) { layoutd_json_free(r); return 0; }
    return ld_read_transition_update(r, out, err);
}

int layoutd_view_end_transition(layoutd_client *c, const char *view, bool commit, const layoutd_mutation_options *o,
                                layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    ld_buf_puts(&b, commit ? ",\"commit\":true" : ",\"commit\":false");
    return mutation(c, LAYOUTD_METHOD_VIEW_END_TRANSITION, &b, o, out, err);
}

/* ---- staged uploads ---- */

int layoutd_stage_begin(layoutd_client *c, const char *view, const int64_t *if_epoch, char *upload_id, size_t size,
                        layoutd_error *err)
{
    ld_buf b = {0};
    ld_write_begin(&b, view);
    if (if_epoch) ld_buf_printf(&b, ",\"ifEpoch\":%lld", (long long)*if_epoch);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_STAGE_BEGIN, &b, err);
    if (!r) return -1;
    const char *u = layoutd_json_string(layoutd_json_get(r, "upload"));
    int rc = 0;
    if (!u || strlen(u) >= size) {
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "no upload id (or the buffer is too small)");
        rc = -1;
    } else {
        strcpy(upload_id, u);
    }
    layoutd_json_free(r);
    return rc;
}

int layoutd_view_export(layoutd_client *c, const char *view, const char *cursor, int64_t limit, layoutd_export_part *out,
                        layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    ld_buf b = {0};
    ld_write_begin(&b, view);
    if (cursor) { ld_write_key(&b, "cursor"); ld_buf_string(&b, cursor); }
    if (limit > 0) ld_buf_printf(&b, ",\"limit\":%lld", (long long)limit);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_EXPORT, &b, err);
    if (!r) return -1;
    const layoutd_json *next = layoutd_json_get(r, "next");
    out->json = layoutd_json_write(r, NULL);
    out->part = (int64_t)layoutd_json_number(layoutd_json_get(r, "part"), 0);
    out->epoch = (int64_t)layoutd_json_number(layoutd_json_get(r, "epoch"), -1);
    out->next = layoutd_json_string(next) ? strdup(layoutd_json_string(next)) : NULL;
    int rc = 0;
    if (!out->json || out->part < 1 || !next || (layoutd_json_string(next) && !out->next)) {
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "view.export's result is not an export part");
        layoutd_export_part_free(out);
        rc = -1;
    }
    layoutd_json_free(r);
    return rc;
}

void layoutd_export_part_free(layoutd_export_part *p)
{
    if (!p) return;
    free(p->json);
    free(p->next);
    memset(p, 0, sizeof *p);
}

int layoutd_view_import(layoutd_client *c, const char *view, const char *import_id, const char *blob_json,
                        layoutd_import_result *out, layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!blob_json || (view == NULL) == (import_id == NULL)) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "view.import needs a blob, and view (part 1) or import_id (later parts)");
        return -1;
    }
    /* The blob goes into the request as it is: parsed first, and written again compactly, so
       text that is not one JSON object (or holds a line break) cannot break the line. */
    char why[128];
    layoutd_json *blob = layoutd_json_parse(blob_json, strlen(blob_json), why, sizeof why);
    char *compact = blob && blob->type == LAYOUTD_JSON_OBJECT ? layoutd_json_write(blob, NULL) : NULL;
    layoutd_json_free(blob);
    if (!compact) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "the blob is not a JSON object");
        return -1;
    }
    ld_buf b = {0};
    if (view) {
        ld_write_begin(&b, view);
    } else {
        ld_buf_puts(&b, "{\"importId\":");
        ld_buf_string(&b, import_id);
    }
    ld_buf_puts(&b, ",\"blob\":");
    ld_buf_puts(&b, compact);
    ld_buf_puts(&b, "}");
    free(compact);
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_IMPORT, &b, err);
    if (!r) return -1;
    if (out) {
        out->part = (int64_t)layoutd_json_number(layoutd_json_get(r, "part"), 0);
        out->items = (int64_t)layoutd_json_number(layoutd_json_get(r, "items"), 0);
        const char *id = layoutd_json_string(layoutd_json_get(r, "importId"));
        if (id && strlen(id) < sizeof out->import_id) strcpy(out->import_id, id);
        const layoutd_json *snapshot = layoutd_json_get(r, "snapshot");
        out->created = snapshot != NULL;
        out->epoch = snapshot ? (int64_t)layoutd_json_number(layoutd_json_get(snapshot, "epoch"), -1) : -1;
    }
    layoutd_json_free(r);
    return 0;
}

static void write_upload(ld_buf *b, const char *upload)
{
    ld_buf_puts(b, "{\"upload\":");
    ld_buf_string(b, upload);
}

int layoutd_stage_append(layoutd_client *c, const char *upload, size_t n, const layoutd_section *sections,
                         int64_t *items_so_far, layoutd_error *err)
{
    ld_buf b = {0};
    write_upload(&b, upload);
    ld_write_key(&b, "sections");
    ld_write_sections(&b, n, sections);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, LAYOUTD_METHOD_VIEW_STAGE_APPEND, &b, err);
    if (!r) return -1;
    if (items_so_far) *items_so_far = ld_int(layoutd_json_number(layoutd_json_get(r, "items"), 0), 0);
    layoutd_json_free(r);
    return 0;
}

int layoutd_stage_commit(layoutd_client *c, const char *upload, const layoutd_mutation_options *o,
                         layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    write_upload(&b, upload);
    return mutation(c, LAYOUTD_METHOD_VIEW_STAGE_COMMIT, &b, o, out, err);
}

int layoutd_stage_abort(layoutd_client *c, const char *upload, layoutd_error *err)
{
    ld_buf b = {0};
    write_upload(&b, upload);
    ld_buf_puts(&b, "}");
    return empty_call(c, LAYOUTD_METHOD_VIEW_STAGE_ABORT, &b, err);
}
