/* The collection view from C, built as an application would (the library's header, its
 * pkg-config flags): a flow grid in a window under Xvfb, every cell's allocation compared with
 * the daemon's view.get (through the C client on a connection of its own), and the grid's
 * arithmetic checked directly for the first row.
 *
 * Usage: test_view SOCKET (a layoutd serving there). Exit status 0 when every check passes.
 */
#include <layoutd-gtk/layoutd-gtk.h>
#include <layoutd/client.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static void on_setup(LayoutdCellFactory *factory, LayoutdListItem *item, gpointer data) {
    layoutd_list_item_set_child(item, gtk_label_new(""));
}

static void on_bind(LayoutdCellFactory *factory, LayoutdListItem *item, gpointer data) {
    gtk_label_set_text(GTK_LABEL(layoutd_list_item_get_child(item)), layoutd_list_item_get_id(item));
}

static void on_error(LayoutdCollectionView *view, GError *error, gpointer data) {
    fprintf(stderr, "error signal: %s (%d)\n", error->message, error->code);
    failures++;
}

static gboolean wake(gpointer data) { return G_SOURCE_CONTINUE; }

/* Iterates the main context until the view is READY and idle, and a few frames have passed. */
static gboolean wait_idle(LayoutdCollectionView *view, double seconds) {
    gint64 deadline = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    guint source = g_timeout_add(5, wake, NULL);
    int settled = 0;
    while (g_get_monotonic_time() < deadline && settled < 10) {
        g_main_context_iteration(NULL, TRUE);
        if (layoutd_collection_view_get_state(view) == LAYOUTD_VIEW_STATE_READY && layoutd_collection_view_is_idle(view))
            settled++;
        else
            settled = 0;
        if (layoutd_collection_view_get_state(view) == LAYOUTD_VIEW_STATE_FAILED)
            break;
    }
    g_source_remove(source);
    return settled >= 10;
}

