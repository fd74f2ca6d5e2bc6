/* Which typed function serves each protocol method, and which methods are left to the raw API
   (layoutd_call_raw, layoutd_send) and why. tests/test_coverage.c holds these two lists to
   protocol.h's table: every method of protocol/interface.json must be in exactly one of them.
   Each typed entry names its function twice, as text and as an address, so that removing the
   function stops the library from linking. */
#include "internal.h"

#define TYPED(method, function) {method, #function, (void (*)(void))function}

const ld_typed_method ld_typed_methods[] = {
    TYPED(LAYOUTD_METHOD_DAEMON_HELLO, layoutd_hello),
    TYPED(LAYOUTD_METHOD_DAEMON_DESCRIBE, layoutd_describe),
    TYPED(LAYOUTD_METHOD_DAEMON_STATUS, layoutd_status_get),
    TYPED(LAYOUTD_METHOD_DAEMON_SYNC, layoutd_sync),
    TYPED(LAYOUTD_METHOD_DAEMON_RELOAD, layoutd_reload),
    TYPED(LAYOUTD_METHOD_STRATEGY_LIST, layoutd_strategies),
    TYPED(LAYOUTD_METHOD_VIEW_CREATE, layoutd_view_create),
    TYPED(LAYOUTD_METHOD_VIEW_DELETE, layoutd_view_delete),
    TYPED(LAYOUTD_METHOD_VIEW_LIST, layoutd_view_list),
    TYPED(LAYOUTD_METHOD_VIEW_GET, layoutd_view_get),
    TYPED(LAYOUTD_METHOD_VIEW_SET_DATA, layoutd_view_set_data),
    TYPED(LAYOUTD_METHOD_VIEW_UPDATE, layoutd_view_update),
    TYPED(LAYOUTD_METHOD_VIEW_MEASURE, layoutd_view_measure),
    TYPED(LAYOUTD_METHOD_VIEW_SELECT, layoutd_view_select),
    TYPED(LAYOUTD_METHOD_VIEW_SCROLL, layoutd_view_scroll),
    TYPED(LAYOUTD_METHOD_VIEW_SCROLL_END, layoutd_view_scroll_end),
    TYPED(LAYOUTD_METHOD_VIEW_SCROLL_SECTION, layoutd_view_scroll_section),
    TYPED(LAYOUTD_METHOD_VIEW_SCROLL_SECTION_END, layoutd_view_scroll_section_end),
    TYPED(LAYOUTD_METHOD_VIEW_SCROLL_TO, layoutd_view_scroll_to),
    TYPED(LAYOUTD_METHOD_VIEW_RESIZE, layoutd_view_resize),
    TYPED(LAYOUTD_METHOD_VIEW_CONFIGURE, layoutd_view_configure),
    TYPED(LAYOUTD_METHOD_VIEW_SET_STRATEGY, layoutd_view_set_strategy),
    TYPED(LAYOUTD_METHOD_VIEW_SET_WINDOW_MARGIN, layoutd_view_set_window_margin),
    TYPED(LAYOUTD_METHOD_VIEW_SET_ANCHOR, layoutd_view_set_anchor),
    TYPED(LAYOUTD_METHOD_VIEW_SET_LAYOUT_DIRECTION, layoutd_view_set_layout_direction),
    TYPED(LAYOUTD_METHOD_VIEW_BEGIN_MOVE, layoutd_view_begin_move),
    TYPED(LAYOUTD_METHOD_VIEW_UPDATE_MOVE, layoutd_view_update_move),
    TYPED(LAYOUTD_METHOD_VIEW_END_MOVE, layoutd_view_end_move),
    TYPED(LAYOUTD_METHOD_VIEW_BEGIN_TRANSITION, layoutd_view_begin_transition),
    TYPED(LAYOUTD_METHOD_VIEW_UPDATE_TRANSITION, layoutd_view_update_transition),
    TYPED(LAYOUTD_METHOD_VIEW_END_TRANSITION, layoutd_view_end_transition),
    TYPED(LAYOUTD_METHOD_VIEW_STAGE_BEGIN, layoutd_stage_begin),
    TYPED(LAYOUTD_METHOD_VIEW_STAGE_APPEND, layoutd_stage_append),
    TYPED(LAYOUTD_METHOD_VIEW_STAGE_COMMIT, layoutd_stage_commit),
    TYPED(LAYOUTD_METHOD_VIEW_STAGE_ABORT, layoutd_stage_abort),
    TYPED(LAYOUTD_METHOD_VIEW_EXPORT, layoutd_view_export),
    TYPED(LAYOUTD_METHOD_VIEW_IMPORT, layoutd_view_import),
    TYPED(LAYOUTD_METHOD_VIEW_QUERY, layoutd_view_query),
    TYPED(LAYOUTD_METHOD_VIEW_ITEM, layoutd_view_item),
    TYPED(LAYOUTD_METHOD_VIEW_SELECTION, layoutd_view_selection),
    TYPED(LAYOUTD_METHOD_VIEW_HIT_TEST, layoutd_view_hit_test),
    TYPED(LAYOUTD_METHOD_VIEW_NEIGHBOR, layoutd_view_neighbor),
    TYPED(LAYOUTD_METHOD_VIEW_SUBSCRIBE, layoutd_subscribe),
    TYPED(LAYOUTD_METHOD_VIEW_UNSUBSCRIBE, layoutd_unsubscribe),
    {NULL, NULL, NULL},
};
const size_t ld_typed_method_count = sizeof ld_typed_methods / sizeof ld_typed_methods[0] - 1;

/* Methods with no typed function on purpose, each with its reason (none today: every method of
   protocol version 1 has one). An entry: {LAYOUTD_METHOD_..., "why it stays raw"}. */
const ld_raw_method ld_raw_methods[] = {
    {NULL, NULL},
};
const size_t ld_raw_method_count = sizeof ld_raw_methods / sizeof ld_raw_methods[0] - 1;
