/* Runs an example binary against a fresh daemon (LAYOUTD_SOCKET set, as a user would) twice:
   once creating its view, once opening it. */
#include "testutil.h"

static int run(const char *binary, const char *socket, int round)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "LAYOUTD_SOCKET='%s' '%s'", socket, binary);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    int frames = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, "frame ", 6)) frames++;
        if (round == 0 && frames <= 3) fputs(line, stdout);
    }
    int status = pclose(p);
    CHECK(status == 0, "%s exited with %d", binary, status);
    CHECK(frames == 10, "10 frames printed, got %d", frames);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    td_daemon d = {0};
    if (td_start(&d, NULL)) return 1;
    run(argv[1], d.path, 0);
    run(argv[1], d.path, 1);
    layoutd_client *c = layoutd_client_connect(d.path, NULL);
    layoutd_snapshot s;
    CHECK(c && layoutd_view_get(c, "scroll-demo", &s, NULL) == 0 && s.item_count == 100000, "the view has 100000 items");
    if (c) layoutd_snapshot_free(&s);
    layoutd_client_close(c);
    td_cleanup(&d);
    return t_report("test_example");
}
