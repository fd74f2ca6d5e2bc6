/* The data the daemon holds, as the view last sent it, and the batch that turns it into the
 * model's data now.
 *
 * The view does not forward each items-changed signal: it marks the model dirty and, once a
 * frame, diffs the data it sent against the model by id (UIKit's diffable data source), so
 * any number of changes in one frame become one atomic view.update. The batch uses the
 * protocol's final positions: items and sections that keep their relative order (a longest
 * increasing run) stay put, the others are moved or inserted at their final positions, which
 * the daemon applies in ascending order, so the result is exactly the new order. O(n log n) in
 * the model's size, once a frame with changes. */
#include "private.h"
#include <string.h>

static void section_free(gpointer p)
{
    LayoutdSyncSection *s = p;
    g_free(s->id);
    g_ptr_array_unref(s->items);
    g_free(s);
}

static LayoutdSyncSection *section_new(const char *id)
{
    LayoutdSyncSection *s = g_new(LayoutdSyncSection, 1);
    s->id = g_strdup(id);
    s->items = g_ptr_array_new_with_free_func(g_free);
    return s;
}

LayoutdSyncData *layoutd_sync_data_new(void)
{
    LayoutdSyncData *d = g_new0(LayoutdSyncData, 1);
    d->sections = g_ptr_array_new_with_free_func(section_free);
    d->where = g_hash_table_new(g_str_hash, g_str_equal);
    return d;
}

void layoutd_sync_data_free(LayoutdSyncData *d)
{
    if (!d) return;
    g_hash_table_unref(d->where);
    g_ptr_array_unref(d->sections);
    g_free(d);
}

LayoutdSyncData *layoutd_sync_data_copy(const LayoutdSyncData *d)
{
    LayoutdSyncData *c = layoutd_sync_data_new();
    for (guint i = 0; i < d->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(d->sections, i);
        LayoutdSyncSection *n = section_new(s->id);
        for (guint j = 0; j < s->items->len; j++) g_ptr_array_add(n->items, g_strdup(g_ptr_array_index(s->items, j)));
        g_ptr_array_add(c->sections, n);
    }
    c->item_count = d->item_count;
    return c;
}

static void index_data(LayoutdSyncData *d)
{
    if (d->where_valid) return;
    g_hash_table_remove_all(d->where);
    for (guint i = 0; i < d->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(d->sections, i);
        for (guint j = 0; j < s->items->len; j++)
            g_hash_table_insert(d->where, g_ptr_array_index(s->items, j), GSIZE_TO_POINTER((((gsize)i << 32) | j) + 1));
    }
    d->where_valid = TRUE;
}

gboolean layoutd_sync_data_locate(LayoutdSyncData *d, const char *id, guint *section, guint *index)
{
    index_data(d);
    gsize v = GPOINTER_TO_SIZE(g_hash_table_lookup(d->where, id));
    if (!v) return FALSE;
    v--;
    if (section) *section = (guint)(v >> 32);
    if (index) *index = (guint)(v & 0xffffffffu);
    return TRUE;
}

gint64 layoutd_sync_data_flat_index(LayoutdSyncData *d, const char *id)
{
    guint s, i;
    if (!layoutd_sync_data_locate(d, id, &s, &i)) return -1;
    gint64 flat = i;
    for (guint k = 0; k < s; k++) flat += ((LayoutdSyncSection *)g_ptr_array_index(d->sections, k))->items->len;
    return flat;
}

static char *string_property(GObject *o, const char *name, gboolean *present)
{
    GParamSpec *p = g_object_class_find_property(G_OBJECT_GET_CLASS(o), name);
    *present = p && p->value_type == G_TYPE_STRING;
    if (!*present) return NULL;
    char *v = NULL;
    g_object_get(o, name, &v, NULL);
    return v;
}

