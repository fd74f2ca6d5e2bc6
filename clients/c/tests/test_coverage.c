/* Every method of the protocol has a typed function in this library, or is on the explicit
   raw-only list with a reason (src/coverage.c). A method in neither fails here, by name; so does
   a stale entry, a method on both lists, or a method listed twice. The methods are protocol.h's
   table and, read here directly, protocol/interface.json's (the argument): a description newer
   than the generated table fails too. Also: the lookup functions of protocol.h agree with their
   tables and with the macros. No daemon needed.
     test_coverage protocol/interface.json */
#include "testutil.h"
#include "internal.h"

static const ld_typed_method *typed_entry(const char *method)
{
    for (size_t i = 0; i < ld_typed_method_count; i++)
        if (!strcmp(ld_typed_methods[i].method, method)) return &ld_typed_methods[i];
    return NULL;
}

static const ld_raw_method *raw_entry(const char *method)
{
    for (size_t i = 0; i < ld_raw_method_count; i++)
        if (!strcmp(ld_raw_methods[i].method, method)) return &ld_raw_methods[i];
    return NULL;
}

/* Each method of the protocol is typed or raw-only, not both. */
static void every_method_is_covered(void)
{
    size_t typed = 0, raw = 0;
    CHECK(layoutd_method_count() > 0 && layoutd_method_at(layoutd_method_count()) == NULL, "the table ends at its count");
    for (size_t i = 0; i < layoutd_method_count(); i++) {
        const layoutd_method_info *m = layoutd_method_at(i);
        const ld_typed_method *t = typed_entry(m->name);
        const ld_raw_method *r = raw_entry(m->name);
        CHECK(t || r,
              "%s (protocol/interface.json) has no typed function and is not on the raw-only list: add its function to "
              "ld_typed_methods in src/coverage.c, or the method to ld_raw_methods with a reason",
              m->name);
        CHECK(!(t && r), "%s is both typed (%s) and raw-only", m->name, t ? t->function : "");
        if (t) {
            typed++;
            CHECK(t->address != NULL && !strncmp(t->function, "layoutd_", 8), "%s: %s is a library function", m->name, t->function);
        }
        if (r) {
            raw++;
            CHECK(r->reason && strlen(r->reason) > 10, "%s: raw-only needs a reason", m->name);
        }
    }
    printf("test_coverage: %zu methods in protocol.h's table: %zu typed, %zu raw-only\n", layoutd_method_count(), typed, raw);
}

/* Nothing on either list that the protocol does not have, nothing listed twice. */
static void no_stale_entries(void)
{
    for (size_t i = 0; i < ld_typed_method_count; i++) {
        const ld_typed_method *t = &ld_typed_methods[i];
        CHECK(layoutd_method_named(t->method) != NULL, "ld_typed_methods lists %s (%s), which protocol/interface.json does not have",
              t->method, t->function);
        CHECK(typed_entry(t->method) == t, "%s is on ld_typed_methods twice", t->method);
        size_t same = 0;
        while (same < i && ld_typed_methods[same].address != t->address) same++;
        CHECK(same == i, "%s and %s name the same function %s", same < i ? ld_typed_methods[same].method : "", t->method, t->function);
    }
    for (size_t i = 0; i < ld_raw_method_count; i++) {
        const ld_raw_method *r = &ld_raw_methods[i];
        CHECK(layoutd_method_named(r->method) != NULL, "ld_raw_methods lists %s, which protocol/interface.json does not have", r->method);
        CHECK(raw_entry(r->method) == r, "%s is on ld_raw_methods twice", r->method);
    }
}

