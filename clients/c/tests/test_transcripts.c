/* Replays protocol transcripts (protocol/examples, protocol/conformance) through the library's
   raw API, comparing every line the daemon writes as system-tests/e2e/transcripts.py does; every
   result of a snapshot or mutation method is also read through the typed parsers and checked
   against its JSON. */
#include "testutil.h"
#include "internal.h"

#define WILDCARD "<any>"

typedef struct {
    char **lines;
    size_t head, count, cap;
} queue;

static void on_line(layoutd_client *c, const char *line, size_t len, void *user)
{
    (void)c;
    queue *q = user;
    if (q->count == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->lines = realloc(q->lines, q->cap * sizeof(char *));
    }
    q->lines[q->count++] = strndup(line, len);
}

static char *next_line(layoutd_client *c, queue *q, double timeout)
{
    double deadline = t_now() + timeout;
    while (q->head == q->count) {
        if (!layoutd_client_connected(c)) return NULL;
        int left = (int)((deadline - t_now()) * 1000);
        if (left <= 0) return strdup("<timeout>");
        layoutd_client_wait(c, left, NULL);
    }
    return q->lines[q->head++];
}

static void queue_clear(queue *q)
{
    for (size_t i = 0; i < q->count; i++) if (i >= q->head) free(q->lines[i]);
    free(q->lines);
    memset(q, 0, sizeof *q);
}

static int is_expected(const char *line, size_t len)
{
    layoutd_json *j = layoutd_json_parse(line, len, NULL, 0);
    int r = j && j->type == LAYOUTD_JSON_OBJECT &&
            (layoutd_json_get(j, "result") || layoutd_json_get(j, "error") || layoutd_json_get(j, "event"));
    layoutd_json_free(j);
    return r;
}

static int is_integer_text(const layoutd_json *v)
{
    for (size_t i = 0; i < v->text_len; i++)
        if (v->text[i] == '.' || v->text[i] == 'e' || v->text[i] == 'E') return 0;
    return 1;
}

/* transcripts.py's matches(): "<any>" matches anything; same keys in the same order. */
static int matches(const layoutd_json *want, const layoutd_json *got)
{
    if (want->type == LAYOUTD_JSON_STRING && !strcmp(want->str, WILDCARD)) return 1;
    if (want->type != got->type) return 0;
    switch (want->type) {
    case LAYOUTD_JSON_NUMBER: return want->num == got->num && is_integer_text(want) == is_integer_text(got);
    case LAYOUTD_JSON_STRING: return want->len == got->len && !memcmp(want->str, got->str, want->len);
    case LAYOUTD_JSON_ARRAY:
    case LAYOUTD_JSON_OBJECT:
        if (want->count != got->count) return 0;
        for (size_t i = 0; i < want->count; i++) {
            if (want->type == LAYOUTD_JSON_OBJECT && (want->items[i].key_len != got->items[i].key_len ||
                                                      memcmp(want->items[i].key, got->items[i].key, want->items[i].key_len)))
                return 0;
            if (!matches(&want->items[i], &got->items[i])) return 0;
        }
        return 1;
    default: return 1;
    }
}

static int same_line(const char *want, const char *got)
{
    if (!strstr(want, WILDCARD)) return strcmp(want, got) == 0;
    layoutd_json *w = layoutd_json_parse(want, strlen(want), NULL, 0), *g = layoutd_json_parse(got, strlen(got), NULL, 0);
    int r = w && g && matches(w, g);
    layoutd_json_free(w);
    layoutd_json_free(g);
    return r;
}

static int closes_connection(const char *line)
{
    layoutd_json *j = layoutd_json_parse(line, strlen(line), NULL, 0);
    const char *name = layoutd_json_string(layoutd_json_get(layoutd_json_get(j, "error"), "name"));
    int r = name && (!strcmp(name, "LineTooLong") || !strcmp(name, "IdleTimeout"));
    layoutd_json_free(j);
    return r;
}

static int same_string(const char *typed, const layoutd_json *v)
{
    const char *text = layoutd_json_string(v);
    return typed && text ? !strcmp(typed, text) : !typed && !text;
}

