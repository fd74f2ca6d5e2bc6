/* LayoutdCellFactory: the four steps of a slot's life, as signals (GtkSignalListItemFactory's
   shape): setup makes the child widget once, bind fills it for an element, unbind empties it
   before it goes back to the pool, teardown lets it go. */
#include "private.h"

struct _LayoutdCellFactory {
    GObject parent_instance;
};

enum { SIGNAL_SETUP, SIGNAL_BIND, SIGNAL_UNBIND, SIGNAL_TEARDOWN, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(LayoutdCellFactory, layoutd_cell_factory, G_TYPE_OBJECT)

static void layoutd_cell_factory_class_init(LayoutdCellFactoryClass *klass)
{
    /**
     * LayoutdCellFactory::setup:
     * @self: the factory
     * @list_item: the new slot
     *
     * Make the slot's child widget (layoutd_list_item_set_child()).
     */
    signals[SIGNAL_SETUP] = g_signal_new("setup", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_FIRST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, LAYOUTD_TYPE_LIST_ITEM);
    /**
     * LayoutdCellFactory::bind:
     * @self: the factory
     * @list_item: the slot, now showing an element
     *
     * Fill the child for the element (its item, id, kind, position and selection).
     */
    signals[SIGNAL_BIND] = g_signal_new("bind", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_FIRST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, LAYOUTD_TYPE_LIST_ITEM);
    /**
     * LayoutdCellFactory::unbind:
     * @self: the factory
     * @list_item: the slot, about to go back to its pool
     *
     * Undo what bind did (disconnect from the item).
     */
    signals[SIGNAL_UNBIND] = g_signal_new("unbind", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_FIRST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, LAYOUTD_TYPE_LIST_ITEM);
    /**
     * LayoutdCellFactory::teardown:
     * @self: the factory
     * @list_item: the slot, about to be destroyed
     *
     * Undo what setup did.
     */
    signals[SIGNAL_TEARDOWN] = g_signal_new("teardown", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_FIRST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 1, LAYOUTD_TYPE_LIST_ITEM);
}

static void layoutd_cell_factory_init(LayoutdCellFactory *self)
{
}

/**
 * layoutd_cell_factory_new:
 *
 * Returns: (transfer full): a factory; connect to its signals
 */
LayoutdCellFactory *layoutd_cell_factory_new(void)
{
    return g_object_new(LAYOUTD_TYPE_CELL_FACTORY, NULL);
}

void layoutd_gtk_cell_factory_emit_setup(LayoutdCellFactory *f, LayoutdListItem *li)
{
    g_signal_emit(f, signals[SIGNAL_SETUP], 0, li);
}

void layoutd_gtk_cell_factory_emit_bind(LayoutdCellFactory *f, LayoutdListItem *li)
{
    g_signal_emit(f, signals[SIGNAL_BIND], 0, li);
}

void layoutd_gtk_cell_factory_emit_unbind(LayoutdCellFactory *f, LayoutdListItem *li)
{
    g_signal_emit(f, signals[SIGNAL_UNBIND], 0, li);
}

void layoutd_gtk_cell_factory_emit_teardown(LayoutdCellFactory *f, LayoutdListItem *li)
{
    g_signal_emit(f, signals[SIGNAL_TEARDOWN], 0, li);
}
