/* Strict JSON reader and a small writer for liblayoutd-client (RFC 8259, protocol/README.md §4). */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LD_TEXT_OF_(x) #x
#define LD_TEXT_OF(x) LD_TEXT_OF_(x)

/* ---- arena ---- */

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    max_align_t data[];
};

struct ld_arena {
    struct arena_block *head;
};

ld_arena *ld_arena_new(void) { return calloc(1, sizeof(ld_arena)); }

void *ld_arena_alloc(ld_arena *a, size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0) n = align;
    struct arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 16384 ? n : 16384;
        b = malloc(sizeof(*b) + size);
        if (!b) return NULL;
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *ld_arena_strndup(ld_arena *a, const char *s, size_t n)
{
    char *p = ld_arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void ld_arena_free(ld_arena *a)
{
    if (!a) return;
    struct arena_block *b = a->head;
    while (b) {
        struct arena_block *n = b->next;
        free(b);
        b = n;
    }
    free(a);
}

/* ---- reader ---- */

typedef struct {
    const unsigned char *s, *end, *start;
    ld_arena *arena;
    char *err;
    size_t errlen;
    int failed;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
    if (!r->failed && r->err && r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        char msg[200];
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(r->err, r->errlen, "%s at byte %zu", msg, (size_t)(r->s - r->start));
    }
    r->failed = 1;
    return -1;
}

static void skip_ws(reader *r)
{
    while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')) r->s++;
}

/* Validates one UTF-8 sequence at p (strict: no overlongs, no surrogates, <= U+10FFFF).
   Returns its length or 0. */
size_t ld_utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned min, cp;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if ((size_t)(end - p) < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

static int hex4(reader *r, unsigned *out)
{
    if (r->end - r->s < 4) return fail(r, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = r->s[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return fail(r, "bad \\u escape");
        v = v * 16 + d;
    }
    r->s += 4;
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* r->s at the opening quote. */
static int read_string(reader *r, char **out, size_t *outlen)
{
    r->s++;
    const unsigned char *p = r->s;
    size_t cap = 0;
    /* first pass: find the end and validate, bounding the output size */
    while (1) {
        if (p >= r->end) { r->s = p; return fail(r, "unterminated string"); }
        unsigned c = *p;
        if (c == '"') break;
        if (c < 0x20) { r->s = p; return fail(r, "control character in string"); }
        if (c == '\\') { p += 2; cap += 4; continue; }
        size_t n = ld_utf8_seq(p, r->end);
        if (!n) { r->s = p; return fail(r, "invalid UTF-8"); }
        p += n;
        cap += n;
    }
    char *o = ld_arena_alloc(r->arena, cap + 1);
    if (!o) return fail(r, "out of memory");
    size_t len = 0;
    while (*r->s != '"') {
        unsigned c = *r->s;
        if (c != '\\') {
            size_t n = ld_utf8_seq(r->s, r->end);
            memcpy(o + len, r->s, n);
            len += n;
            r->s += n;
            continue;
        }
        r->s++;
        if (r->s >= r->end) return fail(r, "unterminated string");
        c = *r->s++;
        switch (c) {
        case '"': o[len++] = '"'; break;
        case '\\': o[len++] = '\\'; break;
        case '/': o[len++] = '/'; break;
        case 'b': o[len++] = '\b'; break;
        case 'f': o[len++] = '\f'; break;
        case 'n': o[len++] = '\n'; break;
        case 'r': o[len++] = '\r'; break;
        case 't': o[len++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (hex4(r, &cp)) return -1;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(r, "unpaired surrogate escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (r->end - r->s < 2 || r->s[0] != '\\' || r->s[1] != 'u') return fail(r, "unpaired surrogate escape");
                r->s += 2;
                if (hex4(r, &lo)) return -1;
                if (lo < 0xDC00 || lo > 0xDFFF) return fail(r, "unpaired surrogate escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            len += put_utf8(o + len, cp);
            break;
        }
        default: r->s--; return fail(r, "bad escape");
        }
    }
    r->s++;
    o[len] = 0;
    *out = o;
    *outlen = len;
    return 0;
}

static int read_number(reader *r, double *out)
{
    const unsigned char *p = r->s;
    if (p < r->end && *p == '-') p++;
    if (p >= r->end) return fail(r, "bad number");
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') { while (p < r->end && *p >= '0' && *p <= '9') p++; }
    else return fail(r, "bad number");
    if (p < r->end && *p == '.') {
        p++;
        if (p >= r->end || *p < '0' || *p > '9') return fail(r, "bad number");
        while (p < r->end && *p >= '0' && *p <= '9') p++;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < r->end && (*p == '+' || *p == '-')) p++;
        if (p >= r->end || *p < '0' || *p > '9') return fail(r, "bad number");
        while (p < r->end && *p >= '0' && *p <= '9') p++;
    }
    size_t n = (size_t)(p - r->s);
    char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf) return fail(r, "out of memory");
    memcpy(buf, r->s, n);
    buf[n] = 0;
    double v = strtod(buf, NULL);
    if (buf != small) free(buf);
    if (!isfinite(v)) return fail(r, "number too large");
    *out = v;
    r->s = p;
    return 0;
}

static int read_value(reader *r, ld_json *v, int depth);

static int read_literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->s) < n || memcmp(r->s, word, n) != 0) return fail(r, "unexpected character");
    r->s += n;
    return 0;
}

typedef struct tmpvec {
    ld_json *v;
    size_t n, cap;
} tmpvec;

static ld_json *vec_push(tmpvec *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        ld_json *nv = realloc(t->v, cap * sizeof(ld_json));
        if (!nv) return NULL;
        t->v = nv;
        t->cap = cap;
    }
    memset(&t->v[t->n], 0, sizeof(ld_json));
    return &t->v[t->n++];
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ull; }
    return h;
}

