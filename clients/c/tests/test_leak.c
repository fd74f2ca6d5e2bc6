/* No per-call state survives its call: 200,000 calls against a real daemon (blocking typed and
   raw calls, and non-blocking ones answered through callbacks) leave the pending table empty,
   no strays, and VmRSS flat (within 1 MiB between the 20,000th call and the last). Built
   without sanitizers, whose allocator would be measured. */
#include "testutil.h"
#include "rss.h"

static void on_reply(layoutd_client *c, const layoutd_reply *r, void *user)
{
    (void)c;
    if (!r->error) ++*(int *)user;
}

int main(void)
{
    td_daemon d = {0};
    if (td_start(&d, NULL)) return 1;
    layoutd_error err;
    layoutd_client *c = layoutd_client_connect(d.path, &err);
    CHECK(c != NULL, "connect");
    if (!c) return t_report("test_leak");
    const int calls = 200000;
    long warm = 0, peak = 0;
    int answered = 0, failures = 0;
    for (int i = 0; i < calls; i++) {
        int rc = 0;
        switch (i % 4) {
        case 0: rc = layoutd_sync(c, &err); break;
        case 1: {
            char *text = NULL;
            rc = layoutd_call_raw(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, &text, NULL, &err);
            free(text);
            break;
        }
        case 2: rc = layoutd_send(c, LAYOUTD_METHOD_DAEMON_SYNC, NULL, on_reply, &answered, &err) > 0 ? 0 : -1; break;
        default:
            while (layoutd_client_pending_count(c) && layoutd_client_wait(c, 1000, &err) >= 0) {}
        }
        if (rc) failures++;
        if (i == calls / 10) warm = rss_kib();
        if (i > calls / 10 && i % 1000 == 0) { long r = rss_kib(); if (r > peak) peak = r; }
    }
    CHECK(failures == 0, "%d calls failed (%s)", failures, err.message);
    CHECK(answered == calls / 4, "%d of %d callbacks answered", answered, calls / 4);
    CHECK(layoutd_client_pending_count(c) == 0, "%zu requests left pending", layoutd_client_pending_count(c));
    CHECK(layoutd_client_stray_count(c) == 0, "%llu strays", (unsigned long long)layoutd_client_stray_count(c));
    printf("test_leak: %d calls, VmRSS %ld KiB at 10 %%, at most %ld KiB after\n", calls, warm, peak);
    CHECK(peak - warm <= 1024, "RSS grew %ld KiB after warming up", peak - warm);
    layoutd_client_close(c);
    td_cleanup(&d);
    return t_report("test_leak");
}
