/* Private declarations shared by the library's files.
 *
 * The files form layers: each calls functions of its own layer and of those before it, never of
 * a later one, so nothing calls in a circle. `make check-layers` (a step of `make test`) reads
 * the LAYERS line below and checks it on the compiled objects with nm: every undefined symbol of
 * a layer that the library defines must come from that layer or an earlier one, and every C
 * file of src/ must be listed.
 *
 *   json.c       the JSON reader and writer, the line scanner, arenas, output buffers
 *   protocol.c   protocol.h's tables of method, event and error names (generated)
 *   wire.c       protocol objects both ways: kinds, curves, attributes, snapshots, invalidations,
 *                transitions and the typed results read from JSON; request params written as
 *                JSON; the error struct; every _from_json and _free
 *   mirror.c     mirrors, and sampling a transition at a time
 *   client.c     the connection: discovery, the connect's deadline, framing (the line cap; lines
 *                consumed by offset), each line checked without a tree (ld_json_scan_object),
 *                calls with one deadline each, strays, events, subscriptions, tracked views
 *   typed.c      the typed methods: params written, the call made, the result read
 *   reconnect.c  layoutd_client_reconnect (says hello and re-creates views with typed.c)
 *   coverage.c   which typed function serves each protocol method (tests/test_coverage.c)
 *
 * LAYERS: json protocol wire mirror client typed reconnect coverage
 */
#ifndef LAYOUTD_INTERNAL_H
#define LAYOUTD_INTERNAL_H
#include "layoutd/client.h"

/* ---- json.c ---- */

typedef layoutd_json ld_json;
#define LD_JSON_NULL LAYOUTD_JSON_NULL
#define LD_JSON_FALSE LAYOUTD_JSON_FALSE
#define LD_JSON_TRUE LAYOUTD_JSON_TRUE
#define LD_JSON_NUMBER LAYOUTD_JSON_NUMBER
#define LD_JSON_STRING LAYOUTD_JSON_STRING
#define LD_JSON_ARRAY LAYOUTD_JSON_ARRAY
#define LD_JSON_OBJECT LAYOUTD_JSON_OBJECT
#define LD_JSON_MAX_DEPTH LAYOUTD_JSON_MAX_DEPTH
#define LD_JSON_MAX_KEYS LAYOUTD_JSON_MAX_KEYS

typedef struct ld_arena ld_arena;
ld_arena *ld_arena_new(void);
void *ld_arena_alloc(ld_arena *a, size_t n);
char *ld_arena_strndup(ld_arena *a, const char *s, size_t n);
void ld_arena_free(ld_arena *a);

size_t ld_utf8_seq(const unsigned char *p, const unsigned char *end);
ld_json *ld_json_parse_in(ld_arena *arena, const char *text, size_t len, char *err, size_t errlen);

/* One top-level member of an object found by ld_json_scan_object: spans into the text. */
typedef struct {
    const char *key, *value;   /* value NULL: the key is absent */
    size_t key_len, value_len;
    char type;                 /* the value's first byte: '{', '[', '"', 't', 'f', 'n', or a number's */
} ld_member;
/* Checks that text is one JSON object with the reader's strictness (UTF-8, escapes, numbers,
   nesting at most LD_JSON_MAX_DEPTH) without building a tree, allocating or recursing, and
   finds the top-level members named in `wanted` (NULL-terminated): found[i] for wanted[i].
   Keys are compared as written (a key spelled with escapes is not found). A wanted key given
   twice is refused; other duplicate keys and the key limit are left to the tree reader. */
int ld_json_scan_object(const char *text, size_t len, const char *const *wanted, ld_member *found, char *err, size_t errlen);

