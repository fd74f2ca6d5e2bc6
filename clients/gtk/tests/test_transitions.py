"""A transition paused at a time (the transition-time property) puts every element where the
protocol's curve says: each segment interpolated from `from` to `to` at p = curve(e) (cubic
Béziers, protocol/mutations.md), the segments being the ones the daemon sent, read here from a
subscription to the same view."""
import unittest

from support import CURVES, Layoutd, ViewTestCase, drain, items, iterate_until, list_store, segment_frame

FLOW = {"itemSize": {"width": 100, "height": 100}}


def remove_second(view, model):
    model.remove(1)


def insert_front(view, model):
    model.insert(0, Layoutd.Item(id="new", section="s"))


def shrink_items(view, model):
    view.configure('{"itemSize":{"width":60,"height":60}}', True)


def to_display_list(view, model):
    view.set_strategy("display", '{"mode":"list","rowHeight":50}', True)


# name: (what changes, the curve the daemon plans for it)
TRIGGERS = {
    "delete": remove_second,
    "insert": insert_front,
    "configure": shrink_items,
    "set_strategy": to_display_list,
}


class CurveMath(unittest.TestCase):
    def test_curves_match_the_protocol_table(self):
        table = {"linear": (0.25, 0.5, 0.75), "easeIn": (0.0935, 0.3154, 0.6219),
                 "easeOut": (0.3781, 0.6846, 0.9065), "easeInOut": (0.1292, 0.5, 0.8708)}
        for name, values in table.items():
            for e, p in zip((0.25, 0.5, 0.75), values):
                self.assertAlmostEqual(CURVES[name](e), p, places=4, msg=name)


class Transitions(ViewTestCase):
    def run_trigger(self, name):
        model = list_store(items(30))
        view = self.show_view("transition-" + name, "flow", FLOW, model=model)
        subscription = self.truth.subscribe("transition-" + name)
        view.set_transition_time(0.0)
        TRIGGERS[name](view, model)
        events = []
        iterate_until(lambda: events.extend(e for e in subscription.poll() if e.name == "view.invalidated"
                                            and (e.params.get("transition") or {}).get("segments")) or events,
                      10, "the daemon's invalidation with a transition")
        transition = events[0].params["transition"]
        segments = {}
        for segment in transition["segments"]:
            segments.setdefault((segment["kind"], segment["id"]), []).append(segment)
        self.assertGreater(len(segments), 3)
        duration = transition["duration"]
        self.assertGreater(duration, 0)
        iterate_until(view.get_transition_running, 5, "the view to start the transition")
        offset = self.snapshot("transition-" + name)["viewport"]["offset"]
        for fraction in (0.0, 0.1, 0.25, 0.5, 0.8, 0.97):
            t = fraction * duration
            view.set_transition_time(t)
            drain(2)
            self.assertTrue(view.get_transition_running(), "paused, the transition keeps running")
            self.assertFalse(view.is_idle(), "a running transition is not idle")
            checked = 0
            for (kind, identifier), element_segments in segments.items():
                frame, alpha = segment_frame(element_segments, t)
                want = (frame["x"] - offset["x"], frame["y"] - offset["y"], frame["width"], frame["height"])
                got, got_alpha = self.allocation(view, kind, identifier)
                if got is None:
                    # An element wholly outside the viewport may go without a widget.
                    self.assertTrue(want[1] + want[3] <= 0 or want[1] >= view.get_height() or want[0] + want[2] <= 0
                                    or want[0] >= view.get_width(), "%s %s/%s at t=%.3f has no widget but is on screen at %s" % (
                                        name, kind, identifier, t, want))
                    continue
                checked += 1
                for a, b, field in zip(got, want, "xywh"):
                    self.assertAlmostEqual(a, b, places=2, msg="%s t=%.4f %s/%s %s: widget %s, curve %s" % (
                        name, t, kind, identifier, field, got, want))
                self.assertAlmostEqual(got_alpha, alpha, places=2, msg="%s t=%.4f %s/%s alpha" % (name, t, kind, identifier))
            self.assertGreater(checked, 3)
        view.set_transition_time(-1)
        iterate_until(lambda: not view.get_transition_running(), 5, "the transition to finish on the frame clock")
        self.wait_idle(view)
        self.assert_matches_daemon(view, "transition-" + name, label="after the transition")
        self.assertEqual(self.errors, [])
        subscription.unsubscribe()


for _name in TRIGGERS:
    setattr(Transitions, "test_" + _name, lambda self, name=_name: self.run_trigger(name))


if __name__ == "__main__":
    unittest.main()
