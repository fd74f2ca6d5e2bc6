"""Every element's widget sits at the daemon's frame minus the content offset: for each built-in
strategy and the waterfall plugin, at several offsets, left to right and right to left (the
widget's text direction), compared with view.get on the same view name."""
import unittest

from support import Gtk, ViewTestCase, items, list_store

# One section of n items, or several: [(section id, n), ...].
THREE_SECTIONS = [("a", 25), ("b", 40), ("c", 30)]

COMPOSITIONAL = {
    "interSectionSpacing": 12,
    "section": {"group": {"direction": "horizontal",
                          "size": {"width": {"fractionalWidth": 1}, "height": {"absolute": 110}},
                          "subitems": [{"size": {"width": {"fractionalWidth": 0.333}, "height": {"fractionalHeight": 1}},
                                        "contentInsets": {"top": 3, "leading": 3, "bottom": 3, "trailing": 3}}]},
                "interGroupSpacing": 7,
                "contentInsets": {"leading": 16, "trailing": 10},
                "boundarySupplementaryItems": [{"kind": "header", "alignment": "top",
                                                "size": {"width": {"fractionalWidth": 1}, "height": {"absolute": 36}}}]},
    "sections": {"b": {"list": {"appearance": "plain", "rowHeight": 44}}},
}

# name: (strategy, parameters, sections, scroll axis, plugins)
CASES = {
    "flow": ("flow", {"itemSize": {"width": 90, "height": 70}, "minimumInteritemSpacing": 7, "minimumLineSpacing": 9,
                      "sectionInset": {"top": 5, "left": 12, "bottom": 5, "right": 4},
                      "headerReferenceSize": {"width": 0, "height": 30}, "footerReferenceSize": {"width": 0, "height": 18}},
             THREE_SECTIONS, "y", False),
    "flow_pinned_headers": ("flow", {"itemSize": {"width": 120, "height": 80}, "headerReferenceSize": {"width": 0, "height": 40},
                                     "sectionHeadersPinToVisibleBounds": True}, THREE_SECTIONS, "y", False),
    "flow_horizontal": ("flow", {"itemSize": {"width": 80, "height": 95}, "scrollDirection": "horizontal"}, [("s", 120)], "x", False),
    "collapsible": ("collapsible", {"itemSize": {"width": 70, "height": 70}, "itemSpacing": 11}, THREE_SECTIONS, "y", False),
    "display_grid": ("display", {"mode": "grid", "columns": 3}, [("s", 90)], "y", False),
    "display_list": ("display", {"mode": "list", "rowHeight": 64}, THREE_SECTIONS, "y", False),
    "display_inline": ("display", {"mode": "inline", "inlineWidthFraction": 0.45, "inlineHeight": 200}, [("s", 40)], "x", False),
    "ultravisual": ("ultravisual", {}, [("s", 60)], "y", False),
    "compositional": ("compositional", COMPOSITIONAL, THREE_SECTIONS, "y", False),
    "waterfall": ("waterfall", {"columnCount": 3, "columnSpacing": 9, "itemSpacing": 6}, [("s", 150)], "y", True),
}

# Where to scroll, as fractions of the scrollable range, then one absolute fractional offset.
FRACTIONS = (0.0, 0.37, 1.0)
ABSOLUTE = 123.25


class AllocationCase(ViewTestCase):
    def run_case(self, name, rtl):
        strategy, parameters, sections, axis, _ = CASES[name]
        view_name = "alloc-%s-%s" % (name, "rtl" if rtl else "ltr")
        model = list_store(items(0, sections=sections))
        view = self.show_view(view_name, strategy, parameters, model=model, rtl=rtl, window_margin=40)
        snapshot = self.assert_matches_daemon(view, view_name, kinds=("cell", "header", "footer"), label="%s at rest" % view_name)
        self.assertEqual(snapshot.get("layoutDirection", "ltr"), "rtl" if rtl else "ltr")
        self.assertEqual(snapshot["itemCount"], model.get_n_items())
        adjustment = view.get_vadjustment() if axis == "y" else view.get_hadjustment()
        scrollable = adjustment.get_upper() - adjustment.get_page_size()
        self.assertGreater(scrollable, 100, "%s: the content must scroll along %s" % (view_name, axis))
        for target in [f * scrollable for f in FRACTIONS] + [ABSOLUTE]:
            adjustment.set_value(target)
            self.wait_idle(view)
            label = "%s, %s adjustment %.2f" % (view_name, axis, target)
            snapshot = self.assert_matches_daemon(view, view_name, label=label)
            offset = snapshot["viewport"]["offset"]
            if not rtl or axis == "y":
                self.assertAlmostEqual(offset[axis], adjustment.get_value(), places=3, msg=label + ": the daemon's offset is the adjustment's")
        self.assertEqual(self.errors, [])


def add_cases():
    for name in CASES:
        for rtl in (False, True):
            def test(self, name=name, rtl=rtl):
                self.run_case(name, rtl)
            test.__name__ = "test_%s_%s" % (name, "rtl" if rtl else "ltr")
            owner = PluginAllocations if CASES[name][4] else Allocations
            setattr(owner, test.__name__, test)


class Allocations(AllocationCase):
    pass


class PluginAllocations(AllocationCase):
    """With the daemon loading /tmp/stable/plugins (or the tree's build) for waterfall."""
    plugins = True


add_cases()


class DirectionSwitch(ViewTestCase):
    def test_text_direction_change_mirrors_the_layout(self):
        """Switching the widget's text direction on a shown view: the daemon's view turns right
        to left (view.setLayoutDirection) and the widgets follow the mirrored frames."""
        parameters = {"itemSize": {"width": 90, "height": 70}, "sectionInset": {"left": 30, "right": 0}}
        view = self.show_view("direction", "flow", parameters, model=list_store(items(40)))
        before = self.assert_matches_daemon(view, "direction", label="ltr")
        view.set_direction(Gtk.TextDirection.RTL)
        self.wait_idle(view)
        after = self.assert_matches_daemon(view, "direction", label="after switching to rtl")
        self.assertEqual(after.get("layoutDirection"), "rtl")
        width = after["contentSize"]["width"]
        first_before = next(e for e in before["elements"] if e["id"] == "i0")["frame"]
        first_after = next(e for e in after["elements"] if e["id"] == "i0")["frame"]
        self.assertAlmostEqual(first_after["x"], width - first_before["x"] - first_before["width"], places=3)
        view.set_direction(Gtk.TextDirection.LTR)
        self.wait_idle(view)
        back = self.assert_matches_daemon(view, "direction", label="back to ltr")
        self.assertNotIn("layoutDirection", back)


if __name__ == "__main__":
    unittest.main()
