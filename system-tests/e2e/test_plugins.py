"""Strategy plugins end to end: plugins built apart from layoutd (by `make plugins`, and the
test plugins here with cc), loaded by a real daemon from a temporary plugin directory.

- the waterfall fixtures (Tests/Fixtures/waterfall) through the socket, with the shipped plugin;
- the circle example in C and in Swift: the same frames, which this file also computes;
- every refusal (wrong ABI version, no entry point, a name clash, a failed self-check, and
  the rest of the loader's checks), each followed by built-in strategies still being served;
- a plugin dropped into the directory while the daemon runs, loaded by daemon.reload and by
  SIGHUP; a changed plugin file; a plugin directory added to the configuration file.
"""
import glob
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import DAEMON, ROOT, Client, Daemon, ProcessTestCase, flow_view, trusted_directory  # noqa: E402

LAYOUTCTL = os.path.join(os.path.dirname(DAEMON), "layoutctl")
HEADER_DIR = os.path.join(ROOT, "Sources", "CLayoutPlugin", "include")
# `make plugins` (CONFIG=debug, as make test runs it) builds them here.
WATERFALL = os.path.join(ROOT, ".build", "plugins", "debug", "waterfall.so")
EXAMPLES = os.path.join(ROOT, ".build", "plugins", "debug", "examples")
CIRCLE_SWIFT = os.path.join(EXAMPLES, "circle.so")
CIRCLE_C = os.path.join(EXAMPLES, "circle-c.so")
ROWS_SOURCE = os.path.join(os.path.dirname(__file__), "plugins", "rows.c")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "waterfall")
EVERYTHING = {"x": -1e7, "y": -1e7, "width": 2e7, "height": 2e7}


def build_rows(directory, file_name, *defines):
    """Compiles system-tests/e2e/plugins/rows.c with `defines` into directory/file_name."""
    output = os.path.join(directory, file_name)
    command = ["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I", HEADER_DIR]
    command += ["-D" + define for define in defines] + [ROWS_SOURCE, "-o", output, "-lm"]
    subprocess.run(command, check=True)
    return output


def strategies(client):
    return {entry["name"]: entry for entry in client.call("strategy.list")["result"]["strategies"]}


def elements(client, view):
    """Every element of a view by key, from a query covering all content."""
    reply = client.call("view.query", {"view": view, "rect": EVERYTHING})
    return {"%s:%s" % (element["kind"], element["id"]): element for element in reply["result"]["elements"]}


def size(pair):
    return {"width": pair[0], "height": pair[1]}


def wire_fixture(fixture):
    """A fixture's input as view.create params (Tests/Fixtures/README.md describes the format)."""
    viewport = fixture["viewport"]
    wire_viewport = {"width": viewport["width"], "height": viewport["height"]}
    if "offset" in viewport:
        wire_viewport["offset"] = {"x": viewport["offset"][0], "y": viewport["offset"][1]}
    if "contentInsets" in viewport:
        top, left, bottom, right = viewport["contentInsets"]
        wire_viewport["contentInsets"] = {"top": top, "left": left, "bottom": bottom, "right": right}
    params = {}
    for name, value in fixture.get("params", {}).items():
        if isinstance(value, list):
            value = size(value)
        elif isinstance(value, dict) and "insets" in value:
            top, left, bottom, right = value["insets"]
            value = {"top": top, "left": left, "bottom": bottom, "right": right}
        params[name] = value
    sections = []
    for section in fixture["sections"]:
        items = section["items"]
        wire_items = []
        if isinstance(items, int):
            wire_items = [{"id": "%s-%d" % (section["id"], index)} for index in range(items)]
        else:
            for index, item in enumerate(items):
                if isinstance(item, list):
                    item = {"size": item}
                wire_item = {"id": item.get("id", "%s-%d" % (section["id"], index))}
                for key in ("size", "estimatedSize", "selectedSize"):
                    if key in item:
                        wire_item[key] = size(item[key])
                wire_items.append(wire_item)
        wire_section = {"id": section["id"], "items": wire_items}
        for key in ("headerSize", "footerSize"):
            if key in section:
                wire_section[key] = size(section[key])
        sections.append(wire_section)
    return {"strategy": fixture.get("strategy", "waterfall"), "params": params, "viewport": wire_viewport, "sections": sections}


