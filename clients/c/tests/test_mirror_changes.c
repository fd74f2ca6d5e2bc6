/* The mirror's change reports, by property: over thousands of random invalidations and
   snapshots, applying each reported change (left, then entered and changed) to a copy of the
   old window gives the new window; entered keys were absent, left ones present, changed ones
   present with other attributes; an element re-sent unchanged is reported nowhere. */
#include "testutil.h"
#include "internal.h"

#define IDS 40
static char names[IDS][16];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static layoutd_attributes random_attributes(int i)
{
    layoutd_attributes a = {0};
    a.id = names[i % IDS];
    a.kind = i < IDS ? LAYOUTD_CELL : LAYOUTD_HEADER;
    a.section = 0;
    a.item = a.kind == LAYOUTD_CELL ? i : -1;
    a.frame = (layoutd_rect){rnd(4) * 10.0, rnd(100) * 10.0, 100, 100};
    a.alpha = rnd(2) ? 1 : 0.5;
    return a;
}

typedef struct {
    layoutd_mirror *copy;
    int reports, mistakes;
    size_t entered, changed, left;
} watcher;

static void on_change(layoutd_mirror *m, const layoutd_mirror_change *ch, void *user)
{
    (void)m;
    watcher *w = user;
    w->reports++;
    for (size_t i = 0; i < ch->entered_count; i++)
        if (layoutd_mirror_find(w->copy, ch->entered[i].kind, ch->entered[i].id)) w->mistakes++;
    for (size_t i = 0; i < ch->left_count; i++)
        if (!layoutd_mirror_find(w->copy, ch->left[i].kind, ch->left[i].id)) w->mistakes++;
    for (size_t i = 0; i < ch->changed_count; i++) {
        const layoutd_attributes *old = layoutd_mirror_find(w->copy, ch->changed[i].kind, ch->changed[i].id);
        if (!old || (old->frame.x == ch->changed[i].frame.x && old->frame.y == ch->changed[i].frame.y && old->alpha == ch->changed[i].alpha))
            w->mistakes++;
    }
    w->entered += ch->entered_count;
    w->changed += ch->changed_count;
    w->left += ch->left_count;
    layoutd_invalidation inv = {0};
    inv.epoch = layoutd_mirror_epoch(w->copy) + 1;
    inv.entered_count = ch->entered_count;
    inv.entered = ch->entered;
    inv.changed_count = ch->changed_count;
    inv.changed = ch->changed;
    inv.left_count = ch->left_count;
    inv.left = ch->left;
    if (layoutd_mirror_apply(w->copy, &inv)) w->mistakes++;
}

static bool same_window(layoutd_mirror *a, layoutd_mirror *b)
{
    size_t n = layoutd_mirror_count(a);
    layoutd_attributes *all = malloc((n + 1) * sizeof *all);
    for (size_t i = 0; i < n; i++) all[i] = *layoutd_mirror_at(a, i);
    bool same = layoutd_mirror_equals(b, n, all);
    free(all);
    return same;
}

int main(void)
{
    for (int i = 0; i < IDS; i++) snprintf(names[i], sizeof names[i], "k%d", i);
    layoutd_mirror *m = layoutd_mirror_new(), *copy = layoutd_mirror_new();
    watcher w = {copy, 0, 0, 0, 0, 0};
    layoutd_snapshot empty = {0};
    layoutd_mirror_reset(copy, &empty);
    layoutd_mirror_set_change_handler(m, on_change, &w);
    int steps = 5000, expected_reports = 0;
    size_t unchanged_resent = 0;
    int64_t epoch = 0;
    for (int step = 0; step < steps; step++) {
        layoutd_attributes pool[2 * IDS];
        layoutd_key left[2 * IDS];
        size_t np = 0, nl = 0;
        if (step == 0 || rnd(10) == 0) {
            /* a snapshot: a random window */
            for (int i = 0; i < 2 * IDS; i++)
                if (rnd(3) == 0) pool[np++] = random_attributes(i);
            layoutd_snapshot s = {0};
            s.epoch = epoch = rnd(1000);
            s.element_count = np;
            s.elements = pool;
            layoutd_mirror_reset(m, &s);
        } else {
            /* an invalidation: some present keys leave, some absent ones enter (a few leave and
               re-enter), some present ones change or are re-sent as they are */
            layoutd_attributes changed[2 * IDS];
            size_t nc = 0;
            for (int i = 0; i < 2 * IDS; i++) {
                layoutd_attributes a = random_attributes(i);
                const layoutd_attributes *now = layoutd_mirror_find(m, a.kind, a.id);
                unsigned r = rnd(8);
                if (now && r == 0) left[nl++] = (layoutd_key){a.kind, a.id};
                else if (now && r == 1) { left[nl++] = (layoutd_key){a.kind, a.id}; pool[np++] = a; }
                else if (now && r == 2) changed[nc++] = a;
                else if (now && r == 3) { changed[nc++] = *now; unchanged_resent++; }
                else if (!now && r < 2) pool[np++] = a;
            }
            layoutd_invalidation inv = {0};
            inv.epoch = ++epoch;
            inv.entered_count = np;
            inv.entered = pool;
            inv.changed_count = nc;
            inv.changed = changed;
            inv.left_count = nl;
            inv.left = left;
            /* the attributes of `changed` re-sent as they are point into the mirror: copy them first */
            char ids[2 * IDS][16];
            for (size_t i = 0; i < nc; i++) { snprintf(ids[i], sizeof ids[i], "%s", changed[i].id); changed[i].id = ids[i]; changed[i].effect_count = 0; }
            CHECK(layoutd_mirror_apply(m, &inv) == 0, "step %d applies", step);
        }
        expected_reports++;
        CHECK(same_window(m, copy), "step %d: the copy with the reported change applied is the new window", step);
    }
    /* a refused invalidation (an epoch gap) is not reported */
    layoutd_invalidation gap = {0};
    gap.epoch = layoutd_mirror_epoch(m) + 2;
    CHECK(layoutd_mirror_apply(m, &gap) < 0, "an epoch gap is refused");
    /* the view deleted: everything left */
    size_t before = layoutd_mirror_count(m);
    size_t left_before = w.left;
    ld_mirror_invalidate(m);
    expected_reports++;
    CHECK(w.left - left_before == before && layoutd_mirror_count(copy) == 0, "view.deleted: all %zu left", before);
    CHECK(w.reports == expected_reports, "one report per change: %d, want %d", w.reports, expected_reports);
    CHECK(w.mistakes == 0, "%d misreported keys", w.mistakes);
    CHECK(w.entered > 1000 && w.changed > 1000 && w.left > 1000 && unchanged_resent > 1000,
          "the walk covered entering (%zu), changing (%zu), leaving (%zu) and unchanged re-sends (%zu)", w.entered, w.changed, w.left,
          unchanged_resent);
    printf("test_mirror_changes: %d changes, %zu entered, %zu changed, %zu left, %zu unchanged re-sends unreported\n", w.reports,
           w.entered, w.changed, w.left, unchanged_resent);
    layoutd_mirror_free(m);
    layoutd_mirror_free(copy);
    return t_report("test_mirror_changes");
}
