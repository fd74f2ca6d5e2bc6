/* LayoutdListItem: one element's slot as a factory sees it (GtkListItem's role). A list item and
   its child widget live in the view's recycling pool of their kind between uses. */
#include "private.h"
#include <string.h>

struct _LayoutdListItem {
    GObject parent_instance;
    char *kind;
    char *id;
    GObject *item;
    int section, position;
    gboolean selected;
    GtkWidget *child;
    GArray *effects;           /* Effect, sorted by name */
};

typedef struct {
    char *name;
    double value;
} Effect;

enum { SIGNAL_EFFECTS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_ITEM, PROP_ID, PROP_KIND, PROP_SECTION, PROP_POSITION, PROP_SELECTED, PROP_CHILD, N_PROPS };
static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE(LayoutdListItem, layoutd_list_item, G_TYPE_OBJECT)

static void layoutd_list_item_dispose(GObject *object)
{
    LayoutdListItem *self = LAYOUTD_LIST_ITEM(object);
    g_clear_object(&self->item);
    g_clear_object(&self->child);
    G_OBJECT_CLASS(layoutd_list_item_parent_class)->dispose(object);
}

static void clear_effects(LayoutdListItem *self)
{
    for (guint i = 0; i < self->effects->len; i++) g_free(g_array_index(self->effects, Effect, i).name);
    g_array_set_size(self->effects, 0);
}

static void layoutd_list_item_finalize(GObject *object)
{
    LayoutdListItem *self = LAYOUTD_LIST_ITEM(object);
    clear_effects(self);
    g_array_unref(self->effects);
    g_free(self->kind);
    g_free(self->id);
    G_OBJECT_CLASS(layoutd_list_item_parent_class)->finalize(object);
}