def expected_frame(value):
    return value["frame"] if isinstance(value, dict) else value


def frame_list(frame):
    return [frame["x"], frame["y"], frame["width"], frame["height"]]


def close(a, b, tolerance=1e-9):
    return all(abs(x - y) <= tolerance * max(1, abs(x), abs(y)) for x, y in zip(a, b)) and len(a) == len(b)


class PluginTestCase(ProcessTestCase):
    prefix = "layoutd-plugins-"

    def setUp(self):
        super().setUp()
        for path in (WATERFALL, CIRCLE_SWIFT, CIRCLE_C):
            if not os.path.exists(path):
                self.fail("%s is missing: run `make plugins` (make test does)" % path)
        self.plugins = os.path.join(self.dir, "plugins")
        os.mkdir(self.plugins)

    def start(self, *args):
        daemon = Daemon("--plugin-dir", self.plugins, *args)
        daemon.start()
        self.addCleanup(daemon.stop)
        return daemon

    def assert_serves_built_ins(self, daemon):
        """A flow view works on the daemon after whatever the test did."""
        with Client(daemon.path) as client:
            reply = client.call("view.create", flow_view("after", 3))
            self.assertIn("result", reply, reply)
            self.assertEqual(elements(client, "after")["cell:i0"]["frame"], {"x": 0, "y": 0, "width": 100, "height": 100})


class WaterfallFixtureTests(PluginTestCase):
    def test_every_fixture_through_the_socket(self):
        files = sorted(glob.glob(os.path.join(FIXTURES, "*.json")))
        self.assertGreaterEqual(len(files), 10, "waterfall fixtures")
        shutil.copy(WATERFALL, os.path.join(self.plugins, "waterfall.so"))
        daemon = self.start()
        with Client(daemon.path) as client:
            self.assertEqual(strategies(client)["waterfall"]["origin"], os.path.join(self.plugins, "waterfall.so"))
            for number, path in enumerate(files):
                with self.subTest(fixture=os.path.basename(path)):
                    with open(path) as handle:
                        fixture = json.load(handle)
                    params = wire_fixture(fixture)
                    view = "f%d" % number
                    params["view"] = view
                    reply = client.call("view.create", params)
                    self.assertIn("result", reply, reply)
                    if fixture.get("selected"):
                        reply = client.call("view.select", {"view": view, "ids": fixture["selected"], "mode": "add"})
                        self.assertIn("result", reply, reply)
                    if fixture.get("measure"):
                        sizes = [{"id": entry["id"], "size": size(entry["size"])} for entry in fixture["measure"]]
                        self.assertIn("result", client.call("view.measure", {"view": view, "sizes": sizes}))
                    expected = fixture["expected"]
                    actual = elements(client, view)
                    if "contentSize" in expected:
                        content = client.call("view.get", {"view": view})["result"]["contentSize"]
                        self.assertTrue(close([content["width"], content["height"]], expected["contentSize"]),
                                        "content size: expected %s, got %s" % (expected["contentSize"], content))
                    wanted = {key: expected_frame(value) for key, value in expected["frames"].items()}
                    if expected.get("complete", True):
                        self.assertEqual(sorted(actual), sorted(wanted), "element keys")
                    differences = ["%s: expected %s, got %s" % (key, frame, frame_list(actual[key]["frame"]) if key in actual else None)
                                   for key, frame in sorted(wanted.items())
                                   if key not in actual or not close(frame_list(actual[key]["frame"]), frame)]
                    self.assertEqual(differences, [], "\n".join(differences))

    def test_a_scroll_reply_carries_only_the_window_delta(self):
        shutil.copy(WATERFALL, os.path.join(self.plugins, "waterfall.so"))
        daemon = self.start()
        items = [{"id": "i%d" % index, "size": {"width": 100, "height": 50 + (index * 37) % 150}} for index in range(2000)]
        with Client(daemon.path) as client:
            reply = client.call("view.create", {
                "view": "w", "strategy": "waterfall", "params": {"columnCount": 3}, "windowMargin": 100,
                "viewport": {"width": 320, "height": 480}, "sections": [{"id": "s", "items": items}]})
            before = {(element["kind"], element["id"]) for element in reply["result"]["elements"]}
            scrolled = client.call("view.scroll", {"view": "w", "offset": {"x": 0, "y": 3000}})["result"]
            everything = elements(client, "w")
            after = {(element["kind"], element["id"]) for element in everything.values()
                     if self.in_window(element["frame"], scrolled["window"])}
            entered = {(element["kind"], element["id"]) for element in scrolled["entered"]}
            left = {(key["kind"], key["id"]) for key in scrolled["left"]}
            self.assertEqual((before - left) | entered, after)
            self.assertLess(len(entered), 200)

    @staticmethod
    def in_window(frame, window):
        return (frame["x"] < window["x"] + window["width"] and window["x"] < frame["x"] + frame["width"]
                and frame["y"] < window["y"] + window["height"] and window["y"] < frame["y"] + frame["height"])


