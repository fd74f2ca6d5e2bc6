"""Random use of a shown view, as a property: whatever mix of model edits, selections, scrolls,
flings, drags, focus moves, parameter changes and strategy switches (some of them refused) an
app makes, and a daemon restart in the middle, the view never crashes, every refusal is a
GError through `error`, and once idle the widgets are exactly the daemon's window and the model
is exactly the daemon's data. Seeded: a failure names its seed and step."""
import json
import random

import support  # noqa: F401 (gi versions)
from gi.repository import Layoutd

from support import ViewTestCase, iterate_until, drain, items, list_store

STRATEGIES = [
    ("flow", {"itemSize": {"width": 90, "height": 70}}),
    ("collapsible", {"itemSize": {"width": 80, "height": 80}, "collapsed": True}),
    ("display", {"mode": "grid", "columns": 3}),
    ("display", {"mode": "list", "rowHeight": 60}),
]


class Monkey(ViewTestCase):
    def run_seed(self, seed, steps=160):
        rng = random.Random(seed)
        model = list_store(items(0))
        next_id = [0]

        def fresh(section):
            next_id[0] += 1
            return Layoutd.Item(id="m%d" % next_id[0], section=section)
        sections = ["a", "b", "c"]
        model.splice(0, 0, [fresh(sections[i * 3 // 120]) for i in range(120)])
        strategy, parameters = STRATEGIES[0]
        view = self.show_view("monkey", strategy=strategy, parameters=parameters, model=model, supplementary=())
        expected_errors = 0
        for step in range(steps):
            label = "seed %d step %d" % (seed, step)
            action = rng.randrange(12)
            n = model.get_n_items()
            if action == 0 and n:                                  # delete a few
                model.remove(rng.randrange(n))
            elif action == 1:                                      # insert into the item's section
                at = rng.randrange(n + 1)
                section = model.get_item(min(at, n - 1)).get_property("section") if n else "a"
                model.insert(at, fresh(section))
            elif action == 2 and n > 1:                            # move within a section
                i = rng.randrange(n)
                item = model.get_item(i)
                same = [j for j in range(n) if model.get_item(j).get_property("section") == item.get_property("section")]
                model.remove(i)
                model.insert(min(rng.choice(same), model.get_n_items()), item)
            elif action == 3 and n:                                # select
                ids = [model.get_item(rng.randrange(n)).get_property("id") for _ in range(rng.randrange(1, 4))]
                view.select(ids, rng.choice(["set", "add", "remove", "toggle"]))
            elif action == 4:                                      # scroll
                view.get_vadjustment().set_value(rng.uniform(0, max(0.0, view.get_vadjustment().get_upper())))
            elif action == 5:                                      # fling
                view.fling(0, rng.uniform(-3000, 3000))
            elif action == 6:                                      # switch strategy (animated)
                strategy, parameters = rng.choice(STRATEGIES)
                view.set_strategy(strategy, json.dumps(parameters), rng.random() < 0.5)
            elif action == 7:                                      # a refused change
                view.configure(json.dumps({"noSuchParameter": 1}), False)
                expected_errors += 1
            elif action == 8 and n:                                # focus moves
                view.move_focus_to(rng.choice(["up", "down", "left", "right", "next", "previous"]))
            elif action == 9 and n:                                # a drag
                elements = [e.split("/", 1)[1] for e in view.list_elements() if e.startswith("cell/")]
                if elements:
                    found, rect, _ = view.get_element_allocation("cell", rng.choice(elements))
                    if found and view.begin_move(rect.get_x() + 5, rect.get_y() + 5):
                        view.update_move(rng.uniform(0, view.get_width()), rng.uniform(0, view.get_height()))
                        iterate_until(lambda: True, 1)
                        view.end_move(rng.random() < 0.8)
            elif action == 10:                                     # let a few frames pass mid-change
                drain(1)
            elif action == 11 and step == steps // 2:              # the daemon restarts
                self.daemon.kill()
                self.daemon.start()
                self.truth.close()
                self.truth = self.daemon.client()
                iterate_until(lambda: view.get_state() == Layoutd.ViewState.READY, 20, label + ": back after the restart")
            if step % 40 == 39 or step == steps - 1:
                iterate_until(view.is_idle, 30, label + ": idle")
                drain(2)
                iterate_until(view.is_idle, 30, label + ": idle")
                self.assertEqual(self.data_order("monkey"), self.model_ids(model), label + ": the model is the daemon's data")
                if self.snapshot("monkey")["elements"]:
                    self.assert_matches_daemon(view, "monkey", kinds=("cell",), label=label)
        refused = [e for e in self.errors if not e.message.startswith("UnknownParameter:")]
        self.assertEqual(refused, [], [e.message for e in refused])
        self.assertLessEqual(len(self.errors), expected_errors)
        self.errors.clear()

    def test_seed_1(self):
        self.run_seed(1)

    def test_seed_2(self):
        self.run_seed(2)

    def test_seed_3(self):
        self.run_seed(3)