LayoutdSyncData *layoutd_sync_data_from_model(GListModel *model, GError **error)
{
    LayoutdSyncData *d = layoutd_sync_data_new();
    guint n = model ? g_list_model_get_n_items(model) : 0;
    GHashTable *seen_sections = g_hash_table_new(g_str_hash, g_str_equal);
    LayoutdSyncSection *current = NULL;
    for (guint i = 0; i < n; i++) {
        GObject *o = g_list_model_get_item(model, i);
        gboolean has_id, has_section;
        char *id = string_property(o, "id", &has_id);
        char *section = string_property(o, "section", &has_section);
        g_object_unref(o);
        if (!id || !*id) {
            g_set_error(error, LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                        "InvalidArgument: model item %u has %s", i, has_id ? "an empty id" : "no string property \"id\"");
            g_free(id);
            g_free(section);
            goto fail;
        }
        if (!section) section = g_strdup("s");
        if (!current || strcmp(current->id, section) != 0) {
            if (g_hash_table_contains(seen_sections, section)) {
                g_set_error(error, LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT,
                            "InvalidArgument: the items of section '%s' are not consecutive in the model (item %u)", section, i);
                g_free(id);
                g_free(section);
                goto fail;
            }
            current = section_new(section);
            g_ptr_array_add(d->sections, current);
            g_hash_table_add(seen_sections, current->id);
        }
        g_free(section);
        if (g_hash_table_contains(d->where, id)) {
            g_set_error(error, LAYOUTD_ERROR, LAYOUTD_ERROR_INVALID_ARGUMENT, "InvalidArgument: the id '%s' is used twice in the model", id);
            g_free(id);
            goto fail;
        }
        g_ptr_array_add(current->items, id);
        g_hash_table_insert(d->where, id, GSIZE_TO_POINTER((((gsize)(d->sections->len - 1) << 32) | (current->items->len - 1)) + 1));
    }
    d->where_valid = TRUE;
    d->item_count = n;
    g_hash_table_unref(seen_sections);
    return d;
fail:
    g_hash_table_unref(seen_sections);
    layoutd_sync_data_free(d);
    return NULL;
}

void layoutd_sync_data_move(LayoutdSyncData *d, const char *const *ids, guint count, guint section, guint index)
{
    GPtrArray *taken = g_ptr_array_new();
    for (guint k = 0; k < count; k++) {
        guint s, i;
        if (!layoutd_sync_data_locate(d, ids[k], &s, &i)) continue;
        LayoutdSyncSection *sec = g_ptr_array_index(d->sections, s);
        g_ptr_array_add(taken, g_ptr_array_steal_index(sec->items, i));
        d->where_valid = FALSE;
    }
    if (section < d->sections->len) {
        LayoutdSyncSection *sec = g_ptr_array_index(d->sections, section);
        guint at = MIN(index, sec->items->len);
        for (guint k = 0; k < taken->len; k++) g_ptr_array_insert(sec->items, (gint)(at + k), g_ptr_array_index(taken, k));
    } else {
        for (guint k = 0; k < taken->len; k++) g_free(g_ptr_array_index(taken, k));
    }
    g_ptr_array_unref(taken);
    d->where_valid = FALSE;
}

static void write_items(GString *out, GPtrArray *items, guint from, guint to)
{
    g_string_append_c(out, '[');
    for (guint j = from; j < to; j++) {
        if (j > from) g_string_append_c(out, ',');
        g_string_append(out, "{\"id\":");
        layoutd_gtk_json_string(out, g_ptr_array_index(items, j));
        g_string_append_c(out, '}');
    }
    g_string_append_c(out, ']');
}

void layoutd_sync_data_write(const LayoutdSyncData *d, GString *out, guint from, guint to)
{
    g_string_append_c(out, '[');
    guint flat = 0;
    gboolean first = TRUE;
    for (guint i = 0; i < d->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(d->sections, i);
        guint start = flat, end = flat + s->items->len;
        flat = end;
        /* An empty section goes with the part its position falls in (the last part takes
           those at the very end), so each section is named once, in order. */
        gboolean in_range = s->items->len == 0 ? (start >= from && (start < to || to == d->item_count))
                                               : (end > from && start < to);
        if (!in_range) continue;
        if (!first) g_string_append_c(out, ',');
        first = FALSE;
        g_string_append(out, "{\"id\":");
        layoutd_gtk_json_string(out, s->id);
        g_string_append(out, ",\"items\":");
        guint a = from > start ? from - start : 0, b = MIN(to, end) - start;
        write_items(out, s->items, a, s->items->len ? b : 0);
        g_string_append_c(out, '}');
    }
    g_string_append_c(out, ']');
}