class CircleExampleTests(PluginTestCase):
    """docs/plugins.md's example in C and in Swift gives the same frames, and the ones computed here."""

    SECTIONS = [
        {"id": "s", "items": [{"id": "a"}, {"id": "b", "size": {"width": 80, "height": 40}}, {"id": "c"}],
         "headerSize": {"width": 10, "height": 10}},
        {"id": "t", "items": [{"id": "d"}, {"id": "e", "selectedSize": {"width": 100, "height": 100}}]},
    ]

    @staticmethod
    def expected(viewport, selected=(), item_size=(60, 60), scale=1.5):
        width, height = viewport
        ids = ["a", "b", "c", "d", "e"]
        sizes = {"b": (80, 40)}
        if "e" in selected:
            sizes["e"] = (100, 100)
        ring = max(0, (min(width, height) - item_size[1]) / 2)
        frames = {}
        for index, item in enumerate(ids):
            angle = 2 * math.pi * index / len(ids) - math.pi / 2
            center_x, center_y = width / 2 + ring * math.cos(angle), height / 2 + ring * math.sin(angle)
            w, h = sizes.get(item, item_size)
            frames["cell:" + item] = ([center_x - w / 2, center_y - h / 2, w, h], 1 if item in selected else 0,
                                      scale if item in selected else 1, 360 * index / len(ids))
        return frames

    def check(self, client, view, viewport, selected=()):
        actual = elements(client, view)
        self.assertTrue(actual["header:s"]["hidden"])
        cells = {key: element for key, element in actual.items() if key.startswith("cell:")}
        expected = self.expected(viewport, selected)
        self.assertEqual(sorted(cells), sorted(expected))
        for key, (frame, z_index, scale, angle) in expected.items():
            element = cells[key]
            self.assertTrue(close(frame_list(element["frame"]), frame), "%s: %s vs %s" % (key, element["frame"], frame))
            self.assertEqual(element["zIndex"], z_index, key)
            self.assertEqual(element.get("transform", {"a": 1})["a"], scale, key)
            self.assertAlmostEqual(element["effects"]["angle"], angle, places=9)
        return actual

    def test_c_and_swift_give_the_same_frames_through_the_socket(self):
        shutil.copy(CIRCLE_C, os.path.join(self.plugins, "circle-c.so"))
        shutil.copy(CIRCLE_SWIFT, os.path.join(self.plugins, "circle.so"))
        daemon = self.start()
        with Client(daemon.path) as client:
            listed = strategies(client)
            self.assertEqual(listed["circle-c"]["status"], "available")
            self.assertEqual(listed["circle"]["parameters"], listed["circle-c"]["parameters"])
            results = {}
            for strategy in ("circle", "circle-c"):
                reply = client.call("view.create", {"view": strategy, "strategy": strategy, "viewport": {"width": 300, "height": 400},
                                                    "sections": self.SECTIONS})
                self.assertIn("result", reply, reply)
                states = [self.check(client, strategy, (300, 400))]
                # items_changed: a selection moves and scales only the selected items.
                changed = client.call("view.select", {"view": strategy, "ids": ["e", "b"], "mode": "add"})["result"]
                self.assertEqual(sorted(element["id"] for element in changed["changed"]), ["b", "e"])
                states.append(self.check(client, strategy, (300, 400), selected=("b", "e")))
                # viewport_changed: a resize lays out again; a scroll changes nothing.
                client.call("view.resize", {"view": strategy, "size": {"width": 500, "height": 500}})
                states.append(self.check(client, strategy, (500, 500), selected=("b", "e")))
                scrolled = client.call("view.scroll", {"view": strategy, "offset": {"x": 0, "y": 0}})["result"]
                self.assertEqual(scrolled["changed"], [])
                results[strategy] = states
            self.assertEqual(results["circle"], results["circle-c"])

    def test_a_plugin_refuses_parameters_with_invalid_parameter(self):
        build_rows(self.plugins, "rows.so")
        daemon = self.start()
        with Client(daemon.path) as client:
            reply = client.call("view.create", {"view": "r", "strategy": "rows", "params": {"rowHeight": 20, "spacing": 30},
                                                "viewport": {"width": 100, "height": 100}})
            self.assertEqual(reply["error"]["name"], "InvalidParameter", reply)
            self.assertEqual(reply["error"]["data"]["parameter"], "spacing")
            self.assertIn("must not exceed rowHeight", reply["error"]["message"])
            reply = client.call("view.create", {"view": "r", "strategy": "rows", "params": {"rowHeight": -1},
                                                "viewport": {"width": 100, "height": 100}})
            self.assertEqual(reply["error"]["name"], "InvalidParameter", reply)
            self.assertIsNone(client.call("view.get", {"view": "r"}).get("result"))
            # Switching a flow view to the plugin and reconfiguring it go through the same checks.
            client.call("view.create", flow_view("v", 2))
            reply = client.call("view.setStrategy", {"view": "v", "strategy": "rows", "params": {"rowHeight": 30}})
            self.assertIn("result", reply, reply)
            self.assertEqual(elements(client, "v")["cell:i1"]["frame"], {"x": 0, "y": 30, "width": 375, "height": 30})
            reply = client.call("view.configure", {"view": "v", "params": {"spacing": 40}})
            self.assertEqual(reply["error"]["name"], "InvalidParameter", reply)
            reply = client.call("view.configure", {"view": "v", "params": {"spacing": 5}})
            self.assertIn("result", reply, reply)
            self.assertEqual(elements(client, "v")["cell:i1"]["frame"], {"x": 0, "y": 35, "width": 375, "height": 30})