/* Duplicate keys: a small open-addressing table over the members (objects have at most 1024 keys). */
static int has_duplicates(const ld_json *m, size_t n)
{
    if (n < 2) return 0;
    if (n <= 8) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (m[i].key_len == m[j].key_len && memcmp(m[i].key, m[j].key, m[i].key_len) == 0) return 1;
        return 0;
    }
    int slots[4096];
    size_t cap = 4096;
    for (size_t i = 0; i < cap; i++) slots[i] = -1;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)hash_bytes(m[i].key, m[i].key_len) & (cap - 1);
        while (slots[h] >= 0) {
            const ld_json *o = &m[slots[h]];
            if (o->key_len == m[i].key_len && memcmp(o->key, m[i].key, o->key_len) == 0) return 1;
            h = (h + 1) & (cap - 1);
        }
        slots[h] = (int)i;
    }
    return 0;
}

static int read_container(reader *r, ld_json *v, int depth, int object)
{
    if (depth >= LD_JSON_MAX_DEPTH) return fail(r, "nesting deeper than %d", LD_JSON_MAX_DEPTH);
    r->s++;
    tmpvec t = {0};
    skip_ws(r);
    char close = object ? '}' : ']';
    if (r->s < r->end && *r->s == close) {
        r->s++;
    } else {
        while (1) {
            skip_ws(r);
            ld_json *item = vec_push(&t);
            if (!item) { free(t.v); return fail(r, "out of memory"); }
            if (object) {
                if (r->s >= r->end || *r->s != '"') { free(t.v); return fail(r, "expected a key"); }
                if (read_string(r, &item->key, &item->key_len)) { free(t.v); return -1; }
                if (t.n > LD_JSON_MAX_KEYS) { free(t.v); return fail(r, "more than %d keys", LD_JSON_MAX_KEYS); }
                skip_ws(r);
                if (r->s >= r->end || *r->s != ':') { free(t.v); return fail(r, "expected ':'"); }
                r->s++;
                skip_ws(r);
            }
            if (read_value(r, item, depth + 1)) { free(t.v); return -1; }
            skip_ws(r);
            if (r->s < r->end && *r->s == ',') { r->s++; continue; }
            if (r->s < r->end && *r->s == close) { r->s++; break; }
            free(t.v);
            return fail(r, "expected ',' or '%c'", close);
        }
    }
    if (object && has_duplicates(t.v, t.n)) { free(t.v); return fail(r, "duplicate key"); }
    v->type = object ? LD_JSON_OBJECT : LD_JSON_ARRAY;
    v->count = t.n;
    if (t.n) {
        v->items = ld_arena_alloc(r->arena, t.n * sizeof(ld_json));
        if (!v->items) { free(t.v); return fail(r, "out of memory"); }
        memcpy(v->items, t.v, t.n * sizeof(ld_json));
    }
    free(t.v);
    return 0;
}

