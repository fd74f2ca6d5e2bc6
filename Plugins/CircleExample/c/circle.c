/*
 * docs/plugins.md's example strategy in plain C: the same "circle" layout as
 * Plugins/CircleExample/swift/Circle.swift, to show the ABI needs no Swift. Items sit on one
 * circle around the middle of the viewport, clockwise from the top; selected items sit on top,
 * scaled up; each item carries its angle as an effect; headers and footers are hidden.
 *
 *   cc -shared -fPIC -O2 -I<prefix>/include circle.c -o circle.so -lm
 */
#include <layoutd/plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct circle {
    layoutd_size item_size;
    double radius;
    double selected_scale;
} circle;

/* Reads "name":number from the parameters layoutd passes (keys sorted, every parameter
 * present, values already validated against the descriptor). */
static double number_after(const char *json, const char *key) {
    const char *found = strstr(json, key);
    return found ? strtod(found + strlen(key), NULL) : 0;
}

static void *circle_create(const void *context, const char *parameters, layoutd_instance_info *info, char *error) {
    (void)context;
    (void)error;
    circle *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(error, LAYOUTD_PLUGIN_ERROR_CAPACITY, "out of memory");
        return NULL;
    }
    const char *item_size = strstr(parameters, "\"itemSize\":");
    self->item_size.width = item_size ? number_after(item_size, "\"width\":") : 0;
    self->item_size.height = item_size ? number_after(item_size, "\"height\":") : 0;
    self->radius = number_after(parameters, "\"radius\":");
    self->selected_scale = number_after(parameters, "\"selectedScale\":");
    info->default_item_size = self->item_size;
    return self;
}

static void circle_destroy(void *instance) { free(instance); }

static void area(const layoutd_viewport *viewport, double *width, double *height) {
    *width = fmax(0, viewport->size.width - viewport->content_insets.left - viewport->content_insets.right);
    *height = fmax(0, viewport->size.height - viewport->content_insets.top - viewport->content_insets.bottom);
}

static void place(const circle *self, size_t index, const layoutd_input *input, layoutd_output *output) {
    double width, height;
    area(&input->viewport, &width, &height);
    double ring = self->radius > 0 ? self->radius : fmax(0, (fmin(width, height) - self->item_size.height) / 2);
    double angle = 2 * M_PI * (double)index / (double)input->item_count - M_PI / 2;
    double center_x = width / 2 + ring * cos(angle);
    double center_y = height / 2 + ring * sin(angle);
    layoutd_size size = input->item_sizes[index];
    int selected = input->item_selected[index] != 0;
    layoutd_attributes *item = &output->items[index];
    item->frame = (layoutd_rect){center_x - size.width / 2, center_y - size.height / 2, size.width, size.height};
    item->alpha = 1;
    item->z_index = selected ? 1 : 0;
    item->hidden = 0;
    double scale = selected ? self->selected_scale : 1;
    double transform[6] = {scale, 0, 0, scale, 0, 0};
    memcpy(item->transform, transform, sizeof transform);
    output->item_effects[index] = 360 * (double)index / (double)input->item_count;
}

static void circle_layout(void *instance, const layoutd_input *input, layoutd_output *output) {
    double width, height;
    area(&input->viewport, &width, &height);
    output->content_size = (layoutd_size){width, height};
    for (size_t index = 0; index < input->item_count; index++) place(instance, index, input, output);
    for (size_t section = 0; section < input->section_count; section++) {
        output->headers[section].hidden = 1;
        output->footers[section].hidden = 1;
    }
}

static int circle_viewport_changed(void *instance, const layoutd_input *input, layoutd_output *output) {
    double width, height;
    area(&input->viewport, &width, &height);
    if (width == output->content_size.width && height == output->content_size.height) return LAYOUTD_UNCHANGED;
    circle_layout(instance, input, output);
    return LAYOUTD_UPDATED;
}

/* Positions depend on the count alone, so a size or selection change moves only those items. */
static int circle_items_changed(void *instance, const layoutd_input *input, const size_t *changed, size_t count,
                                layoutd_output *output) {
    for (size_t k = 0; k < count; k++) place(instance, changed[k], input, output);
    return LAYOUTD_UPDATED;
}

static const char *const effect_names[] = {"angle"};

static const layoutd_strategy strategies[] = {{
    .descriptor_json =
        "{\"name\":\"circle-c\",\"summary\":\"Items on a circle, clockwise from the top; selected items scale up\","
        "\"parameters\":["
        "{\"name\":\"itemSize\",\"type\":\"size\",\"default\":{\"width\":60,\"height\":60},"
        "\"summary\":\"size of items without their own\"},"
        "{\"name\":\"radius\",\"type\":\"number\",\"default\":0,\"summary\":\"0: fit the viewport\",\"minimum\":0},"
        "{\"name\":\"selectedScale\",\"type\":\"number\",\"default\":1.5,\"summary\":\"scale of selected items\","
        "\"minimum\":1,\"maximum\":4}]}",
    .effect_count = 1,
    .effect_names = effect_names,
    .context = NULL,
    .create = circle_create,
    .destroy = circle_destroy,
    .layout = circle_layout,
    .viewport_changed = circle_viewport_changed,
    .items_changed = circle_items_changed,
}};

static const layoutd_plugin plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .strategy_count = 1,
    .strategies = strategies,
    .self_check = NULL,
};

const layoutd_plugin *layoutd_plugin_entry(void) { return &plugin; }