/* Marks the members of the longest increasing subsequence of `keys` (patience sorting). */
static void longest_increasing(const gint64 *keys, guint n, gboolean *keep)
{
    if (n == 0) return;
    guint *tails = g_new(guint, n), *prev = g_new(guint, n);
    guint len = 0;
    for (guint i = 0; i < n; i++) {
        guint lo = 0, hi = len;
        while (lo < hi) {
            guint mid = (lo + hi) / 2;
            if (keys[tails[mid]] < keys[i]) lo = mid + 1;
            else hi = mid;
        }
        prev[i] = lo > 0 ? tails[lo - 1] : G_MAXUINT;
        tails[lo] = i;
        if (lo == len) len++;
    }
    for (guint i = 0; i < n; i++) keep[i] = FALSE;
    for (guint k = tails[len - 1]; k != G_MAXUINT; k = prev[k]) keep[k] = TRUE;
    g_free(tails);
    g_free(prev);
}

static void begin_update(GString *out, gboolean *first)
{
    if (!*first) g_string_append_c(out, ',');
    *first = FALSE;
}

gboolean layoutd_sync_diff(LayoutdSyncData *old_data, LayoutdSyncData *new_data, GString *out, guint *named,
                           GPtrArray *deleted)
{
    index_data(old_data);
    index_data(new_data);
    guint count = 0;
    gboolean first = TRUE;
    g_string_append_c(out, '[');

    /* Sections: old ids, to tell deleted, kept and new ones apart. */
    GHashTable *old_sections = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *new_sections = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < old_data->sections->len; i++)
        g_hash_table_insert(old_sections, ((LayoutdSyncSection *)g_ptr_array_index(old_data->sections, i))->id, GUINT_TO_POINTER(i + 1));
    for (guint i = 0; i < new_data->sections->len; i++)
        g_hash_table_insert(new_sections, ((LayoutdSyncSection *)g_ptr_array_index(new_data->sections, i))->id, GUINT_TO_POINTER(i + 1));

    gboolean expressible = TRUE;
    GString *deleted_sections = g_string_new(NULL);
    for (guint i = 0; i < old_data->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(old_data->sections, i);
        if (g_hash_table_contains(new_sections, s->id)) continue;
        /* A batch may not reach into a section it deletes: an item that leaves a deleted
           section for another one cannot be said in one view.update. */
        for (guint j = 0; j < s->items->len; j++)
            if (layoutd_sync_data_locate(new_data, g_ptr_array_index(s->items, j), NULL, NULL)) expressible = FALSE;
        if (deleted_sections->len) g_string_append_c(deleted_sections, ',');
        layoutd_gtk_json_string(deleted_sections, s->id);
        count++;
    }
    if (!expressible) goto done;
    if (deleted_sections->len) {
        begin_update(out, &first);
        g_string_append_printf(out, "{\"op\":\"deleteSections\",\"ids\":[%s]}", deleted_sections->str);
    }

    /* Kept sections in their new order: those off the longest run in old order move. */
    {
        guint n = new_data->sections->len;
        gint64 *keys = g_new(gint64, n);
        guint *kept_at = g_new(guint, n);
        guint kept = 0;
        for (guint i = 0; i < n; i++) {
            LayoutdSyncSection *s = g_ptr_array_index(new_data->sections, i);
            guint old = GPOINTER_TO_UINT(g_hash_table_lookup(old_sections, s->id));
            if (old) {
                keys[kept] = old;
                kept_at[kept++] = i;
            }
        }
        gboolean *keep = g_new(gboolean, MAX(kept, 1));
        longest_increasing(keys, kept, keep);
        for (guint k = 0; k < kept; k++) {
            if (keep[k]) continue;
            LayoutdSyncSection *s = g_ptr_array_index(new_data->sections, kept_at[k]);
            begin_update(out, &first);
            g_string_append(out, "{\"op\":\"moveSection\",\"id\":");
            layoutd_gtk_json_string(out, s->id);
            g_string_append_printf(out, ",\"at\":%u}", kept_at[k]);
            count++;
        }
        for (guint i = 0; i < n; i++) {
            LayoutdSyncSection *s = g_ptr_array_index(new_data->sections, i);
            if (g_hash_table_contains(old_sections, s->id)) continue;
            /* New sections arrive empty; their items are inserted or moved in like any other. */
            begin_update(out, &first);
            g_string_append_printf(out, "{\"op\":\"insertSections\",\"at\":%u,\"sections\":[{\"id\":", i);
            layoutd_gtk_json_string(out, s->id);
            g_string_append(out, ",\"items\":[]}]}");
            count++;
        }
        g_free(keys);
        g_free(kept_at);
        g_free(keep);
    }

    /* Deleted items (those of deleted sections go with their sections). */
    {
        GString *ids = g_string_new(NULL);
        for (guint i = 0; i < old_data->sections->len; i++) {
            LayoutdSyncSection *s = g_ptr_array_index(old_data->sections, i);
            if (!g_hash_table_contains(new_sections, s->id)) {
                if (deleted) for (guint j = 0; j < s->items->len; j++) g_ptr_array_add(deleted, g_strdup(g_ptr_array_index(s->items, j)));
                continue;
            }
            for (guint j = 0; j < s->items->len; j++) {
                const char *id = g_ptr_array_index(s->items, j);
                if (layoutd_sync_data_locate(new_data, id, NULL, NULL)) continue;
                if (ids->len) g_string_append_c(ids, ',');
                layoutd_gtk_json_string(ids, id);
                if (deleted) g_ptr_array_add(deleted, g_strdup(id));
                count++;
            }
        }
        if (ids->len) {
            begin_update(out, &first);
            g_string_append_printf(out, "{\"op\":\"deleteItems\",\"ids\":[%s]}", ids->str);
        }
        g_string_free(ids, TRUE);
    }

    /* Items section by section: the kept ones off the longest run move, runs of new ones are
       inserted, each at its final position. */
    for (guint i = 0; i < new_data->sections->len; i++) {
        LayoutdSyncSection *s = g_ptr_array_index(new_data->sections, i);
        guint old_section_plus1 = GPOINTER_TO_UINT(g_hash_table_lookup(old_sections, s->id));
        guint n = s->items->len;
        gint64 *keys = g_new(gint64, MAX(n, 1));
        guint *kept_at = g_new(guint, MAX(n, 1));
        guint kept = 0;
        for (guint j = 0; j < n; j++) {
            guint os, oi;
            if (old_section_plus1 && layoutd_sync_data_locate(old_data, g_ptr_array_index(s->items, j), &os, &oi) &&
                os == old_section_plus1 - 1) {
                keys[kept] = oi;
                kept_at[kept++] = j;
            }
        }
        gboolean *stays = g_new0(gboolean, MAX(n, 1));
        gboolean *keep = g_new(gboolean, MAX(kept, 1));
        longest_increasing(keys, kept, keep);
        for (guint k = 0; k < kept; k++) if (keep[k]) stays[kept_at[k]] = TRUE;
        for (guint j = 0; j < n;) {
            const char *id = g_ptr_array_index(s->items, j);
            if (stays[j]) { j++; continue; }
            if (layoutd_sync_data_locate(old_data, id, NULL, NULL)) {
                begin_update(out, &first);
                g_string_append(out, "{\"op\":\"moveItem\",\"id\":");
                layoutd_gtk_json_string(out, id);
                g_string_append(out, ",\"section\":");
                layoutd_gtk_json_string(out, s->id);
                g_string_append_printf(out, ",\"at\":%u}", j);
                count++;
                j++;
                continue;
            }
            guint run = j;
            while (run < n && !stays[run] && !layoutd_sync_data_locate(old_data, g_ptr_array_index(s->items, run), NULL, NULL)) run++;
            begin_update(out, &first);
            g_string_append(out, "{\"op\":\"insertItems\",\"section\":");
            layoutd_gtk_json_string(out, s->id);
            g_string_append_printf(out, ",\"at\":%u,\"items\":", j);
            write_items(out, s->items, j, run);
            g_string_append_c(out, '}');
            count += run - j;
            j = run;
        }
        g_free(keys);
        g_free(kept_at);
        g_free(stays);
        g_free(keep);
    }
done:
    g_string_append_c(out, ']');
    g_string_free(deleted_sections, TRUE);
    g_hash_table_unref(old_sections);
    g_hash_table_unref(new_sections);
    *named = count;
    return expressible;
}