static int compare_with_daemon(LayoutdCollectionView *view, layoutd_client *client, const char *name) {
    char params[256];
    snprintf(params, sizeof params, "{\"view\":\"%s\"}", name);
    layoutd_json *snapshot = NULL;
    layoutd_error err;
    if (layoutd_call_raw(client, "view.get", params, NULL, &snapshot, &err) != 0) {
        fprintf(stderr, "view.get: %s %s\n", err.name, err.message);
        return -1;
    }
    const layoutd_json *offset = layoutd_json_get(layoutd_json_get(snapshot, "viewport"), "offset");
    double ox = layoutd_json_number(layoutd_json_get(offset, "x"), NAN), oy = layoutd_json_number(layoutd_json_get(offset, "y"), NAN);
    const layoutd_json *elements = layoutd_json_get(snapshot, "elements");
    int count = 0;
    for (size_t i = 0; elements && i < elements->count; i++) {
        const layoutd_json *element = layoutd_json_at(elements, i);
        const char *id = layoutd_json_string(layoutd_json_get(element, "id"));
        const char *kind = layoutd_json_string(layoutd_json_get(element, "kind"));
        const layoutd_json *frame = layoutd_json_get(element, "frame");
        double want[4] = {layoutd_json_number(layoutd_json_get(frame, "x"), NAN) - ox, layoutd_json_number(layoutd_json_get(frame, "y"), NAN) - oy,
                          layoutd_json_number(layoutd_json_get(frame, "width"), NAN), layoutd_json_number(layoutd_json_get(frame, "height"), NAN)};
        graphene_rect_t rect;
        double alpha = -1;
        gboolean found = layoutd_collection_view_get_element_allocation(view, kind, id, &rect, &alpha);
        CHECK(found, "%s/%s has no allocation", kind, id);
        if (!found)
            continue;
        double got[4] = {rect.origin.x, rect.origin.y, rect.size.width, rect.size.height};
        for (int k = 0; k < 4; k++)
            CHECK(fabs(got[k] - want[k]) < 1e-3, "%s/%s field %d: widget %g, daemon frame minus offset %g", kind, id, k, got[k], want[k]);
        CHECK(fabs(alpha - layoutd_json_number(layoutd_json_get(element, "alpha"), NAN)) < 1e-3, "%s alpha %g", id, alpha);
        count++;
    }
    char **shown = layoutd_collection_view_list_elements(view);
    CHECK(shown && (int)g_strv_length(shown) == count, "%u widgets for %d elements in the daemon's window", shown ? g_strv_length(shown) : 0, count);
    g_strfreev(shown);
    layoutd_json_free(snapshot);
    return count;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
        return 2;
    }
    gtk_init();
    layoutd_error err;
    layoutd_client *client = layoutd_client_connect(argv[1], &err);
    if (!client) {
        fprintf(stderr, "connect %s: %s\n", argv[1], err.message);
        return 1;
    }

    GListStore *model = g_list_store_new(LAYOUTD_TYPE_ITEM);
    for (int i = 0; i < 40; i++) {
        char id[16];
        snprintf(id, sizeof id, "c%d", i);
        LayoutdItem *item = layoutd_item_new(id, NULL);
        g_list_store_append(model, item);
        g_object_unref(item);
    }
    LayoutdCellFactory *factory = layoutd_cell_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(on_setup), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(on_bind), NULL);

    LayoutdCollectionView *view = LAYOUTD_COLLECTION_VIEW(layoutd_collection_view_new());
    g_signal_connect(view, "error", G_CALLBACK(on_error), NULL);
    layoutd_collection_view_set_view_name(view, "c-test");
    layoutd_collection_view_set_strategy(view, "flow", "{\"itemSize\":{\"width\":100,\"height\":100}}", FALSE);
    layoutd_collection_view_set_factory(view, factory);
    layoutd_collection_view_set_model(view, G_LIST_MODEL(model));
    layoutd_collection_view_set_socket_path(view, argv[1]);
    CHECK(strcmp(layoutd_collection_view_get_strategy(view), "flow") == 0, "strategy %s", layoutd_collection_view_get_strategy(view));

    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), GTK_WIDGET(view));
    GtkWidget *window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), 400, 500);
    gtk_window_set_child(GTK_WINDOW(window), scrolled);
    gtk_window_present(GTK_WINDOW(window));

    CHECK(wait_idle(view, 20), "the view did not become READY and idle (state %d)", layoutd_collection_view_get_state(view));
    int width = gtk_widget_get_width(GTK_WIDGET(view));
    CHECK(compare_with_daemon(view, client, "c-test") > 0, "no elements compared at rest");

    /* The grid itself: m = floor((W + 10) / 110) columns; justified, so full rows spread the
       leftover evenly between items; rows 110 apart. */
    int columns = (width + 10) / 110;
    double gap = columns > 1 ? (double)(width - columns * 100) / (columns - 1) : 0;
    for (int i = 0; i < columns * 2; i++) {
        char id[16];
        snprintf(id, sizeof id, "c%d", i);
        graphene_rect_t rect;
        double alpha;
        CHECK(layoutd_collection_view_get_element_allocation(view, "cell", id, &rect, &alpha), "%s missing", id);
        double x = columns > 1 ? (i % columns) * (100 + gap) : (width - 100) / 2.0;
        CHECK(fabs(rect.origin.x - x) < 1e-3 && fabs(rect.origin.y - (i / columns) * 110) < 1e-3 && rect.size.width == 100 && rect.size.height == 100,
              "%s at %g,%g %gx%g, expected %g,%d 100x100 (width %d, %d columns)", id, rect.origin.x, rect.origin.y, rect.size.width,
              rect.size.height, x, (i / columns) * 110, width, columns);
    }

    /* Scrolled: every allocation moves by the offset. */
    GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment(GTK_SCROLLABLE(view));
    gtk_adjustment_set_value(vadjustment, 333.5);
    CHECK(wait_idle(view, 20), "not idle after scrolling");
    CHECK(compare_with_daemon(view, client, "c-test") > 0, "no elements compared after scrolling");
    guint64 frames = 0, round_trips = 0;
    double work = -1;
    layoutd_collection_view_get_stats(view, &frames, &round_trips, &work);
    CHECK(frames > 0 && round_trips > 0 && work >= 0, "stats: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " round trips, %g ms",
          frames, round_trips, work);

    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(factory);
    g_object_unref(model);
    layoutd_client_close(client);
    if (failures) {
        fprintf(stderr, "test_view: %d failures\n", failures);
        return 1;
    }
    printf("test_view: ok (%d columns)\n", columns);
    return 0;
}
