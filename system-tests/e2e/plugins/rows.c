/*
 * A one-column list plugin for the plugin tests, and every way a plugin can be wrong. Built by
 * test_plugins.py with one of these defined:
 *   (none)             a good plugin: strategy "rows"
 *   NAME=\"x\"         the strategy's name (NAME=\"flow\" clashes with a built-in)
 *   ABI_VERSION=n      claims another ABI version
 *   NO_ENTRY           exports no layoutd_plugin_entry
 *   FAIL_SELF_CHECK    its self_check fails
 *   NAN_FRAMES         writes NaN frames
 *   IMPURE             lays the same input out differently each time
 *   BAD_DESCRIPTOR     descriptor_json is not a descriptor
 *   NO_LAYOUT          leaves the layout callback NULL
 *   NAN_WHEN_WIDE      passes layoutd's check, then writes NaN heights in viewports over 1000 wide
 *   SNAP               scrolling comes to rest at the nearest row start (target_content_offset)
 *   SLOW_WHEN_WIDE     passes layoutd's check, then takes (width - 1000) ms per layout in viewports
 *                      over 1000 wide: a view legitimately busy, or stuck, as long as a test likes
 */
#include <layoutd/plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef NAME
#define NAME "rows"
#endif
#ifndef ABI_VERSION
#define ABI_VERSION LAYOUTD_PLUGIN_ABI_VERSION
#endif

typedef struct rows {
    double row_height, spacing;
} rows;

static double number_after(const char *json, const char *key) {
    const char *found = strstr(json, key);
    return found ? strtod(found + strlen(key), NULL) : 0;
}

static void *rows_create(const void *context, const char *parameters, layoutd_instance_info *info, char *error) {
    (void)context;
    rows *self = calloc(1, sizeof *self);
    self->row_height = number_after(parameters, "\"rowHeight\":");
    self->spacing = number_after(parameters, "\"spacing\":");
    if (self->spacing > self->row_height) {
        snprintf(error, LAYOUTD_PLUGIN_ERROR_CAPACITY, "spacing: must not exceed rowHeight (%g)", self->row_height);
        free(self);
        return NULL;
    }
    info->default_item_size = (layoutd_size){0, self->row_height};
    return self;
}

static void rows_destroy(void *instance) { free(instance); }

#ifdef NO_LAYOUT
__attribute__((unused))
#endif
static void rows_layout(void *instance, const layoutd_input *input, layoutd_output *output) {
    rows *self = instance;
#ifdef IMPURE
    static double drift = 0;
    drift += 1;
#else
    const double drift = 0;
#endif
    double width = input->viewport.size.width, y = drift;
#ifdef SLOW_WHEN_WIDE
    if (width > 1000) {
        double seconds = (width - 1000) / 1000;
        struct timespec pause = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
        while (nanosleep(&pause, &pause) != 0) {}
    }
#endif
    for (size_t s = 0; s < input->section_count; s++) {
        const layoutd_section *section = &input->sections[s];
        if (section->has_header) {
            output->headers[s].frame = (layoutd_rect){0, y, width, section->header_size.height};
            y += section->header_size.height;
        }
        for (size_t i = section->first_item; i < section->first_item + section->item_count; i++) {
            double height = input->item_sizes[i].height;
#ifdef NAN_FRAMES
            height = NAN;
#endif
#ifdef NAN_WHEN_WIDE
            if (width > 1000) height = NAN;
#endif
            output->items[i].frame = (layoutd_rect){0, y, width, height};
            output->items[i].z_index = input->item_selected[i] ? 1 : 0;
            y += height + self->spacing;
        }
        if (section->has_footer) {
            output->footers[s].frame = (layoutd_rect){0, y, width, section->footer_size.height};
            y += section->footer_size.height;
        }
    }
    output->content_size = (layoutd_size){width, y};
}

#ifdef SNAP
static void rows_target(void *instance, const layoutd_input *input, const layoutd_output *output, double velocity_x,
                        double velocity_y, double *x, double *y) {
    (void)input, (void)output, (void)velocity_x, (void)velocity_y;
    rows *self = instance;
    double pitch = self->row_height + self->spacing;
    *x = 0;
    if (pitch > 0) *y = round(*y / pitch) * pitch;
}
#endif

#ifdef BAD_DESCRIPTOR
#define DESCRIPTOR "{\"name\":\"" NAME "\",\"summary\":\"\",\"parameters\":[{\"name\":\"rowHeight\",\"type\":\"length\"}]}"
#else
#define DESCRIPTOR                                                                                              \
    "{\"name\":\"" NAME "\",\"summary\":\"one column of rows, full width\",\"parameters\":["                   \
    "{\"name\":\"rowHeight\",\"type\":\"number\",\"default\":44,\"summary\":\"height of items without their own\"," \
    "\"minimum\":0},"                                                                                           \
    "{\"name\":\"spacing\",\"type\":\"number\",\"default\":0,\"summary\":\"gap between rows\",\"minimum\":0}]}"
#endif

static const layoutd_strategy strategies[] = {{
    .descriptor_json = DESCRIPTOR,
    .create = rows_create,
    .destroy = rows_destroy,
#ifndef NO_LAYOUT
    .layout = rows_layout,
#endif
#ifdef SNAP
    .target_content_offset = rows_target,
#endif
}};

#ifdef FAIL_SELF_CHECK
static int self_check(const layoutd_plugin *plugin, char *error) {
    (void)plugin;
    snprintf(error, LAYOUTD_PLUGIN_ERROR_CAPACITY, "needs a device this machine does not have");
    return 1;
}
#endif

static const layoutd_plugin plugin = {
    .abi_version = ABI_VERSION,
    .strategy_count = 1,
    .strategies = strategies,
#ifdef FAIL_SELF_CHECK
    .self_check = self_check,
#endif
};

#ifdef NO_ENTRY
const layoutd_plugin *layoutd_plugin_entry_v0(void) { return &plugin; }
#else
const layoutd_plugin *layoutd_plugin_entry(void) { return &plugin; }
#endif
