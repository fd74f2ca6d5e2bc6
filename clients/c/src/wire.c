/* Protocol objects both ways: element kinds and animation curves, the objects and typed results
   read from the daemon's JSON (attributes, snapshots, invalidations, transitions, interactive
   transitions, errors), the params of requests written as JSON, and the _from_json and _free
   functions of the public structs. No I/O: client.c and typed.c move the bytes. */
#include "internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

void ld_set_error(layoutd_error *err, int code, const char *name, const char *fmt, ...)
{
    if (!err) return;
    err->code = code;
    snprintf(err->name, sizeof err->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->data[0] = 0;
}

void ld_error_from_json(layoutd_error *err, const ld_json *e)
{
    if (!err) return;
    memset(err, 0, sizeof *err);
    const ld_json *code = layoutd_json_get(e, "code"), *name = layoutd_json_get(e, "name"),
                  *msg = layoutd_json_get(e, "message"), *data = layoutd_json_get(e, "data");
    int64_t number = ld_int(layoutd_json_number(code, -32000), -32000);
    err->code = number > -2147483647 && number < 2147483647 ? (int)number : -32000;
    snprintf(err->name, sizeof err->name, "%s", layoutd_json_string(name) ? layoutd_json_string(name) : "UnknownError");
    snprintf(err->message, sizeof err->message, "%s", layoutd_json_string(msg) ? layoutd_json_string(msg) : "");
    if (data && data->text_len < sizeof err->data) {
        memcpy(err->data, data->text, data->text_len);
        err->data[data->text_len] = 0;
    }
}

/* ---- kinds ---- */

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

/* ---- curves ---- */

/* Without libm: the library needs nothing beyond libc. */
static double absolute(double v) { return v < 0 ? -v : v; }

static double bezier(double t, double p1, double p2)
{
    double u = 1 - t;
    return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t;
}

static double bezier_slope(double t, double p1, double p2)
{
    double u = 1 - t;
    return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2);
}

const char *layoutd_curve_name(layoutd_animation_curve curve)
{
    switch (curve) {
    case LAYOUTD_CURVE_EASE_IN: return "easeIn";
    case LAYOUTD_CURVE_EASE_OUT: return "easeOut";
    case LAYOUTD_CURVE_EASE_IN_OUT: return "easeInOut";
    default: return "linear";
    }
}

double layoutd_curve_progress(layoutd_animation_curve curve, double x)
{
    static const double points[4][4] = {{0, 0, 1, 1}, {0.42, 0, 1, 1}, {0, 0, 0.58, 1}, {0.42, 0, 0.58, 1}};
    if (!(x > 0)) return 0;  /* NaN too */
    if (x >= 1) return 1;
    if (curve < LAYOUTD_CURVE_EASE_IN || curve > LAYOUTD_CURVE_EASE_IN_OUT) return x;
    const double *c = points[curve];
    /* Solve x(t) = x by Newton's method, falling back to bisection (x(t) is monotonic here). */
    double t = x;
    for (int i = 0; i < 8; i++) {
        double error = bezier(t, c[0], c[2]) - x;
        if (absolute(error) < 1e-12) return bezier(t, c[1], c[3]);
        double d = bezier_slope(t, c[0], c[2]);
        if (absolute(d) < 1e-9) break;
        t -= error / d;
    }
    double low = 0, high = 1;
    t = x;
    for (int i = 0; i < 60; i++) {
        double value = bezier(t, c[0], c[2]);
        if (absolute(value - x) < 1e-12) break;
        if (value < x) low = t; else high = t;
        t = (low + high) / 2;
    }
    return bezier(t, c[1], c[3]);
}

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

/* Element keys ({"kind","id"}): an invalidation's left, an interactive transition's. Anything
   but an array of keys with ids is refused; absent is empty. */