typedef struct {
    char *data;
    size_t len, cap;
    int failed;
} ld_buf;
int ld_buf_reserve(ld_buf *b, size_t extra);
void ld_buf_put(ld_buf *b, const char *s, size_t n);
void ld_buf_puts(ld_buf *b, const char *s);
void ld_buf_printf(ld_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ld_buf_free(ld_buf *b);
void ld_buf_number(ld_buf *b, double v);
void ld_buf_string(ld_buf *b, const char *s);
void ld_buf_string_n(ld_buf *b, const char *s, size_t n);

/* A JSON number as an integer without undefined behaviour: out of range (or not given) gives fallback. */
static inline int64_t ld_int(double v, int64_t fallback)
{
    return v >= -9007199254740992.0 && v <= 9007199254740992.0 ? (int64_t)v : fallback;
}

/* ---- wire.c: errors ---- */

void ld_set_error(layoutd_error *err, int code, const char *name, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The error of an error reply (its "error" object). */
void ld_error_from_json(layoutd_error *err, const ld_json *e);

/* ---- wire.c: reading ---- */

ld_json *ld_json_copy(ld_arena *a, const ld_json *v);
int ld_parse_attributes(ld_arena *a, const ld_json *v, layoutd_attributes *out);
int ld_parse_snapshot(ld_arena *a, const ld_json *v, layoutd_snapshot *out);
int ld_parse_invalidation(ld_arena *a, const ld_json *v, layoutd_invalidation *out);

/* The results of the typed methods. Each takes the result tree `r` (a root from ld_call) and
   makes its arena the result's; on failure it frees r, clears *out and fills err. */
int ld_read_hello(ld_json *r, layoutd_hello_result *out, layoutd_error *err);
int ld_read_status(ld_json *r, layoutd_status *out, layoutd_error *err);
int ld_read_result(ld_json *r, layoutd_result *out, layoutd_error *err);
int ld_read_strategy_list(ld_json *r, layoutd_strategy_list *out, layoutd_error *err);
int ld_read_view_list(ld_json *r, layoutd_strings *out, layoutd_error *err);
int ld_read_query_result(ld_json *r, layoutd_query_result *out, layoutd_error *err);
/* `field`: where the element is ("attributes" for view.item, "element" otherwise). */
int ld_read_element_result(ld_json *r, const char *field, layoutd_element_result *out, layoutd_error *err);
int ld_read_selection_page(ld_json *r, layoutd_selection_page *out, layoutd_error *err);
int ld_read_interactive_transition(ld_json *r, layoutd_interactive_transition *out, layoutd_error *err);
int ld_read_transition_update(ld_json *r, layoutd_transition_update_result *out, layoutd_error *err);

/* ---- wire.c: writing request params ---- */

void ld_write_begin(ld_buf *b, const char *view);          /* {"view":<view> */
void ld_write_key(ld_buf *b, const char *key);             /* ,"key": */
void ld_write_point(ld_buf *b, layoutd_point p);
void ld_write_size(ld_buf *b, layoutd_size s);
void ld_write_rect(ld_buf *b, layoutd_rect r);
void ld_write_strings(ld_buf *b, size_t n, const char *const *list);
void ld_write_items(ld_buf *b, size_t n, const layoutd_item *items);
void ld_write_sections(ld_buf *b, size_t n, const layoutd_section *sections);
void ld_write_anchor(ld_buf *b, const layoutd_anchor *a);
void ld_write_update(ld_buf *b, const layoutd_update *u);
void ld_write_measurements(ld_buf *b, size_t n, const layoutd_measurement *m);
void ld_write_options(ld_buf *b, const layoutd_mutation_options *o); /* the common mutation params */
void ld_write_view_spec(ld_buf *b, const layoutd_view_spec *spec);   /* view.create's params, closed */

/* ---- mirror.c ---- */

void ld_mirror_set_transition(layoutd_mirror *m, const layoutd_transition *tr);
void ld_mirror_invalidate(layoutd_mirror *m);

/* ---- client.c ---- */

/* A blocking call returning the reply's result tree (a root: free with layoutd_json_free). */
ld_json *ld_call(layoutd_client *c, const char *method, const char *params, layoutd_error *err);
void ld_untrack_view(layoutd_client *c, const char *view);

/* ---- coverage.c ---- */

/* A protocol method served by a typed function: the function by name and by address (so that
   removing the function breaks the build of whatever links this table). */
typedef struct {
    const char *method;
    const char *function;
    void (*address)(void);
} ld_typed_method;
/* A method left to the raw API (layoutd_call_raw / layoutd_send), and why. */
typedef struct {
    const char *method;
    const char *reason;
} ld_raw_method;
extern const ld_typed_method ld_typed_methods[];
extern const size_t ld_typed_method_count;
extern const ld_raw_method ld_raw_methods[];
extern const size_t ld_raw_method_count;
#endif
