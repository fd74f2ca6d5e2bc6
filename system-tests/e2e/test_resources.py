"""Resources under hostile local clients (issue 16, reliability round 2): one regression test per
finding. CPU-heavy requests must not freeze other clients, accepting or the watchdog; running
out of fds must not crash the daemon; unsent output has a ceiling; every kind of growth is
checked against the item budget; a partial line has a total deadline; subscriptions per
connection are capped; the batch limit never promises more than a line can carry. A staged
upload of 1M UUID ids commits at default settings with a small reply and event, and the memory
it freed goes back to the system (issue 39)."""
import json
import os
import resource
import socket
import subprocess
import threading
import time
import unittest
import uuid

from harness import DAEMON, ROOT, Client, Daemon, NotifyListener, ProcessTestCase, flow_view, percentile, resident_bytes


def wide_line(id, objects=95, keys=1000):
    """A legal-looking request line of about 1 MiB whose parse is the work: `objects` objects of
    `keys` keys each (under the per-object cap), refused afterwards as an unknown field."""
    one = "{" + ",".join('"k%d":%d' % (n, n) for n in range(keys)) + "}"
    return ('{"id":%d,"method":"daemon.status","params":{"x":[%s]}}\n' % (id, ",".join([one] * objects))).encode()


def build_big_view(client, name, items, batch=50000):
    """A flow view of `items` 10x10 items, inserted in batches that fit in a default line."""
    assert "result" in client.call("view.create", {
        "view": name, "strategy": "flow", "params": {"itemSize": {"width": 10, "height": 10}},
        "viewport": {"width": 400, "height": 400}, "sections": [{"id": "s", "items": []}]})
    for start in range(0, items, batch):
        reply = client.call("view.update", {"view": name, "updates": [{
            "op": "insertItems", "section": "s", "at": start,
            "items": [{"id": "i%d" % n} for n in range(start, min(items, start + batch))]}]})
        assert "result" in reply, reply



def probe_while_busy(test, path, seconds, hello_every):
    """Scrolls the view "light" every 5 ms for `seconds` (a UI's frames) and opens a fresh
    connection for a daemon.hello every `hello_every` scrolls: the round trips' and the
    connections' latencies, in seconds."""
    latencies, hellos = [], []
    started = time.monotonic()
    with Client(path, timeout=30) as light:
        n = 0
        while time.monotonic() - started < seconds:
            n += 1
            time.sleep(0.005)
            before = time.monotonic()
            reply = light.call("view.scroll", {"view": "light", "offset": {"x": 0, "y": (n * 37) % 2000}})
            latencies.append(time.monotonic() - before)
            test.assertIn("result", reply)
            if n % hello_every == 0:
                before = time.monotonic()
                with Client(path, timeout=30) as fresh:
                    test.assertIn("result", fresh.call("daemon.hello"))
                hellos.append(time.monotonic() - before)
    return latencies, hellos

class Hog(threading.Thread):
    """Keeps the daemon busy until `stop`: pipelines CPU-heavy lines (or whole-view queries)
    and reads the replies, a few in flight at a time."""

    def __init__(self, path, stop, line_for, in_flight=2):
        super().__init__(daemon=True)
        self.path, self.stop, self.line_for, self.in_flight = path, stop, line_for, in_flight
        self.replies = 0
        self.failure = None

    def run(self):
        try:
            with Client(self.path, timeout=120) as client:
                sent = 0
                for _ in range(self.in_flight):
                    sent += 1
                    client.send_raw(self.line_for(sent))
                while not self.stop.is_set():
                    if client.read() is None:
                        raise EOFError("the daemon closed a hog's connection")
                    self.replies += 1
                    sent += 1
                    client.send_raw(self.line_for(sent))
        except Exception as error:  # reported by the test
            self.failure = error


