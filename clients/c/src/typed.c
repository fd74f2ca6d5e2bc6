/* Typed requests and results: plain structs in, plain structs out. */
#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ld_untrack_view(layoutd_client *c, const char *view);

/* Named kinds, interned for the process: names[i] is kind LAYOUTD_KIND_UNKNOWN + 1 + i. Entries
   are only added (under the lock) and never change, so a name read once stays valid. */
#define LD_MAX_NAMED_KINDS 1024
#define LD_MAX_KIND_NAME 64
static pthread_mutex_t named_kinds_lock = PTHREAD_MUTEX_INITIALIZER;
static char *named_kinds[LD_MAX_NAMED_KINDS];
static size_t named_kind_count;

/* What views.md allows a kind to be named: 1 to 64 ASCII letters, digits, '-', '_', '.'. */
static bool valid_kind_name(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char ch = (unsigned char)s[n];
        if (n >= LD_MAX_KIND_NAME) return false;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.'))
            return false;
    }
    return n > 0;
}

const char *layoutd_kind_name(layoutd_kind kind)
{
    switch (kind) {
    case LAYOUTD_CELL: return "cell";
    case LAYOUTD_HEADER: return "header";
    case LAYOUTD_FOOTER: return "footer";
    default: break;
    }
    const char *name = "unknown";
    if ((int)kind > LAYOUTD_KIND_UNKNOWN) {
        size_t index = (size_t)kind - LAYOUTD_KIND_UNKNOWN - 1;
        pthread_mutex_lock(&named_kinds_lock);
        if (index < named_kind_count) name = named_kinds[index];
        pthread_mutex_unlock(&named_kinds_lock);
    }
    return name;
}

layoutd_kind layoutd_kind_named(const char *s)
{
    if (!s) return LAYOUTD_KIND_UNKNOWN;
    if (!strcmp(s, "cell")) return LAYOUTD_CELL;
    if (!strcmp(s, "header")) return LAYOUTD_HEADER;
    if (!strcmp(s, "footer")) return LAYOUTD_FOOTER;
    if (!valid_kind_name(s)) return LAYOUTD_KIND_UNKNOWN;
    layoutd_kind kind = LAYOUTD_KIND_UNKNOWN;
    pthread_mutex_lock(&named_kinds_lock);
    size_t i = 0;
    while (i < named_kind_count && strcmp(named_kinds[i], s)) i++;
    if (i == named_kind_count && i < LD_MAX_NAMED_KINDS) {
        char *copy = strdup(s);
        if (copy) named_kinds[named_kind_count++] = copy;
    }
    if (i < named_kind_count) kind = (layoutd_kind)(LAYOUTD_KIND_UNKNOWN + 1 + (int)i);
    pthread_mutex_unlock(&named_kinds_lock);
    return kind;
}

int layoutd_kind_compare(layoutd_kind a, layoutd_kind b)
{
    if (a == b) return 0;
    bool named_a = (int)a > LAYOUTD_KIND_UNKNOWN, named_b = (int)b > LAYOUTD_KIND_UNKNOWN;
    if (named_a && named_b) return strcmp(layoutd_kind_name(a), layoutd_kind_name(b));
    /* The three constants come first in their order; unknown after every named kind. */
    int rank_a = a == LAYOUTD_KIND_UNKNOWN ? 4 : named_a ? 3 : (int)a;
    int rank_b = b == LAYOUTD_KIND_UNKNOWN ? 4 : named_b ? 3 : (int)b;
    return rank_a < rank_b ? -1 : 1;
}

static layoutd_kind kind_of(const char *s) { return layoutd_kind_named(s); }

/* ---- copying trees ---- */

ld_json *ld_json_copy(ld_arena *a, const ld_json *v)
{
    char *text = ld_arena_strndup(a, v->text, v->text_len);
    if (!text) return NULL;
    ld_json *r = ld_json_parse_in(a, text, v->text_len, NULL, 0);
    return r;
}

/* ---- readers ---- */

/* A segment's curve by its protocol name; linear for none or a name this client does not know. */
static layoutd_animation_curve curve_of(const char *name)
{
    for (int c = LAYOUTD_CURVE_LINEAR; c <= LAYOUTD_CURVE_EASE_IN_OUT; c++)
        if (name && !strcmp(name, layoutd_curve_name((layoutd_animation_curve)c))) return (layoutd_animation_curve)c;
    return LAYOUTD_CURVE_LINEAR;
}