class SnappingTests(PluginTestCase):
    def test_target_content_offset_comes_from_the_plugin(self):
        build_rows(self.plugins, "snap.so", 'NAME="snap"', "SNAP")
        build_rows(self.plugins, "rows.so")
        daemon = self.start()
        items = [{"id": "i%d" % index} for index in range(50)]
        with Client(daemon.path) as client:
            for strategy, expected in (("snap", 88), ("rows", 70)):
                client.call("view.create", {"view": strategy, "strategy": strategy, "viewport": {"width": 100, "height": 100},
                                            "sections": [{"id": "s", "items": items}]})
                result = client.call("view.scrollEnd", {"view": strategy, "proposed": {"x": 0, "y": 70},
                                                        "velocity": {"x": 0, "y": 500}})["result"]
                self.assertEqual(result["targetContentOffset"], {"x": 0, "y": expected}, strategy)
                self.assertEqual(result["contentOffset"], {"x": 0, "y": expected}, strategy)


class RepairTests(PluginTestCase):
    def test_output_that_is_not_finite_is_repaired_and_logged_once(self):
        build_rows(self.plugins, "sly.so", 'NAME="sly"', "NAN_WHEN_WIDE")
        daemon = self.start()
        with Client(daemon.path) as client:
            self.assertEqual(strategies(client)["sly"]["status"], "available")
            for view in ("a", "b"):
                reply = client.call("view.create", {"view": view, "strategy": "sly", "viewport": {"width": 2000, "height": 500},
                                                    "sections": [{"id": "s", "items": [{"id": "x"}, {"id": "y"}]}]})
                self.assertIn("result", reply, reply)
                # NaN heights (and the NaN positions after them) became 0; the reply lines parsed,
                # so every number was finite JSON.
                for item in ("x", "y"):
                    attributes = client.call("view.item", {"view": view, "id": item})["result"]["attributes"]
                    self.assertEqual(attributes["frame"], {"x": 0, "y": 0, "width": 2000, "height": 0})
                self.assertEqual(client.call("view.get", {"view": view})["result"]["contentSize"], {"width": 2000, "height": 0})
        self.assertEqual(daemon.read_log().count("layoutd repaired it (reported once)"), 1, daemon.read_log())
        self.assert_serves_built_ins(daemon)


