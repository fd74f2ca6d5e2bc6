/* The mirror: a client's copy of a view's window (subscriptions.md "Keeping a mirror"), and
   transition sampling (mutations.md "transition"; the curves are wire.c's). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    struct entry *next;       /* bucket chain */
    uint64_t hash;
    layoutd_attributes a;     /* owns a.id and a.effects */
} entry;

struct layoutd_mirror {
    bool valid, truncated;
    int64_t epoch;
    layoutd_rect window;
    layoutd_size content_size;
    layoutd_point content_offset;
    entry **buckets;
    size_t nbuckets, count;
    layoutd_attributes *sorted;   /* cache for layoutd_mirror_at, rebuilt when dirty */
    bool dirty;
    ld_arena *transition_arena;
    layoutd_transition *transition;
    layoutd_mirror_change_cb change_cb;
    void *change_user;
};

static uint64_t key_hash(layoutd_kind kind, const char *id)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) { h ^= *p; h *= 1099511628211ull; }
    return h;
}

layoutd_mirror *layoutd_mirror_new(void) { return calloc(1, sizeof(layoutd_mirror)); }

static void free_attr(layoutd_attributes *a)
{
    if (a->effects && a->effect_count) free((char *)a->effects[0].name); /* owns all names */
    free((layoutd_effect *)a->effects);
    free((char *)a->id);
}

static void entry_free(entry *e)
{
    free_attr(&e->a);
    free(e);
}

static void clear(layoutd_mirror *m)
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        entry *e = m->buckets[i];
        while (e) { entry *n = e->next; entry_free(e); e = n; }
        m->buckets[i] = NULL;
    }
    m->count = 0;
    free(m->sorted);
    m->sorted = NULL;
    m->dirty = true;
}

static bool same_attributes(const layoutd_attributes *a, const layoutd_attributes *b)
{
    if (a->kind != b->kind || strcmp(a->id, b->id) || a->section != b->section || a->item != b->item) return false;
    if (a->frame.x != b->frame.x || a->frame.y != b->frame.y || a->frame.width != b->frame.width ||
        a->frame.height != b->frame.height)
        return false;
    if (a->z_index != b->z_index || a->alpha != b->alpha || a->hidden != b->hidden || a->has_transform != b->has_transform)
        return false;
    if (a->has_transform && memcmp(&a->transform, &b->transform, sizeof a->transform)) return false;
    if (a->effect_count != b->effect_count) return false;
    for (size_t i = 0; i < a->effect_count; i++)
        if (strcmp(a->effects[i].name, b->effects[i].name) || a->effects[i].value != b->effects[i].value) return false;
    return true;
}

/* ---- change reports ---- */

/* A key a change touches, with what the mirror held for it before the change. */
typedef struct {
    layoutd_kind kind;
    const char *id;
    bool present;
    layoutd_attributes before;
} touched;

/* The keys a change touches, noted before it is applied. Only kept while a handler is set. */
typedef struct {
    ld_arena *arena;
    touched *keys;
    size_t count, cap;
    bool failed;
} change_log;

static const char *arena_str(ld_arena *a, const char *s) { return s ? ld_arena_strndup(a, s, strlen(s)) : NULL; }

static void note(change_log *log, layoutd_mirror *m, layoutd_kind kind, const char *id)
{
    if (!log->arena || log->failed || !id) return;
    if (log->count == log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 64;
        touched *t = realloc(log->keys, cap * sizeof *t);
        if (!t) { log->failed = true; return; }
        log->keys = t;
        log->cap = cap;
    }
    touched *t = &log->keys[log->count];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->id = arena_str(log->arena, id);
    const layoutd_attributes *old = layoutd_mirror_find(m, kind, id);
    if (old) {
        t->present = true;
        t->before = *old;
        t->before.id = t->id;
        if (old->effect_count) {
            layoutd_effect *ef = ld_arena_alloc(log->arena, old->effect_count * sizeof *ef);
            if (!ef) { log->failed = true; return; }
            for (size_t i = 0; i < old->effect_count; i++) ef[i] = (layoutd_effect){arena_str(log->arena, old->effects[i].name), old->effects[i].value};
            t->before.effects = ef;
        }
    }
    if (!t->id) { log->failed = true; return; }
    log->count++;
}

static void begin_change(change_log *log, layoutd_mirror *m)
{
    memset(log, 0, sizeof *log);
    if (m->change_cb && !(log->arena = ld_arena_new())) log->failed = true;
}

static void note_all(change_log *log, layoutd_mirror *m)
{
    for (size_t i = 0; i < m->nbuckets; i++)
        for (entry *e = m->buckets[i]; e; e = e->next) note(log, m, e->a.kind, e->a.id);
}

