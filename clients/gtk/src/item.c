/* LayoutdItem: a model item with a stable id and an optional section id. Any GObject with a
   string "id" property (and optionally "section") serves as well; this one is for apps that
   have nothing of their own, and for subclassing. */
#include "private.h"

typedef struct {
    char *id;
    char *section;
} LayoutdItemPrivate;

enum { PROP_0, PROP_ID, PROP_SECTION, N_PROPS };
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE_WITH_PRIVATE(LayoutdItem, layoutd_item, G_TYPE_OBJECT)

static void layoutd_item_finalize(GObject *object)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(LAYOUTD_ITEM(object));
    g_free(p->id);
    g_free(p->section);
    G_OBJECT_CLASS(layoutd_item_parent_class)->finalize(object);
}

static void layoutd_item_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(LAYOUTD_ITEM(object));
    switch (id) {
    case PROP_ID: g_free(p->id); p->id = g_value_dup_string(value); break;
    case PROP_SECTION: layoutd_item_set_section(LAYOUTD_ITEM(object), g_value_get_string(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_item_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(LAYOUTD_ITEM(object));
    switch (id) {
    case PROP_ID: g_value_set_string(value, p->id); break;
    case PROP_SECTION: g_value_set_string(value, p->section); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void layoutd_item_class_init(LayoutdItemClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->finalize = layoutd_item_finalize;
    oc->set_property = layoutd_item_set_property;
    oc->get_property = layoutd_item_get_property;
    /**
     * LayoutdItem:id:
     *
     * The item's stable id: what the daemon knows it by (non-empty, unique in the model).
     */
    props[PROP_ID] = g_param_spec_string("id", NULL, NULL, NULL,
                                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * LayoutdItem:section:
     *
     * The id of the section the item is in (%NULL: the one default section). Items of one
     * section must be consecutive in the model. A drag into another section changes it (the
     * collection view sets it when it moves the item in a #GListStore).
     */
    props[PROP_SECTION] = g_param_spec_string("section", NULL, NULL, NULL,
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(oc, N_PROPS, props);
}

static void layoutd_item_init(LayoutdItem *self)
{
}

/**
 * layoutd_item_new:
 * @id: the item's stable id
 * @section: (nullable): its section's id
 *
 * Returns: (transfer full): a new item
 */
LayoutdItem *layoutd_item_new(const char *id, const char *section)
{
    return g_object_new(LAYOUTD_TYPE_ITEM, "id", id, "section", section, NULL);
}

/**
 * layoutd_item_get_id:
 * @self: an item
 *
 * Returns: (transfer none): its id
 */
const char *layoutd_item_get_id(LayoutdItem *self)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(self);
    return p->id;
}

/**
 * layoutd_item_get_section:
 * @self: an item
 *
 * Returns: (transfer none) (nullable): its section's id
 */
const char *layoutd_item_get_section(LayoutdItem *self)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(self);
    return p->section;
}

/**
 * layoutd_item_set_section:
 * @self: an item
 * @section: (nullable): its section's id
 *
 * Moves the item to another section (its place in the model must follow).
 */
void layoutd_item_set_section(LayoutdItem *self, const char *section)
{
    LayoutdItemPrivate *p = layoutd_item_get_instance_private(self);
    if (g_strcmp0(p->section, section) == 0) return;
    g_free(p->section);
    p->section = g_strdup(section);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SECTION]);
}