static int key_list(ld_arena *a, const ld_json *v, size_t *count, const layoutd_key **out)
{
    *count = 0;
    *out = NULL;
    if (!v) return 0;
    if (v->type != LD_JSON_ARRAY) return -1;
    if (!v->count) return 0;
    layoutd_key *keys = ld_arena_alloc(a, v->count * sizeof *keys);
    if (!keys) return -1;
    for (size_t i = 0; i < v->count; i++) {
        keys[i].kind = kind_of(layoutd_json_string(layoutd_json_get(&v->items[i], "kind")));
        keys[i].id = str(a, &v->items[i], "id");
        if (!keys[i].id) return -1;
    }
    *count = v->count;
    *out = keys;
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
    if (key_list(a, layoutd_json_get(v, "left"), &out->left_count, &out->left)) return -1;
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

/* ---- what an invalidation says beyond its struct: an orthogonal section, a move ---- */

int layoutd_invalidation_section(const layoutd_invalidation *inv, layoutd_section_scroll *out)
{
    memset(out, 0, sizeof *out);
    const ld_json *s = inv ? layoutd_json_get(inv->json, "section") : NULL;
    if (!s || s->type != LD_JSON_OBJECT) return 0;
    out->id = layoutd_json_string(layoutd_json_get(s, "id"));
    out->offset = num(s, "offset");
    out->maximum_offset = num(s, "maximumOffset");
    out->behavior = layoutd_json_string(layoutd_json_get(s, "behavior"));
    if (out->id) return 1;
    memset(out, 0, sizeof *out);
    return 0;
}

int layoutd_invalidation_move(const layoutd_invalidation *inv, layoutd_move_state *out)
{
    memset(out, 0, sizeof *out);
    const ld_json *v = inv ? inv->json : NULL;
    out->id = layoutd_json_string(layoutd_json_get(v, "moving"));
    if (out->id) {
        out->moving = true;
        const ld_json *target = layoutd_json_get(v, "target");
        out->target_section = ld_int(num(target, "section"), 0);
        out->target_item = ld_int(num(target, "item"), 0);
        out->auto_scroll = point(layoutd_json_get(v, "autoScroll"));
        if (inv->arena_) out->moving_items = ids(inv->arena_, layoutd_json_get(v, "movingItems"));
    }
    const ld_json *ended = layoutd_json_get(v, "moveEnded");
    out->ended_id = layoutd_json_string(layoutd_json_get(ended, "id"));
    out->end_reason = layoutd_json_string(layoutd_json_get(ended, "reason"));
    out->ended = out->ended_id != NULL;
    return out->moving || out->ended;
}

/* ---- interactive transitions (mutations.md "Interactive transitions") ---- */

static int pair_list(ld_arena *a, const ld_json *v, size_t *count, const layoutd_transition_pair **out)
{
    *count = 0;
    *out = NULL;
    if (!v) return 0;
    if (v->type != LD_JSON_ARRAY) return -1;
    if (!v->count) return 0;
    layoutd_transition_pair *list = ld_arena_alloc(a, v->count * sizeof *list);
    if (!list) return -1;
    for (size_t i = 0; i < v->count; i++) {
        const ld_json *p = &v->items[i];
        list[i].kind = kind_of(layoutd_json_string(layoutd_json_get(p, "kind")));
        list[i].id = str(a, p, "id");
        if (!list[i].id || ld_parse_attributes(a, layoutd_json_get(p, "from"), &list[i].from) ||
            ld_parse_attributes(a, layoutd_json_get(p, "to"), &list[i].to))
            return -1;
    }
    *count = v->count;
    *out = list;
    return 0;
}

/* The interactiveTransition object (view.beginTransition's result adds view and epoch); v lives
   in a. */
static int parse_interactive_transition(ld_arena *a, const ld_json *v, layoutd_interactive_transition *out)
{
    if (!v || v->type != LD_JSON_OBJECT) return -1;
    out->json = v;
    out->view = layoutd_json_string(layoutd_json_get(v, "view"));
    out->epoch = ld_int(num(v, "epoch"), 0);
    out->strategy = layoutd_json_string(layoutd_json_get(v, "strategy"));
    out->progress = num(v, "progress");
    out->duration = num(v, "duration");
    const ld_json *offset = layoutd_json_get(v, "contentOffset"), *extent = layoutd_json_get(v, "contentSize");
    out->content_offset_from = point(layoutd_json_get(offset, "from"));
    out->content_offset_to = point(layoutd_json_get(offset, "to"));
    out->content_size_from = size(layoutd_json_get(extent, "from"));
    out->content_size_to = size(layoutd_json_get(extent, "to"));
    const ld_json *pairs = layoutd_json_get(v, "pairs");
    if (!pairs || pair_list(a, pairs, &out->pair_count, &out->pairs)) return -1;
    if (key_list(a, layoutd_json_get(v, "left"), &out->left_count, &out->left)) return -1;
    if (attr_list(a, layoutd_json_get(v, "elements"), &out->element_count, &out->elements)) return -1;
    out->anchor = layoutd_json_string(layoutd_json_get(v, "anchor"));
    out->anchor_policy = layoutd_json_string(layoutd_json_get(v, "anchorPolicy"));
    return out->strategy ? 0 : -1;
}

int layoutd_interactive_transition_from_json(const layoutd_json *v, layoutd_interactive_transition *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena_ = ld_arena_new();
    const ld_json *copy = out->arena_ && v && v->type == LD_JSON_OBJECT ? ld_json_copy(out->arena_, v) : NULL;
    if (!copy || parse_interactive_transition(out->arena_, copy, out)) {
        ld_arena_free(out->arena_);
        memset(out, 0, sizeof *out);
        ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "not an interactive transition object");
        return -1;
    }
    return 0;
}

