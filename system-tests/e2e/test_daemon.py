"""End-to-end tests of layoutd with real processes: raw socket clients, socat, signals,
other uids. Run by `make test` (python3 -m unittest discover -s system-tests/e2e)."""
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import threading
import time
import unittest

from harness import Client, Daemon, flow_view, percentile, poll_until


def scroll(view, y):
    return {"view": view, "offset": {"x": 0, "y": y}}


class SocketTests(unittest.TestCase):
    def test_raw_socat_client(self):
        with Daemon() as daemon:
            requests = b'{"id":1,"method":"daemon.hello"}\n{"id":2,"method":"strategy.list"}\n'
            output = subprocess.run(["socat", "-", "UNIX-CONNECT:" + daemon.path], input=requests,
                                    capture_output=True, timeout=10, check=True).stdout
            replies = [json.loads(line) for line in output.splitlines()]
            self.assertEqual([reply["id"] for reply in replies], [1, 2])
            self.assertEqual(replies[0]["result"]["protocol"], 1)
            self.assertIn("flow", [s["name"] for s in replies[1]["result"]["strategies"]])

    def test_socket_and_directory_permissions(self):
        with Daemon() as daemon:
            self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(daemon.path)).st_mode), 0o700)
            mode = os.lstat(daemon.path).st_mode
            self.assertTrue(stat.S_ISSOCK(mode))
            self.assertEqual(stat.S_IMODE(mode), 0o600)

    def test_socket_path_from_environment(self):
        with Daemon() as daemon:
            runtime = os.path.join(daemon.dir, "xdg")
            env = dict(os.environ, XDG_RUNTIME_DIR=runtime)
            env.pop("LAYOUTD_SOCKET", None)
            printed = subprocess.run([daemon_binary(), "--print-socket-path"], env=env, capture_output=True, text=True).stdout
            self.assertEqual(printed.strip(), runtime + "/layoutd/ipc.sock")
            env["LAYOUTD_SOCKET"] = "/tmp/elsewhere.sock"
            printed = subprocess.run([daemon_binary(), "--print-socket-path"], env=env, capture_output=True, text=True).stdout
            self.assertEqual(printed.strip(), "/tmp/elsewhere.sock")
            env = {"PATH": os.environ.get("PATH", "")}
            printed = subprocess.run([daemon_binary(), "--print-socket-path"], env=env, capture_output=True, text=True).stdout
            self.assertEqual(printed.strip(), "/run/layoutd/ipc.sock")

    def test_second_daemon_refuses_a_live_socket(self):
        with Daemon() as first:
            second = Daemon(socket_path=first.path).start(wait=False)
            self.assertEqual(second.process.wait(10), 1)
            self.assertIn("another daemon is serving", second.read_log())
            with Client(first.path) as client:
                self.assertIn("result", client.call("daemon.hello"))

    def test_takes_over_a_stale_socket_but_not_other_files(self):
        probe = Daemon()
        path = os.path.join(probe.dir, "run", "ipc.sock")
        os.makedirs(os.path.dirname(path), mode=0o700)
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(path)
        stale.close()  # the file stays; nothing listens: what a killed daemon leaves
        with Daemon(socket_path=path) as daemon:
            with Client(daemon.path) as client:
                self.assertIn("result", client.call("daemon.hello"))
        regular = os.path.join(probe.dir, "file.sock")
        open(regular, "w").close()
        refused = Daemon(socket_path=regular).start(wait=False)
        self.assertEqual(refused.process.wait(10), 1)
        self.assertIn("is not a socket", refused.read_log())
        self.assertTrue(os.path.isfile(regular))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run a client as another uid")
    def test_other_uid_is_refused(self):
        with Daemon() as daemon:
            client = ("import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
                      "s.sendall(b'{\"id\":1,\"method\":\"daemon.hello\"}\\n'); "
                      "d=b''\nwhile True:\n c=s.recv(4096)\n if not c: break\n d+=c\nsys.stdout.write(d.decode())")
            as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", client, daemon.path]
            # With the shipped permissions the filesystem already stops another uid.
            denied = subprocess.run(as_nobody, capture_output=True, text=True, timeout=10)
            self.assertNotEqual(denied.returncode, 0)
            self.assertIn("Permission denied", denied.stderr)
            # Opened up by mistake, SO_PEERCRED still refuses it with a named error.
            os.chmod(daemon.dir, 0o755)
            os.chmod(os.path.dirname(daemon.path), 0o755)
            os.chmod(daemon.path, 0o666)
            refused = subprocess.run(as_nobody, capture_output=True, text=True, timeout=10)
            lines = [json.loads(line) for line in refused.stdout.splitlines()]
            self.assertEqual(len(lines), 1, refused.stdout + refused.stderr)
            self.assertEqual(lines[0]["id"], None)
            self.assertEqual(lines[0]["error"]["name"], "PermissionDenied")
            self.assertIn("uid=65534", daemon.read_log())
            with Client(daemon.path) as client:
                status = client.call("daemon.status")["result"]
                self.assertGreaterEqual(status["connections"]["refused"], 1)