static int read_value(reader *r, ld_json *v, int depth)
{
    skip_ws(r);
    if (r->s >= r->end) return fail(r, "unexpected end of input");
    const unsigned char *start = r->s;
    int rc;
    switch (*r->s) {
    case '{': rc = read_container(r, v, depth, 1); break;
    case '[': rc = read_container(r, v, depth, 0); break;
    case '"': v->type = LD_JSON_STRING; rc = read_string(r, &v->str, &v->len); break;
    case 't': v->type = LD_JSON_TRUE; rc = read_literal(r, "true"); break;
    case 'f': v->type = LD_JSON_FALSE; rc = read_literal(r, "false"); break;
    case 'n': v->type = LD_JSON_NULL; rc = read_literal(r, "null"); break;
    default:
        if (*r->s == '-' || (*r->s >= '0' && *r->s <= '9')) { v->type = LD_JSON_NUMBER; rc = read_number(r, &v->num); }
        else rc = fail(r, "unexpected character");
    }
    if (rc == 0) {
        v->text = (const char *)start;
        v->text_len = (size_t)(r->s - start);
    }
    return rc;
}

ld_json *ld_json_parse_in(ld_arena *arena, const char *text, size_t len, char *err, size_t errlen)
{
    reader r = {(const unsigned char *)text, (const unsigned char *)text + len, (const unsigned char *)text, arena, err, errlen, 0};
    if (err && errlen) err[0] = 0;
    ld_json *root = ld_arena_alloc(arena, sizeof(ld_json));
    if (!root) return NULL;
    if (read_value(&r, root, 0)) return NULL;
    skip_ws(&r);
    if (r.s != r.end) { fail(&r, "trailing characters after the value"); return NULL; }
    return root;
}

/* ---- scanning a line without building a tree ---- */

/* Skips the string at p (at its opening quote) with the reader's checks; returns the byte after
   its closing quote, or NULL. */