static double num(const ld_json *o, const char *k) { return layoutd_json_number(layoutd_json_get(o, k), 0); }
static const char *str(ld_arena *a, const ld_json *o, const char *k)
{
    const ld_json *v = layoutd_json_get(o, k);
    if (!v || v->type != LD_JSON_STRING) return NULL;
    return ld_arena_strndup(a, v->str, v->len);
}
static layoutd_point point(const ld_json *v) { return (layoutd_point){num(v, "x"), num(v, "y")}; }
static layoutd_size size(const ld_json *v) { return (layoutd_size){num(v, "width"), num(v, "height")}; }
static layoutd_rect rect(const ld_json *v) { return (layoutd_rect){num(v, "x"), num(v, "y"), num(v, "width"), num(v, "height")}; }

static layoutd_ids ids(ld_arena *a, const ld_json *v)
{
    layoutd_ids r = {0, NULL};
    if (!v || v->type != LD_JSON_ARRAY || !v->count) return r;
    const char **list = ld_arena_alloc(a, v->count * sizeof(char *));
    if (!list) return r;
    for (size_t i = 0; i < v->count; i++)
        list[i] = v->items[i].type == LD_JSON_STRING ? ld_arena_strndup(a, v->items[i].str, v->items[i].len) : "";
    r.count = v->count;
    r.ids = list;
    return r;
}

int ld_parse_attributes(ld_arena *a, const ld_json *v, layoutd_attributes *out)
{
    memset(out, 0, sizeof *out);
    if (!v || v->type != LD_JSON_OBJECT) return -1;
    out->id = str(a, v, "id");
    out->kind = kind_of(layoutd_json_string(layoutd_json_get(v, "kind")));
    out->section = ld_int(num(v, "section"), 0);
    const ld_json *item = layoutd_json_get(v, "item");
    out->item = item ? ld_int(layoutd_json_number(item, -1), -1) : -1;
    out->frame = rect(layoutd_json_get(v, "frame"));
    out->z_index = ld_int(num(v, "zIndex"), 0);
    out->alpha = layoutd_json_number(layoutd_json_get(v, "alpha"), 1);
    out->hidden = layoutd_json_bool(layoutd_json_get(v, "hidden"), 0);
    const ld_json *t = layoutd_json_get(v, "transform");
    out->transform = (layoutd_transform){1, 0, 0, 1, 0, 0};
    if (t && t->type == LD_JSON_OBJECT) {
        out->has_transform = true;
        out->transform = (layoutd_transform){num(t, "a"), num(t, "b"), num(t, "c"), num(t, "d"), num(t, "tx"), num(t, "ty")};
    }
    const ld_json *e = layoutd_json_get(v, "effects");
    if (e && e->type == LD_JSON_OBJECT && e->count) {
        layoutd_effect *list = ld_arena_alloc(a, e->count * sizeof *list);
        if (!list) return -1;
        for (size_t i = 0; i < e->count; i++) {
            list[i].name = ld_arena_strndup(a, e->items[i].key, e->items[i].key_len);
            list[i].value = layoutd_json_number(&e->items[i], 0);
        }
        out->effect_count = e->count;
        out->effects = list;
    }
    return out->id ? 0 : -1;
}

static int attr_list(ld_arena *a, const ld_json *v, size_t *count, const layoutd_attributes **out)
{
    *count = 0;
    *out = NULL;
    if (!v) return 0;
    if (v->type != LD_JSON_ARRAY) return -1;
    if (!v->count) return 0;
    layoutd_attributes *list = ld_arena_alloc(a, v->count * sizeof *list);
    if (!list) return -1;
    for (size_t i = 0; i < v->count; i++)
        if (ld_parse_attributes(a, &v->items[i], &list[i])) return -1;
    *count = v->count;
    *out = list;
    return 0;
}


int ld_parse_snapshot(ld_arena *a, const ld_json *v, layoutd_snapshot *out)
{
    if (!v || v->type != LD_JSON_OBJECT) return -1;
    out->json = ld_json_copy(a, v);
    if (!out->json) return -1;
    v = out->json;
    out->view = str(a, v, "view");
    out->strategy = str(a, v, "strategy");
    out->params = layoutd_json_get(v, "params");
    out->epoch = ld_int(num(v, "epoch"), 0);
    const ld_json *vp = layoutd_json_get(v, "viewport"), *ci = layoutd_json_get(vp, "contentInsets");
    out->viewport.width = num(vp, "width");
    out->viewport.height = num(vp, "height");
    out->viewport.offset = point(layoutd_json_get(vp, "offset"));
    out->viewport.content_insets = (layoutd_insets){num(ci, "top"), num(ci, "left"), num(ci, "bottom"), num(ci, "right")};
    out->window_margin = num(v, "windowMargin");
    out->window = rect(layoutd_json_get(v, "window"));
    out->content_size = size(layoutd_json_get(v, "contentSize"));
    out->section_count = ld_int(num(v, "sectionCount"), 0);
    out->item_count = ld_int(num(v, "itemCount"), 0);
    if (attr_list(a, layoutd_json_get(v, "elements"), &out->element_count, &out->elements)) return -1;
    out->window_truncated = layoutd_json_bool(layoutd_json_get(v, "windowTruncated"), 0);
    out->anchor = layoutd_json_get(v, "anchor");
    out->scroll_target = layoutd_json_get(v, "scrollTarget");
    const char *dir = layoutd_json_string(layoutd_json_get(v, "layoutDirection"));
    out->rtl = dir && !strcmp(dir, "rtl");
    return out->view ? 0 : -1;
}