class FairnessTests(ProcessTestCase):
    def test_cpu_heavy_requests_do_not_delay_other_views_accepting_or_the_watchdog(self):
        """Three connections pipeline ~1 MiB lines that are all parse work and one runs
        whole-view queries on a 100k-item view; meanwhile a light client on another view keeps
        its round trips under 150 ms at p99 (measured: about 20-30 ms) and 200 ms at most but
        twice, new connections are answered, and the watchdog pings keep coming every
        WATCHDOG_USEC / 2. Before the fix every
        request ran on Dispatch's global pool, one thread a core and never preempted: two such
        clients stopped everyone else and withheld the pings."""
        notify = NotifyListener(self.dir)
        self.addCleanup(notify.close)
        daemon = Daemon("--log-level", "notice", env={"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"})
        daemon.start()
        self.addCleanup(daemon.stop)
        with Client(daemon.path, timeout=120) as setup:
            build_big_view(setup, "big", 100000)
            self.assertIn("result", setup.call("view.create", flow_view("light", 200)))
        heavy_query = lambda id: (json.dumps({"id": id, "method": "view.query", "params": {
            "view": "big", "rect": {"x": 0, "y": 0, "width": 400, "height": 1e6}}}) + "\n").encode()
        lines = [wide_line(1)]
        stop = threading.Event()
        hogs = [Hog(daemon.path, stop, lambda id: lines[0], in_flight=3) for _ in range(3)]
        hogs.append(Hog(daemon.path, stop, heavy_query, in_flight=1))
        for hog in hogs:
            hog.start()
        self.addCleanup(stop.set)
        # Let the hogs get going: every one has had a reply, or a few seconds passed.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(hog.replies for hog in hogs):
            time.sleep(0.05)
        mark = len(notify.messages)
        started = time.monotonic()
        # Six seconds of round trips, paced like a scrolling UI (a frame every 5 ms).
        latencies, connects = probe_while_busy(self, daemon.path, seconds=6, hello_every=40)
        elapsed = time.monotonic() - started
        stop.set()
        with notify.lock:
            pings = [at for at, message in notify.messages[mark:] if "WATCHDOG=1" in message]
        gaps = [b - a for a, b in zip([started] + pings, pings + [started + elapsed])]
        for hog in hogs:
            self.assertIsNone(hog.failure)
            self.assertGreater(hog.replies, 0, "a hog got no reply: the load never ran (%r)" % [h.replies for h in hogs])
        p99, worst = percentile(latencies, 0.99), max(latencies)
        print("\n  light client under %d hogs (%d heavy replies): p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
              "connect+hello max %.1f ms; %d watchdog pings in %.1f s, largest gap %.2f s" % (
                  len(hogs), sum(hog.replies for hog in hogs), percentile(latencies, 0.5) * 1000, p99 * 1000,
                  worst * 1000, max(connects) * 1000, len(pings), elapsed, max(gaps)))
        # A stall is what this catches (before the fix: seconds). The p99 of twelve runs on this
        # two-core machine was 18-33 ms, once 86 ms with nothing else wrong: the scheduler's
        # noise, not a stall, so the bound sits well above that and far below a stall.
        self.assertLess(p99, 0.150)
        # On two shared cores running four hogs, the light client and this test, the scheduler
        # alone can hold one round trip past 200 ms once in a while (a CI run saw 244 ms beside
        # a p99 of 37 ms): two such rounds are allowed, none past 500 ms.
        slow = sorted(latency for latency in latencies if latency > 0.200)
        self.assertLessEqual(len(slow), 2, "round trips over 200 ms: %s" % ["%.0f ms" % (l * 1000) for l in slow])
        self.assertLess(worst, 0.500)
        self.assertLess(max(connects), 0.200)
        # Pings every 0.5 s: a gap of a whole WATCHDOG_USEC is what makes systemd kill.
        self.assertLess(max(gaps), 1.0, gaps)


def huge_object_line(id, keys=32768):
    """A line of about 0.9 MiB (under the default 1 MiB cap) holding one object with `keys`
    keys (far past the parser's cap of 1,024 per object, so it is refused, but the daemon still
    has to take in and frame the whole line)."""
    members = ",".join('"key-%020d":0' % n for n in range(keys))
    return ('{"id":%d,"method":"daemon.status","params":{"x":{%s}}}\n' % (id, members)).encode()