static int touched_cmp(const void *x, const void *y)
{
    const touched *a = x, *b = y;
    int kinds = layoutd_kind_compare(a->kind, b->kind);
    return kinds ? kinds : strcmp(a->id, b->id);
}

/* After the change: each touched key (once, in key order) compared with what the mirror holds
   now, and the handler told what entered, changed and left. */
static void end_change(change_log *log, layoutd_mirror *m, bool reset)
{
    if (log->arena && !log->failed && m->change_cb) {
        qsort(log->keys, log->count, sizeof *log->keys, touched_cmp);
        layoutd_attributes *entered = ld_arena_alloc(log->arena, (log->count + 1) * sizeof *entered);
        layoutd_attributes *changed = ld_arena_alloc(log->arena, (log->count + 1) * sizeof *changed);
        layoutd_key *left = ld_arena_alloc(log->arena, (log->count + 1) * sizeof *left);
        if (entered && changed && left) {
            layoutd_mirror_change ch = {reset, m->epoch, 0, 0, 0, entered, changed, left};
            for (size_t i = 0; i < log->count; i++) {
                const touched *t = &log->keys[i];
                if (i && !touched_cmp(t, &log->keys[i - 1])) continue;
                const layoutd_attributes *now = layoutd_mirror_find(m, t->kind, t->id);
                if (now && !t->present) entered[ch.entered_count++] = *now;
                else if (!now && t->present) left[ch.left_count++] = (layoutd_key){t->kind, t->id};
                else if (now && !same_attributes(&t->before, now)) changed[ch.changed_count++] = *now;
            }
            m->change_cb(m, &ch, m->change_user);
        }
    }
    free(log->keys);
    ld_arena_free(log->arena);
}

void layoutd_mirror_set_change_handler(layoutd_mirror *m, layoutd_mirror_change_cb cb, void *user)
{
    m->change_cb = cb;
    m->change_user = user;
}

void ld_mirror_set_transition(layoutd_mirror *m, const layoutd_transition *tr)
{
    ld_arena_free(m->transition_arena);
    m->transition_arena = NULL;
    m->transition = NULL;
    if (!tr) return;
    ld_arena *a = ld_arena_new();
    if (!a) return;
    layoutd_transition *t = ld_arena_alloc(a, sizeof *t);
    layoutd_segment *segs = tr->segment_count ? ld_arena_alloc(a, tr->segment_count * sizeof *segs) : NULL;
    if (!t || (tr->segment_count && !segs)) { ld_arena_free(a); return; }
    *t = *tr;
    for (size_t i = 0; i < tr->segment_count; i++) {
        segs[i] = tr->segments[i];
        /* ids and effects point into the invalidation: copy them */
        const char *ids[3] = {tr->segments[i].id, tr->segments[i].from.id, tr->segments[i].to.id};
        segs[i].id = ids[0] ? ld_arena_strndup(a, ids[0], strlen(ids[0])) : NULL;
        segs[i].from.id = segs[i].id;
        segs[i].to.id = segs[i].id;
        layoutd_attributes *sides[2] = {&segs[i].from, &segs[i].to};
        for (int k = 0; k < 2; k++) {
            layoutd_attributes *s = sides[k];
            if (s->effect_count) {
                layoutd_effect *ef = ld_arena_alloc(a, s->effect_count * sizeof *ef);
                if (!ef) { s->effect_count = 0; s->effects = NULL; continue; }
                for (size_t j = 0; j < s->effect_count; j++) {
                    ef[j].name = ld_arena_strndup(a, s->effects[j].name, strlen(s->effects[j].name));
                    ef[j].value = s->effects[j].value;
                }
                s->effects = ef;
            }
        }
    }
    t->segments = segs;
    m->transition_arena = a;
    m->transition = t;
}

void ld_mirror_invalidate(layoutd_mirror *m)
{
    if (!m) return;
    change_log log;
    begin_change(&log, m);
    note_all(&log, m);
    clear(m);
    m->valid = false;
    ld_mirror_set_transition(m, NULL);
    end_change(&log, m, true);
}

void layoutd_mirror_free(layoutd_mirror *m)
{
    if (!m) return;
    m->change_cb = NULL;
    ld_mirror_invalidate(m);
    free(m->buckets);
    free(m);
}

static entry **find_slot(layoutd_mirror *m, layoutd_kind kind, const char *id, uint64_t h)
{
    if (!m->nbuckets) return NULL;
    entry **pp = &m->buckets[h & (m->nbuckets - 1)];
    while (*pp && !((*pp)->hash == h && (*pp)->a.kind == kind && strcmp((*pp)->a.id, id) == 0)) pp = &(*pp)->next;
    return pp;
}

