/* liblayoutd-client: a C client for the layoutd protocol, version 1 (protocol/ in the layoutd tree).
 *
 * Only libc. Not thread-safe: use one layoutd_client from one thread (or lock around it).
 * Every function that can fail returns 0 on success and -1 on failure, filling *err when err is
 * not NULL; nothing aborts. Strings given to the library are NUL-terminated UTF-8 and are copied.
 */
#ifndef LAYOUTD_CLIENT_H
#define LAYOUTD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The protocol's method, event and error names (LAYOUTD_METHOD_VIEW_SCROLL, LAYOUTD_EVENT_...,
   LAYOUTD_ERROR_VIEW_NOT_FOUND and LAYOUTD_CODE_VIEW_NOT_FOUND, ...), LAYOUTD_PROTOCOL_VERSION,
   and tables of them (layoutd_method_at, layoutd_error_named, ...): generated from
   protocol/interface.json. */
#include "protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LAYOUTD_CLIENT_VERSION "1.0.0"

/* ------------------------------------------------------------------------------------------ */
/* JSON trees (strict RFC 8259 reader as protocol/README.md §4; keys keep their order).        */

typedef enum {
    LAYOUTD_JSON_NULL, LAYOUTD_JSON_FALSE, LAYOUTD_JSON_TRUE, LAYOUTD_JSON_NUMBER,
    LAYOUTD_JSON_STRING, LAYOUTD_JSON_ARRAY, LAYOUTD_JSON_OBJECT
} layoutd_json_type;

#define LAYOUTD_JSON_MAX_DEPTH 128  /* arrays/objects nested deeper are refused (the reader recurses at most this deep) */
#define LAYOUTD_JSON_MAX_KEYS 1024  /* keys in one object */

typedef struct layoutd_json {
    layoutd_json_type type;
    double num;                 /* NUMBER */
    char *str;                  /* STRING: unescaped, NUL-terminated (may contain NUL: use len) */
    size_t len;
    size_t count;               /* ARRAY / OBJECT: number of members */
    struct layoutd_json *items; /* ARRAY / OBJECT members, in order */
    char *key;                  /* the member's key when this value is in an object */
    size_t key_len;
    const char *text;           /* this value's exact source text (not NUL-terminated) */
    size_t text_len;
    struct ld_arena *arena;     /* root only: owner of everything */
} layoutd_json;

/* Parses exactly one JSON value (surrounding whitespace allowed). NULL on error, with a message
   in err (if given). Free with layoutd_json_free. */
layoutd_json *layoutd_json_parse(const char *text, size_t len, char *err, size_t errlen);
void layoutd_json_free(layoutd_json *root);
const layoutd_json *layoutd_json_get(const layoutd_json *object, const char *key);
const layoutd_json *layoutd_json_at(const layoutd_json *array, size_t index);
const char *layoutd_json_string(const layoutd_json *v);          /* NULL unless a string */
double layoutd_json_number(const layoutd_json *v, double fallback);
int layoutd_json_bool(const layoutd_json *v, int fallback);
/* Compact JSON text (malloc'd, free()); numbers in the daemon's form. NULL on invalid UTF-8. */
char *layoutd_json_write(const layoutd_json *v, size_t *len);
/* Structural equality: same types, numbers equal as doubles, same keys in the same order. */
int layoutd_json_equal(const layoutd_json *a, const layoutd_json *b);

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

/* Local failures use these codes and names; protocol errors carry the daemon's code and name. */
#define LAYOUTD_ERR_IO          (-1)  /* name "IOError": a system call failed (message has errno text) */
#define LAYOUTD_ERR_CLOSED      (-2)  /* name "ConnectionClosed": end of stream / not connected */
#define LAYOUTD_ERR_PROTOCOL    (-3)  /* name "ProtocolError": the daemon wrote something unreadable */
#define LAYOUTD_ERR_ARGUMENT    (-4)  /* name "InvalidArgument": bad argument (NULL, invalid UTF-8) */
#define LAYOUTD_ERR_TIMEOUT     (-5)  /* name "Timeout" */
#define LAYOUTD_ERR_NOMEM       (-6)  /* name "OutOfMemory" */
#define LAYOUTD_ERR_SHUTDOWN    (-7)  /* name "DaemonShutdown": daemon.shutdown arrived before the reply */

typedef struct layoutd_error {
    int code;            /* the protocol's code (-32700…-32000) or a LAYOUTD_ERR_* */
    char name[64];       /* switch on this: "InvalidParams", "ViewNotFound", …, or a local name */
    char message[512];   /* for people */
    char data[1024];     /* the error's data object as JSON text ("" when absent; cut if longer) */
} layoutd_error;

/* ------------------------------------------------------------------------------------------ */
/* Geometry and layout objects                                                                 */

typedef struct { double x, y; } layoutd_point;
typedef struct { double width, height; } layoutd_size;
typedef struct { double x, y, width, height; } layoutd_rect;
typedef struct { double top, left, bottom, right; } layoutd_insets;
typedef struct { double a, b, c, d, tx, ty; } layoutd_transform;

/* An element's kind. Cells, headers and footers have constants; every other kind a strategy
   names (compositional's badges, backgrounds, any boundary kind: views.md) gets a value above
   LAYOUTD_KIND_UNKNOWN the first time this process sees its name, the same value for the same
   name from then on, so keys of different named kinds stay apart. LAYOUTD_KIND_UNKNOWN is left
   for a name past the first 1,024 distinct ones or not a valid kind name. */