class LimitTests(unittest.TestCase):
    def test_line_over_the_cap_closes_only_that_connection(self):
        with Daemon() as daemon:
            bystander = Client(daemon.path)
            bystander.call("view.create", flow_view("v", 10))
            offender = Client(daemon.path)
            offender.send_raw(b'{"id":1,"method":"daemon.hello","params":{"pad":"' + b"x" * (1 << 20) + b'"}}\n')
            error = offender.read()
            self.assertEqual(error["error"]["name"], "LineTooLong")
            self.assertIsNone(error["id"])
            self.assertIsNone(offender.read_line(timeout=5))
            self.assertEqual(bystander.call("view.scroll", scroll("v", 10))["result"]["epoch"], 1)

    def test_a_line_just_under_the_cap_is_served(self):
        with Daemon() as daemon, Client(daemon.path) as client:
            request = b'{"id":1,"method":"daemon.sync","params":{}}'
            padding = (1 << 20) - len(request)
            client.send_raw(request[:-1] + b" " * padding + b"}\n")
            self.assertEqual(client.read()["id"], 1)

    def test_half_line_staller_is_dropped_after_the_deadline(self):
        with Daemon() as daemon:
            staller = Client(daemon.path, timeout=15)
            started = time.monotonic()
            staller.send_raw(b'{"id":1,"meth')
            slow = Client(daemon.path, timeout=15)
            # A slow but steady client (a byte every second) is never dropped.
            request = b'{"id":7,"method":"daemon.sync"}\n'
            for index in range(0, len(request), 4):
                slow.send_raw(request[index:index + 4])
                time.sleep(0.25)
            self.assertEqual(slow.read()["id"], 7)
            error = staller.read(timeout=15)
            elapsed = time.monotonic() - started
            self.assertEqual(error["error"]["name"], "IdleTimeout")
            self.assertIsNone(staller.read_line())
            self.assertGreaterEqual(elapsed, 4.5)
            self.assertLess(elapsed, 8)
            with Client(daemon.path) as client:
                self.assertGreaterEqual(client.call("daemon.status")["result"]["connections"]["dropped"], 1)

    def test_time_spent_paused_by_backpressure_is_not_a_stall(self):
        # Input pauses while requests queue up; a partial line waiting behind them is the
        # daemon's doing, not the client's, and must not trip the partial-line deadline.
        with Daemon("--set", "max-queued-requests=4", "--set", "partial-line-timeout=1") as daemon, Client(daemon.path, timeout=60) as client:
            client.call("view.create", flow_view("v", 20000))
            query = {"view": "v", "rect": {"x": 0, "y": 0, "width": 375, "height": 40000}}
            lines = "".join(json.dumps({"id": i, "method": "view.query", "params": query}) + "\n" for i in range(80))
            started = time.monotonic()
            client.send_raw(lines.encode() + b'{"id":"last","meth')
            for i in range(80):
                self.assertEqual(client.read()["id"], i)
            busy = time.monotonic() - started
            client.send_raw(b'od":"daemon.sync"}\n')
            self.assertEqual(client.read()["id"], "last", "answered after %.1f s of queued work" % busy)

    def test_connection_cap_per_uid(self):
        with Daemon("--set", "max-connections-per-uid=4") as daemon:
            def open_connections(client):
                return client.call("daemon.status")["result"]["connections"]["open"]

            # The first of the four waits until the start-up probe's connection has gone: only
            # it is open, so the cap is what the other three and a fifth meet.
            clients = [Client(daemon.path)]
            poll_until(lambda: open_connections(clients[0]) == 1, what="the start-up probe's connection closed")
            clients += [Client(daemon.path) for _ in range(3)]
            for client in clients:
                self.assertIn("result", client.call("daemon.sync"))
            extra = Client(daemon.path)
            refused = extra.read()
            self.assertEqual(refused["error"]["name"], "LimitExceeded")
            self.assertIsNone(extra.read_line())
            clients.pop().close()
            # Until the daemon has seen that close: three open, a place free again.
            poll_until(lambda: open_connections(clients[0]) == 3, what="the closed connection counted out")
            with Client(daemon.path) as again:
                self.assertIn("result", again.call("daemon.sync"))

    def test_view_limit_and_batch_limit_are_named_errors(self):
        with Daemon("--set", "max-views=2", "--set", "max-batch=10") as daemon, Client(daemon.path) as client:
            client.call("view.create", flow_view("a", 1))
            client.call("view.create", flow_view("b", 1))
            self.assertEqual(client.call("view.create", flow_view("c", 1))["error"]["name"], "LimitExceeded")
            updates = [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "n%d" % i}]} for i in range(11)]
            self.assertEqual(client.call("view.update", {"view": "a", "updates": updates})["error"]["name"], "LimitExceeded")
            self.assertEqual(client.call("view.get", {"view": "a"})["result"]["epoch"], 0)



def element_key(element):
    return (element["kind"], element["id"])


def cursor_key(cursor):
    # Key order: cells, then headers, then footers; by id (UTF-8 bytes, as Swift compares) within a kind.
    return (["cell", "header", "footer"].index(cursor[0]), cursor[1].encode())


