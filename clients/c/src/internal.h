#ifndef LAYOUTD_INTERNAL_H
#define LAYOUTD_INTERNAL_H
#include "layoutd/client.h"

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

void ld_set_error(layoutd_error *err, int code, const char *name, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ld_error_from_json(layoutd_error *err, const ld_json *e);

/* typed.c */
int ld_parse_attributes(ld_arena *a, const ld_json *v, layoutd_attributes *out);
int ld_parse_snapshot(ld_arena *a, const ld_json *v, layoutd_snapshot *out);
int ld_parse_invalidation(ld_arena *a, const ld_json *v, layoutd_invalidation *out);
ld_json *ld_json_copy(ld_arena *a, const ld_json *v);
void ld_write_view_spec(ld_buf *b, const layoutd_view_spec *spec);

/* mirror.c */
void ld_mirror_set_transition(layoutd_mirror *m, const layoutd_transition *tr);
void ld_mirror_invalidate(layoutd_mirror *m);

/* A JSON number as an integer without undefined behaviour: out of range (or not given) gives fallback. */
static inline int64_t ld_int(double v, int64_t fallback)
{
    return v >= -9007199254740992.0 && v <= 9007199254740992.0 ? (int64_t)v : fallback;
}

/* client.c: a blocking call returning the reply's result tree (owned by the caller) */
ld_json *ld_call(layoutd_client *c, const char *method, const char *params, layoutd_error *err);
#endif
