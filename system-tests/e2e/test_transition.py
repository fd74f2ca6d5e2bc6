"""Interactive transitions against the real daemon (protocol/mutations.md, "Interactive
transitions"): begin, scrub, scroll during one, commit and revert; a subscriber that applies only
what it is sent (window deltas, and the pairs of a scroll's re-plan) agrees with the daemon at
every step and sees one change for a commit; another client's mutation ends the transition
with a named event; bad input is refused by name and changes nothing."""
import json
import unittest

from harness import Client, Daemon

FLOW = {"itemSize": {"width": 100, "height": 100}, "headerReferenceSize": {"width": 0, "height": 40}}
LIST = {"mode": "list", "rowHeight": 60}


def key(element):
    return (element["kind"], element["id"])


def lerp(a, b, p):
    return a if a == b else (1 - p) * a + p * b


class InteractiveTransitionTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon().start()
        cls.client = Client(cls.daemon.path)
        cls.other = Client(cls.daemon.path)
        cls.watcher = Client(cls.daemon.path)
        cls.counter = 0

    @classmethod
    def tearDownClass(cls):
        for client in (cls.client, cls.other, cls.watcher):
            client.close()
        cls.daemon.stop()

    # Helpers

    def call(self, method, params, client=None):
        return (client or self.client).call(method, params)

    def ok(self, method, params, client=None):
        reply = self.call(method, params, client)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def refused(self, method, params, name):
        reply = self.call(method, params)
        self.assertIn("error", reply, reply)
        self.assertEqual(reply["error"]["name"], name, reply)
        return reply["error"]

    def events(self):
        """The watcher's events up to now (daemon.sync is the barrier)."""
        events = []
        self.watcher.call("daemon.sync", events=events)
        return events

    def view(self, count=200, offset=0, strategy="flow", params=FLOW, direction="ltr"):
        InteractiveTransitionTests.counter += 1
        name = "t%d" % self.counter
        sections = [{"id": "s%d" % s, "items": [{"id": "s%d-%d" % (s, i)} for i in range(count // 2)]} for s in range(2)]
        self.ok("view.create", {"view": name, "strategy": strategy, "params": params, "sections": sections,
                                "viewport": {"width": 375, "height": 667, "offset": {"x": 0, "y": offset}},
                                "windowMargin": 80, "layoutDirection": direction})
        return name

    def subscribe(self, name):
        snapshot = self.ok("view.subscribe", {"view": name}, self.watcher)["snapshot"]
        return {key(e): e for e in snapshot["elements"]}, snapshot["epoch"]

    def apply(self, mirror, invalidation):
        for k in invalidation["left"]:
            del mirror[(k["kind"], k["id"])]
        for e in invalidation["entered"] + invalidation["changed"]:
            mirror[key(e)] = e

    def window(self, name):
        return {key(e): e for e in self.ok("view.get", {"view": name})["elements"]}

    def state(self, name):
        """What a client sees of the view but its epoch."""
        snapshot = self.ok("view.get", {"view": name})
        del snapshot["epoch"], snapshot["view"]
        return snapshot

    # Tests

    def test_scrub_scroll_and_commit_as_a_subscriber_sees_it(self):
        for direction in ("ltr", "rtl"):
            with self.subTest(direction=direction):
                name = self.view(offset=300, direction=direction)
                mirror, epoch = self.subscribe(name)
                before = self.window(name)
                begun = self.ok("view.beginTransition", {"view": name, "strategy": "display", "params": LIST})
                self.assertEqual(begun["epoch"], epoch, "begin is not a mutation")
                self.assertEqual(self.events(), [], "begin sends no event")
                pairs = {key(p): p for p in begun["pairs"]}
                self.assertLessEqual(set(before), set(pairs), "every element of the window has a pair")
                for progress in (0, 0.5, 1):
                    frame = self.ok("view.updateTransition", {"view": name, "progress": progress})
                    self.assertEqual([key(e) for e in frame["elements"]], sorted(pairs), "one element per pair, by key")
                    for element in frame["elements"]:
                        pair = pairs[key(element)]
                        if progress == 0:
                            self.assertEqual(element, pair["from"])
                        elif progress == 1:
                            self.assertEqual(element, pair["to"])
                        else:
                            for field in ("x", "y", "width", "height"):
                                self.assertAlmostEqual(element["frame"][field], lerp(pair["from"]["frame"][field], pair["to"]["frame"][field], progress), places=9)
                            self.assertAlmostEqual(element["alpha"], lerp(pair["from"]["alpha"], pair["to"]["alpha"], progress), places=12)
                self.assertEqual({k: pairs[k]["from"] for k in before}, before, "progress 0 is the view before")
                self.assertEqual(self.events(), [], "scrubbing sends no event")
                self.ok("view.updateTransition", {"view": name, "progress": 0.4})

                # Scrolling during the transition: the window delta as always, and the re-plan.
                for offset in (700, 1500, 900):
                    scrolled = self.ok("view.scroll", {"view": name, "offset": {"x": 0, "y": offset}})
                    events = self.events()
                    self.assertEqual([e["event"] for e in events], ["view.invalidated"])
                    self.assertEqual(events[0]["params"], scrolled)
                    self.apply(mirror, events[0]["params"])
                    self.assertEqual(mirror, self.window(name), "the mirror is the view")
                    replanned = scrolled["interactiveTransition"]
                    self.assertEqual(replanned["progress"], 0.4)
                    for k in replanned["left"]:
                        del pairs[(k["kind"], k["id"])]
                    for pair, element in zip(replanned["pairs"], replanned["elements"]):
                        pairs[key(pair)] = pair
                        self.assertAlmostEqual(element["frame"]["y"], lerp(pair["from"]["frame"]["y"], pair["to"]["frame"]["y"], 0.4), places=9)
                    # A twin scrolled the same way and begun now has the same pairs.
                    twin = self.view(offset=offset, direction=direction)
                    fresh = self.ok("view.beginTransition", {"view": twin, "strategy": "display", "params": LIST})
                    self.assertEqual({key(p): p for p in fresh["pairs"]}, pairs, "the pairs are both layouts' new windows")
                    self.assertEqual(fresh["contentOffset"]["to"], replanned["contentOffset"]["to"])
                    self.ok("view.delete", {"view": twin})

                # The commit is one change, and equals a plain switch made now.
                twin = self.view(offset=900, direction=direction)
                self.ok("view.setStrategy", {"view": twin, "strategy": "display", "params": LIST})
                ended = self.ok("view.endTransition", {"view": name, "commit": True})
                events = self.events()
                self.assertEqual([e["event"] for e in events], ["view.invalidated"], "subscribers see one change")
                self.assertEqual(events[0]["params"], ended)
                self.apply(mirror, ended)
                self.assertEqual(mirror, self.window(name))
                self.assertEqual(self.state(name), self.state(twin), "a commit is the plain switch")
                self.assertTrue(ended["context"]["everything"])
                for segment in ended["transition"]["segments"]:
                    self.assertEqual(segment["to"], pairs[(segment["kind"], segment["id"])]["to"])
                    self.assertEqual(segment["delay"], 0)
                self.assertAlmostEqual(ended["transition"]["duration"], 0.6 * begun["duration"])
                self.refused("view.updateTransition", {"view": name, "progress": 0.5}, "NoActiveTransition")
                self.ok("view.delete", {"view": twin})
                self.ok("view.delete", {"view": name})
                self.events()

    def test_revert_leaves_the_view_as_before(self):
        name = self.view(offset=500)
        mirror, epoch = self.subscribe(name)
        before = self.state(name)
        begun = self.ok("view.beginTransition", {"view": name, "params": {"minimumLineSpacing": 40}})
        self.ok("view.updateTransition", {"view": name, "progress": 0.3})
        # A client that looks (or subscribes) now finds the transition in the snapshot.
        shown = self.ok("view.get", {"view": name})
        self.assertEqual(shown["interactiveTransition"], dict({k: v for k, v in begun.items() if k not in ("view", "epoch")}, progress=0.3))
        self.assertEqual(dict(shown, interactiveTransition=None), dict(before, view=name, epoch=epoch, interactiveTransition=None),
                         "the rest of the snapshot is the layout before")
        ended = self.ok("view.endTransition", {"view": name, "commit": False, "ifEpoch": epoch})
        self.assertEqual(ended["epoch"], epoch + 1)
        self.assertEqual((ended["entered"], ended["changed"], ended["left"]), ([], [], []))
        self.assertAlmostEqual(ended["transition"]["duration"], 0.3 * begun["duration"])
        pairs = {key(p): p for p in begun["pairs"]}
        for segment in ended["transition"]["segments"]:
            self.assertEqual(segment["to"], pairs[(segment["kind"], segment["id"])]["from"], "back where it was")
        self.assertEqual(self.state(name), before)
        self.assertNotIn("interactiveTransition", self.ok("view.get", {"view": name}))
        self.assertEqual([e["event"] for e in self.events()], ["view.invalidated"])
        self.ok("view.delete", {"view": name})
        self.events()

    def test_another_clients_mutation_ends_the_transition_with_an_event(self):
        name = self.view()
        self.subscribe(name)
        self.ok("view.beginTransition", {"view": name, "strategy": "display", "params": LIST})
        self.ok("view.updateTransition", {"view": name, "progress": 0.7})
        # A refused mutation ends nothing.
        self.assertIn("error", self.call("view.select", {"view": name, "ids": ["nope"]}, self.other))
        self.assertEqual(self.events(), [])
        selected = self.ok("view.select", {"view": name, "ids": ["s0-1"]}, self.other)
        events = self.events()
        self.assertEqual([e["event"] for e in events], ["view.transitionInterrupted", "view.invalidated"])
        self.assertEqual(events[0]["params"], {"view": name, "epoch": selected["epoch"], "strategy": "display", "progress": 0.7})
        self.refused("view.updateTransition", {"view": name, "progress": 0.5}, "NoActiveTransition")
        self.assertEqual(self.ok("view.get", {"view": name})["strategy"], "flow")
        self.ok("view.delete", {"view": name})
        self.events()

    def test_bad_input_is_refused_by_name_and_changes_nothing(self):
        name = self.view(offset=200)
        self.subscribe(name)
        before = self.ok("view.get", {"view": name})
        refusals = [
            ("view.updateTransition", {"progress": 0.5}, "NoActiveTransition"),
            ("view.endTransition", {"commit": True}, "NoActiveTransition"),
            ("view.beginTransition", {"strategy": "nope"}, "UnknownStrategy"),
            ("view.beginTransition", {"strategy": "display", "params": {"columns": 0}}, "InvalidParameter"),
            ("view.beginTransition", {"params": {"itemSzie": {"width": 1, "height": 1}}}, "UnknownParameter"),
            ("view.beginTransition", {}, "InvalidParams"),
            ("view.beginTransition", {"strategy": "display", "ifEpoch": 99}, "StaleEpoch"),
            ("view.beginTransition", {"strategy": "display", "anchor": {"id": "nope"}}, "ItemNotFound"),
        ]
        for method, params, error in refusals:
            with self.subTest(method=method, params=params):
                self.refused(method, dict(params, view=name), error)
                self.assertEqual(self.ok("view.get", {"view": name}), before)
        self.ok("view.beginTransition", {"view": name, "strategy": "display", "params": LIST})
        frame = self.ok("view.updateTransition", {"view": name, "progress": 0.25})
        during = self.ok("view.get", {"view": name})
        self.assertEqual(dict(during, interactiveTransition=None), dict(before, interactiveTransition=None))
        in_progress = [
            ("view.beginTransition", {"strategy": "display"}, "TransitionInProgress"),
            ("view.updateTransition", {"progress": 1.5}, "InvalidParameter"),
            ("view.updateTransition", {"progress": -0.5}, "InvalidParameter"),
            ("view.updateTransition", {"progress": "half"}, "InvalidParams"),
            ("view.updateTransition", {}, "InvalidParams"),
            ("view.endTransition", {}, "InvalidParams"),
            ("view.endTransition", {"commit": True, "ifEpoch": 99}, "StaleEpoch"),
        ]
        for method, params, error in in_progress:
            with self.subTest(method=method, params=params):
                self.refused(method, dict(params, view=name), error)
                self.assertEqual(self.ok("view.get", {"view": name}), during, "the view and its transition are as they were")
        self.assertEqual(self.ok("view.updateTransition", {"view": name, "progress": 0.25}), frame, "the transition is as it was")
        self.assertEqual(self.events(), [], "no refusal sent an event")
        # A number too large to be finite never reaches the view: the line is not JSON.
        self.client.send_raw(b'{"id":99,"method":"view.updateTransition","params":{"view":"%s","progress":1e999}}\n' % name.encode())
        self.assertEqual(json.loads(self.client.read_line())["error"]["name"], "ParseError")
        self.assertEqual(self.ok("view.updateTransition", {"view": name, "progress": 0.25}), frame)
        self.ok("view.endTransition", {"view": name, "commit": False})
        self.ok("view.delete", {"view": name})
        self.events()


if __name__ == "__main__":
    unittest.main()