static void layoutd_list_item_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    LayoutdListItem *self = LAYOUTD_LIST_ITEM(object);
    switch (id) {
    case PROP_ITEM: g_value_set_object(value, self->item); break;
    case PROP_ID: g_value_set_string(value, self->id); break;
    case PROP_KIND: g_value_set_string(value, self->kind); break;
    case PROP_SECTION: g_value_set_int(value, self->section); break;
    case PROP_POSITION: g_value_set_int(value, self->position); break;
    case PROP_SELECTED: g_value_set_boolean(value, self->selected); break;
    case PROP_CHILD: g_value_set_object(value, self->child); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_list_item_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    LayoutdListItem *self = LAYOUTD_LIST_ITEM(object);
    switch (id) {
    case PROP_CHILD: layoutd_list_item_set_child(self, g_value_get_object(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_list_item_class_init(LayoutdListItemClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->dispose = layoutd_list_item_dispose;
    oc->finalize = layoutd_list_item_finalize;
    oc->get_property = layoutd_list_item_get_property;
    oc->set_property = layoutd_list_item_set_property;
    GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
    /**
     * LayoutdListItem:item:
     *
     * The model item a cell shows (%NULL for a header, footer or other supplementary element,
     * and while unbound).
     */
    props[PROP_ITEM] = g_param_spec_object("item", NULL, NULL, G_TYPE_OBJECT, ro);
    /**
     * LayoutdListItem:id:
     *
     * The element's id: an item id for a cell, a section id for a header or footer.
     */
    props[PROP_ID] = g_param_spec_string("id", NULL, NULL, NULL, ro);
    /**
     * LayoutdListItem:kind:
     *
     * The element's kind: "cell", "header", "footer" or a strategy's own kind.
     */
    props[PROP_KIND] = g_param_spec_string("kind", NULL, NULL, NULL, ro);
    /**
     * LayoutdListItem:section:
     *
     * The index of the element's section.
     */
    props[PROP_SECTION] = g_param_spec_int("section", NULL, NULL, -1, G_MAXINT, -1, ro);
    /**
     * LayoutdListItem:position:
     *
     * The item's index in its section (-1 for supplementary elements).
     */
    props[PROP_POSITION] = g_param_spec_int("position", NULL, NULL, -1, G_MAXINT, -1, ro);
    /**
     * LayoutdListItem:selected:
     *
     * Whether the item is selected.
     */
    props[PROP_SELECTED] = g_param_spec_boolean("selected", NULL, NULL, FALSE, ro);
    /**
     * LayoutdListItem:child:
     *
     * The widget the factory made for this slot (set it in #LayoutdCellFactory::setup).
     */
    props[PROP_CHILD] = g_param_spec_object("child", NULL, NULL, GTK_TYPE_WIDGET,
                                            G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(oc, N_PROPS, props);
    /**
     * LayoutdListItem::effects-changed:
     * @self: the list item
     *
     * The element's named effects changed (ultravisual's `coverAlpha`, `detailAlpha`,
     * `titleScale`, a plugin's own): read them with layoutd_list_item_get_effect().
     */
    signals[SIGNAL_EFFECTS_CHANGED] = g_signal_new("effects-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void layoutd_list_item_init(LayoutdListItem *self)
{
    self->effects = g_array_new(FALSE, FALSE, sizeof(Effect));
    self->section = -1;
    self->position = -1;
}

LayoutdListItem *layoutd_gtk_list_item_new(const char *kind)
{
    LayoutdListItem *self = g_object_new(LAYOUTD_TYPE_LIST_ITEM, NULL);
    self->kind = g_strdup(kind);
    return self;
}

void layoutd_gtk_list_item_bind_to(LayoutdListItem *self, const char *id, GObject *item, int section, int position,
                               gboolean selected)
{
    g_free(self->id);
    self->id = g_strdup(id);
    g_set_object(&self->item, item);
    self->section = section;
    self->position = position;
    self->selected = selected;
}

void layoutd_gtk_list_item_set_selected(LayoutdListItem *self, gboolean selected)
{
    if (self->selected == selected) return;
    self->selected = selected;
    if (self->child) {
        if (selected) gtk_widget_set_state_flags(self->child, GTK_STATE_FLAG_SELECTED, FALSE);
        else gtk_widget_unset_state_flags(self->child, GTK_STATE_FLAG_SELECTED);
    }
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELECTED]);
}

void layoutd_gtk_list_item_set_position(LayoutdListItem *self, int section, int position)
{
    if (self->section != section) {
        self->section = section;
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SECTION]);
    }
    if (self->position != position) {
        self->position = position;
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_POSITION]);
    }
}

void layoutd_gtk_list_item_set_effects(LayoutdListItem *self, size_t count, const char *const *names, const double *values)
{
    gboolean same = self->effects->len == count;
    for (size_t i = 0; same && i < count; i++) {
        Effect *e = &g_array_index(self->effects, Effect, i);
        same = strcmp(e->name, names[i]) == 0 && e->value == values[i];
    }
    if (same) return;
    clear_effects(self);
    for (size_t i = 0; i < count; i++) {
        Effect e = {g_strdup(names[i]), values[i]};
        g_array_append_val(self->effects, e);
    }
    g_signal_emit(self, signals[SIGNAL_EFFECTS_CHANGED], 0);
}

/**
 * layoutd_list_item_get_effect:
 * @self: a list item
 * @name: an effect's name
 * @fallback: the value when the element has no such effect
 *
 * Returns: the effect's value now
 */
double layoutd_list_item_get_effect(LayoutdListItem *self, const char *name, double fallback)
{
    for (guint i = 0; i < self->effects->len; i++) {
        Effect *e = &g_array_index(self->effects, Effect, i);
        if (strcmp(e->name, name) == 0) return e->value;
    }
    return fallback;
}

void layoutd_gtk_list_item_unbind_from(LayoutdListItem *self)
{
    clear_effects(self);
    g_clear_object(&self->item);
    g_clear_pointer(&self->id, g_free);
    self->section = self->position = -1;
    self->selected = FALSE;
}

/**
 * layoutd_list_item_get_item:
 * @self: a list item
 *
 * Returns: (transfer none) (nullable): the model item (cells only)
 */
GObject *layoutd_list_item_get_item(LayoutdListItem *self)
{
    return self->item;
}

/**
 * layoutd_list_item_get_id:
 * @self: a list item
 *
 * Returns: (transfer none) (nullable): the element's id (%NULL while unbound)
 */
const char *layoutd_list_item_get_id(LayoutdListItem *self)
{
    return self->id;
}

/**
 * layoutd_list_item_get_kind:
 * @self: a list item
 *
 * Returns: (transfer none): the element's kind
 */
const char *layoutd_list_item_get_kind(LayoutdListItem *self)
{
    return self->kind;
}

/**
 * layoutd_list_item_get_section:
 * @self: a list item
 *
 * Returns: the section index (-1 while unbound)
 */
int layoutd_list_item_get_section(LayoutdListItem *self)
{
    return self->section;
}

/**
 * layoutd_list_item_get_position:
 * @self: a list item
 *
 * Returns: the item's index in its section (-1 for supplementary elements and while unbound)
 */
int layoutd_list_item_get_position(LayoutdListItem *self)
{
    return self->position;
}

/**
 * layoutd_list_item_get_selected:
 * @self: a list item
 *
 * Returns: whether the item is selected
 */
gboolean layoutd_list_item_get_selected(LayoutdListItem *self)
{
    return self->selected;
}

/**
 * layoutd_list_item_get_child:
 * @self: a list item
 *
 * Returns: (transfer none) (nullable): the child widget
 */
GtkWidget *layoutd_list_item_get_child(LayoutdListItem *self)
{
    return self->child;
}

/**
 * layoutd_list_item_set_child:
 * @self: a list item
 * @child: (nullable): the widget that shows this slot
 *
 * Sets the widget (in #LayoutdCellFactory::setup; the view places and recycles it).
 */
void layoutd_list_item_set_child(LayoutdListItem *self, GtkWidget *child)
{
    if (self->child == child) return;
    if (child) g_object_ref_sink(child);
    g_clear_object(&self->child);
    self->child = child;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CHILD]);
}
