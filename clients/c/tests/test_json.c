/* Unit tests of the JSON reader and writer. */
#include "testutil.h"
#include "internal.h"
#include <math.h>

static int parses(const char *s) { layoutd_json *j = layoutd_json_parse(s, strlen(s), NULL, 0); layoutd_json_free(j); return j != NULL; }
static int parses_n(const char *s, size_t n) { layoutd_json *j = layoutd_json_parse(s, n, NULL, 0); layoutd_json_free(j); return j != NULL; }

static char *roundtrip(const char *s)
{
    layoutd_json *j = layoutd_json_parse(s, strlen(s), NULL, 0);
    if (!j) return NULL;
    char *out = layoutd_json_write(j, NULL);
    layoutd_json_free(j);
    return out;
}

static void check_roundtrip(const char *in, const char *want)
{
    char *got = roundtrip(in);
    CHECK(got && strcmp(got, want) == 0, "%s -> %s (want %s)", in, got ? got : "(null)", want);
    free(got);
}

int main(void)
{
    /* accepted */
    const char *good[] = {"{}", "[]", "0", "-0", "1.5e3", "1E-2", "\"\"", "true", "false", "null", " {\"a\" : [1, 2, {\"b\":null}] } ",
                          "\"\\u00e9\\ud83d\\ude00\"", "\"é😀\"", "[1e308]", "\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"", "{\"a\":1,\"b\":2}",
                          "-1.0e+2", "123456789012345678901234567890", NULL};
    for (int i = 0; good[i]; i++) CHECK(parses(good[i]), "should parse: %s", good[i]);
    /* refused */
    const char *bad[] = {"", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "1e", "-", "NaN", "Infinity", "-Infinity",
                         "1e309", "-1e400", "tru", "nul", "[1 2]", "{\"a\" 1}", "{1:2}", "\"abc", "\"\\x\"", "\"\\u12\"",
                         "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "{\"a\":1,\"a\":2}", "{\"a\":1} x", "[] []",
                         "\"\x01\"", "'a'", "\"\xc3\x28\"", "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"",
                         "\"\xf4\x90\x80\x80\"", "\"\xff\"", "\"\xe2\x82\"", NULL};
    for (int i = 0; bad[i]; i++) CHECK(!parses(bad[i]), "should be refused: %s", bad[i]);
    CHECK(!parses_n("[1]\0", 4), "NUL after the value");
    CHECK(!parses_n("\"a\0b\"", 5), "raw NUL in a string");
    CHECK(parses_n("\"a\\u0000b\"", 10), "escaped NUL");

    /* depth: 128 nested containers are fine, 129 are not */
    char deep[600];
    for (int d = 127; d <= 130; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        deep[2 * d] = 0;
        CHECK(parses(deep) == (d <= LAYOUTD_JSON_MAX_DEPTH), "depth %d", d);
    }

    /* the line scanner (client.c checks every line with it, without a tree) agrees with the
       reader on every case above, wrapped as a member of an object */
    static const char *const wanted[] = {"a", "b", "id", NULL};
    ld_member found[3];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; (pass ? bad : good)[i]; i++) {
            const char *v = (pass ? bad : good)[i];
            char line[256];
            snprintf(line, sizeof line, "{\"id\":1,\"x\":%s}", v);
            char why[200] = "";
            layoutd_json *t = layoutd_json_parse(line, strlen(line), why, sizeof why);
            layoutd_json_free(t);
            bool tree = t != NULL, scan = ld_json_scan_object(line, strlen(line), wanted, found, NULL, 0) == 0;
            if (strstr(why, "duplicate")) tree = true; /* nested duplicate keys are the reader's to refuse */
            CHECK(tree == scan, "scanner and reader disagree on %s (reader %d, scanner %d)", line, tree, scan);
            bool top_tree = parses(v) && v[strspn(v, " ")] == '{';
            bool top_scan = ld_json_scan_object(v, strlen(v), wanted, found, NULL, 0) == 0;
            CHECK(top_tree == top_scan, "scanner and reader disagree on %s as a line (reader %d, scanner %d)", v, top_tree, top_scan);
        }
    {
        const char *line = "{\"id\":7,\"result\":{\"x\":[1,{\"y\":\"\\u00e9\"}]} , \"b\":null}";
        CHECK(ld_json_scan_object(line, strlen(line), wanted, found, NULL, 0) == 0, "a reply line scans");
        CHECK(found[2].value && found[2].value_len == 1 && found[2].value[0] == '7', "the id's span");
        CHECK(!found[0].value && found[1].type == 'n' && found[1].value_len == 4, "an absent key; b's span");
        const char *twice = "{\"id\":1,\"id\":2}";
        CHECK(ld_json_scan_object(twice, strlen(twice), wanted, found, NULL, 0) < 0, "a wanted key given twice");
        /* 100,000 levels are refused at level 129, without recursion */
        size_t n = 100000;
        char *very = malloc(2 * n + 16);
        strcpy(very, "{\"a\":");
        memset(very + 5, '[', n);
        memset(very + 5 + n, ']', n);
        strcpy(very + 5 + 2 * n, "}");
        char why[200];
        CHECK(ld_json_scan_object(very, strlen(very), wanted, found, why, sizeof why) < 0 && strstr(why, "nesting"), "100,000 deep: %s", why);
        CHECK(!parses(very), "100,000 deep: the reader refuses too");
        free(very);
    }
    /* keys: 1024 are fine, 1025 are not; duplicates found among many */
    for (int n = 1024; n <= 1025; n++) {
        char *s = malloc(20 * (size_t)n + 10), *p = s;
        *p++ = '{';
        for (int i = 0; i < n; i++) p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", i, i);
        *p++ = '}';
        *p = 0;
        CHECK(parses(s) == (n <= 1024), "%d keys", n);
        free(s);
    }
    {
        char *s = malloc(20 * 600 + 20), *p = s;
        *p++ = '{';
        for (int i = 0; i < 600; i++) p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", i, i);
        p += sprintf(p, ",\"k317\":1}");
        CHECK(!parses(s), "a duplicate among 600 keys");
        free(s);
    }

    /* values and lookups */
    const char *doc = "{\"id\":7,\"result\":{\"x\":1.5,\"s\":\"\\u00e9\",\"a\":[true,false,null]}}";
    layoutd_json *j = layoutd_json_parse(doc, strlen(doc), NULL, 0);
    CHECK(j != NULL, "doc");
    const layoutd_json *r = layoutd_json_get(j, "result");
    CHECK(layoutd_json_number(layoutd_json_get(j, "id"), 0) == 7, "id");
    CHECK(layoutd_json_number(layoutd_json_get(r, "x"), 0) == 1.5, "x");
    CHECK(strcmp(layoutd_json_string(layoutd_json_get(r, "s")), "\xc3\xa9") == 0, "unescaped é");
    CHECK(layoutd_json_bool(layoutd_json_at(layoutd_json_get(r, "a"), 0), 0) == 1, "true");
    CHECK(layoutd_json_at(layoutd_json_get(r, "a"), 3) == NULL, "out of range");
    CHECK(r->text_len == strlen("{\"x\":1.5,\"s\":\"\\u00e9\",\"a\":[true,false,null]}") && strncmp(r->text, "{\"x\"", 4) == 0,
          "source text of a member");
    layoutd_json_free(j);

    char err[200];
    CHECK(layoutd_json_parse("[1,]", 4, err, sizeof err) == NULL && strstr(err, "byte") != NULL, "error message: %s", err);

    /* writer: the daemon's number forms, escapes, raw UTF-8 */
    check_roundtrip("[100,-32001,0,-0,137.5,0.3,1e15,1e+15,3.0,3e0,1e-7,123456789012345.6]",
                    "[100,-32001,0,0,137.5,0.3,1e+15,1e+15,3,3,1e-07,123456789012345.6]");
    check_roundtrip("{\"a\" : \"\\u00e9\\n\\u0001\\\"\"}", "{\"a\":\"\xc3\xa9\\n\\u0001\\\"\"}");
    check_roundtrip("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");
    check_roundtrip("[0.1,2.5e-5,1.7976931348623157e308]", "[0.1,2.5e-05,1.7976931348623157e+308]");

    /* equality keeps key order */
    layoutd_json *a = layoutd_json_parse("{\"a\":1,\"b\":[2]}", 15, NULL, 0), *b = layoutd_json_parse("{\"a\":1.0,\"b\":[2e0]}", 19, NULL, 0),
                 *c = layoutd_json_parse("{\"b\":[2],\"a\":1}", 15, NULL, 0);
    CHECK(layoutd_json_equal(a, b), "numbers compare as doubles");
    CHECK(!layoutd_json_equal(a, c), "key order matters");
    layoutd_json_free(a);
    layoutd_json_free(b);
    layoutd_json_free(c);

    /* transition sampling: linear between delay and delay + duration */
    layoutd_segment segs[2] = {
        {LAYOUTD_CELL, "x", {.id = "x", .frame = {0, 0, 10, 10}, .alpha = 0}, {.id = "x", .frame = {100, 0, 10, 10}, .alpha = 1}, 0.1, 0.2, LAYOUTD_CURVE_LINEAR},
        {LAYOUTD_CELL, "x", {.id = "x", .frame = {100, 0, 10, 10}, .alpha = 1}, {.id = "x", .frame = {100, 50, 10, 10}, .alpha = 1}, 0.4, 0.1, LAYOUTD_CURVE_LINEAR},
    };
    layoutd_transition tr = {0.5, 2, segs};
    layoutd_attributes at;
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 0, NULL, &at) && at.frame.x == 0, "before the first segment");
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 0.2, NULL, &at) && fabs(at.frame.x - 50) < 1e-9 && fabs(at.alpha - 0.5) < 1e-9,
          "middle: %g %g", at.frame.x, at.alpha);
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 0.35, NULL, &at) && at.frame.x == 100 && at.frame.y == 0, "between");
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 0.45, NULL, &at) && fabs(at.frame.y - 25) < 1e-9, "second: %g", at.frame.y);
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 9, NULL, &at) && at.frame.y == 50, "after");
    CHECK(!layoutd_transition_sample(&tr, LAYOUTD_CELL, "y", 0.2, NULL, &at), "no segments");
    CHECK(!layoutd_transition_sample(&tr, LAYOUTD_HEADER, "x", 0.2, NULL, &at), "key includes the kind");

    /* curves: values solved independently on the same control points (mutations.md's table) */
    static const struct { layoutd_animation_curve curve; double x, y; } vectors[] = {
        {LAYOUTD_CURVE_LINEAR, 0.25, 0.25}, {LAYOUTD_CURVE_EASE_IN, 0.1, 0.017026609652}, {LAYOUTD_CURVE_EASE_IN, 0.5, 0.315356812573},
        {LAYOUTD_CURVE_EASE_OUT, 0.25, 0.378138130825}, {LAYOUTD_CURVE_EASE_OUT, 0.75, 0.906535349281},
        {LAYOUTD_CURVE_EASE_IN_OUT, 0.25, 0.129161931047}, {LAYOUTD_CURVE_EASE_IN_OUT, 0.5, 0.5}, {LAYOUTD_CURVE_EASE_IN_OUT, 0.9, 0.980277546452},
        {LAYOUTD_CURVE_EASE_IN_OUT, 0, 0}, {LAYOUTD_CURVE_EASE_IN_OUT, 1, 1}, {LAYOUTD_CURVE_EASE_IN, -3, 0}, {LAYOUTD_CURVE_EASE_OUT, 7, 1},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        double y = layoutd_curve_progress(vectors[i].curve, vectors[i].x);
        CHECK(fabs(y - vectors[i].y) < 1e-9, "%s(%g): expected %.12f, actual %.12f", layoutd_curve_name(vectors[i].curve), vectors[i].x, vectors[i].y, y);
    }
    segs[0].curve = LAYOUTD_CURVE_EASE_IN_OUT;  /* 0.1 + 0.25 * 0.2: a quarter of the way in time */
    CHECK(layoutd_transition_sample(&tr, LAYOUTD_CELL, "x", 0.15, NULL, &at) && fabs(at.frame.x - 12.9161931047) < 1e-6,
          "the segment's own curve: %g", at.frame.x);

    /* socket discovery */
    char path[200];
    setenv("LAYOUTD_SOCKET", "/tmp/env.sock", 1);
    setenv("XDG_RUNTIME_DIR", "/run/user/1", 1);
    layoutd_socket_path("/tmp/explicit.sock", path, sizeof path, NULL);
    CHECK(!strcmp(path, "/tmp/explicit.sock"), "%s", path);
    layoutd_socket_path(NULL, path, sizeof path, NULL);
    CHECK(!strcmp(path, "/tmp/env.sock"), "%s", path);
    setenv("LAYOUTD_SOCKET", "", 1);
    layoutd_socket_path(NULL, path, sizeof path, NULL);
    CHECK(!strcmp(path, "/run/user/1/layoutd/ipc.sock"), "%s", path);
    unsetenv("XDG_RUNTIME_DIR");
    layoutd_socket_path("", path, sizeof path, NULL);
    CHECK(!strcmp(path, "/run/layoutd/ipc.sock"), "%s", path);
    char longp[200];
    memset(longp, 'a', 150);
    longp[150] = 0;
    layoutd_error e;
    CHECK(layoutd_socket_path(longp, path, sizeof path, &e) == -1 && !strcmp(e.name, "InvalidArgument"), "too long");
    CHECK(layoutd_client_connect("/nonexistent/dir/ipc.sock", &e) == NULL && !strcmp(e.name, "IOError"), "no daemon: %s", e.name);
    return t_report("test_json");
}