class WindowLimitTests(unittest.TestCase):
    """max-window-elements bounds every snapshot, delta and query page; the cut window stays
    exact for a mirror, and paged queries walk the whole result. Every reply is checked against
    protocol/schemas."""

    @classmethod
    def setUpClass(cls):
        import test_protocol

        schemas = test_protocol.SchemaTests
        schemas.setUpClass()
        cls.documents, cls.jsonschema, cls.resolver, cls.BASE = schemas.documents, schemas.jsonschema, schemas.resolver, schemas.BASE
        cls.check = schemas.check

    def checked(self, client, method, params, events=None):
        reply = client.call(method, params, events=events)
        self.assertIn("result", reply, reply)
        self.check("methods/%s.params.json" % method, params, method)
        self.check("methods/%s.result.json" % method, reply["result"], method)
        for event in events or []:
            self.check("events/%s.json" % event["event"], event, event["event"])
        return reply["result"]

    # 1,000 cells of 100 × 100 in rows of 10 with no spacing: 100 rows, 10,000 points tall.
    PARAMS = {"itemSize": {"width": 100, "height": 100}, "minimumInteritemSpacing": 0, "minimumLineSpacing": 0}

    def test_a_window_over_the_maximum_is_cut_and_stays_exact_for_a_mirror(self):
        with Daemon("--set", "max-window-elements=50") as daemon, Client(daemon.path) as client, Client(daemon.path) as watcher:
            self.assertEqual(self.checked(client, "daemon.hello", {})["limits"]["maximumWindowElements"], 50)
            created = self.checked(client, "view.create", flow_view("v", 1000, width=1000, height=10000, params=self.PARAMS))
            self.assertEqual(len(created["elements"]), 50)
            snapshot = self.checked(client, "view.get", {"view": "v"})
            self.assertEqual(len(snapshot["elements"]), 50)
            self.assertIs(snapshot["windowTruncated"], True)
            # Everything is on screen: the 50 lowest keys.
            ids = sorted(("i%d" % n for n in range(1000)), key=lambda id: id.encode())
            self.assertEqual([element["id"] for element in snapshot["elements"]], ids[:50])

            subscribed = self.checked(watcher, "view.subscribe", {"view": "v"})
            mirror = {element_key(element): element for element in subscribed["snapshot"]["elements"]}
            mutations = [
                ("view.configure", {"params": {"itemSize": {"width": 50, "height": 50}}, "animated": True}),
                ("view.update", {"updates": [
                    {"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "a%d" % n} for n in range(30)]},
                    {"op": "deleteItems", "ids": ["i%d" % n for n in range(0, 1000, 3)]}], "animated": True}),
                ("view.resize", {"size": {"width": 1000, "height": 300}, "animated": True}),
                ("view.setWindowMargin", {"margin": 1000000}),
                ("view.scroll", {"offset": {"x": 0, "y": 1200}}),
                ("view.select", {"ids": ["i1", "i2", "a3"], "animated": True}),
                ("view.configure", {"params": {"itemSize": {"width": 100, "height": 100}}, "animated": True}),
                ("view.setWindowMargin", {"margin": 0}),
            ]
            for method, params in mutations:
                with self.subTest(method=method, params=params):
                    params = dict(params, view="v")
                    result = self.checked(client, method, params)
                    self.assertLessEqual(len(result["entered"]) + len(result["changed"]), 50)
                    self.assertLessEqual(len(result.get("transition", {"segments": []})["segments"]), 100)
                    events = []
                    self.checked(watcher, "daemon.sync", {}, events=events)
                    self.assertEqual([event["event"] for event in events], ["view.invalidated"])
                    delta = events[0]["params"]
                    self.assertEqual(delta, result)
                    for key in delta["left"]:
                        self.assertIsNotNone(mirror.pop((key["kind"], key["id"]), None), key)
                    for element in delta["entered"]:
                        self.assertNotIn(element_key(element), mirror)
                        mirror[element_key(element)] = element
                    for element in delta["changed"]:
                        self.assertIn(element_key(element), mirror)
                        mirror[element_key(element)] = element
                    fresh = self.checked(client, "view.get", {"view": "v"})
                    self.assertEqual(mirror, {element_key(element): element for element in fresh["elements"]})
                    self.assertEqual(delta.get("windowTruncated", False), fresh.get("windowTruncated", False))
                    self.assertLessEqual(len(mirror), 50)
            # The last margin of 0 fits a 1000 × 300 viewport of 100 × 100 cells: not cut.
            self.assertNotIn("windowTruncated", fresh)
            self.assertEqual(len(fresh["elements"]), 30)

    def test_query_pages_walk_the_whole_result_in_key_order(self):
        with Daemon("--set", "max-window-elements=50") as daemon, Client(daemon.path) as client:
            self.checked(client, "view.create", flow_view("v", 1000, width=1000, height=10000, params=self.PARAMS))
            everything = {"x": 0, "y": 0, "width": 1000, "height": 10000}
            # A region of 40 elements fits one page: paged by 7 it is the same list.
            region = {"x": 0, "y": 0, "width": 1000, "height": 400}
            whole = self.checked(client, "view.query", {"view": "v", "rect": region})
            self.assertEqual(len(whole["elements"]), 40)
            self.assertNotIn("next", whole)
            for rect, limit in ((region, 7), (everything, 7), (everything, 50)):
                with self.subTest(rect=rect, limit=limit):
                    pages, after = [], None
                    while True:
                        params = {"view": "v", "rect": rect, "limit": limit}
                        if after is not None:
                            params["after"] = after
                        page = self.checked(client, "view.query", params)
                        self.assertLessEqual(len(page["elements"]), limit)
                        pages.append(page)
                        if "next" not in page:
                            break
                        after = page["next"]
                        self.assertEqual(after, {"kind": "cell", "id": page["elements"][-1]["id"]})
                    walked = [element for page in pages for element in page["elements"]]
                    keys = [element_key(element) for element in walked]
                    self.assertEqual(keys, sorted(keys, key=cursor_key))
                    self.assertEqual(len(set(keys)), len(keys))
                    if rect is region:
                        self.assertEqual(walked, whole["elements"])
                        self.assertEqual([id for page in pages for id in page["selected"]], whole["selected"])
                    else:
                        self.assertEqual(len(walked), 1000)
            # A cursor need not name an element; a limit over the maximum, under 1 or a bad cursor is refused.
            page = self.checked(client, "view.query", {"view": "v", "rect": region, "after": {"kind": "cell", "id": "i1~"}})
            self.assertTrue(all(element["id"].encode() > b"i1~" for element in page["elements"]))
            self.assertEqual(client.call("view.query", {"view": "v", "rect": region, "limit": 51})["error"]["name"], "LimitExceeded")
            self.assertEqual(client.call("view.query", {"view": "v", "rect": region, "limit": 0})["error"]["name"], "InvalidParams")
            # Any kind name is a valid cursor kind (layouts name their own, such as badge); an empty one is not.
            for bad in ({"kind": "cell"}, {"kind": "", "id": "i1"}, {"kind": "cell", "id": "i1", "section": 0}, "i1"):
                reply = client.call("view.query", {"view": "v", "rect": region, "after": bad})
                self.assertEqual(reply["error"]["name"], "InvalidParams", bad)

    def test_a_snapshot_of_100k_items_on_screen_is_bounded_by_the_default_maximum(self):
        # The measurement: a viewport over all of a 100,000-item view.
        with Daemon("--set", "max-line-length=16777216") as daemon, Client(daemon.path, timeout=120) as client:
            params = {"itemSize": {"width": 10, "height": 10}, "minimumInteritemSpacing": 0, "minimumLineSpacing": 0}
            client.send("view.create", flow_view("big", 100000, width=1000, height=10000, params=params))
            created = json.loads(client.read_line())
            self.assertEqual(len(created["result"]["elements"]), 20000)
            started = time.monotonic()
            client.send("view.get", {"view": "big"})
            line = client.read_line()
            elapsed = time.monotonic() - started
            snapshot = json.loads(line)["result"]
            self.assertEqual(len(snapshot["elements"]), 20000)
            self.assertIs(snapshot["windowTruncated"], True)
            self.assertEqual(snapshot["itemCount"], 100000)
            self.assertLess(len(line), 4 << 20, "%d bytes in %.2f s" % (len(line), elapsed))
            page = self.checked(client, "view.query", {"view": "big", "rect": {"x": 0, "y": 0, "width": 1000, "height": 10000}})
            self.assertEqual(len(page["elements"]), 20000)
            self.assertIn("next", page)

class ConcurrencyTests(unittest.TestCase):
    def test_pipelined_replies_keep_request_order(self):
        with Daemon() as daemon, Client(daemon.path) as client:
            client.call("view.create", flow_view("v", 1000))
            methods = [("view.scroll", scroll("v", 5)), ("view.query", {"view": "v", "rect": {"x": 0, "y": 0, "width": 375, "height": 100}}),
                       ("daemon.status", None), ("view.select", {"view": "v", "ids": ["i3"], "mode": "toggle"}), ("view.item", {"view": "v", "id": "nope"})]
            lines = []
            for index in range(1000):
                method, params = methods[index % len(methods)]
                message = {"id": 1000 + index, "method": method}
                if params is not None:
                    message["params"] = params
                lines.append(json.dumps(message))
            client.send_raw(("\n".join(lines) + "\n").encode())
            ids = [client.read()["id"] for _ in lines]
            self.assertEqual(ids, list(range(1000, 2000)))

    def test_sync_covers_another_connections_notification_once_its_sender_has_a_later_reply(self):
        """protocol/daemon.md, daemon.sync: a notification sent on another connection is covered
        once its sender has read the reply to a later request of its own. Repeated, so an order
        that held by luck once would be caught on another round."""
        with Daemon() as daemon, Client(daemon.path) as watcher, Client(daemon.path) as sender:
            sender.call("view.create", flow_view("v", 2000))
            watcher.call("view.subscribe", {"view": "v"})
            for round_ in range(50):
                sender.send_raw(('{"method":"view.scroll","params":%s}\n' % json.dumps(scroll("v", 10 + 17 * round_))).encode())
                self.assertIn("result", sender.call("view.get", {"view": "v"}))
                events = []
                self.assertIn("result", watcher.call("daemon.sync", events=events))
                offsets = [event["params"]["contentOffset"]["y"] for event in events if event["event"] == "view.invalidated"]
                self.assertEqual(offsets, [10 + 17 * round_], "round %d: the notification's event came before the sync reply" % round_)

    def test_64_clients_on_8_views(self):
        with Daemon() as daemon:
            with Client(daemon.path) as setup:
                for view in range(8):
                    self.assertIn("result", setup.call("view.create", flow_view("v%d" % view, 5000)))
            failures = []
            mutations = [0] * 8
            lock = threading.Lock()

            def run(number):
                try:
                    view = "v%d" % (number % 8)
                    client = Client(daemon.path, timeout=60)
                    subscribed = number < 8
                    if subscribed:
                        subscription = client.call("view.subscribe", {"view": view})["result"]["subscription"]
                    lines = []
                    for index in range(150):
                        if index % 3 == 0:
                            message = {"id": index, "method": "view.scroll", "params": scroll(view, (number * 37 + index * 11) % 4000)}
                        elif index % 3 == 1:
                            message = {"id": index, "method": "view.select", "params": {"view": view, "ids": ["i%d" % (index % 50)], "mode": "toggle"}}
                        else:
                            message = {"id": index, "method": "view.query", "params": {"view": view, "rect": {"x": 0, "y": 0, "width": 375, "height": 300}}}
                        lines.append(json.dumps(message))
                    client.send_raw(("\n".join(lines) + "\n").encode())
                    events = []
                    for index in range(150):
                        reply = client.read_until_reply(index, events)
                        if "result" not in reply:
                            failures.append("client %d request %d: %s" % (number, index, reply))
                    with lock:
                        mutations[number % 8] += 100
                    client.events = events
                    client.subscribed = subscribed
                    results[number] = client
                except Exception as error:  # reported below, with the client number
                    failures.append("client %d: %r" % (number, error))

            results = {}
            threads = [threading.Thread(target=run, args=(number,)) for number in range(64)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            self.assertEqual(failures, [])
            with Client(daemon.path) as check:
                epochs = {v["view"]: v["epoch"] for v in check.call("view.list")["result"]["views"]}
                # Every client's events so far, then the rest after a barrier.
                for number in range(8):
                    client = results[number]
                    client.call("daemon.sync", events=client.events)
                    seqs = [event["seq"] for event in client.events]
                    self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "gapless seq for client %d" % number)
                    view_epochs = [event["params"]["epoch"] for event in client.events]
                    self.assertEqual(view_epochs, sorted(view_epochs), "events in epoch order")
                    self.assertEqual(view_epochs[-1], epochs["v%d" % number])
            self.assertEqual([epochs["v%d" % view] for view in range(8)], mutations)
            for client in results.values():
                client.close()

    def test_a_slow_request_on_one_view_does_not_hold_up_another(self):
        with Daemon("--set", "max-line-length=67108864") as daemon:
            with Client(daemon.path) as setup:
                setup.call("view.create", flow_view("big", 10))
                setup.call("view.create", flow_view("small", 10))
            heavy = Client(daemon.path, timeout=60)
            sections = [{"id": "s", "items": [{"id": "x%d" % i, "size": {"width": 10 + i % 90, "height": 20 + i % 7}} for i in range(200000)]}]
            heavy_line = json.dumps({"id": 1, "method": "view.setData", "params": {"view": "big", "sections": sections}}).encode() + b"\n"
            light = Client(daemon.path)
            light.call("view.scroll", scroll("small", 1))
            baseline = light.call("daemon.status")["result"]["requests"]
            heavy.send_raw(heavy_line)
            # Until the daemon has decoded the big line, so the small view's calls below overlap
            # its work: the count of requests decoded, less the status calls asking it.
            asked = []

            def heavy_decoded():
                asked.append(1)
                return light.call("daemon.status")["result"]["requests"] - baseline - len(asked) >= 1

            poll_until(heavy_decoded, timeout=60, what="the setData line decoded")
            quick = []
            while not heavy.pending(0):
                started = time.monotonic()
                light.call("view.scroll", scroll("small", len(quick) % 100))
                quick.append(time.monotonic() - started)
            self.assertIn("result", heavy.read())
            # The other view kept answering while the big replace ran.
            self.assertGreater(len(quick), 3, "replies on the small view during the setData")
            heavy.close()
            light.close()


class SlowSubscriberTests(unittest.TestCase):
    def measure(self, client, rounds=300):
        latencies = []
        for index in range(rounds):
            started = time.perf_counter()
            reply = client.call("view.scroll", scroll("v", (index * 97) % 50000))
            latencies.append((time.perf_counter() - started) * 1e6)
            self.assertIn("result", reply)
        return latencies

    def test_a_subscriber_that_never_reads_does_not_slow_others(self):
        with Daemon("--set", "output-cap=262144", "--set", "write-stall-timeout=60", "--set", "max-line-length=16777216") as daemon:
            worker = Client(daemon.path)
            worker.call("view.create", flow_view("v", 100000, item=(60, 60)))
            baseline = self.measure(worker)
            sleeper = Client(daemon.path)
            sleeper.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sleeper.call("view.subscribe", {"view": "v"})
            # The sleeper reads nothing from here on, while the worker scrolls on.
            loaded = self.measure(worker, rounds=1500)
            base50, base99 = percentile(baseline, 0.5), percentile(baseline, 0.99)
            load50, load99 = percentile(loaded, 0.5), percentile(loaded, 0.99)
            print("\n  view.scroll round trip, 100k items: without a stalled subscriber p50 %.0f µs p99 %.0f µs; "
                  "with one p50 %.0f µs p99 %.0f µs" % (base50, base99, load50, load99))
            # Generous bounds (shared machine): a blocked daemon would show seconds, not this.
            self.assertLess(load50, max(4 * base50, base50 + 2000))
            self.assertLess(load99, 250000)
            # The sleeper's backlog was coalesced: reading now gives gapless events, a resync
            # with the current state, and nothing lost silently.
            last_epoch = worker.call("view.get", {"view": "v"})["result"]["epoch"]
            worker.call("daemon.sync")
            events = []
            sleeper.call("daemon.sync", events=events)
            self.assertEqual([e["seq"] for e in events], list(range(1, len(events) + 1)))
            self.assertIn("view.resync", [e["event"] for e in events])
            self.assertLess(len(events), 1500, "events were coalesced")
            final = events[-1]
            state = final["params"]["snapshot"]["epoch"] if final["event"] == "view.resync" else final["params"]["epoch"]
            self.assertEqual(state, last_epoch)

    def test_a_client_that_stops_reading_is_dropped_after_the_stall_timeout(self):
        with Daemon("--set", "output-cap=65536", "--set", "write-stall-timeout=1") as daemon:
            worker = Client(daemon.path)
            worker.call("view.create", flow_view("v", 10000))
            hog = Client(daemon.path)
            hog.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            # Pipelines queries and never reads the replies.
            query = json.dumps({"id": 1, "method": "view.query", "params": {"view": "v", "rect": {"x": 0, "y": 0, "width": 375, "height": 2000}}}).encode() + b"\n"
            try:
                hog.sock.settimeout(5)
                for _ in range(2000):
                    hog.send_raw(query)
            except OSError:
                pass  # the daemon stopped reading (backpressure) or already dropped it
            deadline = time.monotonic() + 10
            dropped = 0
            while time.monotonic() < deadline:
                dropped = worker.call("daemon.status")["result"]["connections"]["dropped"]
                if dropped:
                    break
                time.sleep(0.2)
            self.assertEqual(dropped, 1)
            self.assertIn("no read progress", daemon.read_log())
            self.assertIn("result", worker.call("view.scroll", scroll("v", 10)))


class LifecycleTests(unittest.TestCase):
    def test_sigterm_under_load_loses_no_reply_for_requests_read(self):
        # A deadline long enough for a debug build to answer everything it read.
        daemon = Daemon("--set", "shutdown-deadline=60").start()
        with Client(daemon.path) as setup:
            setup.call("view.create", flow_view("v", 20000))
        clients = [Client(daemon.path, timeout=30) for _ in range(8)]
        counts = [0] * len(clients)
        # Replies each pump has read so far: SIGTERM comes once every one is under way.
        progress = [0] * len(clients)
        shutdown_seen = [False] * len(clients)
        problems = []

        def pump(number):
            client = clients[number]
            lines = "".join(json.dumps({"id": i, "method": "view.scroll", "params": scroll("v", (i * 13) % 15000)}) + "\n" for i in range(4000))

            def send():
                try:
                    client.send_raw(lines.encode())
                except OSError:
                    pass  # the daemon stopped reading; what it read is answered below

            # Sending and reading at once, as a real client does: the daemon pauses a
            # connection's input while its replies go unread.
            threading.Thread(target=send, daemon=True).start()
            expected = 0
            while True:
                message = client.read()
                if message is None:
                    break
                if message.get("event") == "daemon.shutdown":
                    shutdown_seen[number] = True
                    continue
                if message.get("id") != expected or "result" not in message:
                    problems.append("client %d: wanted reply %d, got %s" % (number, expected, str(message)[:200]))
                    break
                expected += 1
                progress[number] = expected
            counts[number] = expected

        threads = [threading.Thread(target=pump, args=(n,)) for n in range(len(clients))]
        for thread in threads:
            thread.start()
        poll_until(lambda: all(progress) or problems, timeout=30, what="a reply on every connection")
        daemon.signal(signal.SIGTERM)
        for thread in threads:
            thread.join(60)
        self.assertEqual(daemon.process.wait(30), 0)
        daemon.stop()
        self.assertEqual(problems, [])
        self.assertTrue(all(shutdown_seen), shutdown_seen)
        log = daemon.read_log()
        summary = [line for line in log.splitlines() if "requests read" in line][-1]
        read, answered = [int(word) for word in summary.replace(",", " ").split() if word.isdigit()][:2]
        self.assertEqual(read, answered, summary)
        # Everything read was answered and reached a client: the two setup connections'
        # requests (the harness's hello, the create) plus what the pumps received.
        self.assertEqual(sum(counts) + 2, read, summary)
        self.assertGreater(sum(counts), 0)

    def test_reload_on_sighup_and_daemon_reload(self):
        daemon = Daemon()
        config = os.path.join(daemon.dir, "layoutd.conf")
        with open(config, "w") as handle:
            handle.write("# limits\noutput-cap = 1048576\n")
        daemon.args = ["--config", config]
        with daemon, Client(daemon.path) as client:
            with open(config, "w") as handle:
                handle.write("output-cap = 2097152\nmax-views = 3\n")
            daemon.signal(signal.SIGHUP)
            deadline = time.monotonic() + 5
            while client.call("daemon.status")["result"]["generation"] != 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual(client.call("daemon.status")["result"]["generation"], 1)
            self.assertIn("changed: output-cap, max-views", daemon.read_log())
            with open(config, "w") as handle:
                handle.write("output-cap = lots\n")
            failed = client.call("daemon.reload")
            self.assertEqual(failed["error"]["name"], "ReloadFailed")
            self.assertIn("output-cap", failed["error"]["message"])
            with open(config, "w") as handle:
                handle.write("output-cap = 4096\n")
            reloaded = client.call("daemon.reload")["result"]
            self.assertEqual(reloaded["generation"], 2)
            # Changed since the last load; max-views is back to the value in effect.
            self.assertEqual(reloaded["changed"], ["output-cap", "max-views"])
            self.assertEqual(reloaded["restartRequired"], [])
            # A new line cap reaches connections that are already open, and hello reports it.
            with open(config, "w") as handle:
                handle.write("max-line-length = 2048\nmax-items = 10\n")
            reloaded = client.call("daemon.reload")["result"]
            self.assertEqual(reloaded["restartRequired"], ["max-items"])
            self.assertEqual(client.call("daemon.hello")["result"]["limits"]["maximumLineLength"], 2048)
            self.assertEqual(client.call("daemon.hello")["result"]["limits"]["maximumItemsPerView"], 2000000)
            client.send_raw(b'{"id":1,"method":"daemon.sync","params":{"pad":"' + b"x" * 3000 + b'"}}\n')
            self.assertEqual(client.read()["error"]["name"], "LineTooLong")


class ConfigurationFileTests(unittest.TestCase):
    """The configuration file must be a regular file of sane size: anything else is refused at
    start (exit 78) and on reload (ReloadFailed, nothing changes), and never blocks a signal."""

    def started_with(self, text):
        daemon = Daemon()
        self.config = os.path.join(daemon.dir, "layoutd.conf")
        with open(self.config, "w") as handle:
            handle.write(text)
        daemon.args = ["--config", self.config]
        daemon.start()
        self.addCleanup(daemon.stop)
        return daemon

    def test_a_config_path_that_became_a_directory_is_refused_on_reload(self):
        daemon = self.started_with("max-line-length = 2048\n")
        os.remove(self.config)
        os.mkdir(self.config)
        with Client(daemon.path) as client:
            failed = client.call("daemon.reload")
            self.assertEqual(failed.get("error", {}).get("name"), "ReloadFailed", failed)
            self.assertIn("%s is a directory" % self.config, failed["error"]["message"])
            self.assertEqual(client.call("daemon.hello")["result"]["limits"]["maximumLineLength"], 2048)
            self.assertEqual(client.call("daemon.status")["result"]["generation"], 0)

    def test_a_fifo_config_does_not_hold_up_sigterm(self):
        daemon = self.started_with("max-line-length = 2048\n")
        os.remove(self.config)
        os.mkfifo(self.config)
        daemon.signal(signal.SIGHUP)
        deadline = time.monotonic() + 3
        while "reload failed" not in daemon.read_log() and time.monotonic() < deadline:
            time.sleep(0.02)
        daemon.signal(signal.SIGTERM)
        try:
            status = daemon.process.wait(5)
        except subprocess.TimeoutExpired:
            daemon.process.kill()
            self.fail("SIGTERM after a SIGHUP with a FIFO for the configuration: still running after 5 s")
        self.assertEqual(status, 0)
        self.assertIn("%s is not a regular file" % self.config, daemon.read_log())

    def refused_at_start(self, make, message):
        daemon = Daemon()
        config = os.path.join(daemon.dir, "layoutd.conf")
        make(config)
        daemon.args = ["--config", config]
        daemon.start(wait=False)
        self.addCleanup(daemon.stop)
        try:
            status = daemon.process.wait(10)
        except subprocess.TimeoutExpired:
            self.fail("layoutd whose configuration %s is still running after 10 s" % message)
        self.assertEqual(status, 78, daemon.read_log())
        self.assertIn("layoutd: %s %s" % (config, message), daemon.read_log())

    def test_a_directory_config_at_start_exits_78(self):
        self.refused_at_start(os.mkdir, "is a directory")

    def test_a_fifo_config_at_start_exits_78(self):
        self.refused_at_start(os.mkfifo, "is not a regular file")

    def test_a_huge_config_at_start_exits_78(self):
        def make(path):
            with open(path, "w") as handle:
                handle.write(("#" * 1023 + "\n") * 2048)
        self.refused_at_start(make, "is larger than 1 MiB")


class ManPageTests(unittest.TestCase):
    """layoutd(8) and layoutd.conf(5), printed by `layoutd --man 8|5` from the tables behind the
    parser and the settings: they render without a groff warning and name every option, setting
    and exit status the daemon has."""

    PAGES = {"8": ".TH LAYOUTD 8 ", "5": ".TH LAYOUTD.CONF 5 "}

    def page(self, section):
        result = subprocess.run([daemon_binary(), "--man", section], capture_output=True, text=True, timeout=10)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        return result.stdout

    def rendered(self, section):
        """The page as man(1) would show it, with hyphenation and justification off so names
        stay whole, and every groff warning enabled."""
        result = subprocess.run(["groff", "-man", "-ww", "-Tutf8", "-P-cbou", "-rLL=200n", "-dAD=l", "-rHY=0"],
                                input=self.page(section), capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "", "groff warned about layoutd(%s)" % section)
        return result.stdout

    @staticmethod
    def help_text():
        return subprocess.run([daemon_binary(), "--help"], capture_output=True, text=True, timeout=10, check=True).stdout

    def options(self):
        """Every option --help lists, short and long: the same table the parser reads."""
        names = []
        for line in self.help_text().splitlines():
            match = re.match(r"^  (-\w, )?(--[\w-]+)", line)
            if match:
                names += [match.group(2)] + ([match.group(1)[:-2]] if match.group(1) else [])
        return names

    def settings(self):
        lines = self.help_text().splitlines()
        index = next(number for number, line in enumerate(lines) if line.rstrip().endswith("names:"))
        return [name.strip() for name in lines[index + 1].split(",")]

    def test_pages_start_with_their_title_line_and_carry_no_build_date(self):
        for section, title in self.PAGES.items():
            page = self.page(section)
            self.assertTrue(page.startswith(title), page[:80])
            self.assertIn(title + '"" "layoutd ', page.splitlines()[0])
            self.assertEqual(page, self.page(section), "the page must be the same on every run")

    def test_pages_render_without_warnings(self):
        for section in self.PAGES:
            self.assertTrue(self.rendered(section).strip())
            # -z: the whole formatting pass, output discarded: what `make install` users' man runs.
            result = subprocess.run(["groff", "-man", "-ww", "-z"], input=self.page(section), capture_output=True, text=True, timeout=30)
            self.assertEqual((result.returncode, result.stderr), (0, ""))

    def test_man_reads_the_installed_form_without_warnings(self):
        if not shutil.which("man"):
            self.skipTest("man-db is not installed")
        directory = tempfile.mkdtemp(prefix="layoutd-man-")
        self.addCleanup(shutil.rmtree, directory, True)
        for section, name in [("8", "layoutd.8"), ("5", "layoutd.conf.5")]:
            path = os.path.join(directory, name)
            with open(path, "w") as handle:
                handle.write(self.page(section))
            result = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True, timeout=30,
                                    env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="100"))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "", "man warned about " + name)
            self.assertIn("layoutd", result.stdout)

    def test_layoutd_8_names_every_option_and_section(self):
        text = self.rendered("8")
        options = self.options()
        self.assertIn("--man", options)
        self.assertGreaterEqual(len(options), 11)
        for option in options:
            self.assertIn(option, text)
        for heading in ["SYNOPSIS", "DESCRIPTION", "OPTIONS", "SETTINGS", "SOCKET", "SIGNALS", "ENVIRONMENT", "FILES",
                        "EXIT STATUS", "SEE ALSO"]:
            self.assertRegex(text, r"(?m)^" + heading + "$")
        for needle in ["$LAYOUTD_SOCKET", "$XDG_RUNTIME_DIR/layoutd/ipc.sock", "/run/layoutd/ipc.sock", "SIGHUP", "SIGTERM",
                       "NOTIFY_SOCKET", "WATCHDOG_USEC", "LISTEN_FDS", "MALLOC_ARENA_MAX", "/etc/layoutd/layoutd.conf",
                       "<prefix>/lib/layoutd/plugins", "layoutctl(1)", "layoutd.conf(5)", "systemd.socket(5)"]:
            self.assertIn(needle, text)
        statuses = re.search(r"(?ms)^EXIT STATUS$(.*?)^SEE ALSO$", text).group(1)
        self.assertEqual(re.findall(r"(?m)^ {7}(\d+)\s", statuses), ["0", "1", "64", "78"])

    def test_layoutd_conf_5_lists_every_setting_with_its_default(self):
        text = self.rendered("5")
        settings = self.settings()
        self.assertIn("max-window-elements", settings)
        self.assertIn("default-plugin-dir", settings)
        for name in settings:
            entry = re.search(r"(?ms)^ {7}" + re.escape(name) + r"$\n(.*?)Default: ([^ .]+)", text)
            self.assertIsNotNone(entry, name)
        # The defaults the page states are the daemon's: a file of exactly those changes nothing.
        defaults = dict(re.findall(r"(?ms)^ {7}([a-z-]+)$\n.*?Default: ([0-9.]+)\.", text))
        self.assertEqual(defaults["max-line-length"], "1048576")
        self.assertEqual(defaults["shutdown-deadline"], "5")
        # Every numeric setting (the directories have no number for a default).
        for name in settings:
            if not name.endswith("-dir"):
                self.assertIn(name, defaults)
        daemon = Daemon()
        config = os.path.join(daemon.dir, "layoutd.conf")
        open(config, "w").close()
        daemon.args = ["--config", config]
        daemon.start()
        self.addCleanup(daemon.stop)
        with open(config, "w") as handle:
            handle.write("".join("%s = %s\n" % item for item in defaults.items()))
        with Client(daemon.path) as client:
            reply = client.call("daemon.reload")
        self.assertEqual(reply["result"]["changed"], [], reply)

    def test_docs_list_the_same_settings_and_defaults(self):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "running.md")) as handle:
            readme = handle.read()
        table = readme.split("<!-- settings table: generated, do not edit -->\n")[1].split("<!-- end of settings table -->")[0]
        rows = re.findall(r"(?m)^\| `([a-z-]+)` \| ([^|]*) \|", table)
        self.assertEqual([name for name, _ in rows], self.settings())
        defaults = dict(re.findall(r"(?ms)^ {7}([a-z-]+)$\n.*?Default: (\S+?)\.\s", self.rendered("5")))
        for name, default in rows:
            self.assertEqual(default.strip("`"), defaults[name], name)

    def test_any_other_section_is_a_usage_error(self):
        for arguments in [["--man", "7"], ["--man", "1"], ["--man", ""], ["--man"], ["--man=8x"]]:
            result = subprocess.run([daemon_binary()] + arguments, capture_output=True, text=True, timeout=10)
            self.assertEqual(result.returncode, 64, arguments)
            self.assertEqual(result.stdout, "", arguments)
            self.assertIn("--man", result.stderr)
            self.assertIn("usage: layoutd", result.stderr)