typedef enum { LAYOUTD_CELL = 0, LAYOUTD_HEADER = 1, LAYOUTD_FOOTER = 2, LAYOUTD_KIND_UNKNOWN = 3 } layoutd_kind;
/* "cell", "header", "footer", a named kind's name, or "unknown". The string lives as long as
   the process. */
const char *layoutd_kind_name(layoutd_kind kind);
/* The kind of that name (the constants for the three, a named kind's value otherwise). */
layoutd_kind layoutd_kind_named(const char *name);
/* The protocol's order of kinds: cells, headers, footers, then named kinds by name (then
   unknown); negative, zero or positive like strcmp. */
int layoutd_kind_compare(layoutd_kind a, layoutd_kind b);

typedef struct { layoutd_kind kind; const char *id; } layoutd_key;
typedef struct { const char *name; double value; } layoutd_effect;

/* One element's attributes (views.md "The attributes object"). */
typedef struct layoutd_attributes {
    const char *id;
    layoutd_kind kind;
    int64_t section;
    int64_t item;              /* -1 for headers and footers */
    layoutd_rect frame;
    int64_t z_index;
    double alpha;
    bool hidden;
    bool has_transform;
    layoutd_transform transform;  /* identity when !has_transform */
    size_t effect_count;
    const layoutd_effect *effects; /* sorted by name */
} layoutd_attributes;

/* A segment's timing curve (protocol/mutations.md, "How to play it"): UIKit's curves, cubic
   Béziers from (0, 0) to (1, 1) with CSS's control points of the same names. */
typedef enum {
    LAYOUTD_CURVE_LINEAR = 0,     /* (0, 0, 1, 1); also when the daemon names none */
    LAYOUTD_CURVE_EASE_IN = 1,    /* (0.42, 0, 1, 1) */
    LAYOUTD_CURVE_EASE_OUT = 2,   /* (0, 0, 0.58, 1) */
    LAYOUTD_CURVE_EASE_IN_OUT = 3 /* (0.42, 0, 0.58, 1) */
} layoutd_animation_curve;

/* The progress (0…1) of `curve` at elapsed fraction `elapsed` (clamped to 0…1): the curve's y
   where its x is `elapsed`. */
double layoutd_curve_progress(layoutd_animation_curve curve, double elapsed);
/* The protocol's name of a curve ("linear", "easeIn", "easeOut", "easeInOut"). */
const char *layoutd_curve_name(layoutd_animation_curve curve);

typedef struct {
    layoutd_kind kind;
    const char *id;
    layoutd_attributes from, to;
    double delay, duration;
    layoutd_animation_curve curve;
} layoutd_segment;

typedef struct layoutd_transition {
    double duration;
    size_t segment_count;
    const layoutd_segment *segments;  /* ordered by delay, then key */
} layoutd_transition;

/* The attributes of element (kind, id) at time t seconds into the transition, as mutations.md
   "transition" says to play it: before its first segment the element is at that segment's
   `from`, inside a segment interpolated from `from` to `to` (frame, alpha, transform, effects;
   zIndex, hidden, section and item jump to `to` at the segment's start), between and after
   segments at the previous segment's `to`. Progress runs on the segment's own curve
   (layoutd_curve_progress) unless `curve` is given: it then maps the elapsed fraction 0…1 to
   progress 0…1 for every segment (your toolkit's own easing). Returns 1 when the element has segments (out filled;
   pointers into the transition; interpolated effects in per-thread scratch valid until the next
   call), 0 when it does not move. */
typedef double (*layoutd_curve)(double progress);
int layoutd_transition_sample(const layoutd_transition *tr, layoutd_kind kind, const char *id, double t,
                              layoutd_curve curve, layoutd_attributes *out);

typedef struct {
    bool everything, data_source_counts;
    size_t invalidated_count;
    const char *const *invalidated;
    layoutd_size content_size_adjustment;
    layoutd_point content_offset_adjustment;
} layoutd_context;

typedef struct { size_t count; const char *const *ids; } layoutd_ids;

typedef struct {
    layoutd_ids inserted_items, deleted_items, moved_items, reloaded_items;
    layoutd_ids inserted_sections, deleted_sections, moved_sections, reloaded_sections;
} layoutd_changes;

/* What a mutation changed (mutations.md "The invalidation object"). Free with layoutd_invalidation_free. */
typedef struct layoutd_invalidation {
    const char *view;
    int64_t epoch;
    layoutd_size content_size;
    layoutd_point content_offset;
    layoutd_context context;
    layoutd_rect window;
    size_t entered_count, changed_count, left_count;
    const layoutd_attributes *entered, *changed;
    const layoutd_key *left;
    bool window_truncated;
    const char *anchor;         /* NULL when absent */
    const char *anchor_policy;  /* NULL when absent */
    bool has_target_content_offset;
    layoutd_point target_content_offset;
    bool has_changes;
    layoutd_changes changes;
    const layoutd_transition *transition; /* NULL unless animated */
    bool has_prefetch, has_needs_measure;
    layoutd_ids prefetch, needs_measure;
    bool dry_run;
    const layoutd_json *json;   /* the whole object, for fields added later */
    struct ld_arena *arena_;
} layoutd_invalidation;
void layoutd_invalidation_free(layoutd_invalidation *inv);

typedef struct {
    double width, height;
    layoutd_point offset;
    layoutd_insets content_insets;
} layoutd_viewport_state;

