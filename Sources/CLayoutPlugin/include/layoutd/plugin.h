/*
 * layoutd strategy plugin ABI, version 1.
 *
 * A plugin is a shared object in one of layoutd's plugin directories. layoutd opens it,
 * looks up LAYOUTD_PLUGIN_ENTRY_SYMBOL, calls it once, and checks the ABI version it returns
 * before it reads anything else. Everything here is plain C: a plugin can be written in any
 * language that can export a C function and lay out these structs (see protocol/plugins.md).
 *
 * Rules the daemon relies on:
 *  - Every callback runs on one thread at a time per instance; different instances may run on
 *    different threads at once, so a plugin keeps no mutable global state.
 *  - Strings the plugin returns (descriptor, effect names) live as long as the plugin is loaded.
 *  - Arrays in layoutd_input belong to the daemon and are valid during the call only.
 *  - layoutd_output arrays belong to the daemon; before each full layout every entry is reset to
 *    the defaults (frame zero, alpha 1, z_index 0, not hidden, identity transform, effects NaN),
 *    so a plugin writes only what it sets.
 *  - Coordinates are points in content space, origin top left, y down (as UIKit).
 */
#ifndef LAYOUTD_PLUGIN_H
#define LAYOUTD_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header describes. layoutd refuses a plugin that returns another. */
#define LAYOUTD_PLUGIN_ABI_VERSION 1u

/* The symbol layoutd looks up: `const layoutd_plugin *layoutd_plugin_entry(void)`. */
#define LAYOUTD_PLUGIN_ENTRY_SYMBOL "layoutd_plugin_entry"

/* Room a callback has for an error message, including the terminating NUL. */
#define LAYOUTD_PLUGIN_ERROR_CAPACITY 256

typedef struct layoutd_size {
    double width, height;
} layoutd_size;

typedef struct layoutd_rect {
    double x, y, width, height;
} layoutd_rect;

typedef struct layoutd_insets {
    double top, left, bottom, right;
} layoutd_insets;

/* The client's scroll view: its size, content offset and content insets. */
typedef struct layoutd_viewport {
    layoutd_size size;
    double offset_x, offset_y;
    layoutd_insets content_insets;
} layoutd_viewport;

typedef struct layoutd_section {
    /* The section's items are input->item_sizes[first_item ..< first_item + item_count]. */
    size_t first_item;
    size_t item_count;
    /* A header or footer exists (has_* != 0) when the client gave the section one whose
     * extent along the scroll axis is not 0, as in flow. */
    uint8_t has_header, has_footer;
    layoutd_size header_size, footer_size;
} layoutd_section;

/* What a layout is computed from. Items are numbered across sections, in order. */
typedef struct layoutd_input {
    layoutd_viewport viewport;
    size_t section_count;
    const layoutd_section *sections;
    size_t item_count;
    /* Each item's size: its own (given, estimated or measured), the open size of a selected
     * expanding item, or else the instance's default_item_size. */
    const layoutd_size *item_sizes;
    /* 1 where the item is selected, else 0. */
    const uint8_t *item_selected;
} layoutd_input;

/* One element's attributes. transform is the affine matrix {a, b, c, d, tx, ty}. */
typedef struct layoutd_attributes {
    layoutd_rect frame;
    double alpha;
    int32_t z_index;
    int32_t hidden;
    double transform[6];
} layoutd_attributes;

/* Where a layout goes. Arrays are sized by the input: items[item_count], headers and footers
 * [section_count] (entries of sections without one are ignored), and per element
 * effect_count values in item_effects[item_count * effect_count], header_effects and
 * footer_effects[section_count * effect_count], in the order of the strategy's effect_names.
 * NaN means "no such effect on this element". */
typedef struct layoutd_output {
    layoutd_size content_size;
    layoutd_attributes *items;
    layoutd_attributes *headers;
    layoutd_attributes *footers;
    double *item_effects;
    double *header_effects;
    double *footer_effects;
} layoutd_output;

/* What create tells the daemon about one instance. */
typedef struct layoutd_instance_info {
    /* The size of items without their own: what measurements are compared against. */
    layoutd_size default_item_size;
    /* Nonzero when the content scrolls horizontally. */
    uint8_t scrolls_horizontally;
    /* Nonzero when frames depend on the content offset (parallax, pinning): the daemon then
     * lays out again, or calls viewport_changed, on every scroll. */
    uint8_t offset_dependent;
} layoutd_instance_info;

/* Results of the optional incremental callbacks. */
enum {
    LAYOUTD_UNCHANGED = 0,   /* nothing in the output changed */
    LAYOUTD_UPDATED = 1,     /* the output was updated in place */
    LAYOUTD_FULL_LAYOUT = 2  /* the plugin cannot update incrementally: call layout instead */
};

typedef struct layoutd_strategy {
    /* The strategy as strategy.list publishes it, as JSON: {"name", "summary", "parameters":
     * [{"name", "type", "default", "summary", and "choices" or "minimum"/"maximum"}]}.
     * layoutd checks a client's parameters against it before create sees them. */
    const char *descriptor_json;
    /* Names of the per-element effects the output carries (may be 0 and NULL). */
    size_t effect_count;
    const char *const *effect_names;

    /* Passed back to create unchanged: lets one create function serve several strategies
     * (the Swift SDK keeps the strategy's type here). May be NULL. */
    const void *context;

    /* Builds an instance from every declared parameter's value as a JSON object (keys
     * sorted). Returns NULL and writes a sentence to error (capacity
     * LAYOUTD_PLUGIN_ERROR_CAPACITY) to refuse the values; start it with "name: " to point at
     * one parameter. */
    void *(*create)(const void *context, const char *parameters_json, layoutd_instance_info *info, char *error);
    void (*destroy)(void *instance);

    /* A full layout of input into output. Required. */
    void (*layout)(void *instance, const layoutd_input *input, layoutd_output *output);

    /* Optional (NULL): the viewport in input changed (size, insets, or the offset of an
     * offset_dependent instance); output still holds the last layout. Without it the daemon
     * lays out again when the size or insets change, and on scrolls of offset_dependent
     * instances. */
    int (*viewport_changed)(void *instance, const layoutd_input *input, layoutd_output *output);

    /* Optional (NULL): the sizes or selection of the items numbered in changed[count] (sorted,
     * distinct) changed; output still holds the last layout. Without it the daemon lays out
     * again. Insertions, deletions and moves always get a full layout. */
    int (*items_changed)(void *instance, const layoutd_input *input, const size_t *changed, size_t count,
                         layoutd_output *output);

    /* Optional (NULL): where scrolling comes to rest when the user lifts a finger (paging,
     * snapping). *x and *y hold the proposed offset on entry; velocity is in points per
     * second. output holds the current layout. Without it the proposed offset stands. */
    void (*target_content_offset)(void *instance, const layoutd_input *input, const layoutd_output *output,
                                  double velocity_x, double velocity_y, double *x, double *y);
} layoutd_strategy;

typedef struct layoutd_plugin {
    /* LAYOUTD_PLUGIN_ABI_VERSION: checked before anything else is read. */
    uint32_t abi_version;
    size_t strategy_count;
    const layoutd_strategy *strategies;
    /* Optional (NULL): run once at load, after layoutd's own checks; return 0 when the plugin
     * works here, else write why to error (capacity LAYOUTD_PLUGIN_ERROR_CAPACITY) and return
     * nonzero: the plugin is then refused. */
    int (*self_check)(const struct layoutd_plugin *plugin, char *error);
} layoutd_plugin;

typedef const layoutd_plugin *(*layoutd_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* LAYOUTD_PLUGIN_H */