class BenchFloorProgramTests(unittest.TestCase):
    """The benchmark's C programs (bench/c): the echo floor, the round-trip client and the load
    generator, built with the Makefile's flags and run briefly; no timing is asserted."""

    ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="layoutd-bench-c-")
        for name in ("echo", "rtt", "load"):
            subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(cls.ROOT, "bench", "c", name + ".c"),
                            "-o", os.path.join(cls.dir, "layoutd-bench-" + name)], check=True, timeout=120)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def program(self, name, *arguments):
        result = subprocess.run([os.path.join(self.dir, "layoutd-bench-" + name)] + [str(a) for a in arguments],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 1, result.stdout)
        return json.loads(lines[0])

    def write(self, name, lines):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as handle:
            handle.write(b"".join(lines))
        return path

    def assert_round_trips(self, row, count, replies):
        self.assertEqual(row["requests"], count)
        self.assertLessEqual(row["min_us"], row["p50_us"])
        self.assertLessEqual(row["p50_us"], row["p90_us"])
        self.assertLessEqual(row["p90_us"], row["p99_us"])
        self.assertLessEqual(row["p99_us"], row["max_us"])
        self.assertGreater(row["mean_us"], 0)
        self.assertAlmostEqual(row["reply_bytes"], sum(map(len, replies)) / len(replies), delta=2)
        self.assertEqual(row["errors"], 0)
        for key in ("clk_tck", "cpu_us_per_request", "ctx_switches_per_request"):
            self.assertGreaterEqual(row[key], 0, key)

    def test_the_echo_floor_answers_with_the_captured_replies_in_turn(self):
        requests = [b'{"id":10,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":300}}}\n',
                    b'{"id":11,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":0}}}\n']
        replies = [b'{"id":10,"result":{"view":"v","epoch":1}}\n', b'{"id":11,"result":{"view":"v","epoch":22}}\n']
        socket_path = os.path.join(self.dir, "echo.sock")
        echo = subprocess.Popen([os.path.join(self.dir, "layoutd-bench-echo"), "--socket", socket_path,
                                 "--replies", self.write("echo.replies", replies)], stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(echo.stdout.readline().strip(), "ready")
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
                raw.settimeout(10)
                raw.connect(socket_path)
                raw.sendall(requests[0] + requests[1] + requests[0][:20])
                received = b""
                while received.count(b"\n") < 2:
                    received += raw.recv(4096)
                self.assertEqual(received, replies[0] + replies[1])
            requests_path = self.write("echo.requests", requests)
            row = self.program("rtt", "--socket", socket_path, "--requests", requests_path, "--warmup", 50, "--count", 400, "--pid", echo.pid)
            self.assert_round_trips(row, 400, replies)
            self.assertEqual(row["pid"], echo.pid)
            load = self.program("load", "--socket", socket_path, "--requests", requests_path, "--connections", 8,
                                "--window", 4, "--seconds", 0.2, "--pid", echo.pid)
            self.assertEqual((load["connections"], load["window"], load["errors"]), (8, 4, 0))
            self.assertGreater(load["replies"], 0)
            self.assertGreater(load["requests_per_second"], 0)
            self.assertAlmostEqual(load["reply_bytes"], sum(map(len, replies)) / 2, delta=2)
        finally:
            echo.terminate()
            echo.wait(10)
            echo.stdout.close()

    def test_the_client_and_the_load_generator_scroll_a_real_daemon(self):
        with Daemon() as daemon, Client(daemon.path) as client:
            client.call("view.create", flow_view("v", 200))
            requests = [json.dumps({"id": 10 + n, "method": "view.scroll", "params": scroll("v", y)}, separators=(",", ":")).encode() + b"\n"
                        for n, y in enumerate((300, 0))]
            replies = []
            for line in requests:
                client.send_raw(line)
                replies.append(client.read_line() + b"\n")
                self.assertIn(b'"result"', replies[-1])
            requests_path = self.write("daemon.requests", requests)
            row = self.program("rtt", "--socket", daemon.path, "--requests", requests_path, "--warmup", 2, "--count", 20, "--pid", daemon.process.pid)
            self.assert_round_trips(row, 20, replies)
            # Two connections on one view: its requests are served in turn.
            load = self.program("load", "--socket", daemon.path, "--requests", requests_path, "--connections", 2,
                                "--window", 2, "--seconds", 0.2, "--per-connection", 2)
            self.assertEqual(load["errors"], 0)
            self.assertGreater(load["replies"], 0)
            missing = self.write("missing.requests", [b'{"id":1,"method":"view.scroll","params":{"view":"nope","offset":{"x":0,"y":0}}}\n'])
            self.assertEqual(self.program("rtt", "--socket", daemon.path, "--requests", missing, "--warmup", 0, "--count", 5)["errors"], 5)


@unittest.skipUnless(shutil.which("valgrind") and shutil.which("callgrind_control"), "no valgrind (apt package valgrind)")
class BenchCallgrindTests(unittest.TestCase):
    """The benchmark's callgrind pass (scripts/bench_callgrind.py) with the sigsuspend shim of
    bench/c, built with the Makefile's flags: a real daemon under callgrind, a few scrolls."""

    ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="layoutd-bench-callgrind-")
        cls.shim = os.path.join(cls.dir, "layoutd-bench-valgrind-sigsuspend.so")
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", os.path.join(cls.ROOT, "bench", "c", "valgrind-sigsuspend.c"),
                        "-o", cls.shim, "-ldl"], check=True, timeout=120)
        cls.rtt = os.path.join(cls.dir, "layoutd-bench-rtt")
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(cls.ROOT, "bench", "c", "rtt.c"), "-o", cls.rtt],
                       check=True, timeout=120)
        import sys
        sys.path.insert(0, os.path.join(cls.ROOT, "scripts"))
        import bench_callgrind
        cls.bench_callgrind = bench_callgrind

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def set_up(self, path):
        """A 300-item flow view and the two scrolls the benchmark alternates (so every one moves the window)."""
        poll_until(lambda: os.path.exists(path), timeout=60, what="the daemon under valgrind listening")
        with Client(path) as client:
            client.call("view.create", flow_view("v", 300))
            lines = [json.dumps({"id": 10 + n, "method": "view.scroll", "params": scroll("v", y)}, separators=(",", ":")).encode() + b"\n"
                     for n, y in enumerate((400, 0))]
        return self.write("scroll.requests", lines)

    def write(self, name, lines):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as handle:
            handle.write(b"".join(lines))
        return path

    def test_without_the_shim_valgrind_dies_in_libdispatchs_sigsuspend(self):
        # Why the shim exists: valgrind writes to the static const mask libdispatch passes.
        result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(self.dir, "unshimmed.out"), daemon_binary(),
                                 "--socket", os.path.join(self.dir, "unshimmed.sock")], capture_output=True, text=True, timeout=120)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("sigsuspend", result.stderr)

    def test_the_phases_of_real_scrolls_sum_to_the_total(self):
        figures = self.bench_callgrind.measure(daemon_binary(), self.shim, self.rtt, os.path.join(self.dir, "shimmed.sock"),
                                               ["--log-level", "warning", "--set", "io-threads=1"], self.set_up, counts=(10, 30), warmup=4)
        phases = figures["phases"]
        self.assertEqual(set(phases), set(self.bench_callgrind.PHASES))
        self.assertAlmostEqual(sum(phases.values()), figures["instructions_per_request"], delta=1e-6 * figures["instructions_per_request"])
        # Every phase of the request path is seen; the daemon's other threads are a sliver.
        for phase in ("transport", "parse", "route", "view operation", "encode"):
            self.assertGreater(phases[phase], 100, phase)
        self.assertLess(phases["other"], 0.05 * figures["instructions_per_request"])
        self.assertGreater(figures["allocations_per_request"], 0)
        self.assertAlmostEqual(sum(figures["allocations_by_phase"].values()), figures["allocations_per_request"], delta=1e-6)
        self.assertTrue(figures["top_outside_view_operation"])


def daemon_binary():
    from harness import DAEMON
    return DAEMON


if __name__ == "__main__":
    unittest.main()