static const layoutd_transition *parse_transition(ld_arena *a, const ld_json *v)
{
    if (!v || v->type != LD_JSON_OBJECT) return NULL;
    layoutd_transition *t = ld_arena_alloc(a, sizeof *t);
    if (!t) return NULL;
    t->duration = num(v, "duration");
    const ld_json *segs = layoutd_json_get(v, "segments");
    if (segs && segs->type == LD_JSON_ARRAY && segs->count) {
        layoutd_segment *list = ld_arena_alloc(a, segs->count * sizeof *list);
        if (!list) return NULL;
        for (size_t i = 0; i < segs->count; i++) {
            const ld_json *s = &segs->items[i];
            list[i].kind = kind_of(layoutd_json_string(layoutd_json_get(s, "kind")));
            list[i].id = str(a, s, "id");
            ld_parse_attributes(a, layoutd_json_get(s, "from"), &list[i].from);
            ld_parse_attributes(a, layoutd_json_get(s, "to"), &list[i].to);
            list[i].delay = num(s, "delay");
            list[i].duration = num(s, "duration");
            list[i].curve = curve_of(layoutd_json_string(layoutd_json_get(s, "curve")));
        }
        t->segment_count = segs->count;
        t->segments = list;
    }
    return t;
}

int ld_parse_invalidation(ld_arena *a, const ld_json *v, layoutd_invalidation *out)
{
    if (!v || v->type != LD_JSON_OBJECT) return -1;
    out->json = ld_json_copy(a, v);
    if (!out->json) return -1;
    v = out->json;
    out->view = str(a, v, "view");
    out->epoch = ld_int(num(v, "epoch"), 0);
    out->content_size = size(layoutd_json_get(v, "contentSize"));
    out->content_offset = point(layoutd_json_get(v, "contentOffset"));
    const ld_json *ctx = layoutd_json_get(v, "context");
    out->context.everything = layoutd_json_bool(layoutd_json_get(ctx, "everything"), 0);
    out->context.data_source_counts = layoutd_json_bool(layoutd_json_get(ctx, "dataSourceCounts"), 0);
    layoutd_ids inv = ids(a, layoutd_json_get(ctx, "invalidated"));
    out->context.invalidated_count = inv.count;
    out->context.invalidated = inv.ids;
    out->context.content_size_adjustment = size(layoutd_json_get(ctx, "contentSizeAdjustment"));
    out->context.content_offset_adjustment = point(layoutd_json_get(ctx, "contentOffsetAdjustment"));
    out->window = rect(layoutd_json_get(v, "window"));
    if (attr_list(a, layoutd_json_get(v, "entered"), &out->entered_count, &out->entered)) return -1;
    if (attr_list(a, layoutd_json_get(v, "changed"), &out->changed_count, &out->changed)) return -1;
    const ld_json *left = layoutd_json_get(v, "left");
    if (left && left->type == LD_JSON_ARRAY && left->count) {
        layoutd_key *keys = ld_arena_alloc(a, left->count * sizeof *keys);
        if (!keys) return -1;
        for (size_t i = 0; i < left->count; i++) {
            keys[i].kind = kind_of(layoutd_json_string(layoutd_json_get(&left->items[i], "kind")));
            keys[i].id = str(a, &left->items[i], "id");
            if (!keys[i].id) return -1;
        }
        out->left_count = left->count;
        out->left = keys;
    }
    out->window_truncated = layoutd_json_bool(layoutd_json_get(v, "windowTruncated"), 0);
    out->anchor = str(a, v, "anchor");
    out->anchor_policy = str(a, v, "anchorPolicy");
    const ld_json *tco = layoutd_json_get(v, "targetContentOffset");
    if (tco) { out->has_target_content_offset = true; out->target_content_offset = point(tco); }
    const ld_json *ch = layoutd_json_get(v, "changes");
    if (ch) {
        out->has_changes = true;
        out->changes.inserted_items = ids(a, layoutd_json_get(ch, "insertedItems"));
        out->changes.deleted_items = ids(a, layoutd_json_get(ch, "deletedItems"));
        out->changes.moved_items = ids(a, layoutd_json_get(ch, "movedItems"));
        out->changes.reloaded_items = ids(a, layoutd_json_get(ch, "reloadedItems"));
        out->changes.inserted_sections = ids(a, layoutd_json_get(ch, "insertedSections"));
        out->changes.deleted_sections = ids(a, layoutd_json_get(ch, "deletedSections"));
        out->changes.moved_sections = ids(a, layoutd_json_get(ch, "movedSections"));
        out->changes.reloaded_sections = ids(a, layoutd_json_get(ch, "reloadedSections"));
    }
    out->transition = parse_transition(a, layoutd_json_get(v, "transition"));
    const ld_json *pf = layoutd_json_get(v, "prefetch"), *nm = layoutd_json_get(v, "needsMeasure");
    out->has_prefetch = pf != NULL;
    out->prefetch = ids(a, pf);
    out->has_needs_measure = nm != NULL;
    out->needs_measure = ids(a, nm);
    out->dry_run = layoutd_json_bool(layoutd_json_get(v, "dryRun"), 0);
    return out->view ? 0 : -1;
}