static double number_at(const layoutd_json *o, const char *a, const char *b)
{
    const layoutd_json *v = layoutd_json_get(o, a);
    return layoutd_json_number(b ? layoutd_json_get(v, b) : v, -1);
}

/* An invalidation's section (scrollSection) and move (beginMove ... endMove, and every change
   during a move) through layoutd_invalidation_section and layoutd_invalidation_move. */
static void check_section_and_move(const layoutd_json *result, const layoutd_invalidation *inv)
{
    layoutd_section_scroll section;
    const layoutd_json *sj = layoutd_json_get(result, "section");
    CHECK(layoutd_invalidation_section(inv, &section) == (sj != NULL), "section presence");
    if (sj)
        CHECK(same_string(section.id, layoutd_json_get(sj, "id")) && section.offset == number_at(sj, "offset", NULL) &&
              section.maximum_offset == number_at(sj, "maximumOffset", NULL) && same_string(section.behavior, layoutd_json_get(sj, "behavior")),
              "section fields");
    layoutd_move_state move;
    const layoutd_json *moving = layoutd_json_get(result, "moving"), *ended = layoutd_json_get(result, "moveEnded"),
                       *items = layoutd_json_get(result, "movingItems");
    CHECK(layoutd_invalidation_move(inv, &move) == (moving || ended) && move.moving == (moving != NULL) && move.ended == (ended != NULL),
          "move presence");
    if (moving)
        CHECK(same_string(move.id, moving) && move.target_section == number_at(result, "target", "section") &&
              move.target_item == number_at(result, "target", "item") && move.auto_scroll.y == number_at(result, "autoScroll", "y") &&
              move.moving_items.count == (items ? items->count : 0), "move fields");
    for (size_t i = 0; items && i < move.moving_items.count; i++)
        CHECK(same_string(move.moving_items.ids[i], &items->items[i]), "moving item %zu", i);
    if (ended)
        CHECK(same_string(move.ended_id, layoutd_json_get(ended, "id")) && same_string(move.end_reason, layoutd_json_get(ended, "reason")),
              "moveEnded fields");
}

/* view.beginTransition's result, or a re-plan's interactiveTransition, through
   layoutd_interactive_transition_from_json. */
static void check_interactive_transition(const layoutd_json *v)
{
    layoutd_interactive_transition tr;
    CHECK(layoutd_interactive_transition_from_json(v, &tr, NULL) == 0, "typed interactive transition");
    const layoutd_json *pairs = layoutd_json_get(v, "pairs"), *left = layoutd_json_get(v, "left"), *els = layoutd_json_get(v, "elements");
    CHECK(same_string(tr.view, layoutd_json_get(v, "view")) && same_string(tr.strategy, layoutd_json_get(v, "strategy")) &&
          tr.progress == number_at(v, "progress", NULL) && tr.duration == number_at(v, "duration", NULL) &&
          tr.content_offset_to.y == number_at(layoutd_json_get(v, "contentOffset"), "to", "y") &&
          tr.content_size_from.height == number_at(layoutd_json_get(v, "contentSize"), "from", "height") &&
          same_string(tr.anchor, layoutd_json_get(v, "anchor")) && same_string(tr.anchor_policy, layoutd_json_get(v, "anchorPolicy")),
          "interactive transition fields");
    CHECK(pairs && tr.pair_count == pairs->count && tr.left_count == (left ? left->count : 0) &&
          tr.element_count == (els ? els->count : 0), "pairs, left, elements");
    for (size_t i = 0; pairs && i < tr.pair_count && i < pairs->count; i++) {
        const layoutd_json *p = &pairs->items[i];
        CHECK(same_string(tr.pairs[i].id, layoutd_json_get(p, "id")) &&
              !strcmp(layoutd_kind_name(tr.pairs[i].kind), layoutd_json_string(layoutd_json_get(p, "kind"))) &&
              tr.pairs[i].from.frame.x == number_at(layoutd_json_get(p, "from"), "frame", "x") &&
              tr.pairs[i].to.frame.height == number_at(layoutd_json_get(p, "to"), "frame", "height"),
              "pair %zu", i);
    }
    layoutd_interactive_transition_free(&tr);
}

static int typed_checks;