/* protocol.h's lookups: by index and by name agree, macros match their entries. */
static void lookups(void)
{
    for (size_t i = 0; i < layoutd_method_count(); i++)
        CHECK(layoutd_method_named(layoutd_method_at(i)->name) == layoutd_method_at(i), "method %zu by name", i);
    for (size_t i = 0; i < layoutd_event_count(); i++)
        CHECK(layoutd_event_named(layoutd_event_at(i)->name) == layoutd_event_at(i), "event %zu by name", i);
    for (size_t i = 0; i < layoutd_error_count(); i++) {
        const layoutd_error_info *e = layoutd_error_at(i);
        CHECK(layoutd_error_named(e->name) == e && e->code <= -32000 && e->code >= -32768 && *e->meaning, "error %s", e->name);
    }
    CHECK(!layoutd_method_named("view.nope") && !layoutd_method_named(NULL) && !layoutd_error_named("Nope") &&
          !layoutd_event_named("view.future") && !layoutd_event_at(layoutd_event_count()) && !layoutd_error_at(layoutd_error_count()),
          "unknown names and indexes past the end");
    const layoutd_method_info *scroll = layoutd_method_named(LAYOUTD_METHOD_VIEW_SCROLL), *get = layoutd_method_named(LAYOUTD_METHOD_VIEW_GET);
    CHECK(scroll && scroll->mutates && get && !get->mutates && *scroll->summary, "mutates");
    const layoutd_error_info *missing = layoutd_error_named(LAYOUTD_ERROR_VIEW_NOT_FOUND), *long_line = layoutd_error_named(LAYOUTD_ERROR_LINE_TOO_LONG);
    CHECK(missing && missing->code == LAYOUTD_CODE_VIEW_NOT_FOUND && missing->code == -32001 && !missing->closes_connection,
          "ViewNotFound");
    CHECK(long_line && long_line->code == LAYOUTD_CODE_LINE_TOO_LONG && long_line->closes_connection &&
          LAYOUTD_CODE_LINE_TOO_LONG == LAYOUTD_CODE_PARSE_ERROR, "LineTooLong closes the connection and shares ParseError's code");
    const layoutd_event_info *shutdown = layoutd_event_named(LAYOUTD_EVENT_DAEMON_SHUTDOWN), *inv = layoutd_event_named(LAYOUTD_EVENT_VIEW_INVALIDATED);
    CHECK(shutdown && shutdown->connection_wide && inv && !inv->connection_wide, "event scopes");
    CHECK(LAYOUTD_PROTOCOL_VERSION == 1, "protocol version");
}

/* The description itself: every method it names is in the generated table (else protocol.h and
   protocol.c are stale) and typed or raw-only; the table has nothing the description lacks. */
static void description_matches(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { CHECK(0, "%s: %s", path, strerror(errno)); return; }
    static char text[4 << 20];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    char why[200];
    layoutd_json *root = layoutd_json_parse(text, n, why, sizeof why);
    const layoutd_json *methods = layoutd_json_get(root, "methods");
    CHECK(root && methods && methods->count > 0, "%s: %s", path, root ? "no methods" : why);
    for (size_t i = 0; methods && i < methods->count; i++) {
        const char *name = layoutd_json_string(layoutd_json_get(&methods->items[i], "name"));
        CHECK(name && layoutd_method_named(name) && layoutd_method_at(i) == layoutd_method_named(name),
              "%s describes %s, which protocol.h's table does not have (at %zu): run scripts/generate-protocol.py", path,
              name ? name : "?", i);
        CHECK(name && (typed_entry(name) || raw_entry(name)),
              "%s (%s) has no typed function and is not on the raw-only list: add its function to ld_typed_methods in "
              "src/coverage.c, or the method to ld_raw_methods with a reason",
              name ? name : "?", path);
    }
    CHECK(methods && methods->count == layoutd_method_count(), "protocol.h's table has %zu methods, %s %zu: run scripts/generate-protocol.py",
          layoutd_method_count(), path, methods ? methods->count : 0);
    layoutd_json_free(root);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: test_coverage protocol/interface.json\n"); return 2; }
    description_matches(argv[1]);
    every_method_is_covered();
    no_stale_entries();
    lookups();
    return t_report("test_coverage");
}