int layoutd_invalidation_from_json(const layoutd_json *v, layoutd_invalidation *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena_ = ld_arena_new();
    if (!out->arena_ || ld_parse_invalidation(out->arena_, v, out)) {
        ld_arena_free(out->arena_);
        memset(out, 0, sizeof *out);
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "not an invalidation object");
        return -1;
    }
    return 0;
}

int layoutd_snapshot_from_json(const layoutd_json *v, layoutd_snapshot *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena_ = ld_arena_new();
    if (!out->arena_ || ld_parse_snapshot(out->arena_, v, out)) {
        ld_arena_free(out->arena_);
        memset(out, 0, sizeof *out);
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "not a snapshot object");
        return -1;
    }
    return 0;
}

void layoutd_invalidation_free(layoutd_invalidation *inv) { if (inv) { ld_arena_free(inv->arena_); memset(inv, 0, sizeof *inv); } }
void layoutd_snapshot_free(layoutd_snapshot *s) { if (s) { ld_arena_free(s->arena_); memset(s, 0, sizeof *s); } }
void layoutd_result_free(layoutd_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_hello_free(layoutd_hello_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_status_free(layoutd_status *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_strategy_list_free(layoutd_strategy_list *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_strings_free(layoutd_strings *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_query_result_free(layoutd_query_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_element_result_free(layoutd_element_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }

/* ---- writers ---- */

static void w_size(ld_buf *b, layoutd_size s)
{
    ld_buf_puts(b, "{\"width\":");
    ld_buf_number(b, s.width);
    ld_buf_puts(b, ",\"height\":");
    ld_buf_number(b, s.height);
    ld_buf_puts(b, "}");
}

static void w_point(ld_buf *b, layoutd_point p)
{
    ld_buf_puts(b, "{\"x\":");
    ld_buf_number(b, p.x);
    ld_buf_puts(b, ",\"y\":");
    ld_buf_number(b, p.y);
    ld_buf_puts(b, "}");
}

static void w_key(ld_buf *b, const char *k)
{
    ld_buf_puts(b, ",");
    ld_buf_string(b, k);
    ld_buf_puts(b, ":");
}

static void w_items(ld_buf *b, size_t n, const layoutd_item *items)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_puts(b, "{\"id\":");
        ld_buf_string(b, items[i].id);
        if (items[i].has_size) { w_key(b, "size"); w_size(b, items[i].size); }
        if (items[i].has_estimated_size) { w_key(b, "estimatedSize"); w_size(b, items[i].estimated_size); }
        if (items[i].has_selected_size) { w_key(b, "selectedSize"); w_size(b, items[i].selected_size); }
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "]");
}

static void w_sections(ld_buf *b, size_t n, const layoutd_section *s)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_puts(b, "{\"id\":");
        ld_buf_string(b, s[i].id);
        w_key(b, "items");
        w_items(b, s[i].item_count, s[i].items);
        if (s[i].has_header_size) { w_key(b, "headerSize"); w_size(b, s[i].header_size); }
        if (s[i].has_footer_size) { w_key(b, "footerSize"); w_size(b, s[i].footer_size); }
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "]");
}

static void w_strings(ld_buf *b, size_t n, const char *const *list)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_string(b, list[i]);
    }
    ld_buf_puts(b, "]");
}

static void w_anchor(ld_buf *b, const layoutd_anchor *a)
{
    if (a->policy) { ld_buf_string(b, a->policy); return; }
    ld_buf_puts(b, "{\"id\":");
    ld_buf_string(b, a->id);
    if (a->kind) { w_key(b, "kind"); ld_buf_string(b, a->kind); }
    if (a->edge) { w_key(b, "edge"); ld_buf_string(b, a->edge); }
    if (a->has_offset) { w_key(b, "offset"); ld_buf_number(b, a->offset); }
    ld_buf_puts(b, "}");
}

static void w_begin(ld_buf *b, const char *view)
{
    ld_buf_puts(b, "{\"view\":");
    ld_buf_string(b, view);
}