/* The typed reading of a reply, checked against its JSON. */
static void check_typed(const char *request, const char *reply)
{
    layoutd_json *rq = layoutd_json_parse(request, strlen(request), NULL, 0), *rp = layoutd_json_parse(reply, strlen(reply), NULL, 0);
    const char *method = layoutd_json_string(layoutd_json_get(rq, "method"));
    const layoutd_json *result = layoutd_json_get(rp, "result"), *event = layoutd_json_get(rp, "event");
    const layoutd_json *params = layoutd_json_get(rp, "params");
    if (event && params && !strcmp(layoutd_json_string(event), "view.invalidated")) { result = params; method = "view.scroll"; }
    if (method && result) {
        if (!strcmp(method, "view.create") || !strcmp(method, "view.get") || !strcmp(method, "view.subscribe")) {
            const layoutd_json *snap = !strcmp(method, "view.subscribe") ? layoutd_json_get(result, "snapshot") : result;
            layoutd_snapshot s;
            CHECK(layoutd_snapshot_from_json(snap, &s, NULL) == 0, "typed snapshot of %s", reply);
            const layoutd_json *els = layoutd_json_get(snap, "elements");
            CHECK(s.epoch == (int64_t)layoutd_json_number(layoutd_json_get(snap, "epoch"), -1), "epoch");
            CHECK(els && s.element_count == els->count, "element count");
            for (size_t i = 0; els && i < s.element_count; i++) {
                const layoutd_json *f = layoutd_json_get(&els->items[i], "frame");
                CHECK(s.elements[i].frame.y == layoutd_json_number(layoutd_json_get(f, "y"), -1) &&
                      !strcmp(s.elements[i].id, layoutd_json_string(layoutd_json_get(&els->items[i], "id"))), "element %zu", i);
            }
            layoutd_snapshot_free(&s);
            typed_checks++;
        } else if (!strncmp(method, "view.", 5) && layoutd_json_get(result, "epoch") && layoutd_json_get(result, "context")) {
            layoutd_invalidation inv;
            CHECK(layoutd_invalidation_from_json(result, &inv, NULL) == 0, "typed invalidation of %s", reply);
            const layoutd_json *en = layoutd_json_get(result, "entered"), *le = layoutd_json_get(result, "left"),
                               *tr = layoutd_json_get(result, "transition");
            CHECK(inv.epoch == (int64_t)layoutd_json_number(layoutd_json_get(result, "epoch"), -1), "epoch");
            CHECK(en && inv.entered_count == en->count && le && inv.left_count == le->count, "delta counts");
            CHECK(!tr == !inv.transition, "transition presence");
            if (tr && inv.transition)
                CHECK(inv.transition->segment_count == layoutd_json_get(tr, "segments")->count, "segments");
            CHECK(!layoutd_json_get(result, "anchor") == !inv.anchor, "anchor presence");
            CHECK(!layoutd_json_get(result, "changes") == !inv.has_changes, "changes presence");
            check_section_and_move(result, &inv);
            const layoutd_json *replan = layoutd_json_get(result, "interactiveTransition");
            if (replan) check_interactive_transition(replan);
            layoutd_invalidation_free(&inv);
            typed_checks++;
        } else if (!strcmp(method, "view.selection")) {
            layoutd_selection_page page;
            layoutd_json *root = layoutd_json_parse(result->text, result->text_len, NULL, 0);
            const layoutd_json *ids = layoutd_json_get(result, "ids");
            CHECK(root && ld_read_selection_page(root, &page, NULL) == 0, "typed selection page of %s", reply);
            CHECK(ids && page.ids.count == ids->count && page.total == number_at(result, "count", NULL) &&
                  page.epoch == number_at(result, "epoch", NULL) && same_string(page.next, layoutd_json_get(result, "next")), "selection fields");
            for (size_t i = 0; ids && i < page.ids.count && i < ids->count; i++)
                CHECK(same_string(page.ids.ids[i], &ids->items[i]), "selected id %zu", i);
            layoutd_selection_page_free(&page);
            typed_checks++;
        } else if (!strcmp(method, "view.beginTransition")) {
            check_interactive_transition(result);
            typed_checks++;
        } else if (!strcmp(method, "view.updateTransition")) {
            layoutd_transition_update_result up;
            layoutd_json *root = layoutd_json_parse(result->text, result->text_len, NULL, 0);
            const layoutd_json *els = layoutd_json_get(result, "elements");
            CHECK(root && ld_read_transition_update(root, &up, NULL) == 0, "typed updateTransition result of %s", reply);
            CHECK(els && up.element_count == els->count && up.progress == layoutd_json_number(layoutd_json_get(result, "progress"), -1) &&
                  up.content_size.height == layoutd_json_number(layoutd_json_get(layoutd_json_get(result, "contentSize"), "height"), -1),
                  "updateTransition fields");
            for (size_t i = 0; els && i < up.element_count && i < els->count; i++)
                CHECK(!strcmp(up.elements[i].id, layoutd_json_string(layoutd_json_get(&els->items[i], "id"))) &&
                      up.elements[i].frame.width == layoutd_json_number(layoutd_json_get(layoutd_json_get(&els->items[i], "frame"), "width"), -1),
                      "element %zu at the progress", i);
            layoutd_transition_update_result_free(&up);
            typed_checks++;
        }
    }
    layoutd_json_free(rq);
    layoutd_json_free(rp);
}

