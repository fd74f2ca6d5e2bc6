/* The model diff (src/sync.c) against the real daemon, as a property: for random data and a
   random edit of it (items inserted, deleted, moved within and across sections; sections
   inserted, deleted, moved), the view.update batch layoutd_sync_diff writes, applied by the
   daemon to a view holding the old data, gives exactly the new data; and where it says no batch
   can express the edit, a setData does (the view's fallback). Each case prints the seed, so a
   failure replays with `test_sync SOCKET SEED`.

   test_sync SOCKET [SEED [COUNT]]   (default: 400 cases from seed 1; a seed alone: that case) */
#include "private.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static guint32 rng_state;
static guint32 rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static guint below(guint n) { return n ? rng() % n : 0; }

static int next_id;

static LayoutdSyncData *random_data(void)
{
    LayoutdSyncData *d = layoutd_sync_data_new();
    guint sections = 1 + below(5);
    for (guint s = 0; s < sections; s++) {
        LayoutdSyncSection *sec = g_new0(LayoutdSyncSection, 1);
        sec->id = g_strdup_printf("s%d", next_id++);
        sec->items = g_ptr_array_new_with_free_func(g_free);
        guint n = below(12);
        for (guint i = 0; i < n; i++) g_ptr_array_add(sec->items, g_strdup_printf("i%d", next_id++));
        d->item_count += n;
        g_ptr_array_add(d->sections, sec);
    }
    return d;
}

/* A random edit: a few of every kind of change. */
static LayoutdSyncData *random_edit(const LayoutdSyncData *old)
{
    LayoutdSyncData *d = layoutd_sync_data_copy(old);
    guint edits = 1 + below(6);
    for (guint e = 0; e < edits; e++) {
        guint kind = below(7);
        LayoutdSyncSection *sec = d->sections->len ? g_ptr_array_index(d->sections, below(d->sections->len)) : NULL;
        if (kind == 0 && sec) {                       /* insert items */
            guint n = 1 + below(3), at = below(sec->items->len + 1);
            for (guint i = 0; i < n; i++) g_ptr_array_insert(sec->items, (gint)(at + i), g_strdup_printf("i%d", next_id++));
        } else if (kind == 1 && sec && sec->items->len) { /* delete an item */
            g_ptr_array_remove_index(sec->items, below(sec->items->len));
        } else if ((kind == 2 || kind == 3) && sec && sec->items->len) { /* move an item, maybe across */
            char *id = g_ptr_array_steal_index(sec->items, below(sec->items->len));
            LayoutdSyncSection *to = kind == 3 ? g_ptr_array_index(d->sections, below(d->sections->len)) : sec;
            g_ptr_array_insert(to->items, (gint)below(to->items->len + 1), id);
        } else if (kind == 4) {                       /* insert a section, maybe with items */
            LayoutdSyncSection *n = g_new0(LayoutdSyncSection, 1);
            n->id = g_strdup_printf("s%d", next_id++);
            n->items = g_ptr_array_new_with_free_func(g_free);
            for (guint i = below(4); i > 0; i--) g_ptr_array_add(n->items, g_strdup_printf("i%d", next_id++));
            g_ptr_array_insert(d->sections, (gint)below(d->sections->len + 1), n);
        } else if (kind == 5 && d->sections->len > 1) { /* delete a section */
            g_ptr_array_remove_index(d->sections, below(d->sections->len));
        } else if (kind == 6 && d->sections->len > 1) { /* move a section */
            gpointer s = g_ptr_array_steal_index(d->sections, below(d->sections->len));
            g_ptr_array_insert(d->sections, (gint)below(d->sections->len + 1), s);
        }
    }
    d->item_count = 0;
    for (guint s = 0; s < d->sections->len; s++) d->item_count += ((LayoutdSyncSection *)g_ptr_array_index(d->sections, s))->items->len;
    d->where_valid = FALSE;
    return d;
}

static int compare_rows(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The daemon's data: every cell of a view whose window holds everything, by (section, item). */
static char *daemon_data(layoutd_client *c, const char *view, int64_t *sections)
{
    char params[128];
    snprintf(params, sizeof params, "{\"view\":\"%s\"}", view);
    layoutd_json *r = NULL;
    layoutd_error err;
    if (layoutd_call_raw(c, "view.get", params, NULL, &r, &err) < 0) {
        fprintf(stderr, "view.get: %s\n", err.message);
        exit(1);
    }
    *sections = (int64_t)layoutd_json_number(layoutd_json_get(r, "sectionCount"), -1);
    const layoutd_json *els = layoutd_json_get(r, "elements");
    GPtrArray *rows = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; layoutd_json_at(els, i); i++) {
        const layoutd_json *e = layoutd_json_at(els, i);
        g_ptr_array_add(rows, g_strdup_printf("%06d %06d %s", (int)layoutd_json_number(layoutd_json_get(e, "section"), 0),
                                              (int)layoutd_json_number(layoutd_json_get(e, "item"), 0),
                                              layoutd_json_string(layoutd_json_get(e, "id"))));
    }
    g_ptr_array_sort(rows, compare_rows);
    GString *out = g_string_new(NULL);
    for (guint i = 0; i < rows->len; i++) g_string_append_printf(out, "%s\n", (char *)g_ptr_array_index(rows, i));
    g_ptr_array_unref(rows);
    layoutd_json_free(r);
    return g_string_free(out, FALSE);
}

