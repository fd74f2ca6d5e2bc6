"""The daemon going away mid-session (killed, or stopping with daemon.shutdown) and a new one
starting on the same socket: the view goes RECONNECTING, then READY again with the same data,
the same offset and widgets at the new daemon's frames; nothing but connection errors on the
way."""
import signal
import unittest

from support import GLib, Layoutd, ViewTestCase, items, iterate_until, list_store

FLOW = {"itemSize": {"width": 80, "height": 60}, "headerReferenceSize": {"width": 0, "height": 24}}
CONNECTION_CODES = (Layoutd.Error.IO, Layoutd.Error.CONNECTION_CLOSED, Layoutd.Error.DAEMON_SHUTDOWN) if hasattr(Layoutd, "Error") else (-1, -2, -7)


class Restart(ViewTestCase):
    def run_restart(self, how):
        model = list_store(items(0, sections=[("a", 70), ("b", 130)]))
        view = self.show_view("restart", "flow", FLOW, model=model, window_margin=30)
        adjustment = view.get_vadjustment()
        adjustment.set_value(1234.5)
        self.wait_idle(view)
        before = self.assert_matches_daemon(view, "restart", label="before the restart")
        states = []
        view.connect("notify::state", lambda changed, _pspec: states.append(changed.get_state()))
        self.truth.close()
        self.daemon.kill(how)
        iterate_until(lambda: view.get_state() == Layoutd.ViewState.RECONNECTING, 10, "RECONNECTING after the daemon went away")
        # The view keeps its widgets while it waits.
        self.assertGreater(len(view.list_elements()), 0)
        self.daemon.start()
        self.truth = self.daemon.client()
        self.addCleanup(self.truth.close)
        iterate_until(lambda: view.get_state() == Layoutd.ViewState.READY, 20, "READY after the new daemon serves")
        self.wait_idle(view)
        after = self.assert_matches_daemon(view, "restart", label="after the restart")
        self.assertNotIn(Layoutd.ViewState.FAILED, states)
        self.assertEqual(after["itemCount"], before["itemCount"])
        self.assertEqual(after["strategy"], "flow")
        self.assertEqual(after["params"], before["params"])
        self.assertEqual(self.data_order("restart"), self.model_ids(model))
        self.assertAlmostEqual(after["viewport"]["offset"]["y"], adjustment.get_value(), places=3)
        self.assertAlmostEqual(adjustment.get_value(), 1234.5, places=3, msg="the offset survives the restart")
        self.assertEqual(sorted(e["id"] for e in after["elements"]), sorted(e["id"] for e in before["elements"]))
        for error in self.errors:
            self.assertEqual(error.domain, GLib.quark_to_string(Layoutd.error_quark()))
            self.assertIn(error.code, CONNECTION_CODES, error.message)
        # Still alive: a data change goes through to the new daemon.
        model.remove(0)
        self.wait_idle(view)
        self.assertEqual(self.data_order("restart"), self.model_ids(model))
        self.assert_matches_daemon(view, "restart", label="a change after the restart")

    def test_killed_daemon(self):
        self.run_restart(signal.SIGKILL)

    def test_stopping_daemon(self):
        self.run_restart(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
