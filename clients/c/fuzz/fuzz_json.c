/* libFuzzer target for the JSON reader, and for what the client does with a daemon's line:
   any input either parses or is refused without a crash; what parses writes back to text that
   parses to an equal tree, and writing is stable; the typed readers (snapshot, invalidation and
   what it says of sections and moves, interactive transitions, transition updates, selection
   pages) and the mirror take whatever the line holds without crashing. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void typed(const layoutd_json *v, layoutd_mirror *m)
{
    if (!v) return;
    layoutd_snapshot s;
    if (layoutd_snapshot_from_json(v, &s, NULL) == 0) {
        layoutd_mirror_reset(m, &s);
        for (size_t i = 0; layoutd_mirror_at(m, i); i++) {}
        layoutd_mirror_equals(m, s.element_count, s.elements);
        layoutd_snapshot_free(&s);
    }
    layoutd_invalidation inv;
    if (layoutd_invalidation_from_json(v, &inv, NULL) == 0) {
        layoutd_mirror_apply(m, &inv);
        if (inv.transition) {
            layoutd_attributes a;
            for (size_t i = 0; i < inv.transition->segment_count; i++)
                if (inv.transition->segments[i].id)
                    layoutd_transition_sample(inv.transition, inv.transition->segments[i].kind, inv.transition->segments[i].id,
                                              inv.transition->segments[i].delay + inv.transition->segments[i].duration / 2, NULL, &a);
        }
        for (size_t i = 0; layoutd_mirror_at(m, i); i++) {}
        layoutd_section_scroll section;
        layoutd_move_state move;
        layoutd_invalidation_section(&inv, &section);
        layoutd_invalidation_move(&inv, &move);
        layoutd_invalidation_free(&inv);
    }
    /* view.beginTransition's result and a re-plan's interactiveTransition; view.updateTransition's
       and view.selection's results (each reader takes over a tree of its own) */
    layoutd_interactive_transition tr;
    if (layoutd_interactive_transition_from_json(v, &tr, NULL) == 0) layoutd_interactive_transition_free(&tr);
    if (layoutd_interactive_transition_from_json(layoutd_json_get(v, "interactiveTransition"), &tr, NULL) == 0)
        layoutd_interactive_transition_free(&tr);
    layoutd_transition_update_result up;
    layoutd_json *copy = layoutd_json_parse(v->text, v->text_len, NULL, 0);
    if (copy && ld_read_transition_update(copy, &up, NULL) == 0) layoutd_transition_update_result_free(&up);
    layoutd_selection_page page;
    copy = layoutd_json_parse(v->text, v->text_len, NULL, 0);
    if (copy && ld_read_selection_page(copy, &page, NULL) == 0) layoutd_selection_page_free(&page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[128];
    layoutd_json *j = layoutd_json_parse((const char *)data, size, err, sizeof err);
    /* the line scanner (no tree) agrees with the reader: an object the reader takes scans, and
       what scans is taken unless a duplicate key or the key limit refused it */
    static const char *const wanted[] = {"id", "result", "error", "event", "seq", "params", "subscription", NULL};
    ld_member found[7];
    bool scans = ld_json_scan_object((const char *)data, size, wanted, found, NULL, 0) == 0;
    if (j && j->type == LAYOUTD_JSON_OBJECT && !scans) abort();
    if (!j && scans && !strstr(err, "duplicate") && !strstr(err, "keys")) abort();
    if (!j) return 0;
    size_t n1, n2;
    char *t1 = layoutd_json_write(j, &n1);
    if (!t1) abort();
    layoutd_json *k = layoutd_json_parse(t1, n1, err, sizeof err);
    if (!k || !layoutd_json_equal(j, k)) abort();
    char *t2 = layoutd_json_write(k, &n2);
    if (!t2 || n1 != n2 || memcmp(t1, t2, n1)) abort();
    if (j->type == LAYOUTD_JSON_OBJECT && j->count && strlen(j->items[0].key) == j->items[0].key_len &&
        layoutd_json_get(j, j->items[0].key) != &j->items[0])
        abort();
    /* a daemon line: a reply's result, an event's params, a resync's snapshot */
    layoutd_mirror *m = layoutd_mirror_new();
    const layoutd_json *result = layoutd_json_get(j, "result"), *params = layoutd_json_get(j, "params");
    typed(j, m);
    typed(layoutd_json_get(result, "snapshot"), m);
    typed(result, m);
    typed(layoutd_json_get(params, "snapshot"), m);
    typed(params, m);
    layoutd_mirror_free(m);
    free(t1);
    free(t2);
    layoutd_json_free(j);
    layoutd_json_free(k);
    return 0;
}