static void w_opts(ld_buf *b, const layoutd_mutation_options *o)
{
    if (!o) return;
    if (o->animated) ld_buf_puts(b, ",\"animated\":true");
    if (o->has_if_epoch) ld_buf_printf(b, ",\"ifEpoch\":%lld", (long long)o->if_epoch);
    if (o->dry_run) ld_buf_puts(b, ",\"dryRun\":true");
    if (o->anchor) { w_key(b, "anchor"); w_anchor(b, o->anchor); }
}

void ld_write_view_spec(ld_buf *b, const layoutd_view_spec *s)
{
    w_begin(b, s->view);
    w_key(b, "strategy");
    ld_buf_string(b, s->strategy);
    if (s->params_json) { w_key(b, "params"); ld_buf_puts(b, s->params_json); }
    ld_buf_puts(b, ",\"viewport\":{\"width\":");
    ld_buf_number(b, s->viewport.width);
    ld_buf_puts(b, ",\"height\":");
    ld_buf_number(b, s->viewport.height);
    if (s->viewport.has_offset) { w_key(b, "offset"); w_point(b, s->viewport.offset); }
    if (s->viewport.has_content_insets) {
        const layoutd_insets *i = &s->viewport.content_insets;
        ld_buf_puts(b, ",\"contentInsets\":{\"top\":");
        ld_buf_number(b, i->top);
        ld_buf_puts(b, ",\"left\":");
        ld_buf_number(b, i->left);
        ld_buf_puts(b, ",\"bottom\":");
        ld_buf_number(b, i->bottom);
        ld_buf_puts(b, ",\"right\":");
        ld_buf_number(b, i->right);
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "}");
    if (s->window_margin != 0) { w_key(b, "windowMargin"); ld_buf_number(b, s->window_margin); }
    if (s->section_count) { w_key(b, "sections"); w_sections(b, s->section_count, s->sections); }
    if (s->layout_direction) { w_key(b, "layoutDirection"); ld_buf_string(b, s->layout_direction); }
    if (s->anchor) { w_key(b, "anchor"); w_anchor(b, s->anchor); }
    ld_buf_puts(b, "}");
}

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

/* Moves a result tree into `*arena` ownership: the tree's own arena becomes the result's. */
static ld_arena *take(ld_json *r) { ld_arena *a = r->arena; return a; }

static int mutation(layoutd_client *c, const char *method, ld_buf *b, const layoutd_mutation_options *o,
                    layoutd_invalidation *out, layoutd_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    w_opts(b, o);
    ld_buf_puts(b, "}");
    ld_json *r = call_buf(c, method, b, err);
    if (!r) return -1;
    int rc = 0;
    if (out) rc = layoutd_invalidation_from_json(r, out, err);
    layoutd_json_free(r);
    return rc;
}

int layoutd_hello(layoutd_client *c, layoutd_hello_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "daemon.hello", "{\"protocol\":[1]}", err);
    if (!r) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(r);
    out->json = r;
    out->protocol = ld_int(num(r, "protocol"), 0);
    out->server = layoutd_json_string(layoutd_json_get(r, "server"));
    const ld_json *l = layoutd_json_get(r, "limits");
    out->maximum_line_length = ld_int(num(l, "maximumLineLength"), 0);
    out->maximum_views = ld_int(num(l, "maximumViews"), 0);
    out->maximum_items_per_view = ld_int(num(l, "maximumItemsPerView"), 0);
    out->maximum_total_items = ld_int(num(l, "maximumTotalItems"), 0);
    out->maximum_batch_size = ld_int(num(l, "maximumBatchSize"), 0);
    out->maximum_window_elements = ld_int(num(l, "maximumWindowElements"), 0);
    return 0;
}

int layoutd_status_get(layoutd_client *c, layoutd_status *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "daemon.status", NULL, err);
    if (!r) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(r);
    out->json = r;
    out->views = ld_int(num(r, "views"), 0);
    out->items = ld_int(num(r, "items"), 0);
    out->subscriptions = ld_int(num(r, "subscriptions"), 0);
    out->requests = ld_int(num(r, "requests"), 0);
    out->errors = ld_int(num(r, "errors"), 0);
    out->generation = ld_int(num(r, "generation"), 0);
    out->uptime = num(r, "uptime");
    const ld_json *cn = layoutd_json_get(r, "connections");
    out->connections_open = ld_int(num(cn, "open"), 0);
    out->connections_accepted = ld_int(num(cn, "accepted"), 0);
    return 0;
}

int layoutd_describe(layoutd_client *c, layoutd_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "daemon.describe", NULL, err);
    if (!r) return -1;
    out->arena_ = take(r);
    out->json = r;
    return 0;
}