/* ---- sending a transcript's request through the typed API ---- */

static int only_keys(const layoutd_json *o, const char *const *allowed)
{
    if (!o || o->type != LAYOUTD_JSON_OBJECT) return 0;
    for (size_t i = 0; i < o->count; i++) {
        int ok = 0;
        for (int k = 0; allowed[k]; k++) ok |= strlen(allowed[k]) == o->items[i].key_len && !strcmp(allowed[k], o->items[i].key);
        if (!ok) return 0;
    }
    return 1;
}

static int is_str(const layoutd_json *v) { return v && v->type == LAYOUTD_JSON_STRING && strlen(v->str) == v->len; }
static int is_num(const layoutd_json *v) { return v && v->type == LAYOUTD_JSON_NUMBER; }
static int is_bool(const layoutd_json *v) { return v && (v->type == LAYOUTD_JSON_TRUE || v->type == LAYOUTD_JSON_FALSE); }
static int is_pair(const layoutd_json *v, const char *a, const char *b)
{
    const char *const keys[] = {a, b, NULL};
    return only_keys(v, keys) && v->count == 2 && is_num(layoutd_json_get(v, a)) && is_num(layoutd_json_get(v, b));
}

/* Reads the common mutation options; 0 when one is present in a form the typed API cannot send. */
static int options(const layoutd_json *p, layoutd_mutation_options *o)
{
    memset(o, 0, sizeof *o);
    const layoutd_json *a = layoutd_json_get(p, "animated"), *e = layoutd_json_get(p, "ifEpoch"), *d = layoutd_json_get(p, "dryRun");
    if (a && !is_bool(a)) return 0;
    if (d && !is_bool(d)) return 0;
    if (e && (!is_num(e) || e->num != (double)(int64_t)e->num)) return 0;
    o->animated = a && a->type == LAYOUTD_JSON_TRUE;
    o->dry_run = d && d->type == LAYOUTD_JSON_TRUE;
    if (e) { o->has_if_epoch = true; o->if_epoch = (int64_t)e->num; }
    return 1;
}

#define COMMON "view", "animated", "ifEpoch", "dryRun"

/* Sends `request` through the typed function for its method when it has one and the params are
   well-formed; returns 1 when sent (the reply then arrives through the line handler). With no
   client (`c` NULL) it only says whether it would: a step goes typed only when all of it can. */