class RefusalTestCase(PluginTestCase):
    """A refusal: a log line and a strategy.list entry, and the daemon goes on serving the
    built-in strategies (and the good plugins beside it)."""

    @classmethod
    def setUpClass(cls):
        # strategy.list and daemon.reload results with plugins in them, against the schemas.
        from test_protocol import SchemaTests
        SchemaTests.setUpClass()
        cls.schemas = SchemaTests("check")

    def check_schemas(self, client):
        self.schemas.check("methods/strategy.list.result.json", client.call("strategy.list")["result"], "strategy.list")
        self.schemas.check("methods/daemon.reload.result.json", client.call("daemon.reload")["result"], "daemon.reload")

    def refused(self, file_name, defines, name, reason, text=False, prepare=None):
        """`prepare(path)` runs on the plugin file before the daemon starts."""
        if text:
            with open(os.path.join(self.plugins, file_name), "w") as handle:
                handle.write("not a shared object\n")
        else:
            build_rows(self.plugins, file_name, *defines)
        build_rows(self.plugins, "good.so", 'NAME="good"')
        path = os.path.join(self.plugins, file_name)
        if prepare:
            prepare(path)
        daemon = self.start()
        with Client(daemon.path) as client:
            listed = client.call("strategy.list")["result"]["strategies"]
            entry = [entry for entry in listed if entry["origin"] == path]
            self.assertEqual(len(entry), 1, listed)
            self.assertEqual(entry[0]["status"], "refused")
            self.assertEqual(entry[0]["name"], name)
            self.assertIn(reason, entry[0]["reason"])
            self.assertEqual(listed[-1], entry[0], "refusals come after the strategies")
            good = [entry for entry in listed if entry["name"] == "good"]
            self.assertEqual(good[0]["status"], "available")
            self.check_schemas(client)
        self.assertIn("refused plugin %s" % path, daemon.read_log())
        self.assert_serves_built_ins(daemon)
        table = subprocess.run([LAYOUTCTL, "--socket", daemon.path, "--table", "strategies"], capture_output=True, text=True, check=True).stdout
        self.assertIn("%s (%s): refused: " % (name, path), table)
        return entry[0]


class RefusalTests(RefusalTestCase):
    """Each way a plugin can be wrong."""

    def test_wrong_abi_version(self):
        self.refused("future.so", ["ABI_VERSION=2"], "future", "built for plugin ABI version 2; this layoutd speaks version 1")

    def test_no_entry_point(self):
        self.refused("anonymous.so", ["NO_ENTRY"], "anonymous", "has no layoutd_plugin_entry function")

    def test_name_clash_with_a_built_in(self):
        self.refused("flow.so", ['NAME="flow"'], "flow", "'flow' is already registered (built-in)")

    def test_name_clash_between_plugins(self):
        # good.so is loaded first (by file name), so a second "good" clashes with it.
        entry = self.refused("later.so", ['NAME="good"'], "good", "already registered (%s)" % os.path.join(self.plugins, "good.so"))
        self.assertNotIn("summary", entry)

    def test_failing_self_check(self):
        self.refused("check.so", ["FAIL_SELF_CHECK"], "rows", "failed its own check: needs a device this machine does not have")

    def test_nan_frames_fail_layoutds_check(self):
        entry = self.refused("nan.so", ["NAN_FRAMES"], "rows", "failed layoutd's check: its layout of the probe produced a")
        self.assertIn("not finite", entry["reason"])

    def test_an_impure_layout_fails_layoutds_check(self):
        self.refused("impure.so", ["IMPURE"], "rows", "laid out the same input differently twice")

    def test_a_bad_descriptor(self):
        self.refused("bad.so", ["BAD_DESCRIPTOR"], "bad", "parameter 'rowHeight': unknown type 'length'")

    def test_no_layout_function(self):
        self.refused("lazy.so", ["NO_LAYOUT"], "lazy", "lacks create, destroy or layout")

    def test_not_a_shared_object(self):
        self.refused("notes.so", [], "notes", "cannot be loaded", text=True)