int layoutd_reload(layoutd_client *c, layoutd_result *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "daemon.reload", NULL, err);
    if (!r) return -1;
    out->arena_ = take(r);
    out->json = r;
    return 0;
}

int layoutd_strategies(layoutd_client *c, layoutd_strategy_list *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "strategy.list", NULL, err);
    if (!r) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(r);
    out->json = r;
    const ld_json *list = layoutd_json_get(r, "strategies");
    size_t n = list && list->type == LD_JSON_ARRAY ? list->count : 0;
    const char **names = n ? ld_arena_alloc(out->arena_, n * sizeof(char *)) : NULL;
    for (size_t i = 0; names && i < n; i++) {
        const char *s = layoutd_json_string(layoutd_json_get(&list->items[i], "name"));
        names[i] = s ? s : "";
    }
    out->count = names ? n : 0;
    out->names = names;
    return 0;
}

int layoutd_sync(layoutd_client *c, layoutd_error *err)
{
    ld_json *r = ld_call(c, "daemon.sync", NULL, err);
    layoutd_json_free(r);
    return r ? 0 : -1;
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

int layoutd_view_create(layoutd_client *c, const layoutd_view_spec *spec, layoutd_snapshot *out, layoutd_error *err)
{
    if (!spec || !spec->view || !spec->strategy) {
        ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "view and strategy are required");
        return -1;
    }
    ld_buf b = {0};
    ld_write_view_spec(&b, spec);
    char *name = strdup(spec->view);
    int rc = snapshot_call(c, "view.create", &b, out, err);
    if (rc == 0 && name) layoutd_client_track_view(c, name);
    free(name);
    return rc;
}

int layoutd_view_get(layoutd_client *c, const char *view, layoutd_snapshot *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    ld_buf_puts(&b, "}");
    return snapshot_call(c, "view.get", &b, out, err);
}

int layoutd_view_delete(layoutd_client *c, const char *view, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, "view.delete", &b, err);
    if (!r) return -1;
    layoutd_json_free(r);
    ld_untrack_view(c, view);
    return 0;
}

int layoutd_view_list(layoutd_client *c, layoutd_strings *out, layoutd_error *err)
{
    ld_json *r = ld_call(c, "view.list", NULL, err);
    if (!r) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(r);
    const ld_json *v = layoutd_json_get(r, "views");
    size_t n = v && v->type == LD_JSON_ARRAY ? v->count : 0;
    const char **list = n ? ld_arena_alloc(out->arena_, n * sizeof(char *)) : NULL;
    for (size_t i = 0; list && i < n; i++) {
        const ld_json *e = &v->items[i];
        const char *s = e->type == LD_JSON_STRING ? e->str : layoutd_json_string(layoutd_json_get(e, "view"));
        list[i] = s ? s : "";
    }
    out->count = list ? n : 0;
    out->items = list;
    return 0;
}

int layoutd_view_query(layoutd_client *c, const char *view, layoutd_rect r, int64_t limit, const layoutd_key *after,
                       layoutd_query_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    ld_buf_puts(&b, ",\"rect\":{\"x\":");
    ld_buf_number(&b, r.x);
    ld_buf_puts(&b, ",\"y\":");
    ld_buf_number(&b, r.y);
    ld_buf_puts(&b, ",\"width\":");
    ld_buf_number(&b, r.width);
    ld_buf_puts(&b, ",\"height\":");
    ld_buf_number(&b, r.height);
    ld_buf_puts(&b, "}");
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
    ld_json *res = call_buf(c, "view.query", &b, err);
    if (!res) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(res);
    out->json = res;
    if (attr_list(out->arena_, layoutd_json_get(res, "elements"), &out->count, &out->elements)) {
        layoutd_query_result_free(out);
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "bad view.query result");
        return -1;
    }
    out->selected = ids(out->arena_, layoutd_json_get(res, "selected"));
    const ld_json *next = layoutd_json_get(res, "next");
    if (next && next->type == LD_JSON_OBJECT) {
        out->has_next = true;
        out->next.kind = kind_of(layoutd_json_string(layoutd_json_get(next, "kind")));
        out->next.id = layoutd_json_string(layoutd_json_get(next, "id"));
    }
    return 0;
}

static int element_call(layoutd_client *c, const char *method, ld_buf *b, const char *field, layoutd_element_result *out,
                        layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    ld_json *r = call_buf(c, method, b, err);
    if (!r) return -1;
    memset(out, 0, sizeof *out);
    out->arena_ = take(r);
    out->json = r;
    const ld_json *e = layoutd_json_get(r, field);
    if (e && e->type == LD_JSON_OBJECT) {
        out->found = true;
        ld_parse_attributes(out->arena_, e, &out->attributes);
    }
    return 0;
}