static void grow(layoutd_mirror *m)
{
    size_t n = m->nbuckets ? m->nbuckets * 2 : 64;
    entry **b = calloc(n, sizeof *b);
    if (!b) return;
    for (size_t i = 0; i < m->nbuckets; i++) {
        entry *e = m->buckets[i];
        while (e) {
            entry *next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
}

static void put(layoutd_mirror *m, const layoutd_attributes *a)
{
    if (!a->id) return;
    if (m->count + 1 > m->nbuckets) grow(m);
    uint64_t h = key_hash(a->kind, a->id);
    entry **pp = find_slot(m, a->kind, a->id, h);
    if (!pp) return;
    entry *e = *pp;
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) return;
        e->hash = h;
        *pp = e;
        m->count++;
    } else {
        free_attr(&e->a);
    }
    e->a = *a;
    e->a.id = strdup(a->id);
    e->a.effects = NULL;
    if (a->effect_count) {
        layoutd_effect *ef = malloc(a->effect_count * sizeof *ef);
        if (ef) memcpy(ef, a->effects, a->effect_count * sizeof *ef);
        else e->a.effect_count = 0;
        /* names: copy into one block after the array would be neater; strdup each */
        for (size_t i = 0; ef && i < a->effect_count; i++) ef[i].name = NULL;
        e->a.effects = ef;
        if (ef) {
            /* effect names are stored in a second allocation per entry, freed with it */
            size_t total = 0;
            for (size_t i = 0; i < a->effect_count; i++) total += strlen(a->effects[i].name) + 1;
            char *names = malloc(total);
            if (!names) { free(ef); e->a.effects = NULL; e->a.effect_count = 0; }
            else {
                /* names live right after each other; ef[0].name owns the block */
                char *p = names;
                for (size_t i = 0; i < a->effect_count; i++) {
                    size_t n = strlen(a->effects[i].name) + 1;
                    memcpy(p, a->effects[i].name, n);
                    ef[i].name = p;
                    p += n;
                }
            }
        }
    }
    m->dirty = true;
}

static void del(layoutd_mirror *m, layoutd_kind kind, const char *id)
{
    uint64_t h = key_hash(kind, id);
    entry **pp = find_slot(m, kind, id, h);
    if (!pp || !*pp) return;
    entry *e = *pp;
    *pp = e->next;
    entry_free(e);
    m->count--;
    m->dirty = true;
}

void layoutd_mirror_reset(layoutd_mirror *m, const layoutd_snapshot *s)
{
    change_log log;
    begin_change(&log, m);
    note_all(&log, m);
    for (size_t i = 0; i < s->element_count; i++) note(&log, m, s->elements[i].kind, s->elements[i].id);
    clear(m);
    for (size_t i = 0; i < s->element_count; i++) put(m, &s->elements[i]);
    m->valid = true;
    m->epoch = s->epoch;
    m->window = s->window;
    m->content_size = s->content_size;
    m->content_offset = s->viewport.offset;
    m->truncated = s->window_truncated;
    ld_mirror_set_transition(m, NULL);
    end_change(&log, m, true);
}

int layoutd_mirror_apply(layoutd_mirror *m, const layoutd_invalidation *inv)
{
    if (!m->valid || inv->epoch != m->epoch + 1 || inv->dry_run) return -1;
    change_log log;
    begin_change(&log, m);
    for (size_t i = 0; i < inv->left_count; i++) note(&log, m, inv->left[i].kind, inv->left[i].id);
    for (size_t i = 0; i < inv->entered_count; i++) note(&log, m, inv->entered[i].kind, inv->entered[i].id);
    for (size_t i = 0; i < inv->changed_count; i++) note(&log, m, inv->changed[i].kind, inv->changed[i].id);
    for (size_t i = 0; i < inv->left_count; i++) del(m, inv->left[i].kind, inv->left[i].id);
    for (size_t i = 0; i < inv->entered_count; i++) put(m, &inv->entered[i]);
    for (size_t i = 0; i < inv->changed_count; i++) put(m, &inv->changed[i]);
    m->epoch = inv->epoch;
    m->window = inv->window;
    m->content_size = inv->content_size;
    m->content_offset = inv->content_offset;
    m->truncated = inv->window_truncated;
    ld_mirror_set_transition(m, inv->transition);
    end_change(&log, m, false);
    return 0;
}