class TrustTests(RefusalTestCase):
    """Who may write a plugin, its directory and the directories above it: only root or
    layoutd's own user (the tests run as root), else the file is refused before dlopen."""

    def test_a_group_writable_plugin_file(self):
        self.refused("shared.so", [], "shared", "is group-writable (mode 0775)", prepare=lambda path: os.chmod(path, 0o775))

    def test_a_world_writable_plugin_file(self):
        self.refused("open.so", [], "open", "is world-writable (mode 0757)", prepare=lambda path: os.chmod(path, 0o757))

    def test_a_plugin_file_owned_by_another_user(self):
        self.refused("theirs.so", [], "theirs", "is owned by uid 65534", prepare=lambda path: os.chown(path, 65534, 65534))

    def test_a_symlink_to_a_group_writable_file_is_judged_by_its_target(self):
        target = build_rows(self.dir, "target.so", 'NAME="linked"')
        os.chmod(target, 0o775)
        entry = self.refused("link.so", [], "link", "%s is group-writable" % target,
                             prepare=lambda path: (os.remove(path), os.symlink(target, path)))
        self.assertEqual(entry["origin"], os.path.join(self.plugins, "link.so"))

    def untrusted_directory(self, reason):
        """Every plugin of self.plugins refused with `reason`, the built-ins served."""
        build_rows(self.plugins, "good.so", 'NAME="good"')
        daemon = self.start()
        path = os.path.join(self.plugins, "good.so")
        with Client(daemon.path) as client:
            listed = strategies(client)
            self.assertEqual(listed["good"]["status"], "refused", listed)
            self.assertEqual(listed["good"]["origin"], path)
            self.assertIn(reason, listed["good"]["reason"])
            self.check_schemas(client)
        log = daemon.read_log()
        self.assertIn("refused plugin directory %s" % self.plugins, log)
        self.assertIn("refused plugin %s" % path, log)
        self.assert_serves_built_ins(daemon)

    def test_a_world_writable_plugin_directory(self):
        os.chmod(self.plugins, 0o777)
        self.untrusted_directory("%s is world-writable (mode 0777)" % self.plugins)

    def test_a_group_writable_plugin_directory_even_if_sticky(self):
        os.chmod(self.plugins, 0o1770)
        self.untrusted_directory("%s is group-writable (mode 1770)" % self.plugins)

    def test_a_plugin_directory_owned_by_another_user(self):
        os.chown(self.plugins, 65534, 65534)
        self.untrusted_directory("%s is owned by uid 65534" % self.plugins)

    def test_a_world_writable_ancestor_without_the_sticky_bit(self):
        os.chmod(self.dir, 0o777)
        self.untrusted_directory("%s is world-writable (mode 0777)" % self.dir)

    def test_a_sticky_world_writable_ancestor_is_accepted(self):
        # As /tmp, which every other test here loads its plugins under.
        os.chmod(self.dir, 0o1777)
        build_rows(self.plugins, "good.so", 'NAME="good"')
        daemon = self.start()
        with Client(daemon.path) as client:
            self.assertEqual(strategies(client)["good"]["status"], "available")