static char *expected_data(const LayoutdSyncData *d)
{
    GPtrArray *rows = g_ptr_array_new_with_free_func(g_free);
    for (guint s = 0; s < d->sections->len; s++) {
        LayoutdSyncSection *sec = g_ptr_array_index(d->sections, s);
        for (guint i = 0; i < sec->items->len; i++)
            g_ptr_array_add(rows, g_strdup_printf("%06u %06u %s", s, i, (char *)g_ptr_array_index(sec->items, i)));
    }
    g_ptr_array_sort(rows, compare_rows);
    GString *out = g_string_new(NULL);
    for (guint i = 0; i < rows->len; i++) g_string_append_printf(out, "%s\n", (char *)g_ptr_array_index(rows, i));
    g_ptr_array_unref(rows);
    return g_string_free(out, FALSE);
}

static void call(layoutd_client *c, const char *method, GString *params)
{
    layoutd_error err;
    if (layoutd_call_raw(c, method, params->str, NULL, NULL, &err) < 0) {
        fprintf(stderr, "%s refused: %s: %s\n  %s\n", method, err.name, err.message, params->str);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_sync SOCKET [SEED]\n");
        return 2;
    }
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(argv[1], &err);
    if (!c) {
        fprintf(stderr, "connect: %s\n", err.message);
        return 1;
    }
    guint32 first = argc > 2 ? (guint32)strtoul(argv[2], NULL, 10) : 1;
    guint32 count = argc > 3 ? (guint32)strtoul(argv[3], NULL, 10) : argc > 2 ? 1 : 400;
    int fallbacks = 0, batches = 0;
    for (guint32 seed = first; seed < first + count; seed++) {
        rng_state = seed * 2654435761u + 1;
        next_id = 0;
        LayoutdSyncData *old_data = random_data(), *new_data = random_edit(old_data);
        char view[32];
        snprintf(view, sizeof view, "sync%u", seed);
        GString *p = g_string_new(NULL);
        g_string_printf(p, "{\"view\":\"%s\",\"strategy\":\"flow\",\"params\":{\"itemSize\":{\"width\":10,\"height\":10}},"
                           "\"viewport\":{\"width\":1000,\"height\":100000},\"sections\":", view);
        layoutd_sync_data_write(old_data, p, 0, old_data->item_count);
        g_string_append_c(p, '}');
        call(c, "view.create", p);
        GString *updates = g_string_new(NULL);
        guint named = 0;
        gboolean ok = layoutd_sync_diff(old_data, new_data, updates, &named, NULL);
        g_string_printf(p, "{\"view\":\"%s\",", view);
        if (ok) {
            g_string_append_printf(p, "\"updates\":%s}", updates->str);
            call(c, "view.update", p);
            batches++;
        } else {
            g_string_append(p, "\"sections\":");
            layoutd_sync_data_write(new_data, p, 0, new_data->item_count);
            g_string_append_c(p, '}');
            call(c, "view.setData", p);
            fallbacks++;
        }
        int64_t sections = 0;
        char *got = daemon_data(c, view, &sections), *want = expected_data(new_data);
        if (strcmp(got, want) != 0 || sections != (int64_t)new_data->sections->len) {
            fprintf(stderr, "seed %u: the daemon's data differs after %s\n  batch: %s\n  expected (%u sections):\n%s  got (%lld sections):\n%s",
                    seed, ok ? "the batch" : "setData", updates->str, new_data->sections->len, want, (long long)sections, got);
            return 1;
        }
        g_string_printf(p, "{\"view\":\"%s\"}", view);
        call(c, "view.delete", p);
        g_free(got);
        g_free(want);
        g_string_free(p, TRUE);
        g_string_free(updates, TRUE);
        layoutd_sync_data_free(old_data);
        layoutd_sync_data_free(new_data);
    }
    printf("test_sync: %u cases from seed %u: %d batches equal the new data, %d edits no batch can express (setData)\n",
           count, first, batches, fallbacks);
    layoutd_client_close(c);
    return 0;
}
