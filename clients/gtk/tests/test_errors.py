"""Bad input gives a GLib.Error in the layoutd-error-quark domain through the `error` signal,
never a crash: no daemon at the socket, an unknown strategy, refused parameters, at creation
and on a view already shown (which then keeps working)."""
import unittest

from support import GLib, Layoutd, ViewTestCase, items, iterate_until, layoutd, list_store

FLOW = {"itemSize": {"width": 100, "height": 100}}
UNKNOWN_STRATEGY, UNKNOWN_PARAMETER, INVALID_PARAMETER, INVALID_PARAMS = -32003, -32004, -32005, -32602


def domain():
    return GLib.quark_to_string(Layoutd.error_quark())


class CreationErrors(ViewTestCase):
    def failing_view(self, name, **arguments):
        view = self.show_view(name, wait=False, **arguments)
        iterate_until(lambda: self.errors, 10, "an error signal")
        return view

    def test_missing_daemon(self):
        view = self.failing_view("missing", socket_path=self.daemon.dir + "/nobody/ipc.sock")
        error = self.errors[0]
        self.assertEqual(error.domain, domain())
        self.assertEqual(error.code, -1, error.message)
        self.assertNotEqual(view.get_state(), Layoutd.ViewState.READY)
        self.assertEqual(view.list_elements(), [])

    def daemon_refusal(self, strategy, parameters):
        """What the daemon itself answers to the same view.create (the truth for code and name)."""
        try:
            self.truth.call("view.create", {"view": "probe", "strategy": strategy, "params": parameters,
                                            "viewport": {"width": 100, "height": 100}})
        except layoutd.LayoutdError as refusal:
            return refusal
        self.fail("the daemon accepted %s %s" % (strategy, parameters))

    def check_refused(self, name, strategy, parameters, codes, prefixes):
        view = self.failing_view(name, strategy=strategy, parameters=parameters)
        error = self.errors[0]
        self.assertEqual(error.domain, domain())
        refusal = self.daemon_refusal(strategy, parameters)
        self.assertEqual(error.code, refusal.code, error.message)
        self.assertTrue(error.message.startswith(refusal.name + ":"), error.message)
        # What the protocol documents (strategies.md, Parameter values).
        self.assertIn(error.code, codes, error.message)
        self.assertTrue(error.message.startswith(prefixes), error.message)
        iterate_until(lambda: view.get_state() == Layoutd.ViewState.FAILED, 5, "FAILED")
        self.assertEqual(view.list_elements(), [])
        names = [v["view"] if isinstance(v, dict) else v for v in self.truth.call("view.list", {})["views"]]
        self.assertNotIn(name, names)

    def test_unknown_strategy(self):
        self.check_refused("unknown-strategy", "no-such-strategy", {}, (UNKNOWN_STRATEGY,), ("UnknownStrategy:",))

    def test_unknown_parameter(self):
        self.check_refused("unknown-parameter", "flow", {"bogus": 1}, (UNKNOWN_PARAMETER,), ("UnknownParameter:",))

    def test_refused_parameter_value(self):
        self.check_refused("refused-value", "flow", {"minimumLineSpacing": -5}, (INVALID_PARAMETER,), ("InvalidParameter:",))

    def test_parameter_of_the_wrong_shape(self):
        # strategies.md says InvalidParams for an array where a size belongs; the daemon answers
        # InvalidParameter (reported to the lead): the view must carry whichever it gets.
        self.check_refused("wrong-shape", "flow", {"itemSize": [1, 2]}, (INVALID_PARAMS, INVALID_PARAMETER),
                           ("InvalidParams:", "InvalidParameter:"))

    def test_parameters_that_are_not_json(self):
        view = self.failing_view("not-json", parameters="{not json")
        self.assertEqual(self.errors[0].domain, domain())
        self.assertNotEqual(view.get_state(), Layoutd.ViewState.READY)


class ErrorsOnAShownView(ViewTestCase):
    def setUp(self):
        super().setUp()
        self.view = self.show_view("shown", "flow", FLOW, model=list_store(items(50)))

    def expect_error(self, action, codes, prefix):
        action()
        iterate_until(lambda: self.errors, 10, "an error signal")
        error = self.errors.pop(0)
        self.assertEqual(error.domain, domain())
        self.assertIn(error.code, codes, error.message)
        self.assertTrue(error.message.startswith(prefix), error.message)
        self.wait_idle(self.view)
        self.assertEqual(self.view.get_state(), Layoutd.ViewState.READY, "a refused change leaves the view as it was")
        snapshot = self.assert_matches_daemon(self.view, "shown", label="after a refused change")
        self.assertEqual(snapshot["strategy"], "flow")
        self.assertEqual(snapshot["params"]["itemSize"], {"width": 100, "height": 100})

    def test_set_strategy_unknown(self):
        self.expect_error(lambda: self.view.set_strategy("no-such-strategy", "{}", True), (UNKNOWN_STRATEGY,), "UnknownStrategy:")

    def test_configure_refused_value(self):
        self.expect_error(lambda: self.view.configure('{"itemSize":{"width":-3,"height":10}}', True),
                          (INVALID_PARAMETER, INVALID_PARAMS), ("InvalidParameter:", "InvalidParams:"))

    def test_configure_unknown_parameter(self):
        self.expect_error(lambda: self.view.configure('{"columns":3}', False), (UNKNOWN_PARAMETER,), "UnknownParameter:")

    def test_still_works_after_refusals(self):
        self.expect_error(lambda: self.view.set_strategy("nope", "{}", False), (UNKNOWN_STRATEGY,), "UnknownStrategy:")
        self.view.configure('{"itemSize":{"width":60,"height":60}}', False)
        self.wait_idle(self.view)
        self.assertEqual(self.snapshot("shown")["params"]["itemSize"], {"width": 60, "height": 60})
        self.view.get_vadjustment().set_value(300)
        self.wait_idle(self.view)
        self.assert_matches_daemon(self.view, "shown", label="scrolled after refusals")
        self.assertEqual(self.errors, [])


if __name__ == "__main__":
    unittest.main()