/* A view's state (views.md "The snapshot object"). Free with layoutd_snapshot_free. */
typedef struct layoutd_snapshot {
    const char *view, *strategy;
    const layoutd_json *params;       /* every strategy parameter, keys sorted */
    int64_t epoch;
    layoutd_viewport_state viewport;
    double window_margin;
    layoutd_rect window;
    layoutd_size content_size;
    int64_t section_count, item_count;
    size_t element_count;
    const layoutd_attributes *elements;  /* sorted by key */
    bool window_truncated;
    const layoutd_json *anchor;          /* NULL when firstVisible */
    const layoutd_json *scroll_target;   /* NULL when none */
    bool rtl;
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_snapshot;
void layoutd_snapshot_free(layoutd_snapshot *s);

/* What an invalidation says beyond its struct, read from its `json` (pointers into inv: valid
   until it is freed). */

/* The orthogonal section view.scrollSection or view.scrollSectionEnd moved (views.md
   "view.scrollSection"): the invalidation's `section`. */
typedef struct {
    const char *id;
    double offset;           /* points from the section's leading edge (scrollSectionEnd: where it rests) */
    double maximum_offset;   /* the greatest resting offset (0 when the content fits) */
    const char *behavior;    /* "continuous", "continuousGroupLeadingBoundary", "paging", "groupPaging", "groupPagingCentered" */
} layoutd_section_scroll;
/* 1 with *out filled when inv carries `section`, else 0 (out cleared). */
int layoutd_invalidation_section(const layoutd_invalidation *inv, layoutd_section_scroll *out);

/* An interactive move as an invalidation reports it (views.md "Interactive moves"): any
   invalidation while a move is in force (its own steps, a scroll under a still finger, another
   client's change that keeps it), and the one that ends it. */
typedef struct {
    bool moving;                 /* a move is in force after this change */
    const char *id;              /* moving: the item under the finger */
    layoutd_ids moving_items;    /* moving, when more than the item moves (a collapsible stack):
                                    every moving item in data order; else empty */
    int64_t target_section, target_item;  /* moving: where it drops if released now */
    layoutd_point auto_scroll;   /* moving: the scroll the finger asks for, points per second */
    bool ended;                  /* this change ended a move */
    const char *ended_id;        /* ended: the item that was moving */
    const char *end_reason;      /* ended: "committed", "cancelled", "itemDeleted", "dataChanged", "layoutChanged" */
} layoutd_move_state;
/* 1 with *out filled when inv says a move is in force or ended, else 0 (out cleared). The list
   of moving_items is allocated in inv at each call. */
int layoutd_invalidation_move(const layoutd_invalidation *inv, layoutd_move_state *out);

/* One element's two ends in an interactive transition: its attributes in the view's layout
   (from) and in the target (to), equal when it does not move. */
typedef struct {
    layoutd_kind kind;
    const char *id;
    layoutd_attributes from, to;
} layoutd_transition_pair;

/* An interactive transition (mutations.md "Interactive transitions"): view.beginTransition's
   result; also, through layoutd_interactive_transition_from_json, an invalidation's
   `interactiveTransition` (a scroll during one re-plans it) or a snapshot's. Free with
   layoutd_interactive_transition_free. */
typedef struct layoutd_interactive_transition {
    const char *view;                  /* view.beginTransition's result: the view; else NULL */
    int64_t epoch;                     /* view.beginTransition's result: the view's epoch (unchanged) */
    const char *strategy;              /* the view's strategy after a commit */
    double progress;                   /* 0: the view's layout, 1: the target */
    double duration;                   /* seconds the whole switch takes animated */
    layoutd_point content_offset_from, content_offset_to;
    layoutd_size content_size_from, content_size_to;
    size_t pair_count;
    const layoutd_transition_pair *pairs;  /* sorted by key; in a re-plan only the new or changed ones */
    size_t left_count;
    const layoutd_key *left;           /* a re-plan: the pairs gone */
    size_t element_count;
    const layoutd_attributes *elements;  /* a re-plan: the new or changed pairs' attributes at progress */
    const char *anchor;                /* the element a commit keeps in place; NULL when absent */
    const char *anchor_policy;         /* NULL when firstVisible */
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_interactive_transition;
void layoutd_interactive_transition_free(layoutd_interactive_transition *t);
/* Reads an interactiveTransition object (copied into the result). */
int layoutd_interactive_transition_from_json(const layoutd_json *v, layoutd_interactive_transition *out, layoutd_error *err);

/* view.updateTransition's result: every pair's attributes at `progress` (frame, alpha, transform
   and shared effects blended linearly; zIndex, hidden and positions switch at 0.5), and the
   blended content offset and size. Free with layoutd_transition_update_result_free. */
typedef struct {
    const char *view;
    double progress;
    layoutd_point content_offset;
    layoutd_size content_size;
    size_t element_count;
    const layoutd_attributes *elements;  /* one per pair, sorted by key */
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_transition_update_result;
void layoutd_transition_update_result_free(layoutd_transition_update_result *r);

/* ------------------------------------------------------------------------------------------ */
/* Request inputs                                                                              */

typedef struct {
    const char *id;
    bool has_size, has_estimated_size, has_selected_size;
    layoutd_size size, estimated_size, selected_size;
} layoutd_item;

typedef struct {
    const char *id;
    size_t item_count;
    const layoutd_item *items;
    bool has_header_size, has_footer_size;
    layoutd_size header_size, footer_size;
} layoutd_section;

/* An anchor policy: either a name ("firstVisible", "lastVisible", "end", "none") or an element. */
typedef struct {
    const char *policy;    /* a policy name, or NULL for an element policy */
    const char *id;        /* element policy: the element's id */
    const char *kind;      /* "cell" (default when NULL), "header", "footer" */
    const char *edge;      /* "start" (default when NULL), "center", "end" */
    bool has_offset;
    double offset;
} layoutd_anchor;

/* Common mutation parameters (mutations.md "Rules common to every mutation"); NULL = defaults. */
typedef struct {
    bool animated;
    bool has_if_epoch;
    int64_t if_epoch;
    bool dry_run;
    const layoutd_anchor *anchor;
} layoutd_mutation_options;

typedef struct {
    double width, height;
    bool has_offset, has_content_insets;
    layoutd_point offset;
    layoutd_insets content_insets;
} layoutd_viewport;

/* view.create's params. `params_json`: strategy parameters as JSON object text, or NULL. */
typedef struct layoutd_view_spec {
    const char *view;
    const char *strategy;
    const char *params_json;
    layoutd_viewport viewport;
    double window_margin;
    size_t section_count;
    const layoutd_section *sections;
    const char *layout_direction;   /* NULL, "ltr" or "rtl" */
    const layoutd_anchor *anchor;   /* NULL: firstVisible */
} layoutd_view_spec;

/* One view.update operation (common.json "update"). Fields used per op:
   insertItems: section, at, items; deleteItems: ids; moveItem: id, section, at;
   reloadItems: items; insertSections: at, sections; deleteSections: ids; moveSection: id, at;
   reloadSections: sections. For ops not listed here use layoutd_call_raw. */
typedef struct {
    const char *op;
    const char *section;
    const char *id;
    int64_t at;
    size_t item_count;
    const layoutd_item *items;
    size_t id_count;
    const char *const *ids;
    size_t section_count;
    const layoutd_section *sections;
} layoutd_update;

typedef struct {
    const char *id;
    layoutd_size size;
} layoutd_measurement;

/* ------------------------------------------------------------------------------------------ */
/* The connection                                                                              */

typedef struct layoutd_client layoutd_client;
typedef struct layoutd_subscription layoutd_subscription;
typedef struct layoutd_mirror layoutd_mirror;

/* The socket path by protocol/README.md §1: explicit (argument, else LAYOUTD_SOCKET, empty =
   unset), else $XDG_RUNTIME_DIR/layoutd/ipc.sock, else /run/layoutd/ipc.sock. Writes into buf. */
int layoutd_socket_path(const char *explicit_path, char *buf, size_t size, layoutd_error *err);

/* Connects within the default deadline (30 s): layoutd_client_connect_timeout(path, 30000, err).
   No fallback to the next discovery rule when nothing listens. Does not send daemon.hello (see
   layoutd_hello). */
layoutd_client *layoutd_client_connect(const char *explicit_path, layoutd_error *err);
/* Connects within timeout_ms (-1: no limit): a listener that does not accept in time (its
   backlog full) gives Timeout (LAYOUTD_ERR_TIMEOUT); no socket or nobody listening gives
   IOError at once. The socket is non-blocking from the start. */
layoutd_client *layoutd_client_connect_timeout(const char *explicit_path, int timeout_ms, layoutd_error *err);
void layoutd_client_close(layoutd_client *c);   /* not from inside one of its callbacks */
const char *layoutd_client_path(const layoutd_client *c);
bool layoutd_client_connected(const layoutd_client *c);

/* Event-loop integration: poll layoutd_client_fd for POLLIN always, and for POLLOUT while
   layoutd_client_wants_write() is true; call layoutd_client_dispatch() when it is ready, and
   again while layoutd_client_has_pending() is true (lines already buffered: no poll reports
   them). dispatch reads what is available without blocking, writes pending output, handles
   every complete line (reply callbacks, event callbacks, subscriptions and mirrors) and returns
   the number of lines handled, or -1 (err) when the connection failed or ended (the lines that
   arrived before the end were handled; pending requests then fail with ConnectionClosed, or
   DaemonShutdown after a daemon.shutdown event). A line no layoutd writes (not UTF-8, not JSON,
   not an object, nested deeper than 128, over the line cap, a reply or event of the wrong
   shape: protocol/README.md §9) ends the connection with ProtocolError (LAYOUTD_ERR_PROTOCOL),
   and every pending request fails with that error. */
int layoutd_client_fd(const layoutd_client *c);
bool layoutd_client_wants_write(const layoutd_client *c);
int layoutd_client_dispatch(layoutd_client *c, layoutd_error *err);
/* Whether whole lines wait in the client's input buffer, read from the socket but not handled
   yet (a blocking call made inside a callback reads ahead of the dispatch that called it). No
   fd watch reports them: call layoutd_client_dispatch() until this is false before going back
   to poll (a GSource's prepare returns it). */
bool layoutd_client_has_pending(const layoutd_client *c);
/* Requests sent and not yet answered (replies owed to layoutd_send callbacks and blocking calls).
   A request leaves the table when its reply, its deadline or the connection's end takes it. */
size_t layoutd_client_pending_count(const layoutd_client *c);
/* Lines that answered nobody: replies to an id no request waits for (unknown, answered twice,
   or a blocking call's reply after its deadline) and id-null errors after which the daemon
   keeps the connection. Counted and dropped, never errors. */
uint64_t layoutd_client_stray_count(const layoutd_client *c);
/* The index-th most recent stray line (0: the latest), its first 1024 bytes; NULL past the 16
   kept. Valid until the next stray. */
const char *layoutd_client_stray(const layoutd_client *c, size_t index);
/* Events nobody took: no event handler was set and no subscription of this client owned them
   (connection-wide events, or a subscription already gone). The C client keeps no queue of
   events: they are handed to the handlers as they are read, or counted here and dropped. */
uint64_t layoutd_client_dropped_events(const layoutd_client *c);
/* The longest line accepted from the daemon, in bytes (0: the default, 67108864 = 64 MiB, the
   daemon's default output-limit, so no legal reply is longer). A longer line is refused as
   soon as the cap is passed, before its newline: dispatch fails with ProtocolError
   (LAYOUTD_ERR_PROTOCOL), the connection is closed and every pending request fails with that
   error. The input buffer never grows much beyond the cap. */
void layoutd_client_set_line_cap(layoutd_client *c, size_t bytes);
size_t layoutd_client_line_cap(const layoutd_client *c);
/* Blocks (poll) until something was handled or timeout_ms passed (-1: forever). */
int layoutd_client_wait(layoutd_client *c, int timeout_ms, layoutd_error *err);

/* A reply: exactly one of result / error. Valid only during the callback. */
typedef struct {
    int64_t id;
    const layoutd_json *result;     /* NULL on error */
    const char *result_text;        /* the result's exact JSON text (NUL-terminated) */
    const layoutd_error *error;     /* NULL on success */
    const char *line;               /* the whole reply line */
} layoutd_reply;
typedef void (*layoutd_reply_cb)(layoutd_client *c, const layoutd_reply *reply, void *user);

/* Sends a request without waiting. params_json: an object's JSON text or NULL. Returns the
   request id (> 0), or -1. The callback (may be NULL) runs from dispatch with the reply, or
   with a ConnectionClosed / DaemonShutdown error when the connection ends first. */
int64_t layoutd_send(layoutd_client *c, const char *method, const char *params_json,
                     layoutd_reply_cb cb, void *user, layoutd_error *err);
/* Sends a notification (no id, no reply). */
int layoutd_notify(layoutd_client *c, const char *method, const char *params_json, layoutd_error *err);
/* Sends bytes as they are (a line you built, or a broken one for tests); add the "\n" yourself.
   Replies to raw lines are not matched to requests: they go to the line handler. */
int layoutd_send_raw(layoutd_client *c, const char *bytes, size_t len, layoutd_error *err);

/* Called with every line the daemon writes (before it is handled), e.g. for logging. */
typedef void (*layoutd_line_cb)(layoutd_client *c, const char *line, size_t len, void *user);
void layoutd_client_set_line_handler(layoutd_client *c, layoutd_line_cb cb, void *user);

/* Every event line (after seq checking and mirrors were updated). */
typedef struct {
    const char *name;            /* LAYOUTD_EVENT_VIEW_INVALIDATED ("view.invalidated"), ..._DELETED, ..._RESYNC,
                                    LAYOUTD_EVENT_VIEW_TRANSITION_INTERRUPTED, LAYOUTD_EVENT_DAEMON_SHUTDOWN, or new ones */
    int64_t subscription;        /* 0 for connection-wide events */
    int64_t seq;
    const layoutd_json *params;
    layoutd_subscription *sub;   /* the subscription it belongs to, when this client holds it */
    const char *line;
} layoutd_event;
typedef void (*layoutd_event_cb)(layoutd_client *c, const layoutd_event *ev, void *user);
void layoutd_client_set_event_handler(layoutd_client *c, layoutd_event_cb cb, void *user);
/* Connection-level error lines (id null: LineTooLong, IdleTimeout, …, or refusals of raw lines). */
typedef void (*layoutd_conn_error_cb)(layoutd_client *c, const layoutd_error *e, void *user);
void layoutd_client_set_error_handler(layoutd_client *c, layoutd_conn_error_cb cb, void *user);

/* Blocking raw call: sends, dispatches until its reply arrives (events are handled meanwhile).
   On success *result_json (malloc'd text; may be NULL to skip) and *result (tree; NULL to skip;
   free with layoutd_json_free). On a protocol error returns -1 with err filled from it. */
int layoutd_call_raw(layoutd_client *c, const char *method, const char *params_json,
                     char **result_json, layoutd_json **result, layoutd_error *err);
/* layoutd_call_raw with its own deadline (ms; -1: none) instead of the connection's. */
int layoutd_call_raw_timeout(layoutd_client *c, const char *method, const char *params_json, int timeout_ms,
                             char **result_json, layoutd_json **result, layoutd_error *err);
/* The deadline of every blocking call in ms (default 30000; -1 forever): one deadline for the
   whole call, from the send to the reply; then Timeout, the request is forgotten (its late
   reply counts as a stray) and the connection stays usable. */
void layoutd_client_set_timeout(layoutd_client *c, int timeout_ms);

/* ------------------------------------------------------------------------------------------ */
/* Typed methods (blocking). Results are plain structs; free them with their _free.            */

typedef struct {
    int64_t protocol;
    const char *server;
    int64_t maximum_line_length, maximum_views, maximum_items_per_view, maximum_total_items,
            maximum_batch_size, maximum_window_elements;
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_hello_result;
int layoutd_hello(layoutd_client *c, layoutd_hello_result *out, layoutd_error *err);
void layoutd_hello_free(layoutd_hello_result *r);

/* Results without a fixed shape worth a struct keep their tree (daemon.describe, strategy.list,
   daemon.status's nested objects); the common numbers are lifted out. */
typedef struct {
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_result;
void layoutd_result_free(layoutd_result *r);

typedef struct {
    int64_t views, items, subscriptions, requests, errors, generation;
    double uptime;
    int64_t connections_open, connections_accepted;
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_status;
int layoutd_status_get(layoutd_client *c, layoutd_status *out, layoutd_error *err);
void layoutd_status_free(layoutd_status *s);

int layoutd_describe(layoutd_client *c, layoutd_result *out, layoutd_error *err);
/* daemon.reload: the result (generation, changed, restartRequired, …) as a tree. */
int layoutd_reload(layoutd_client *c, layoutd_result *out, layoutd_error *err);
typedef struct {
    size_t count;
    const char *const *names;     /* strategy names in the daemon's order */
    const layoutd_json *json;     /* the whole result (origins, parameters, refused plugins) */
    struct ld_arena *arena_;
} layoutd_strategy_list;
int layoutd_strategies(layoutd_client *c, layoutd_strategy_list *out, layoutd_error *err);
void layoutd_strategy_list_free(layoutd_strategy_list *l);
int layoutd_sync(layoutd_client *c, layoutd_error *err);

int layoutd_view_create(layoutd_client *c, const layoutd_view_spec *spec, layoutd_snapshot *out, layoutd_error *err);
int layoutd_view_get(layoutd_client *c, const char *view, layoutd_snapshot *out, layoutd_error *err);
int layoutd_view_delete(layoutd_client *c, const char *view, layoutd_error *err);
/* view.list: names into out (free with layoutd_strings_free). */
typedef struct { size_t count; const char *const *items; struct ld_arena *arena_; } layoutd_strings;
int layoutd_view_list(layoutd_client *c, layoutd_strings *out, layoutd_error *err);
void layoutd_strings_free(layoutd_strings *s);

typedef struct {
    size_t count;
    const layoutd_attributes *elements;
    layoutd_ids selected;
    bool has_next;
    layoutd_key next;        /* pass as `after` for the next page */
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_query_result;
/* limit <= 0: the daemon's default; after may be NULL. */
int layoutd_view_query(layoutd_client *c, const char *view, layoutd_rect rect, int64_t limit,
                       const layoutd_key *after, layoutd_query_result *out, layoutd_error *err);
void layoutd_query_result_free(layoutd_query_result *q);

/* view.item / view.hitTest / view.neighbor: found = false when the daemon answered null. */
typedef struct {
    bool found;
    layoutd_attributes attributes;
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_element_result;
int layoutd_view_item(layoutd_client *c, const char *view, const char *id, layoutd_element_result *out, layoutd_error *err);
/* kinds: NULL-terminated list of "cell"/"header"/"footer", or NULL for the default. */
int layoutd_view_hit_test(layoutd_client *c, const char *view, layoutd_point p, const char *const *kinds,
                          layoutd_element_result *out, layoutd_error *err);
/* direction: "up", "down", "left", "right", "next", "previous" (views.md). */
int layoutd_view_neighbor(layoutd_client *c, const char *view, const char *id, const char *direction,
                          layoutd_element_result *out, layoutd_error *err);
void layoutd_element_result_free(layoutd_element_result *r);

/* view.selection: a page of the selected items in data order (views.md "view.selection"). */
typedef struct {
    layoutd_ids ids;             /* this page's selected item ids, in data order */
    int64_t total;               /* how many items are selected in all (the protocol's count) */
    int64_t epoch;               /* the view's epoch when the page was read */
    const char *next;            /* NULL on the last page; else pass it as `after` for the next */
    const layoutd_json *json;
    struct ld_arena *arena_;
} layoutd_selection_page;
/* limit <= 0: the daemon's default (maximumWindowElements); after may be NULL. Free with
   layoutd_selection_page_free. */
int layoutd_view_selection(layoutd_client *c, const char *view, int64_t limit, const char *after, layoutd_selection_page *out,
                           layoutd_error *err);
void layoutd_selection_page_free(layoutd_selection_page *p);

/* Mutations: each fills an invalidation (out may be NULL). opts may be NULL. */
int layoutd_view_set_data(layoutd_client *c, const char *view, size_t section_count, const layoutd_section *sections,
                          const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_update(layoutd_client *c, const char *view, size_t count, const layoutd_update *updates,
                        const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_measure(layoutd_client *c, const char *view, size_t count, const layoutd_measurement *sizes,
                         const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
/* mode: NULL (default "set"), or "add", "remove", "toggle", "set" (mutations.md view.select). */
int layoutd_view_select(layoutd_client *c, const char *view, size_t count, const char *const *ids, const char *mode,
                        const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
/* velocity NULL: none; horizon <= 0: the daemon's default. */
int layoutd_view_scroll(layoutd_client *c, const char *view, layoutd_point offset, const layoutd_point *velocity,
                        double horizon, const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_scroll_end(layoutd_client *c, const char *view, layoutd_point proposed, const layoutd_point *velocity,
                            const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
/* kind, align NULL: defaults; offset used when has_offset. */
int layoutd_view_scroll_to(layoutd_client *c, const char *view, const char *id, const char *kind, const char *align,
                           bool has_offset, double offset, const layoutd_mutation_options *opts,
                           layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_resize(layoutd_client *c, const char *view, layoutd_size size, const layoutd_mutation_options *opts,
                        layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_configure(layoutd_client *c, const char *view, const char *params_json,
                           const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_set_strategy(layoutd_client *c, const char *view, const char *strategy, const char *params_json,
                              const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_set_window_margin(layoutd_client *c, const char *view, double margin,
                                   const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_set_anchor(layoutd_client *c, const char *view, const layoutd_anchor *anchor,
                            const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_set_layout_direction(layoutd_client *c, const char *view, const char *direction,
                                      const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);

/* Orthogonal sections of a compositional view (views.md "view.scrollSection"): `section` is the
   section's id; layoutd_invalidation_section reads where it stands from the result. */
/* offset: points from the section's leading edge (not clamped). */
int layoutd_view_scroll_section(layoutd_client *c, const char *view, const char *section, double offset,
                                const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
/* The finger lifted: proposed NULL: where the section is; velocity in points per second across
   the main direction, positive toward larger offsets (0: none). */
int layoutd_view_scroll_section_end(layoutd_client *c, const char *view, const char *section, const double *proposed,
                                    double velocity, const layoutd_mutation_options *opts, layoutd_invalidation *out,
                                    layoutd_error *err);

/* Interactive moves (views.md "Interactive moves"): points are in viewport coordinates (the
   finger on the screen); layoutd_invalidation_move reads moving, target, autoScroll and
   moveEnded from each result. opts: animated and anchor are ignored (a move never anchors). */
/* point NULL: the item's centre (nothing moves). */
int layoutd_view_begin_move(layoutd_client *c, const char *view, const char *id, const layoutd_point *point,
                            const layoutd_mutation_options *opts, layoutd_invalidation *out, layoutd_error *err);
int layoutd_view_update_move(layoutd_client *c, const char *view, layoutd_point point, const layoutd_mutation_options *opts,
                             layoutd_invalidation *out, layoutd_error *err);
/* commit: drop at the target; false: put the item back. The result always has a transition. */
int layoutd_view_end_move(layoutd_client *c, const char *view, bool commit, const layoutd_mutation_options *opts,
                          layoutd_invalidation *out, layoutd_error *err);

/* Interactive transitions (mutations.md "Interactive transitions"). Beginning is not a
   mutation (the epoch stays, no event): strategy (NULL: keep the view's) and params_json
   (parameter values as JSON object text, or NULL), at least one of the two; if_epoch and anchor
   (what a commit keeps still) may be NULL. out may be NULL. */
int layoutd_view_begin_transition(layoutd_client *c, const char *view, const char *strategy, const char *params_json,
                                  const int64_t *if_epoch, const layoutd_anchor *anchor,
                                  layoutd_interactive_transition *out, layoutd_error *err);
/* Every element at progress 0 ... 1 (not a mutation). out may be NULL. */
int layoutd_view_update_transition(layoutd_client *c, const char *view, double progress,
                                   layoutd_transition_update_result *out, layoutd_error *err);
/* commit: switch to the target; false: go back. A mutation either way; the result always has a
   transition, from the current progress. opts: animated and anchor are ignored. */
int layoutd_view_end_transition(layoutd_client *c, const char *view, bool commit, const layoutd_mutation_options *opts,
                                layoutd_invalidation *out, layoutd_error *err);

/* Staged uploads (mutations.md "Staged uploads"). upload_id receives the upload's id (size >= 64). */
int layoutd_stage_begin(layoutd_client *c, const char *view, const int64_t *if_epoch, char *upload_id, size_t size,
                        layoutd_error *err);
int layoutd_stage_append(layoutd_client *c, const char *upload, size_t section_count, const layoutd_section *sections,
                         int64_t *items_so_far, layoutd_error *err);
int layoutd_stage_commit(layoutd_client *c, const char *upload, const layoutd_mutation_options *opts,
                         layoutd_invalidation *out, layoutd_error *err);
int layoutd_stage_abort(layoutd_client *c, const char *upload, layoutd_error *err);

/* Export and import (views.md "view.export", "view.import"): a view's whole state in parts.
   A part is kept as the JSON text the daemon wrote, since it goes back unchanged. */
typedef struct {
    char *json;            /* the part: a JSON object (malloc'd, NUL-terminated) */
    int64_t part;          /* 1, 2, ... */
    int64_t epoch;         /* the view's epoch in the export's snapshot */
    char *next;            /* the cursor of the next part (malloc'd), NULL after the last */
} layoutd_export_part;

/* One part of view's export: cursor NULL for part 1, else the previous part's next; limit 0 for
   the daemon's default. Free with layoutd_export_part_free. */
int layoutd_view_export(layoutd_client *c, const char *view, const char *cursor, int64_t limit, layoutd_export_part *out,
                        layoutd_error *err);
void layoutd_export_part_free(layoutd_export_part *p);

typedef struct {
    int64_t part;          /* the part taken */
    int64_t items;         /* items received so far */
    char import_id[64];    /* the id to send the next part with; "" once the view exists */
    bool created;          /* the last part came: the view exists */
    int64_t epoch;         /* when created: the new view's epoch (the export's) */
} layoutd_import_result;

/* Sends one part (blob_json: a part's json, unchanged; it is checked to be one JSON object):
   part 1 with view (the new view's name) and import_id NULL, each later part with view NULL
   and the import_id part 1 answered. out may be NULL. */
int layoutd_view_import(layoutd_client *c, const char *view, const char *import_id, const char *blob_json,
                        layoutd_import_result *out, layoutd_error *err);

/* Parses an invalidation / snapshot from a JSON tree (copied into the result). */
int layoutd_invalidation_from_json(const layoutd_json *v, layoutd_invalidation *out, layoutd_error *err);
int layoutd_snapshot_from_json(const layoutd_json *v, layoutd_snapshot *out, layoutd_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Mirrors                                                                                     */

/* A client-side copy of a view's window (subscriptions.md "Keeping a mirror"). */
layoutd_mirror *layoutd_mirror_new(void);
void layoutd_mirror_free(layoutd_mirror *m);
void layoutd_mirror_reset(layoutd_mirror *m, const layoutd_snapshot *s);    /* replace */
/* Applies an invalidation: -1 (and nothing changes) when its epoch is not the mirror's + 1. */
int layoutd_mirror_apply(layoutd_mirror *m, const layoutd_invalidation *inv);
bool layoutd_mirror_valid(const layoutd_mirror *m);   /* false before a snapshot and after view.deleted */
int64_t layoutd_mirror_epoch(const layoutd_mirror *m);
layoutd_rect layoutd_mirror_window(const layoutd_mirror *m);
layoutd_size layoutd_mirror_content_size(const layoutd_mirror *m);
layoutd_point layoutd_mirror_content_offset(const layoutd_mirror *m);
bool layoutd_mirror_window_truncated(const layoutd_mirror *m);
size_t layoutd_mirror_count(const layoutd_mirror *m);
const layoutd_attributes *layoutd_mirror_find(const layoutd_mirror *m, layoutd_kind kind, const char *id);
/* The last transition played into the mirror (NULL if the last invalidation had none). Valid
   until the next change of the mirror. */
const layoutd_transition *layoutd_mirror_transition(const layoutd_mirror *m);
/* Iteration in key order (layoutd_kind_compare, then id): for (i = 0; layoutd_mirror_at(m, i); i++).
   Pointers from a mirror stay valid until it next changes. */
const layoutd_attributes *layoutd_mirror_at(layoutd_mirror *m, size_t index);
/* Whether the mirror equals `elements` (sorted by key) element for element. */
bool layoutd_mirror_equals(layoutd_mirror *m, size_t count, const layoutd_attributes *elements);

/* What one change did to a mirror's window, computed against what the mirror held before it:
   applying `left` (remove), then `entered` and `changed` (put) to a copy of the old window
   gives the new one. Each list is in key order; a key is in at most one. An element the
   daemon re-sent with the same attributes is in none (nothing to redraw). */
typedef struct {
    bool reset;                         /* the window was replaced (a snapshot: subscribe, resync)
                                           or emptied (view.deleted); false: an invalidation */
    int64_t epoch;                      /* the mirror's epoch after the change */
    size_t entered_count, changed_count, left_count;
    const layoutd_attributes *entered;  /* in the window now, not before (the mirror's values) */
    const layoutd_attributes *changed;  /* in it before and now, with other attributes */
    const layoutd_key *left;            /* in it before, not now */
} layoutd_mirror_change;
/* Called after each change applied to the mirror (layoutd_mirror_apply, layoutd_mirror_reset,
   and a subscription's events: invalidation, resync, re-subscribe, deletion), so a front end
   touches only those widgets. Everything it points to is valid during the call. Not called for
   a change that was refused (an epoch gap) nor by layoutd_mirror_free. */
typedef void (*layoutd_mirror_change_cb)(layoutd_mirror *m, const layoutd_mirror_change *change, void *user);
void layoutd_mirror_set_change_handler(layoutd_mirror *m, layoutd_mirror_change_cb cb, void *user);

/* ------------------------------------------------------------------------------------------ */
/* Subscriptions                                                                               */

/* view.subscribe with a mirror kept by the library. The subscription checks the connection's
   event seq and each event's epoch: on a gap it re-subscribes (a fresh snapshot replaces the
   mirror); view.resync replaces the mirror; view.deleted ends it. cb (may be NULL) is called
   for each of its events after the mirror was updated. */
layoutd_subscription *layoutd_subscribe(layoutd_client *c, const char *view, layoutd_event_cb cb, void *user,
                                        layoutd_error *err);
int layoutd_unsubscribe(layoutd_client *c, layoutd_subscription *s, layoutd_error *err); /* frees s */
/* Re-subscribes now (fresh snapshot into the mirror), as after a gap. */
int layoutd_subscription_resync(layoutd_client *c, layoutd_subscription *s, layoutd_error *err);
layoutd_mirror *layoutd_subscription_mirror(layoutd_subscription *s);
int64_t layoutd_subscription_id(const layoutd_subscription *s);
const char *layoutd_subscription_view(const layoutd_subscription *s);
bool layoutd_subscription_active(const layoutd_subscription *s);   /* false after view.deleted */
/* How many times the library re-subscribed or replaced the mirror from a view.resync. */
uint64_t layoutd_subscription_resyncs(const layoutd_subscription *s);

/* ------------------------------------------------------------------------------------------ */
/* Reconnecting                                                                                */

/* Asked for the caller's current data of each view to restore (views created through
   layoutd_view_create on this client and not deleted, plus views named by
   layoutd_client_track_view). Fill *spec (pointers must stay valid until the call returns);
   return 0 to re-create the view, 1 to skip it. */
typedef int (*layoutd_restore_cb)(layoutd_client *c, const char *view, layoutd_view_spec *spec, void *user);
void layoutd_client_set_restore_handler(layoutd_client *c, layoutd_restore_cb cb, void *user);
void layoutd_client_track_view(layoutd_client *c, const char *view);

/* After the daemon went away (dispatch returned -1, or a daemon.shutdown): waits up to
   timeout_ms for the socket to serve again, reconnects to the same path, says hello, re-creates
   each tracked view from the restore handler (ViewExists counts as restored: another client
   was first) and re-subscribes every live subscription (same layoutd_subscription pointers, new
   ids; mirrors replaced by the fresh snapshots). Pending requests of the old connection have
   already failed with ConnectionClosed. */
int layoutd_client_reconnect(layoutd_client *c, int timeout_ms, layoutd_error *err);
/* Whether a daemon.shutdown event arrived on this connection. */
bool layoutd_client_shutting_down(const layoutd_client *c);

#ifdef __cplusplus
}
#endif
#endif