class HugeLineTests(ProcessTestCase):
    def test_huge_objects_on_three_connections_do_not_stall_small_requests(self):
        """Three connections pipeline ~1 MiB lines, each one object of 32k keys, while a light
        client keeps scrolling another view and a fresh client says hello now and then: no
        small request waits a second (issue 19: with such lines run on the thread that reads
        them, probes stalled up to 19 s). A stall check with a generous bound, not a
        performance figure; the worst latency is printed."""
        daemon = Daemon("--log-level", "notice")
        daemon.start()
        self.addCleanup(daemon.stop)
        with Client(daemon.path, timeout=30) as setup:
            self.assertIn("result", setup.call("view.create", flow_view("light", 200)))
        line = huge_object_line(1)
        self.assertGreater(len(line), 900000)
        self.assertLessEqual(len(line), 1 << 20)
        stop = threading.Event()
        self.addCleanup(stop.set)
        hogs = [Hog(daemon.path, stop, lambda id: line, in_flight=2) for _ in range(3)]
        for hog in hogs:
            hog.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(hog.replies for hog in hogs):
            time.sleep(0.05)
        latencies, hellos = probe_while_busy(self, daemon.path, seconds=5, hello_every=50)
        stop.set()
        for hog in hogs:
            self.assertIsNone(hog.failure)
            self.assertGreater(hog.replies, 0, "a hog got no reply: the load never ran")
        worst = max(latencies)
        print("\n  light client beside 3 connections of 32k-key lines (%d huge lines answered): p50 %.1f ms, "
              "p99 %.1f ms, max %.1f ms; connect+hello max %.1f ms" % (
                  sum(hog.replies for hog in hogs), percentile(latencies, 0.5) * 1000,
                  percentile(latencies, 0.99) * 1000, worst * 1000, max(hellos or [0]) * 1000))
        self.assertLess(worst, 1.0)
        self.assertTrue(hellos, "no hello in 5 s")
        self.assertLess(max(hellos), 1.0)


