/* Opens (or creates, with a staged upload) a 100,000-item view, scrolls it and prints frames.
   Usage: scroll [SOCKET]   (else LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock, /run/layoutd/ipc.sock) */
#include <layoutd/client.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100000
static layoutd_item items[N / 4];
static char ids[N / 4][16];

int main(int argc, char **argv)
{
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(argc > 1 ? argv[1] : NULL, &err);
    layoutd_snapshot snap;
    if (!c) return fprintf(stderr, "connect: %s\n", err.message), 1;
    if (layoutd_view_get(c, "scroll-demo", &snap, &err) == 0) layoutd_snapshot_free(&snap);
    else { /* not there yet: an empty view, then the items in four parts of one staged upload */
        layoutd_view_spec spec = {.view = "scroll-demo", .strategy = "flow", .viewport = {.width = 320, .height = 480},
                                  .params_json = "{\"itemSize\":{\"width\":100,\"height\":100}}", .window_margin = 100};
        char upload[64];
        if (layoutd_view_create(c, &spec, NULL, &err) || layoutd_stage_begin(c, "scroll-demo", NULL, upload, sizeof upload, &err))
            return fprintf(stderr, "%s: %s\n", err.name, err.message), 1;
        for (int part = 0; part < 4; part++) { /* a part names at most maximumBatchSize items and sections */
            for (int i = 0; i < N / 4; i++) snprintf(ids[i], sizeof ids[i], "i%d", part * N / 4 + i), items[i].id = ids[i];
            layoutd_section s = {.id = "s", .item_count = N / 4, .items = items};
            if (layoutd_stage_append(c, upload, 1, &s, NULL, &err)) return fprintf(stderr, "%s: %s\n", err.name, err.message), 1;
        }
        if (layoutd_stage_commit(c, upload, NULL, NULL, &err)) return fprintf(stderr, "%s: %s\n", err.name, err.message), 1;
    }
    layoutd_subscription *sub = layoutd_subscribe(c, "scroll-demo", NULL, NULL, &err);
    if (!sub) return fprintf(stderr, "subscribe: %s\n", err.message), 1;
    layoutd_mirror *m = layoutd_subscription_mirror(sub);
    for (int frame = 0; frame < 10; frame++) {
        layoutd_point offset = {0, frame * 250.0}, velocity = {0, 1500};
        if (layoutd_view_scroll(c, "scroll-demo", offset, &velocity, 0, NULL, NULL, &err) || layoutd_sync(c, &err))
            return fprintf(stderr, "%s: %s\n", err.name, err.message), 1;
        const layoutd_attributes *first = NULL, *a; /* the topmost element of the mirror */
        for (size_t i = 0; (a = layoutd_mirror_at(m, i)); i++) if (!first || a->frame.y < first->frame.y) first = a;
        printf("frame %d: epoch %lld offset %g, %zu elements in the window, topmost %s at y %g\n", frame,
               (long long)layoutd_mirror_epoch(m), layoutd_mirror_content_offset(m).y, layoutd_mirror_count(m),
               first ? first->id : "-", first ? first->frame.y : 0.0);
    }
    layoutd_unsubscribe(c, sub, NULL);
    layoutd_client_close(c);
    return 0;
}