/* ---- the typed methods' results: each takes a result tree and makes its arena the result's ---- */

/* The result tree's arena owns it; the result takes it over. */
static ld_arena *take(ld_json *r) { return r->arena; }

static int bad_result(ld_json *r, const char *method, layoutd_error *err)
{
    layoutd_json_free(r);
    ld_set_error(err, LAYOUTD_ERR_PROTOCOL, "ProtocolError", "bad %s result", method);
    return -1;
}

int ld_read_hello(ld_json *r, layoutd_hello_result *out, layoutd_error *err)
{
    (void)err;
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

int ld_read_status(ld_json *r, layoutd_status *out, layoutd_error *err)
{
    (void)err;
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

int ld_read_result(ld_json *r, layoutd_result *out, layoutd_error *err)
{
    (void)err;
    out->arena_ = take(r);
    out->json = r;
    return 0;
}

int ld_read_strategy_list(ld_json *r, layoutd_strategy_list *out, layoutd_error *err)
{
    (void)err;
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

int ld_read_view_list(ld_json *r, layoutd_strings *out, layoutd_error *err)
{
    (void)err;
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

int ld_read_query_result(ld_json *r, layoutd_query_result *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    if (attr_list(r->arena, layoutd_json_get(r, "elements"), &out->count, &out->elements)) {
        memset(out, 0, sizeof *out);
        return bad_result(r, LAYOUTD_METHOD_VIEW_QUERY, err);
    }
    out->arena_ = take(r);
    out->json = r;
    out->selected = ids(out->arena_, layoutd_json_get(r, "selected"));
    const ld_json *next = layoutd_json_get(r, "next");
    if (next && next->type == LD_JSON_OBJECT) {
        out->has_next = true;
        out->next.kind = kind_of(layoutd_json_string(layoutd_json_get(next, "kind")));
        out->next.id = layoutd_json_string(layoutd_json_get(next, "id"));
    }
    return 0;
}

int ld_read_element_result(ld_json *r, const char *field, layoutd_element_result *out, layoutd_error *err)
{
    (void)err;
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

int ld_read_selection_page(ld_json *r, layoutd_selection_page *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    const ld_json *page = layoutd_json_get(r, "ids");
    if (!page || page->type != LD_JSON_ARRAY) return bad_result(r, LAYOUTD_METHOD_VIEW_SELECTION, err);
    out->arena_ = take(r);
    out->json = r;
    out->ids = ids(out->arena_, page);
    out->total = ld_int(num(r, "count"), 0);
    out->epoch = ld_int(num(r, "epoch"), 0);
    out->next = layoutd_json_string(layoutd_json_get(r, "next"));
    return 0;
}

int ld_read_interactive_transition(ld_json *r, layoutd_interactive_transition *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    if (parse_interactive_transition(r->arena, r, out) || !out->view) {
        memset(out, 0, sizeof *out);
        return bad_result(r, LAYOUTD_METHOD_VIEW_BEGIN_TRANSITION, err);
    }
    out->arena_ = take(r);
    return 0;
}

int ld_read_transition_update(ld_json *r, layoutd_transition_update_result *out, layoutd_error *err)
{
    memset(out, 0, sizeof *out);
    const ld_json *elements = layoutd_json_get(r, "elements");
    out->view = layoutd_json_string(layoutd_json_get(r, "view"));
    if (!out->view || !elements || attr_list(r->arena, elements, &out->element_count, &out->elements)) {
        memset(out, 0, sizeof *out);
        return bad_result(r, LAYOUTD_METHOD_VIEW_UPDATE_TRANSITION, err);
    }
    out->progress = num(r, "progress");
    out->content_offset = point(layoutd_json_get(r, "contentOffset"));
    out->content_size = size(layoutd_json_get(r, "contentSize"));
    out->arena_ = take(r);
    out->json = r;
    return 0;
}

/* ---- freeing: every result owns one arena ---- */

void layoutd_invalidation_free(layoutd_invalidation *inv) { if (inv) { ld_arena_free(inv->arena_); memset(inv, 0, sizeof *inv); } }
void layoutd_snapshot_free(layoutd_snapshot *s) { if (s) { ld_arena_free(s->arena_); memset(s, 0, sizeof *s); } }
void layoutd_result_free(layoutd_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_hello_free(layoutd_hello_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_status_free(layoutd_status *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_strategy_list_free(layoutd_strategy_list *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_strings_free(layoutd_strings *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_query_result_free(layoutd_query_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_element_result_free(layoutd_element_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }
void layoutd_selection_page_free(layoutd_selection_page *p) { if (p) { ld_arena_free(p->arena_); memset(p, 0, sizeof *p); } }
void layoutd_interactive_transition_free(layoutd_interactive_transition *t) { if (t) { ld_arena_free(t->arena_); memset(t, 0, sizeof *t); } }
void layoutd_transition_update_result_free(layoutd_transition_update_result *r) { if (r) { ld_arena_free(r->arena_); memset(r, 0, sizeof *r); } }

/* ---- writing request params ---- */

void ld_write_size(ld_buf *b, layoutd_size s)
{
    ld_buf_puts(b, "{\"width\":");
    ld_buf_number(b, s.width);
    ld_buf_puts(b, ",\"height\":");
    ld_buf_number(b, s.height);
    ld_buf_puts(b, "}");
}

void ld_write_point(ld_buf *b, layoutd_point p)
{
    ld_buf_puts(b, "{\"x\":");
    ld_buf_number(b, p.x);
    ld_buf_puts(b, ",\"y\":");
    ld_buf_number(b, p.y);
    ld_buf_puts(b, "}");
}

void ld_write_key(ld_buf *b, const char *k)
{
    ld_buf_puts(b, ",");
    ld_buf_string(b, k);
    ld_buf_puts(b, ":");
}

void ld_write_items(ld_buf *b, size_t n, const layoutd_item *items)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_puts(b, "{\"id\":");
        ld_buf_string(b, items[i].id);
        if (items[i].has_size) { ld_write_key(b, "size"); ld_write_size(b, items[i].size); }
        if (items[i].has_estimated_size) { ld_write_key(b, "estimatedSize"); ld_write_size(b, items[i].estimated_size); }
        if (items[i].has_selected_size) { ld_write_key(b, "selectedSize"); ld_write_size(b, items[i].selected_size); }
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "]");
}

void ld_write_sections(ld_buf *b, size_t n, const layoutd_section *s)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_puts(b, "{\"id\":");
        ld_buf_string(b, s[i].id);
        ld_write_key(b, "items");
        ld_write_items(b, s[i].item_count, s[i].items);
        if (s[i].has_header_size) { ld_write_key(b, "headerSize"); ld_write_size(b, s[i].header_size); }
        if (s[i].has_footer_size) { ld_write_key(b, "footerSize"); ld_write_size(b, s[i].footer_size); }
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "]");
}

void ld_write_strings(ld_buf *b, size_t n, const char *const *list)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_string(b, list[i]);
    }
    ld_buf_puts(b, "]");
}

void ld_write_anchor(ld_buf *b, const layoutd_anchor *a)
{
    if (a->policy) { ld_buf_string(b, a->policy); return; }
    ld_buf_puts(b, "{\"id\":");
    ld_buf_string(b, a->id);
    if (a->kind) { ld_write_key(b, "kind"); ld_buf_string(b, a->kind); }
    if (a->edge) { ld_write_key(b, "edge"); ld_buf_string(b, a->edge); }
    if (a->has_offset) { ld_write_key(b, "offset"); ld_buf_number(b, a->offset); }
    ld_buf_puts(b, "}");
}

void ld_write_begin(ld_buf *b, const char *view)
{
    ld_buf_puts(b, "{\"view\":");
    ld_buf_string(b, view);
}

void ld_write_options(ld_buf *b, const layoutd_mutation_options *o)
{
    if (!o) return;
    if (o->animated) ld_buf_puts(b, ",\"animated\":true");
    if (o->has_if_epoch) ld_buf_printf(b, ",\"ifEpoch\":%lld", (long long)o->if_epoch);
    if (o->dry_run) ld_buf_puts(b, ",\"dryRun\":true");
    if (o->anchor) { ld_write_key(b, "anchor"); ld_write_anchor(b, o->anchor); }
}

void ld_write_view_spec(ld_buf *b, const layoutd_view_spec *s)
{
    ld_write_begin(b, s->view);
    ld_write_key(b, "strategy");
    ld_buf_string(b, s->strategy);
    if (s->params_json) { ld_write_key(b, "params"); ld_buf_puts(b, s->params_json); }
    ld_buf_puts(b, ",\"viewport\":{\"width\":");
    ld_buf_number(b, s->viewport.width);
    ld_buf_puts(b, ",\"height\":");
    ld_buf_number(b, s->viewport.height);
    if (s->viewport.has_offset) { ld_write_key(b, "offset"); ld_write_point(b, s->viewport.offset); }
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
    if (s->window_margin != 0) { ld_write_key(b, "windowMargin"); ld_buf_number(b, s->window_margin); }
    if (s->section_count) { ld_write_key(b, "sections"); ld_write_sections(b, s->section_count, s->sections); }
    if (s->layout_direction) { ld_write_key(b, "layoutDirection"); ld_buf_string(b, s->layout_direction); }
    if (s->anchor) { ld_write_key(b, "anchor"); ld_write_anchor(b, s->anchor); }
    ld_buf_puts(b, "}");
}

void ld_write_rect(ld_buf *b, layoutd_rect r)
{
    ld_buf_puts(b, "{\"x\":");
    ld_buf_number(b, r.x);
    ld_buf_puts(b, ",\"y\":");
    ld_buf_number(b, r.y);
    ld_buf_puts(b, ",\"width\":");
    ld_buf_number(b, r.width);
    ld_buf_puts(b, ",\"height\":");
    ld_buf_number(b, r.height);
    ld_buf_puts(b, "}");
}

/* One view.update operation (common.json "update"), with the fields its op uses. */
void ld_write_update(ld_buf *b, const layoutd_update *u)
{
    const char *op = u->op ? u->op : "";
    ld_buf_puts(b, "{\"op\":");
    ld_buf_string(b, op);
    if (!strcmp(op, "insertItems")) {
        ld_write_key(b, "section"); ld_buf_string(b, u->section);
        ld_buf_printf(b, ",\"at\":%lld", (long long)u->at);
        ld_write_key(b, "items"); ld_write_items(b, u->item_count, u->items);
    } else if (!strcmp(op, "deleteItems") || !strcmp(op, "deleteSections")) {
        ld_write_key(b, "ids"); ld_write_strings(b, u->id_count, u->ids);
    } else if (!strcmp(op, "moveItem")) {
        ld_write_key(b, "id"); ld_buf_string(b, u->id);
        ld_write_key(b, "section"); ld_buf_string(b, u->section);
        ld_buf_printf(b, ",\"at\":%lld", (long long)u->at);
    } else if (!strcmp(op, "reloadItems")) {
        ld_write_key(b, "items"); ld_write_items(b, u->item_count, u->items);
    } else if (!strcmp(op, "insertSections")) {
        ld_buf_printf(b, ",\"at\":%lld", (long long)u->at);
        ld_write_key(b, "sections"); ld_write_sections(b, u->section_count, u->sections);
    } else if (!strcmp(op, "moveSection")) {
        ld_write_key(b, "id"); ld_buf_string(b, u->id);
        ld_buf_printf(b, ",\"at\":%lld", (long long)u->at);
    } else if (!strcmp(op, "reloadSections")) {
        ld_write_key(b, "sections"); ld_write_sections(b, u->section_count, u->sections);
    }
    ld_buf_puts(b, "}");
}

void ld_write_measurements(ld_buf *b, size_t n, const layoutd_measurement *m)
{
    ld_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ld_buf_puts(b, ",");
        ld_buf_puts(b, "{\"id\":");
        ld_buf_string(b, m[i].id);
        ld_write_key(b, "size");
        ld_write_size(b, m[i].size);
        ld_buf_puts(b, "}");
    }
    ld_buf_puts(b, "]");
}