static int send_typed(layoutd_client *c, const char *request, size_t len)
{
    layoutd_json *rq = layoutd_json_parse(request, len, NULL, 0);
    int sent = 0;
    const char *method = layoutd_json_string(layoutd_json_get(rq, "method"));
    const layoutd_json *id = layoutd_json_get(rq, "id"), *p = layoutd_json_get(rq, "params");
    const char *const envelope[] = {"id", "method", "params", NULL};
    if (!rq || !method || !is_num(id) || !only_keys(rq, envelope) || (p && p->type != LAYOUTD_JSON_OBJECT)) goto out;
    const char *view = layoutd_json_string(layoutd_json_get(p, "view"));
    layoutd_mutation_options o;
    if (!options(p, &o)) goto out;
    layoutd_error err;
    if (!strcmp(method, "daemon.sync") && !p) {
        if (c) layoutd_sync(c, &err);
        sent = 1;
    } else if (!strcmp(method, "view.get") && only_keys(p, (const char *const[]){"view", NULL}) && is_str(layoutd_json_get(p, "view"))) {
        layoutd_snapshot s;
        if (c && layoutd_view_get(c, view, &s, &err) == 0) layoutd_snapshot_free(&s);
        sent = 1;
    } else if (!strcmp(method, "view.delete") && only_keys(p, (const char *const[]){"view", NULL}) && is_str(layoutd_json_get(p, "view"))) {
        if (c) layoutd_view_delete(c, view, &err);
        sent = 1;
    } else if (!strcmp(method, "view.item") && only_keys(p, (const char *const[]){"view", "id", NULL}) && is_str(layoutd_json_get(p, "view")) &&
               is_str(layoutd_json_get(p, "id"))) {
        layoutd_element_result r;
        if (c && layoutd_view_item(c, view, layoutd_json_string(layoutd_json_get(p, "id")), &r, &err) == 0) layoutd_element_result_free(&r);
        sent = 1;
    } else if (!strcmp(method, "view.selection") && only_keys(p, (const char *const[]){"view", "limit", "after", NULL}) &&
               is_str(layoutd_json_get(p, "view")) && (!layoutd_json_get(p, "after") || is_str(layoutd_json_get(p, "after"))) &&
               (!layoutd_json_get(p, "limit") || (is_num(layoutd_json_get(p, "limit")) && layoutd_json_get(p, "limit")->num >= 1 &&
                                                 layoutd_json_get(p, "limit")->num == (double)(int64_t)layoutd_json_get(p, "limit")->num))) {
        layoutd_selection_page page;
        const layoutd_json *limit = layoutd_json_get(p, "limit");
        if (c && layoutd_view_selection(c, view, limit ? (int64_t)limit->num : 0, layoutd_json_string(layoutd_json_get(p, "after")), &page, &err) == 0)
            layoutd_selection_page_free(&page);
        sent = 1;
    } else if (!strcmp(method, "view.beginTransition") && only_keys(p, (const char *const[]){"view", "strategy", "params", "ifEpoch", NULL}) &&
               is_str(layoutd_json_get(p, "view")) && (!layoutd_json_get(p, "strategy") || is_str(layoutd_json_get(p, "strategy"))) &&
               (!layoutd_json_get(p, "params") || layoutd_json_get(p, "params")->type == LAYOUTD_JSON_OBJECT) &&
               (layoutd_json_get(p, "strategy") || layoutd_json_get(p, "params"))) {
        const layoutd_json *pp = layoutd_json_get(p, "params");
        char *text = pp ? strndup(pp->text, pp->text_len) : NULL;
        layoutd_interactive_transition tr;
        if (c && layoutd_view_begin_transition(c, view, layoutd_json_string(layoutd_json_get(p, "strategy")), text,
                                               o.has_if_epoch ? &o.if_epoch : NULL, NULL, &tr, &err) == 0)
            layoutd_interactive_transition_free(&tr);
        free(text);
        sent = 1;
    } else if (!strcmp(method, "view.updateTransition") && only_keys(p, (const char *const[]){"view", "progress", NULL}) &&
               is_str(layoutd_json_get(p, "view")) && is_num(layoutd_json_get(p, "progress"))) {
        layoutd_transition_update_result up;
        if (c && layoutd_view_update_transition(c, view, layoutd_json_get(p, "progress")->num, &up, &err) == 0)
            layoutd_transition_update_result_free(&up);
        sent = 1;
    } else if (view && is_str(layoutd_json_get(p, "view"))) {
        layoutd_invalidation inv;
        int called = 1, rc = -1;
        const layoutd_json *off = layoutd_json_get(p, "offset"), *vel = layoutd_json_get(p, "velocity");
        if (!strcmp(method, "view.scroll") && only_keys(p, (const char *const[]){COMMON, "offset", "velocity", NULL}) && is_pair(off, "x", "y") &&
            (!vel || is_pair(vel, "x", "y"))) {
            layoutd_point v = {layoutd_json_number(layoutd_json_get(vel, "x"), 0), layoutd_json_number(layoutd_json_get(vel, "y"), 0)};
            rc = !c ? -1 : layoutd_view_scroll(c, view, (layoutd_point){layoutd_json_get(off, "x")->num, layoutd_json_get(off, "y")->num}, vel ? &v : NULL,
                                     0, &o, &inv, &err);
        } else if (!strcmp(method, "view.resize") && only_keys(p, (const char *const[]){COMMON, "size", NULL}) &&
                   is_pair(layoutd_json_get(p, "size"), "width", "height")) {
            const layoutd_json *sz = layoutd_json_get(p, "size");
            rc = !c ? -1 : layoutd_view_resize(c, view, (layoutd_size){layoutd_json_get(sz, "width")->num, layoutd_json_get(sz, "height")->num}, &o, &inv, &err);
        } else if (!strcmp(method, "view.setWindowMargin") && only_keys(p, (const char *const[]){COMMON, "margin", NULL}) &&
                   is_num(layoutd_json_get(p, "margin"))) {
            rc = !c ? -1 : layoutd_view_set_window_margin(c, view, layoutd_json_get(p, "margin")->num, &o, &inv, &err);
        } else if (!strcmp(method, "view.setLayoutDirection") && only_keys(p, (const char *const[]){COMMON, "layoutDirection", NULL}) &&
                   is_str(layoutd_json_get(p, "layoutDirection"))) {
            rc = !c ? -1 : layoutd_view_set_layout_direction(c, view, layoutd_json_string(layoutd_json_get(p, "layoutDirection")), &o, &inv, &err);
        } else if (!strcmp(method, "view.configure") && only_keys(p, (const char *const[]){COMMON, "params", NULL}) &&
                   layoutd_json_get(p, "params") && layoutd_json_get(p, "params")->type == LAYOUTD_JSON_OBJECT) {
            const layoutd_json *pp = layoutd_json_get(p, "params");
            char *text = strndup(pp->text, pp->text_len);
            rc = !c ? -1 : layoutd_view_configure(c, view, text, &o, &inv, &err);
            free(text);
        } else if (!strcmp(method, "view.scrollTo") && only_keys(p, (const char *const[]){COMMON, "id", "kind", "align", "offset", NULL}) &&
                   is_str(layoutd_json_get(p, "id")) && (!layoutd_json_get(p, "kind") || is_str(layoutd_json_get(p, "kind"))) &&
                   (!layoutd_json_get(p, "align") || is_str(layoutd_json_get(p, "align"))) && (!off || is_num(off))) {
            rc = !c ? -1 : layoutd_view_scroll_to(c, view, layoutd_json_string(layoutd_json_get(p, "id")), layoutd_json_string(layoutd_json_get(p, "kind")),
                                        layoutd_json_string(layoutd_json_get(p, "align")), off != NULL, off ? off->num : 0, &o, &inv, &err);
        } else if (!strcmp(method, "view.select") && only_keys(p, (const char *const[]){COMMON, "ids", "mode", NULL}) &&
                   layoutd_json_get(p, "ids") && layoutd_json_get(p, "ids")->type == LAYOUTD_JSON_ARRAY &&
                   (!layoutd_json_get(p, "mode") || is_str(layoutd_json_get(p, "mode")))) {
            const layoutd_json *ids = layoutd_json_get(p, "ids");
            const char **list = calloc(ids->count + 1, sizeof(char *));
            int ok = 1;
            for (size_t i = 0; i < ids->count; i++) { ok &= is_str(&ids->items[i]); list[i] = ids->items[i].str; }
            if (ok) rc = !c ? -1 : layoutd_view_select(c, view, ids->count, list, layoutd_json_string(layoutd_json_get(p, "mode")), &o, &inv, &err);
            else called = 0;
            free(list);
        } else if (!strcmp(method, "view.scrollSection") && only_keys(p, (const char *const[]){COMMON, "section", "offset", NULL}) &&
                   is_str(layoutd_json_get(p, "section")) && is_num(off)) {
            rc = !c ? -1 : layoutd_view_scroll_section(c, view, layoutd_json_string(layoutd_json_get(p, "section")), off->num, &o, &inv, &err);
        } else if (!strcmp(method, "view.scrollSectionEnd") && only_keys(p, (const char *const[]){COMMON, "section", "proposed", "velocity", NULL}) &&
                   is_str(layoutd_json_get(p, "section")) && (!layoutd_json_get(p, "proposed") || is_num(layoutd_json_get(p, "proposed"))) &&
                   (!vel || is_num(vel))) {
            const layoutd_json *proposed = layoutd_json_get(p, "proposed");
            rc = !c ? -1 : layoutd_view_scroll_section_end(c, view, layoutd_json_string(layoutd_json_get(p, "section")), proposed ? &proposed->num : NULL,
                                                 vel ? vel->num : 0, &o, &inv, &err);
        } else if (!strcmp(method, "view.beginMove") && only_keys(p, (const char *const[]){COMMON, "id", "point", NULL}) &&
                   is_str(layoutd_json_get(p, "id")) && (!layoutd_json_get(p, "point") || is_pair(layoutd_json_get(p, "point"), "x", "y"))) {
            const layoutd_json *pt = layoutd_json_get(p, "point");
            layoutd_point finger = {layoutd_json_number(layoutd_json_get(pt, "x"), 0), layoutd_json_number(layoutd_json_get(pt, "y"), 0)};
            rc = !c ? -1 : layoutd_view_begin_move(c, view, layoutd_json_string(layoutd_json_get(p, "id")), pt ? &finger : NULL, &o, &inv, &err);
        } else if (!strcmp(method, "view.updateMove") && only_keys(p, (const char *const[]){COMMON, "point", NULL}) &&
                   is_pair(layoutd_json_get(p, "point"), "x", "y")) {
            const layoutd_json *pt = layoutd_json_get(p, "point");
            rc = !c ? -1 : layoutd_view_update_move(c, view, (layoutd_point){layoutd_json_get(pt, "x")->num, layoutd_json_get(pt, "y")->num}, &o, &inv, &err);
        } else if ((!strcmp(method, "view.endMove") || !strcmp(method, "view.endTransition")) &&
                   only_keys(p, (const char *const[]){COMMON, "commit", NULL}) && is_bool(layoutd_json_get(p, "commit"))) {
            bool commit = layoutd_json_get(p, "commit")->type == LAYOUTD_JSON_TRUE;
            rc = !c ? -1 : !strcmp(method, "view.endMove") ? layoutd_view_end_move(c, view, commit, &o, &inv, &err)
                                                           : layoutd_view_end_transition(c, view, commit, &o, &inv, &err);
        } else {
            called = 0;
        }
        if (called && rc == 0) layoutd_invalidation_free(&inv);
        sent = called;
    }
out:
    layoutd_json_free(rq);
    return sent;
}