class DefaultDirectoryTests(ProcessTestCase):
    """The default plugin directory comes from where the binary is (<prefix>/bin/layoutd ->
    <prefix>/lib/layoutd/plugins); under a prefix others may write to, it is skipped whole,
    before any plugin's constructor can run."""

    prefix = "layoutd-default-dir-"

    def install(self, prefix, mode):
        """layoutd as prefix/bin/layoutd, and a probe whose constructor creates a marker."""
        os.makedirs(os.path.join(prefix, "bin"))
        plugins = os.path.join(prefix, "lib", "layoutd", "plugins")
        os.makedirs(plugins)
        binary = os.path.join(prefix, "bin", "layoutd")
        shutil.copy(DAEMON, binary)
        marker = os.path.join(self.dir, "constructor-ran")
        probe = os.path.join(os.path.dirname(__file__), "plugins", "probe.c")
        subprocess.run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", '-DMARKER="%s"' % marker, probe,
                        "-o", os.path.join(plugins, "probe.so")], check=True)
        os.chmod(prefix, mode)
        daemon = Daemon(binary=binary, default_plugin_dir=True)
        daemon.start()
        self.addCleanup(daemon.stop)
        with Client(daemon.path) as client:
            self.assertIn("result", client.call("view.create", flow_view("v", 3)))
        return daemon, plugins, marker

    def test_the_default_directory_under_a_world_writable_prefix_is_skipped(self):
        prefix = os.path.join(self.dir, "xyz")
        daemon, plugins, marker = self.install(prefix, 0o777)
        self.assertFalse(os.path.exists(marker), "the probe's constructor ran")
        log = daemon.read_log()
        self.assertIn("skipped the default plugin directory %s: %s is world-writable (mode 0777)" % (plugins, prefix), log)

    def test_the_default_directory_under_a_sticky_prefix_is_skipped_too(self):
        prefix = os.path.join(self.dir, "xyz")
        daemon, plugins, marker = self.install(prefix, 0o1777)
        self.assertFalse(os.path.exists(marker), "the probe's constructor ran")
        self.assertIn("skipped the default plugin directory %s" % plugins, daemon.read_log())

    def test_the_default_directory_under_a_trusted_prefix_is_loaded(self):
        # Not under /tmp (world-writable, sticky): somewhere no ancestor is.
        prefix = trusted_directory("default-dir-")
        self.addCleanup(shutil.rmtree, prefix, True)
        os.rmdir(prefix)
        daemon, plugins, marker = self.install(prefix, 0o755)
        self.assertTrue(os.path.exists(marker), daemon.read_log())
        self.assertIn("refused plugin %s" % os.path.join(plugins, "probe.so"), daemon.read_log())


    def start_without_default_directory(self, *args):
        """layoutd as prefix/bin/layoutd with no prefix/lib at all, as a build tree's binary
        (.build/debug/layoutd) and `make run`'s have, at the log level a user gets."""
        prefix = os.path.join(self.dir, "built")
        os.makedirs(os.path.join(prefix, "bin"))
        binary = os.path.join(prefix, "bin", "layoutd")
        shutil.copy(DAEMON, binary)
        daemon = Daemon(*args, binary=binary, default_plugin_dir=True)
        daemon.start()
        self.addCleanup(daemon.stop)
        return daemon, os.path.join(prefix, "lib", "layoutd", "plugins")

    def test_a_missing_default_directory_is_not_worth_a_line_at_start(self):
        # A binary run from the build tree has no <prefix>/lib/layoutd/plugins: nothing is wrong,
        # so a new user must not read about it (issue 40). The harness asks for debug; a later
        # --log-level wins.
        daemon, plugins = self.start_without_default_directory("--log-level", "info")
        log = daemon.read_log()
        self.assertIn("listening on", log)
        self.assertNotIn(plugins, log)
        self.assertNotIn("plugin directory", log)

    def test_a_missing_default_directory_is_told_at_debug_level(self):
        daemon, plugins = self.start_without_default_directory()
        self.assertIn("<7>no default plugin directory at %s" % plugins, daemon.read_log())

    def test_a_missing_directory_the_user_named_is_a_warning(self):
        # Unlike the default, a named directory is what the user asked for: a typo must show.
        named = os.path.join(self.dir, "no-such-plugins")
        daemon = Daemon("--log-level", "info", "--plugin-dir", named).start()
        self.addCleanup(daemon.stop)
        self.assertIn("<4>plugin directory %s does not exist; no plugins from it" % named, daemon.read_log())


