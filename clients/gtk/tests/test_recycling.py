"""Recycling: scrolling and flinging through 100k items keeps the number of child widgets bounded
by the window (what the daemon's window holds), not by the model."""
import unittest

from support import Layoutd, ViewTestCase, drain, items, iterate_until, list_store

N = 100000
PARAMETERS = {"itemSize": {"width": 90, "height": 90}}


class Recycling(ViewTestCase):
    def setUp(self):
        super().setUp()
        self.model = list_store(items(N))
        self.view = self.show_view("recycle", "flow", PARAMETERS, model=self.model, window_margin=100)
        self.window_elements = len(self.snapshot("recycle")["elements"])
        self.assertGreater(self.window_elements, 10)
        # A window's worth bound and one being recycled (entering while others leave), plus
        # slack for the pool: never anything near the model's size.
        self.bound = 3 * self.window_elements + 16

    def sample_each_frame(self, samples):
        return self.view.add_tick_callback(lambda *_: samples.append(self.view.get_widget_count()) or True)

    def test_stepwise_scrolling_through_the_model(self):
        view = self.view
        adjustment = view.get_vadjustment()
        samples = []
        tick = self.sample_each_frame(samples)
        try:
            end = adjustment.get_upper() - adjustment.get_page_size()
            self.assertGreater(end, 1e6, "100k items make a tall content")
            # Finger-sized steps for a while, then big jumps across the whole model, then back.
            value = 0.0
            for _ in range(60):
                value += 45.5
                adjustment.set_value(value)
                drain(1)
                samples.append(view.get_widget_count())
            for fraction in [i / 40 for i in range(41)] + [0.5, 0.01, 0.99]:
                adjustment.set_value(fraction * end)
                drain(1)
                samples.append(view.get_widget_count())
            self.wait_idle(view)
        finally:
            view.remove_tick_callback(tick)
        self.assertLessEqual(max(samples), self.bound, "widget count bounded by the window (%d elements)" % self.window_elements)
        self.assertEqual(len(self.cells["recycle"].bound), len([e for e in view.list_elements() if e.startswith("cell/")]))
        self.assert_matches_daemon(view, "recycle", label="after scrolling")
        self.assertLess(self.cells["recycle"].setups, self.bound + 1, "cells are reused, not made again")

    def test_fling_is_bounded_and_lands_where_the_daemon_says(self):
        view = self.view
        adjustment = view.get_vadjustment()
        adjustment.set_value(20000)
        self.wait_idle(view)
        samples = []
        tick = self.sample_each_frame(samples)
        try:
            start = adjustment.get_value()
            # A fast upward swipe ends: content moves down the list (GTK's kinetic convention:
            # positive velocity increases the adjustment's value).
            view.fling(0, 6000)
            iterate_until(lambda: adjustment.get_value() > start + 100, 5, "the fling to move the content")
            self.wait_idle(view)
        finally:
            view.remove_tick_callback(tick)
        self.assertGreater(len(samples), 3, "the fling animated over several frames")
        self.assertLessEqual(max(samples), self.bound)
        snapshot = self.assert_matches_daemon(view, "recycle", label="after the fling")
        self.assertAlmostEqual(snapshot["viewport"]["offset"]["y"], adjustment.get_value(), places=3)
        self.assertEqual(view.get_state(), Layoutd.ViewState.READY)


if __name__ == "__main__":
    unittest.main()