static const unsigned char *skip_string(const unsigned char *p, const unsigned char *end, const char **why)
{
    p++;
    while (1) {
        if (p >= end) { *why = "unterminated string"; return NULL; }
        unsigned c = *p;
        if (c == '"') return p + 1;
        if (c < 0x20) { *why = "control character in string"; return NULL; }
        if (c == '\\') {
            if (end - p < 2) { *why = "unterminated string"; return NULL; }
            c = p[1];
            if (c == 'u') {
                unsigned cp = 0;
                for (int k = 0; k < 2; k++) {
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u') { *why = "unpaired surrogate escape"; return NULL; }
                    unsigned v = 0;
                    for (int i = 2; i < 6; i++) {
                        unsigned h = p[i], d;
                        if (h >= '0' && h <= '9') d = h - '0';
                        else if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
                        else if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
                        else { *why = "bad \\u escape"; return NULL; }
                        v = v * 16 + d;
                    }
                    p += 6;
                    if (k == 0) {
                        if (v >= 0xDC00 && v <= 0xDFFF) { *why = "unpaired surrogate escape"; return NULL; }
                        if (v < 0xD800 || v > 0xDBFF) break;
                        cp = v;
                    } else if (v < 0xDC00 || v > 0xDFFF || !cp) {
                        *why = "unpaired surrogate escape";
                        return NULL;
                    }
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", (int)c) || !c) { *why = "bad escape"; return NULL; }
            p += 2;
            continue;
        }
        size_t n = ld_utf8_seq(p, end);
        if (!n) { *why = "invalid UTF-8"; return NULL; }
        p += n;
    }
}

static const unsigned char *skip_number(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *start = p;
    bool big = false;
    if (p < end && *p == '-') p++;
    if (p >= end) return NULL;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') { while (p < end && *p >= '0' && *p <= '9') p++; }
    else return NULL;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        big = true;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (big || p - start > 300) { /* the reader refuses what does not fit a double */
        size_t n = (size_t)(p - start);
        char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
        if (!buf) return NULL;
        memcpy(buf, start, n);
        buf[n] = 0;
        double v = strtod(buf, NULL);
        if (buf != small) free(buf);
        if (!isfinite(v)) return NULL;
    }
    return p;
}

int ld_json_scan_object(const char *text, size_t len, const char *const *wanted, ld_member *found, char *err, size_t errlen)
{
    const unsigned char *start = (const unsigned char *)text, *p = start, *end = start + len;
    size_t nwanted = 0;
    while (wanted[nwanted]) nwanted++;
    memset(found, 0, nwanted * sizeof *found);
    /* The open containers, innermost last: no recursion, so no depth can overflow a stack. */
    unsigned char stack[LD_JSON_MAX_DEPTH];
    int depth = 0;
    const char *why = NULL;
    ld_member *member = NULL;        /* the top-level member being read, when wanted */
    const unsigned char *key = NULL;
    size_t key_len = 0;
#define WS() while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++
#define FAIL(msg) do { why = (msg); goto failed; } while (0)
    WS();
    if (p >= end || *p != '{') FAIL(p >= end ? "an empty line" : "not a JSON object");
    stack[depth++] = '{';
    p++;
    WS();
    if (p < end && *p == '}') { p++; depth = 0; goto after_value; }
    goto expect_key;
value:
    WS();
    if (p >= end) FAIL("unexpected end of input");
    if (depth == 1) {
        member = NULL;
        for (size_t i = 0; i < nwanted; i++)
            if (strlen(wanted[i]) == key_len && memcmp(wanted[i], key, key_len) == 0) {
                if (found[i].value) FAIL("duplicate key");
                member = &found[i];
                member->key = (const char *)key;
                member->key_len = key_len;
                member->value = (const char *)p;
                member->type = (char)*p;
            }
    }
    switch (*p) {
    case '{':
    case '[':
        if (depth >= LD_JSON_MAX_DEPTH) FAIL("nesting deeper than " LD_TEXT_OF(LAYOUTD_JSON_MAX_DEPTH));
        stack[depth++] = *p;
        p++;
        WS();
        if (p < end && *p == (stack[depth - 1] == '{' ? '}' : ']')) { p++; depth--; goto after_value; }
        if (stack[depth - 1] == '{') goto expect_key;
        goto value;
    case '"':
        if (!(p = skip_string(p, end, &why))) goto failed_at_unknown;
        goto after_value;
    case 't': if (end - p < 4 || memcmp(p, "true", 4)) FAIL("unexpected character"); p += 4; goto after_value;
    case 'f': if (end - p < 5 || memcmp(p, "false", 5)) FAIL("unexpected character"); p += 5; goto after_value;
    case 'n': if (end - p < 4 || memcmp(p, "null", 4)) FAIL("unexpected character"); p += 4; goto after_value;
    default:
        if (*p != '-' && (*p < '0' || *p > '9')) FAIL("unexpected character");
        if (!(p = skip_number(p, end))) { why = "bad number"; goto failed_at_unknown; }
        goto after_value;
    }
after_value:
    if (depth == 1 && member) {
        member->value_len = (size_t)((const char *)p - member->value);
        member = NULL;
    }
    if (depth == 0) {
        WS();
        if (p != end) FAIL("trailing characters after the value");
        return 0;
    }
    WS();
    if (p < end && *p == ',') {
        p++;
        if (stack[depth - 1] == '{') goto expect_key;
        goto value;
    }
    if (p < end && *p == (stack[depth - 1] == '{' ? '}' : ']')) { p++; depth--; goto after_value; }
    FAIL(stack[depth - 1] == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
expect_key:
    WS();
    if (p >= end || *p != '"') FAIL("expected a key");
    key = p + 1;
    if (!(p = skip_string(p, end, &why))) goto failed_at_unknown;
    key_len = (size_t)(p - 1 - key);
    WS();
    if (p >= end || *p != ':') FAIL("expected ':'");
    p++;
    goto value;
failed_at_unknown:
    if (err && errlen) snprintf(err, errlen, "%s", why);
    return -1;
failed:
    if (err && errlen) snprintf(err, errlen, "%s at byte %zu", why, (size_t)(p - start));
    return -1;
#undef WS
#undef FAIL
}

/* The copy of the text lives in the arena, so `text` pointers stay valid. */
ld_json *layoutd_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    ld_arena *a = ld_arena_new();
    if (!a) return NULL;
    char *copy = ld_arena_strndup(a, text, len);
    ld_json *root = copy ? ld_json_parse_in(a, copy, len, err, errlen) : NULL;
    if (!root) { ld_arena_free(a); return NULL; }
    root->arena = a;
    return root;
}

void layoutd_json_free(ld_json *root)
{
    if (root) ld_arena_free(root->arena);
}

const ld_json *layoutd_json_get(const ld_json *obj, const char *key)
{
    if (!obj || obj->type != LD_JSON_OBJECT) return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->count; i++)
        if (obj->items[i].key_len == n && memcmp(obj->items[i].key, key, n) == 0) return &obj->items[i];
    return NULL;
}

const ld_json *layoutd_json_at(const ld_json *arr, size_t i)
{
    if (!arr || (arr->type != LD_JSON_ARRAY && arr->type != LD_JSON_OBJECT) || i >= arr->count) return NULL;
    return &arr->items[i];
}

const char *layoutd_json_string(const ld_json *v) { return v && v->type == LD_JSON_STRING ? v->str : NULL; }
double layoutd_json_number(const ld_json *v, double fallback) { return v && v->type == LD_JSON_NUMBER ? v->num : fallback; }
int layoutd_json_bool(const ld_json *v, int fallback)
{
    if (v && v->type == LD_JSON_TRUE) return 1;
    if (v && v->type == LD_JSON_FALSE) return 0;
    return fallback;
}

/* ---- writer ---- */

int ld_buf_reserve(ld_buf *b, size_t extra)
{
    if (b->failed) return -1;
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *n = realloc(b->data, cap);
    if (!n) { b->failed = 1; return -1; }
    b->data = n;
    b->cap = cap;
    return 0;
}

void ld_buf_put(ld_buf *b, const char *s, size_t n)
{
    if (ld_buf_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void ld_buf_puts(ld_buf *b, const char *s) { ld_buf_put(b, s, strlen(s)); }

void ld_buf_printf(ld_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[128];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) { b->failed = 1; return; }
    if ((size_t)n < sizeof tmp) { ld_buf_put(b, tmp, (size_t)n); return; }
    if (ld_buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void ld_buf_free(ld_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* The daemon's number form: whole numbers below 1e15 without fraction, others shortest round-trip. */
void ld_buf_number(ld_buf *b, double v)
{
    if (!isfinite(v)) { b->failed = 1; return; }
    if (v == floor(v) && fabs(v) < 1e15) { ld_buf_printf(b, "%.0f", v == 0 ? 0.0 : v); return; }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    ld_buf_puts(b, tmp);
}

/* Writes a JSON string; returns -1 (and marks the buffer failed) on invalid UTF-8. */
void ld_buf_string_n(ld_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    ld_buf_put(b, "\"", 1);
    while (p < end) {
        unsigned c = *p;
        if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; ld_buf_put(b, e, 2); p++; }
        else if (c < 0x20) {
            const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
            if (esc) ld_buf_puts(b, esc);
            else ld_buf_printf(b, "\\u%04x", c);
            p++;
        } else {
            size_t k = ld_utf8_seq(p, end);
            if (!k) { b->failed = 1; return; }
            ld_buf_put(b, (const char *)p, k);
            p += k;
        }
    }
    ld_buf_put(b, "\"", 1);
}

void ld_buf_string(ld_buf *b, const char *s) { ld_buf_string_n(b, s ? s : "", s ? strlen(s) : 0); }

static void write_value(ld_buf *b, const ld_json *v)
{
    switch (v->type) {
    case LD_JSON_NULL: ld_buf_puts(b, "null"); break;
    case LD_JSON_TRUE: ld_buf_puts(b, "true"); break;
    case LD_JSON_FALSE: ld_buf_puts(b, "false"); break;
    case LD_JSON_NUMBER: ld_buf_number(b, v->num); break;
    case LD_JSON_STRING: ld_buf_string_n(b, v->str, v->len); break;
    case LD_JSON_ARRAY:
    case LD_JSON_OBJECT:
        ld_buf_put(b, v->type == LD_JSON_ARRAY ? "[" : "{", 1);
        for (size_t i = 0; i < v->count; i++) {
            if (i) ld_buf_put(b, ",", 1);
            if (v->type == LD_JSON_OBJECT) {
                ld_buf_string_n(b, v->items[i].key, v->items[i].key_len);
                ld_buf_put(b, ":", 1);
            }
            write_value(b, &v->items[i]);
        }
        ld_buf_put(b, v->type == LD_JSON_ARRAY ? "]" : "}", 1);
        break;
    }
}

char *layoutd_json_write(const ld_json *v, size_t *len)
{
    ld_buf b = {0};
    write_value(&b, v);
    if (b.failed || !b.data) { ld_buf_free(&b); return NULL; }
    if (len) *len = b.len;
    return b.data;
}

int layoutd_json_equal(const ld_json *a, const ld_json *b)
{
    if (!a || !b) return a == b;
    if (a->type != b->type) return 0;
    switch (a->type) {
    case LD_JSON_NUMBER: return a->num == b->num;
    case LD_JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case LD_JSON_ARRAY:
    case LD_JSON_OBJECT:
        if (a->count != b->count) return 0;
        for (size_t i = 0; i < a->count; i++) {
            if (a->type == LD_JSON_OBJECT &&
                (a->items[i].key_len != b->items[i].key_len || memcmp(a->items[i].key, b->items[i].key, a->items[i].key_len)))
                return 0;
            if (!layoutd_json_equal(&a->items[i], &b->items[i])) return 0;
        }
        return 1;
    default: return 1;
    }
}