class ReloadTests(PluginTestCase):
    def test_reload_adds_a_plugin_dropped_in_while_running(self):
        daemon = self.start()
        with Client(daemon.path) as client:
            self.assertNotIn("circle-c", strategies(client))
            client.call("view.create", flow_view("old", 4))
            shutil.copy(CIRCLE_C, os.path.join(self.plugins, "circle-c.so"))
            result = client.call("daemon.reload")["result"]
            self.assertEqual(result["strategiesAdded"], ["circle-c"])
            self.assertEqual(result["pluginsRefused"], [])
            self.assertEqual(strategies(client)["circle-c"]["origin"], os.path.join(self.plugins, "circle-c.so"))
            # New views, and views created before the reload, can use it.
            reply = client.call("view.create", {"view": "new", "strategy": "circle-c", "viewport": {"width": 300, "height": 300},
                                                "sections": [{"id": "s", "items": [{"id": "a"}]}]})
            self.assertIn("result", reply, reply)
            self.assertIn("result", client.call("view.setStrategy", {"view": "old", "strategy": "circle-c"}))
            # A second reload loads nothing again.
            self.assertEqual(client.call("daemon.reload")["result"]["strategiesAdded"], [])

            # SIGHUP does the same.
            shutil.copy(WATERFALL, os.path.join(self.plugins, "waterfall.so"))
            daemon.signal(signal.SIGHUP)
            deadline = time.time() + 10
            while "waterfall" not in strategies(client) and time.time() < deadline:
                time.sleep(0.05)
            self.assertEqual(strategies(client)["waterfall"]["status"], "available")
        self.assertIn("loaded strategy 'waterfall' from plugin %s" % os.path.join(self.plugins, "waterfall.so"), daemon.read_log())

    def test_a_refused_plugin_is_tried_again_and_a_changed_one_is_kept(self):
        build_rows(self.plugins, "rows.so", "ABI_VERSION=7")
        daemon = self.start()
        with Client(daemon.path) as client:
            self.assertEqual(strategies(client)["rows"]["status"], "refused")
            # Fixed under a new name (a refused file's name is free again), then reloaded.
            os.remove(os.path.join(self.plugins, "rows.so"))
            build_rows(self.plugins, "rows2.so")
            result = client.call("daemon.reload")["result"]
            self.assertEqual(result["strategiesAdded"], ["rows"])
            listed = strategies(client)
            self.assertEqual(listed["rows"]["status"], "available")
            self.assertEqual(listed["rows"]["origin"], os.path.join(self.plugins, "rows2.so"))
            # A loaded plugin rewritten on disk stays as loaded, with a warning.
            build_rows(self.plugins, "rows2.so", 'NAME="renamed"')
            client.call("daemon.reload")
            self.assertNotIn("renamed", strategies(client))
            client.call("view.create", {"view": "r", "strategy": "rows", "viewport": {"width": 100, "height": 100},
                                        "sections": [{"id": "s", "items": [{"id": "a"}]}]})
            self.assertEqual(elements(client, "r")["cell:a"]["frame"]["height"], 44)
        self.assertIn("changed on disk since it was loaded", daemon.read_log())
        self.assert_serves_built_ins(daemon)

    def test_a_plugin_directory_added_to_the_configuration_file(self):
        config = os.path.join(self.dir, "layoutd.conf")
        with open(config, "w") as handle:
            handle.write("# no plugins yet\n")
        extra = os.path.join(self.dir, "more-plugins")
        os.mkdir(extra)
        shutil.copy(CIRCLE_SWIFT, os.path.join(extra, "circle.so"))
        daemon = self.start("--config", config)
        with Client(daemon.path) as client:
            self.assertNotIn("circle", strategies(client))
            with open(config, "w") as handle:
                handle.write("plugin-dir = %s\n" % extra)
            result = client.call("daemon.reload")["result"]
            self.assertEqual(result["changed"], ["plugin-dir"])
            self.assertEqual(result["strategiesAdded"], ["circle"])

    def test_layoutctl_strategies_shows_origins(self):
        shutil.copy(CIRCLE_C, os.path.join(self.plugins, "circle-c.so"))
        daemon = self.start()
        table = subprocess.run([LAYOUTCTL, "--socket", daemon.path, "--table", "strategies"], capture_output=True, text=True, check=True).stdout
        self.assertIn("flow (built-in): ", table)
        self.assertIn("circle-c (%s): Items on a circle" % os.path.join(self.plugins, "circle-c.so"), table)
        self.assertIn("  selectedScale", table)


class PluginDocumentTests(unittest.TestCase):
    """docs/plugins.md shows the example as the files the tests above build and load, by link,
    so what a plugin author reads is what `make test` checks (no copy to drift)."""

    def test_the_plugin_page_links_the_tested_files(self):
        with open(os.path.join(ROOT, "docs", "plugins.md")) as handle:
            page = handle.read()
        for path in ("Plugins/CircleExample/swift/Circle.swift", "Plugins/CircleExample/c/circle.c"):
            self.assertIn("](../%s)" % path, page, "docs/plugins.md does not link %s" % path)
            self.assertTrue(os.path.isfile(os.path.join(ROOT, path)), path)
        # A pasted listing would be a second copy.
        self.assertNotIn("```c\n", page)
        self.assertNotIn("layoutd_plugin_entry(void) {", page)


if __name__ == "__main__":
    unittest.main()