/* The expected line with the transcript's id replaced by the one the library chose. */
static char *with_id(const char *expected, const char *actual)
{
    if (strncmp(expected, "{\"id\":", 6) || strncmp(actual, "{\"id\":", 6)) return strdup(expected);
    const char *e = expected + 6, *a = actual + 6;
    while (*e && *e != ',') e++;
    while (*a && *a != ',') a++;
    size_t n = (size_t)(a - actual);
    char *out = malloc(n + strlen(e) + 1);
    memcpy(out, actual, n);
    strcpy(out + n, e);
    return out;
}

static int typed_sent;
static int typed_steps_pipelined; /* steps of several requests that went through typed functions */

static const char *CONFORMANCE_FLAGS[] = {"--set", "max-line-length=4096", "--set", "max-batch=100", "--set", "max-items=1000",
                                          "--set", "max-total-items=1200", "--set", "max-views=8", NULL};

static int replay(const char *path, int *lines_compared)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    size_t got = fread(data, 1, (size_t)size, f);
    fclose(f);
    data[got] = 0;
    /* lines: split at \n; empty ones are dropped (whitespace-only ones are sent) */
    size_t n = 0, cap = 256;
    char **lines = malloc(cap * sizeof(char *));
    size_t *lens = malloc(cap * sizeof(size_t));
    for (char *p = data, *end = data + got; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (len) {
            if (n == cap) { cap *= 2; lines = realloc(lines, cap * sizeof(char *)); lens = realloc(lens, cap * sizeof(size_t)); }
            lines[n] = p;
            lens[n++] = len;
            p[len] = 0; /* lines may contain NUL themselves: lens[] is authoritative */
        }
        p += len + 1;
    }
    td_daemon d = {0};
    int problems = 0;
    if (td_start(&d, strstr(path, "/conformance/") ? CONFORMANCE_FLAGS : NULL)) { free(data); free(lines); free(lens); return 1; }
    queue q = {0};
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(d.path, &err);
    layoutd_client_set_line_handler(c, on_line, &q);
    const char *last_request = "(start)";
    size_t i = 0;
    while (i < n && !problems) {
        /* the requests of this step, then what the daemon answers to them. A step whose every
           request has a typed function goes through them, one after the other (each waits for
           its reply; the daemon answers a pipelined step in the same order, events included),
           and each reply then carries the library's id; otherwise the step is sent raw, as
           written (notifications, malformed lines, methods without a typed function). */
        size_t end = i;
        while (end < n && !is_expected(lines[end], lens[end])) end++;
        int typed_replies = 0;
        if (end > i && end < n) {
            int all = 1;
            for (size_t k = i; k < end && all; k++) all = !memchr(lines[k], 0, lens[k]) && send_typed(NULL, lines[k], lens[k]);
            if (all) {
                for (; i < end; i++) {
                    send_typed(c, lines[i], lens[i]);
                    typed_sent++;
                    typed_replies++;
                    last_request = lines[i];
                }
                if (typed_replies > 1) typed_steps_pipelined++;
            }
        }
        while (!typed_replies && i < n && !is_expected(lines[i], lens[i])) {
            ld_buf b = {0};
            ld_buf_put(&b, lines[i], lens[i]);
            ld_buf_put(&b, "\n", 1);
            layoutd_send_raw(c, b.data, b.len, NULL);
            ld_buf_free(&b);
            last_request = lines[i];
            i++;
        }
        const char *last_expected = NULL;
        while (i < n && is_expected(lines[i], lens[i])) {
            char *line = next_line(c, &q, 10);
            const char *actual = line ? line : "<end of stream>";
            (*lines_compared)++;
            /* replies (not events) to typed requests carry the library's ids, in order */
            int reply = !strncmp(lines[i], "{\"id\":", 6);
            char *want = typed_replies && reply ? with_id(lines[i], actual) : strdup(lines[i]);
            int same = same_line(want, actual);
            free(want);
            if (reply && typed_replies) typed_replies--;
            if (!same) {
                fprintf(stderr, "FAIL %s\n  after %.200s\n  expected: %s\n  actual:   %s\n", path, last_request, lines[i], actual);
                problems++;
                free(line);
                break;
            }
            check_typed(last_request, actual);
            free(line);
            last_expected = lines[i];
            i++;
        }
        if (!problems && last_expected && closes_connection(last_expected)) {
            while (next_line(c, &q, 10)) {}
            layoutd_client_close(c);
            queue_clear(&q);
            c = layoutd_client_connect(d.path, &err);
            layoutd_client_set_line_handler(c, on_line, &q);
        }
    }
    if (!problems) {
        /* nothing more may arrive */
        layoutd_client_wait(c, 200, NULL);
        if (q.head < q.count) {
            fprintf(stderr, "FAIL %s: unexpected extra line: %s\n", path, q.lines[q.head]);
            problems++;
        }
    }
    layoutd_client_close(c);
    queue_clear(&q);
    td_cleanup(&d);
    free(data);
    free(lines);
    free(lens);
    return problems;
}

int main(int argc, char **argv)
{
    int failed = 0, ok = 0, lines = 0;
    for (int i = 1; i < argc; i++) {
        int before = t_failures;
        int r = replay(argv[i], &lines);
        if (r || t_failures != before) { failed++; printf("FAIL %s\n", argv[i]); }
        else { ok++; printf("ok   %s\n", argv[i]); }
    }
    printf("test_transcripts: %d transcripts ok, %d failed; %d daemon lines compared; %d requests sent through typed functions "
           "(%d steps of several requests among them); %d replies and events read through the typed API (%d checks)\n",
           ok, failed, lines, typed_sent, typed_steps_pipelined, typed_checks, t_checks);
    return failed ? 1 : 0;
}