int layoutd_view_item(layoutd_client *c, const char *view, const char *id, layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "id");
    ld_buf_string(&b, id);
    ld_buf_puts(&b, "}");
    return element_call(c, "view.item", &b, "attributes", out, err);
}

int layoutd_view_hit_test(layoutd_client *c, const char *view, layoutd_point p, const char *const *kinds,
                          layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "point");
    w_point(&b, p);
    if (kinds) {
        size_t n = 0;
        while (kinds[n]) n++;
        w_key(&b, "kinds");
        w_strings(&b, n, kinds);
    }
    ld_buf_puts(&b, "}");
    return element_call(c, "view.hitTest", &b, "element", out, err);
}

int layoutd_view_neighbor(layoutd_client *c, const char *view, const char *id, const char *direction,
                          layoutd_element_result *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "id");
    ld_buf_string(&b, id);
    w_key(&b, "direction");
    ld_buf_string(&b, direction);
    ld_buf_puts(&b, "}");
    return element_call(c, "view.neighbor", &b, "element", out, err);
}

int layoutd_view_set_data(layoutd_client *c, const char *view, size_t n, const layoutd_section *sections,
                          const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "sections");
    w_sections(&b, n, sections);
    return mutation(c, "view.setData", &b, o, out, err);
}

int layoutd_view_update(layoutd_client *c, const char *view, size_t n, const layoutd_update *u,
                        const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    ld_buf_puts(&b, ",\"updates\":[");
    for (size_t i = 0; i < n; i++) {
        const char *op = u[i].op ? u[i].op : "";
        if (i) ld_buf_puts(&b, ",");
        ld_buf_puts(&b, "{\"op\":");
        ld_buf_string(&b, op);
        if (!strcmp(op, "insertItems")) {
            w_key(&b, "section"); ld_buf_string(&b, u[i].section);
            ld_buf_printf(&b, ",\"at\":%lld", (long long)u[i].at);
            w_key(&b, "items"); w_items(&b, u[i].item_count, u[i].items);
        } else if (!strcmp(op, "deleteItems") || !strcmp(op, "deleteSections")) {
            w_key(&b, "ids"); w_strings(&b, u[i].id_count, u[i].ids);
        } else if (!strcmp(op, "moveItem")) {
            w_key(&b, "id"); ld_buf_string(&b, u[i].id);
            w_key(&b, "section"); ld_buf_string(&b, u[i].section);
            ld_buf_printf(&b, ",\"at\":%lld", (long long)u[i].at);
        } else if (!strcmp(op, "reloadItems")) {
            w_key(&b, "items"); w_items(&b, u[i].item_count, u[i].items);
        } else if (!strcmp(op, "insertSections")) {
            ld_buf_printf(&b, ",\"at\":%lld", (long long)u[i].at);
            w_key(&b, "sections"); w_sections(&b, u[i].section_count, u[i].sections);
        } else if (!strcmp(op, "moveSection")) {
            w_key(&b, "id"); ld_buf_string(&b, u[i].id);
            ld_buf_printf(&b, ",\"at\":%lld", (long long)u[i].at);
        } else if (!strcmp(op, "reloadSections")) {
            w_key(&b, "sections"); w_sections(&b, u[i].section_count, u[i].sections);
        }
        ld_buf_puts(&b, "}");
    }
    ld_buf_puts(&b, "]");
    return mutation(c, "view.update", &b, o, out, err);
}

int layoutd_view_measure(layoutd_client *c, const char *view, size_t n, const layoutd_measurement *m,
                         const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    ld_buf_puts(&b, ",\"sizes\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(&b, ",");
        ld_buf_puts(&b, "{\"id\":");
        ld_buf_string(&b, m[i].id);
        w_key(&b, "size");
        w_size(&b, m[i].size);
        ld_buf_puts(&b, "}");
    }
    ld_buf_puts(&b, "]");
    return mutation(c, "view.measure", &b, o, out, err);
}

int layoutd_view_select(layoutd_client *c, const char *view, size_t n, const char *const *list, const char *mode,
                        const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "ids");
    w_strings(&b, n, list);
    if (mode) { w_key(&b, "mode"); ld_buf_string(&b, mode); }
    return mutation(c, "view.select", &b, o, out, err);
}

int layoutd_view_scroll(layoutd_client *c, const char *view, layoutd_point offset, const layoutd_point *velocity,
                        double horizon, const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "offset");
    w_point(&b, offset);
    if (velocity) { w_key(&b, "velocity"); w_point(&b, *velocity); }
    if (horizon > 0) { w_key(&b, "horizon"); ld_buf_number(&b, horizon); }
    return mutation(c, "view.scroll", &b, o, out, err);
}

int layoutd_view_scroll_end(layoutd_client *c, const char *view, layoutd_point proposed, const layoutd_point *velocity,
                            const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "proposed");
    w_point(&b, proposed);
    if (velocity) { w_key(&b, "velocity"); w_point(&b, *velocity); }
    return mutation(c, "view.scrollEnd", &b, o, out, err);
}