class WatchdogTests(ProcessTestCase):
    def test_a_busy_view_keeps_the_pings_a_stuck_one_stops_them(self):
        """What the watchdog proves: the main thread runs and every view answers a probe within
        watchdog-view-timeout. A plugin view that takes 0.6 s per layout (under the 1.5 s
        timeout) keeps the pings coming; one that takes 3.5 s stops them until it is done,
        and says which view in the log; meanwhile another view is served at once."""
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugins", "rows.c")
        header = os.path.join(ROOT, "Sources", "CLayoutPlugin", "include")
        plugins = os.path.join(self.dir, "plugins")
        os.mkdir(plugins, 0o755)
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I", header, '-DNAME="slow"',
                        "-DSLOW_WHEN_WIDE", source, "-o", os.path.join(plugins, "slow.so"), "-lm"], check=True)
        notify = NotifyListener(self.dir)
        self.addCleanup(notify.close)
        daemon = Daemon("--plugin-dir", plugins, "--set", "watchdog-view-timeout=1.5",
                        env={"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "600000"})
        daemon.start()
        self.addCleanup(daemon.stop)

        def pings_during(width):
            """Resizes the slow view to `width` (its layout then takes width - 1000 ms) while
            another client is served; the ping times from the resize to its reply, and the
            worst round trip of the other client meanwhile."""
            with Client(daemon.path, timeout=30) as slow, Client(daemon.path) as other:
                mark = len(notify.messages)
                started = time.monotonic()
                id = slow.send("view.resize", {"view": "s", "size": {"width": width, "height": 600}})
                worst = 0
                while not slow.pending(0.01):
                    before = time.monotonic()
                    self.assertIn("result", other.call("view.scroll", {"view": "light", "offset": {"x": 0, "y": 10}}))
                    worst = max(worst, time.monotonic() - before)
                self.assertIn("result", slow.read_until_reply(id))
                ended = time.monotonic()
                with notify.lock:
                    pings = [at for at, message in notify.messages[mark:] if "WATCHDOG=1" in message and at <= ended]
                gaps = [b - a for a, b in zip([started] + pings, pings + [ended])]
                return ended - started, max(gaps), worst

        with Client(daemon.path) as client:
            created = client.call("view.create", {"view": "s", "strategy": "slow", "params": {"rowHeight": 40, "spacing": 0},
                                                  "viewport": {"width": 400, "height": 600},
                                                  "sections": [{"id": "a", "items": [{"id": "i%d" % n} for n in range(20)]}]})
            self.assertIn("result", created)
            self.assertIn("result", client.call("view.create", flow_view("light", 50)))
        busy, busy_gap, busy_worst = pings_during(1600)
        stuck, stuck_gap, stuck_worst = pings_during(4500)
        print("\n  watchdog every 0.3 s: view busy %.1f s, largest ping gap %.2f s; view stuck %.1f s, largest gap %.2f s; "
              "other view's worst round trip %.0f / %.0f ms" % (busy, busy_gap, stuck, stuck_gap, busy_worst * 1000, stuck_worst * 1000))
        self.assertGreater(busy, 0.55)
        self.assertLess(busy_gap, 0.6)
        self.assertGreater(stuck, 3.4)
        # Pings stop once the probe has waited 1.5 s, and come back when the view answers.
        self.assertGreater(stuck_gap, 1.5)
        self.assertLess(stuck_gap, stuck)
        self.assertIn("view 's' has not answered for", daemon.read_log())
        self.assertLess(max(busy_worst, stuck_worst), 0.2)


def limit_fds(count):
    """preexec_fn: the daemon starts with `count` fds, soft and hard (as `ulimit -n`)."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


class FDExhaustionTests(ProcessTestCase):
    def test_a_connect_flood_under_256_fds_neither_crashes_nor_floods_the_log(self):
        """Under `ulimit -n 256`, 8 threads connect 1,200 times as fast as they can and hold
        what they get. Before the fix the daemon died with SIGILL in libdispatch (its
        workqueue monitor could not open /proc) or spun writing megabytes of log; refused
        connections held their fds for up to 2 s. Now connections stop 64 fds below the
        limit, the rest get `LimitExceeded` at once, the daemon serves afterwards and logs a
        bounded number of lines."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard < 4096:
            self.skipTest("the test itself needs 4096 fds")
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 4096), hard))
        self.addCleanup(resource.setrlimit, resource.RLIMIT_NOFILE, (soft, hard))
        daemon = Daemon("--log-level", "info")
        log = open(daemon.log_path, "ab")
        env = dict(os.environ)
        env.pop("LAYOUTD_SOCKET", None)
        process = subprocess.Popen(
            [DAEMON, "--socket", daemon.path, "--log-level", "info", "--set", "default-plugin-dir=none"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, preexec_fn=limit_fds(256))
        self.processes.append(process)
        daemon.process = process
        daemon.log = log
        daemon.wait_until_serving()
        held, outcomes, lock = [], {"served": 0, "refused": 0, "other": 0}, threading.Lock()

        def flood():
            for _ in range(150):
                # The listen backlog may be full for an instant (EAGAIN at connect): that is
                # the kernel's answer, not the daemon's, so the client tries again.
                for attempt in range(50):
                    try:
                        client = Client(daemon.path, timeout=10)
                        break
                    except (BlockingIOError, socket.timeout):
                        time.sleep(0.01)
                else:
                    with lock:
                        outcomes["other"] += 1
                    continue
                try:
                    try:
                        client.send("daemon.hello")
                    except BrokenPipeError:
                        pass  # refused and closed already (past the lingering cap): its line is still there
                    reply = client.read()
                except OSError:
                    with lock:
                        outcomes["other"] += 1
                    client.close()
                    continue
                with lock:
                    if reply and "result" in reply:
                        outcomes["served"] += 1
                        held.append(client)
                    elif reply and reply.get("error", {}).get("name") == "LimitExceeded":
                        outcomes["refused"] += 1
                        client.close()
                    else:
                        outcomes["other"] += 1
                        client.close()

        threads = [threading.Thread(target=flood) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertIsNone(process.poll(), daemon.read_log()[-2000:])
        status = held[0].call("daemon.status")["result"]["connections"]
        for client in held:
            client.close()
        print("\n  1,200 connects under 256 fds: %(served)d served, %(refused)d refused, %(other)d other" % outcomes)
        # 256 fds less the 64-fd margin.
        self.assertEqual(status["maximum"], 192)
        self.assertEqual(outcomes["served"], 192)
        self.assertEqual(outcomes["refused"], 1200 - 192)
        self.assertEqual(outcomes["other"], 0)
        # Serves afterwards, once the held connections are gone. Their closes reach the daemon
        # a moment after ours, so a connection may still be refused while they drain.
        deadline = time.monotonic() + 10
        while True:
            with Client(daemon.path) as client:
                client.send("daemon.status")
                reply = client.read()
                if reply.get("error", {}).get("name") != "LimitExceeded" and reply["result"]["connections"]["open"] == 1:
                    break
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        lines = daemon.read_log().splitlines()
        refusals = [line for line in lines if "refused a connection" in line]
        print("  log: %d lines, %d of them refusals" % (len(lines), len(refusals)))
        self.assertLessEqual(len(refusals), 40, refusals[-5:])
        self.assertLessEqual(len(lines), 80, lines[-10:])
        self.assertIn("max-connections (1024) is lowered to that", daemon.read_log())
        daemon.stop()


def query(view, id=None, height=1e6):
    return (json.dumps({"id": id, "method": "view.query", "params": {
        "view": view, "rect": {"x": 0, "y": 0, "width": 400, "height": height}}}) + "\n").encode()


class OutputCeilingTests(ProcessTestCase):
    def test_queued_requests_wait_while_output_is_unread(self):
        """40 pipelined whole-view queries (about 750 KB of reply each) from a client that
        reads nothing: before the fix every reply was computed and queued (950 MiB on a 100k
        view in the report); now requests wait while unsent output is over output-cap, so the
        daemon grows by about one reply. Read afterwards, every reply arrives, in order."""
        with Daemon("--set", "output-cap=262144", "--set", "write-stall-timeout=60") as daemon:
            with Client(daemon.path, timeout=120) as client:
                build_big_view(client, "v", 5000)
                base = resident_bytes(daemon.process.pid)
                client.send_raw(b"".join(query("v", id) for id in range(100, 140)))
                # Wait until the daemon stopped: its resident size holds still for a second.
                previous, still = -1, time.monotonic()
                while time.monotonic() - still < 1.0:
                    now = resident_bytes(daemon.process.pid)
                    if now != previous:
                        previous, still = now, time.monotonic()
                    time.sleep(0.05)
                grown = previous - base
                replies = [client.read() for _ in range(40)]
                print("\n  40 unread whole-view queries of 5,000 elements: the daemon grew by %.1f MB" % (grown / 1e6))
                self.assertEqual([reply["id"] for reply in replies], list(range(100, 140)))
                self.assertTrue(all(len(reply["result"]["elements"]) == 5000 for reply in replies))
                # One reply is about 0.75 MB; all 40 would be 30 MB.
                self.assertLess(grown, 12e6)

    def test_a_connection_past_output_limit_gets_OutputOverflow_and_closes(self):
        """A reply that would take unsent output past output-limit: the lines before it arrive
        whole, then `OutputOverflow` (id null), then end of stream; other clients are served."""
        with Daemon("--set", "output-cap=65536", "--set", "output-limit=1048576") as daemon:
            with Client(daemon.path, timeout=60) as client:
                build_big_view(client, "v", 20000)
                client.send_raw(b"".join([
                    b'{"id":1,"method":"daemon.hello"}\n', query("v", 2), b'{"id":3,"method":"daemon.hello"}\n']))
                first = client.read()
                self.assertEqual(first["id"], 1)
                overflow = client.read()
                self.assertEqual(overflow["id"], None)
                self.assertEqual(overflow["error"]["name"], "OutputOverflow")
                self.assertEqual(overflow["error"]["code"], -32022)
                self.assertEqual(overflow["error"]["data"], {"limit": 1048576})
                self.assertIsNone(client.read())
            with Client(daemon.path) as other:
                self.assertEqual(other.call("daemon.status")["result"]["connections"]["dropped"], 1)
                self.assertIn("result", other.call("view.query", {"view": "v", "rect": {"x": 0, "y": 0, "width": 400, "height": 100}}))


class SmallBoundsTests(ProcessTestCase):
    def test_a_line_trickling_in_is_closed_at_its_deadline(self):
        """One byte every 0.2 s keeps the no-progress timeout (1 s) happy forever; the total
        deadline for one line (2 s) closes it with `IdleTimeout`."""
        with Daemon("--set", "partial-line-timeout=1", "--set", "partial-line-deadline=2") as daemon:
            with Client(daemon.path, timeout=10) as client:
                started = time.monotonic()
                text = b'{"id":1,"method":"daemon.hello","params":{"protocol":[' + b"1," * 200
                closed = None
                for byte in text:
                    try:
                        client.send_raw(bytes([byte]))
                    except OSError:
                        break
                    if client.pending(0.2):
                        closed = client.read()
                        break
                    self.assertLess(time.monotonic() - started, 8, "the line was never cut off")
                elapsed = time.monotonic() - started
                self.assertIsNotNone(closed)
                self.assertEqual(closed["error"]["name"], "IdleTimeout")
                self.assertEqual(closed["error"]["data"], {"timeout": 2, "limit": "partial-line-deadline"})
                self.assertIsNone(client.read())
                self.assertGreater(elapsed, 1.9)
                self.assertLess(elapsed, 4)

    def test_subscriptions_per_connection_are_capped(self):
        """40k subscriptions on one connection made every mutation of the view cost 60 ms; a
        connection may hold max-subscriptions, and an unsubscribe makes room again."""
        with Daemon("--set", "max-subscriptions=3") as daemon:
            with Client(daemon.path) as client, Client(daemon.path) as other:
                self.assertIn("result", client.call("view.create", flow_view("v", 10)))
                ids = [client.call("view.subscribe", {"view": "v"})["result"]["subscription"] for _ in range(3)]
                refused = client.call("view.subscribe", {"view": "v"})["error"]
                self.assertEqual((refused["name"], refused["data"]), ("LimitExceeded", {"limit": "subscriptions", "maximum": 3}))
                # Per connection: another one has its own three.
                self.assertIn("result", other.call("view.subscribe", {"view": "v"}))
                self.assertIn("result", client.call("view.unsubscribe", {"subscription": ids[0]}))
                self.assertIn("result", client.call("view.subscribe", {"view": "v"}))
                self.assertIn("error", client.call("view.subscribe", {"view": "v"}))
                # A deleted view gives its subscriptions back.
                self.assertIn("result", client.call("view.delete", {"view": "v"}))
                self.assertIn("result", client.call("view.create", flow_view("w", 10)))
                for _ in range(3):
                    self.assertIn("result", client.call("view.subscribe", {"view": "w"}))

    def test_the_batch_limit_fits_in_a_line(self):
        """100k inserts could not fit in a 1 MiB line, so the old max-batch promised what no
        client could send. The limit in effect is at most max-line-length / 16 (the smallest
        entry), and the default batch fits in the default line."""
        with Daemon() as daemon, Client(daemon.path, timeout=60) as client:
            limits = client.call("daemon.hello")["result"]["limits"]
            self.assertEqual(limits["maximumBatchSize"], 50000)
            self.assertLessEqual(limits["maximumBatchSize"] * 16, limits["maximumLineLength"])
            self.assertIn("result", client.call("view.create", flow_view("v", 0)))
            def insert(count, prefix):
                return {"view": "v", "updates": [{"op": "insertItems", "section": "s", "at": 0,
                                                  "items": [{"id": "%s%d" % (prefix, n)} for n in range(count)]}]}
            line = json.dumps({"id": 9, "method": "view.update", "params": insert(50000, "i")}, separators=(",", ":"))
            self.assertLess(len(line), limits["maximumLineLength"])
            self.assertIn("result", client.call("view.update", insert(50000, "i")))
            self.assertEqual(client.call("view.update", insert(50001, "j"))["error"]["data"]["limit"], "batch size")
        with Daemon("--set", "max-line-length=4096") as daemon, Client(daemon.path) as client:
            self.assertEqual(client.call("daemon.hello")["result"]["limits"]["maximumBatchSize"], 256)


class StagedUploadTests(ProcessTestCase):
    # 1M as in issue 39; LAYOUTD_E2E_UPLOAD_ITEMS lowers it (the bound on the reply holds for
    # any size past one line of ids, the memory figure for any size past the trim threshold).
    ITEMS = int(os.environ.get("LAYOUTD_E2E_UPLOAD_ITEMS", "1000000"))

    def test_a_million_uuid_items_commit_in_a_small_reply_and_their_freed_memory_goes_back(self):
        """The commit once listed every id twice (78 MB, past the 64 MiB output-limit): the client
        and every subscriber got OutputOverflow. Now the ids are counted, the view holds them
        all, and what the commit freed (the upload's parts) is trimmed, as is a deleted view."""
        n = self.ITEMS
        with Daemon() as daemon, Client(daemon.path, timeout=300) as client, Client(daemon.path, timeout=300) as watcher:
            limits = client.call("daemon.hello")["result"]["limits"]
            self.assertIn("result", client.call("view.create", flow_view("v", 0, item=(100, 40))))
            subscription = watcher.call("view.subscribe", {"view": "v"})["result"]["subscription"]
            pid = daemon.process.pid
            base = resident_bytes(pid)
            upload = client.call("view.stage.begin", {"view": "v"})["result"]["upload"]
            ids = [str(uuid.UUID(int=k + 1)) for k in range(n)]
            # Parts as large as the line and the batch allow: {"id":"<36>"}, is 46 bytes.
            per = min(limits["maximumBatchSize"] - 1, (limits["maximumLineLength"] - 200) // 46)
            for start in range(0, n, per):
                items = ",".join('{"id":"%s"}' % i for i in ids[start:start + per])
                line = ('{"id":%d,"method":"view.stage.append","params":{"upload":"%s","sections":[{"id":"s","items":[%s]}]}}\n'
                        % (client.next_id, upload, items)).encode()
                self.assertLessEqual(len(line), limits["maximumLineLength"])
                client.send_raw(line)
                client.next_id += 1
                reply = client.read_until_reply(client.next_id - 1)
                self.assertEqual(reply["result"]["items"], min(n, start + per), reply)
            staged = resident_bytes(pid)

            commit = client.send("view.stage.commit", {"upload": upload})
            line = client.read_line()
            self.assertLess(len(line), 64 << 10, line[:300])
            result = json.loads(line)["result"]
            self.assertEqual(json.loads(line)["id"], commit)
            self.assertEqual(result["omittedIDs"]["insertedItems"], n)
            self.assertEqual(result["omittedIDs"]["invalidated"], n)
            self.assertEqual(result["changes"]["insertedItems"], [])
            self.assertEqual([e["id"] for e in result["entered"]][:2], ids[:2], "the window delta is whole")
            event_line = watcher.read_line()
            event = json.loads(event_line)
            self.assertEqual((event["event"], event["subscription"]), ("view.invalidated", subscription))
            self.assertEqual(json.dumps(event["params"], separators=(",", ":")), json.dumps(result, separators=(",", ":")))
            self.assertIn("result", watcher.call("daemon.sync"), "the subscriber is still connected")

            snapshot = client.call("view.get", {"view": "v"})["result"]
            self.assertEqual(snapshot["itemCount"], n)
            end = snapshot["contentSize"]["height"]
            tail = client.call("view.query", {"view": "v", "rect": {"x": 0, "y": end - 40, "width": 375, "height": 40}})["result"]
            self.assertIn(ids[-1], [e["id"] for e in tail["elements"]])

            # The upload's parts (staged: several times the view's data) are freed by the
            # commit and trimmed; left resident they were 170 B/item (a debug build's view of
            # 1M UUID items holds about 75).
            def per_item():
                return (resident_bytes(pid) - base) / n
            deadline = time.monotonic() + 10
            while per_item() > 120 and time.monotonic() < deadline:
                time.sleep(0.05)
            kept = per_item()
            self.assertLess(kept, 120, "resident %.0f B/item after the commit (%.0f staged)" % (kept, (staged - base) / n))

            # A deleted view's memory goes back too, all but what glibc may keep at an arena's
            # top (FreedMemory.allocatorThreshold, 4 MiB). With glibc's own thresholds, raised as
            # the load's large blocks were freed, 9-17 MB of it stayed.
            self.assertIn("result", client.call("view.delete", {"view": "v"}))
            limit = 4 << 20
            deadline = time.monotonic() + 10
            while resident_bytes(pid) - base > limit and time.monotonic() < deadline:
                time.sleep(0.05)
            left = resident_bytes(pid) - base
            self.assertLess(left, limit, "%.1f MiB left after view.delete (%.0f B/item after the commit)" % (left / (1 << 20), kept))


if __name__ == "__main__":
    unittest.main()