bool layoutd_mirror_valid(const layoutd_mirror *m) { return m && m->valid; }
int64_t layoutd_mirror_epoch(const layoutd_mirror *m) { return m->epoch; }
layoutd_rect layoutd_mirror_window(const layoutd_mirror *m) { return m->window; }
layoutd_size layoutd_mirror_content_size(const layoutd_mirror *m) { return m->content_size; }
layoutd_point layoutd_mirror_content_offset(const layoutd_mirror *m) { return m->content_offset; }
bool layoutd_mirror_window_truncated(const layoutd_mirror *m) { return m->truncated; }
size_t layoutd_mirror_count(const layoutd_mirror *m) { return m->count; }
const layoutd_transition *layoutd_mirror_transition(const layoutd_mirror *m) { return m->transition; }

const layoutd_attributes *layoutd_mirror_find(const layoutd_mirror *m, layoutd_kind kind, const char *id)
{
    entry **pp = find_slot((layoutd_mirror *)m, kind, id, key_hash(kind, id));
    return pp && *pp ? &(*pp)->a : NULL;
}

static int key_cmp(const void *x, const void *y)
{
    const layoutd_attributes *a = x, *b = y;
    int kinds = layoutd_kind_compare(a->kind, b->kind);
    return kinds ? kinds : strcmp(a->id, b->id);
}

const layoutd_attributes *layoutd_mirror_at(layoutd_mirror *m, size_t index)
{
    if (index >= m->count) return NULL;
    if (m->dirty || !m->sorted) {
        free(m->sorted);
        m->sorted = malloc((m->count ? m->count : 1) * sizeof *m->sorted);
        if (!m->sorted) return NULL;
        size_t k = 0;
        for (size_t i = 0; i < m->nbuckets; i++)
            for (entry *e = m->buckets[i]; e; e = e->next) m->sorted[k++] = e->a;
        qsort(m->sorted, k, sizeof *m->sorted, key_cmp);
        m->dirty = false;
    }
    return &m->sorted[index];
}

bool layoutd_mirror_equals(layoutd_mirror *m, size_t count, const layoutd_attributes *elements)
{
    if (count != m->count) return false;
    for (size_t i = 0; i < count; i++) {
        const layoutd_attributes *a = layoutd_mirror_at(m, i);
        if (!a || !same_attributes(a, &elements[i])) return false;
    }
    return true;
}

/* ---- transitions ---- */

static double lerp(double a, double b, double p) { return a + (b - a) * p; }

static double effect_value(const layoutd_attributes *a, const char *name, double fallback)
{
    for (size_t i = 0; i < a->effect_count; i++)
        if (!strcmp(a->effects[i].name, name)) return a->effects[i].value;
    return fallback;
}

int layoutd_transition_sample(const layoutd_transition *tr, layoutd_kind kind, const char *id, double t,
                              layoutd_curve curve, layoutd_attributes *out)
{
    if (!tr || !id) return 0;
    const layoutd_segment *first = NULL, *last = NULL;
    for (size_t i = 0; i < tr->segment_count; i++) {
        const layoutd_segment *s = &tr->segments[i];
        if (s->kind != kind || !s->id || strcmp(s->id, id)) continue;
        if (!first) first = s;
        if (t >= s->delay) last = s; /* the latest segment that has started */
    }
    if (!first) return 0;
    if (!last) { *out = first->from; return 1; }
    double p = last->duration > 0 ? (t - last->delay) / last->duration : 1;
    if (p >= 1) { *out = last->to; return 1; }
    if (p < 0) p = 0;
    p = curve ? curve(p) : layoutd_curve_progress(last->curve, p);
    const layoutd_attributes *a = &last->from, *b = &last->to;
    *out = *b;  /* discrete fields take the target's values */
    out->frame = (layoutd_rect){lerp(a->frame.x, b->frame.x, p), lerp(a->frame.y, b->frame.y, p),
                                lerp(a->frame.width, b->frame.width, p), lerp(a->frame.height, b->frame.height, p)};
    out->alpha = lerp(a->alpha, b->alpha, p);
    if (a->has_transform || b->has_transform) {
        out->has_transform = true;
        out->transform = (layoutd_transform){lerp(a->transform.a, b->transform.a, p), lerp(a->transform.b, b->transform.b, p),
                                             lerp(a->transform.c, b->transform.c, p), lerp(a->transform.d, b->transform.d, p),
                                             lerp(a->transform.tx, b->transform.tx, p), lerp(a->transform.ty, b->transform.ty, p)};
    }
    /* effects: interpolated per name; the interpolated values live in a per-thread scratch */
    static __thread layoutd_effect scratch[32];
    if (b->effect_count && b->effect_count <= 32) {
        for (size_t i = 0; i < b->effect_count; i++) {
            scratch[i].name = b->effects[i].name;
            scratch[i].value = lerp(effect_value(a, b->effects[i].name, b->effects[i].value), b->effects[i].value, p);
        }
        out->effects = scratch;
    }
    return 1;
}