int layoutd_view_scroll_to(layoutd_client *c, const char *view, const char *id, const char *kind, const char *align,
                           bool has_offset, double offset, const layoutd_mutation_options *o, layoutd_invalidation *out,
                           layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "id");
    ld_buf_string(&b, id);
    if (kind) { w_key(&b, "kind"); ld_buf_string(&b, kind); }
    if (align) { w_key(&b, "align"); ld_buf_string(&b, align); }
    if (has_offset) { w_key(&b, "offset"); ld_buf_number(&b, offset); }
    return mutation(c, "view.scrollTo", &b, o, out, err);
}

int layoutd_view_resize(layoutd_client *c, const char *view, layoutd_size s, const layoutd_mutation_options *o,
                        layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "size");
    w_size(&b, s);
    return mutation(c, "view.resize", &b, o, out, err);
}

int layoutd_view_configure(layoutd_client *c, const char *view, const char *params_json, const layoutd_mutation_options *o,
                           layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "params");
    ld_buf_puts(&b, params_json ? params_json : "{}");
    return mutation(c, "view.configure", &b, o, out, err);
}

int layoutd_view_set_strategy(layoutd_client *c, const char *view, const char *strategy, const char *params_json,
                              const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "strategy");
    ld_buf_string(&b, strategy);
    if (params_json) { w_key(&b, "params"); ld_buf_puts(&b, params_json); }
    return mutation(c, "view.setStrategy", &b, o, out, err);
}

int layoutd_view_set_window_margin(layoutd_client *c, const char *view, double margin, const layoutd_mutation_options *o,
                                   layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "margin");
    ld_buf_number(&b, margin);
    return mutation(c, "view.setWindowMargin", &b, o, out, err);
}

int layoutd_view_set_anchor(layoutd_client *c, const char *view, const layoutd_anchor *anchor,
                            const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    if (!anchor) { ld_set_error(err, LAYOUTD_ERR_ARGUMENT, "InvalidArgument", "anchor is required"); return -1; }
    layoutd_mutation_options copy = o ? *o : (layoutd_mutation_options){0};
    copy.anchor = anchor;
    ld_buf b = {0};
    w_begin(&b, view);
    return mutation(c, "view.setAnchor", &b, &copy, out, err);
}

int layoutd_view_set_layout_direction(layoutd_client *c, const char *view, const char *direction,
                                      const layoutd_mutation_options *o, layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    w_key(&b, "layoutDirection");
    ld_buf_string(&b, direction);
    return mutation(c, "view.setLayoutDirection", &b, o, out, err);
}

int layoutd_stage_begin(layoutd_client *c, const char *view, const int64_t *if_epoch, char *upload_id, size_t size_,
                        layoutd_error *err)
{
    ld_buf b = {0};
    w_begin(&b, view);
    if (if_epoch) ld_buf_printf(&b, ",\"ifEpoch\":%lld", (long long)*if_epoch);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, "view.stage.begin", &b, err);
    if (!r) return -1;
    const char *u = layoutd_json_string(layoutd_json_get(r, "upload"));
    int rc = 0;
    if (!u || strlen(u) >= size_) {
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "no upload id (or the buffer is too small)");
        rc = -1;
    } else {
        strcpy(upload_id, u);
    }
    layoutd_json_free(r);
    return rc;
}

int layoutd_stage_append(layoutd_client *c, const char *upload, size_t n, const layoutd_section *sections,
                         int64_t *items_so_far, layoutd_error *err)
{
    ld_buf b = {0};
    ld_buf_puts(&b, "{\"upload\":");
    ld_buf_string(&b, upload);
    w_key(&b, "sections");
    w_sections(&b, n, sections);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, "view.stage.append", &b, err);
    if (!r) return -1;
    if (items_so_far) *items_so_far = ld_int(num(r, "items"), 0);
    layoutd_json_free(r);
    return 0;
}

int layoutd_stage_commit(layoutd_client *c, const char *upload, const layoutd_mutation_options *o,
                         layoutd_invalidation *out, layoutd_error *err)
{
    ld_buf b = {0};
    ld_buf_puts(&b, "{\"upload\":");
    ld_buf_string(&b, upload);
    return mutation(c, "view.stage.commit", &b, o, out, err);
}

int layoutd_stage_abort(layoutd_client *c, const char *upload, layoutd_error *err)
{
    ld_buf b = {0};
    ld_buf_puts(&b, "{\"upload\":");
    ld_buf_string(&b, upload);
    ld_buf_puts(&b, "}");
    ld_json *r = call_buf(c, "view.stage.abort", &b, err);
    layoutd_json_free(r);
    return r ? 0 : -1;
}
