#!/usr/bin/env python3
"""`make bench`: runs every benchmark in one go and writes BENCHMARKS.md.

- layout-bench (release): the engine per strategy at 1k/10k/100k/1M, view operations, the
  textbook stacking grid, our JSON coders against Foundation's, and Taffy's flow workload in
  our engine; `layout-bench --memory` in a fresh process for the model's resident bytes per item;
- a fresh release layoutd per memory row, loaded through its socket (staged uploads, one
  view.create), its resident memory read from /proc as it settles, nothing trimmed by hand;
- the C programs of bench/c (.build/bench-c, `make bench-c`) against a release layoutd on a
  temporary socket and against the C echo floor answering with the daemon's own captured reply
  bytes: view.scroll round trips on 100k-item flow and ultravisual views, the daemon's CPU,
  context switches (/proc) and syscalls (strace) per request beside the echo's, and throughput
  with 1, 8 and 64 pipelining connections; the round trips under two placements, each compared
  with itself only (all on one CPU, and the scheduler's);
- a release layoutd under callgrind (scripts/bench_callgrind.py): user-space instructions and
  allocations per view.scroll, by phase of the request path;
- scripts/bench_taffy.py in a virtualenv (.bench-venv, PyPI's stretchable): Taffy on the
  same flow workload.

Every figure is measured in this one run; the document reads ratios, not absolute times.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import bench_callgrind

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
RELEASE = os.path.join(ROOT, ".build", "release")
VENV = os.path.join(ROOT, ".bench-venv")


def log(message):
    print(message, file=sys.stderr, flush=True)


def json_lines(text):
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def run_layout_bench(arguments):
    path = tempfile.mktemp(suffix=".jsonl")
    subprocess.run([os.path.join(RELEASE, "layout-bench"), "--json", path] + arguments, check=True, stdout=sys.stderr)
    with open(path) as handle:
        return json_lines(handle.read())


def run_memory(quick):
    """The memory and load rows: the model built by the engine (`layout-bench --memory`, a fresh
    process each), then a release layoutd loaded through its socket (a fresh daemon each)."""
    n = 100000 if quick else 1000000
    rows = []
    for configuration in (["--memory", str(n)], ["--memory", str(n), "--ids", "uuid"]):
        memory = subprocess.run([os.path.join(RELEASE, "layout-bench")] + configuration, check=True, capture_output=True, text=True)
        rows += json_lines(memory.stdout)
    for ids, count, load, views in memory_configurations(quick):
        log("layoutd memory: %d items, %s ids, %s, %d view(s)" % (count, ids, load, views))
        rows += daemon_memory(ids, count, load, views)
    return rows


def memory_configurations(quick):
    """(ids, items, load, views), each against a fresh daemon: staged uploads (how clients load
    data too large for one line) of short ids at 100k and 1M and of UUIDs at 1M (issue 39's
    case), one view.create each (the line cap raised to carry it), and the daemon-wide maximum
    of 5M items over 5 views."""
    n = 100000 if quick else 1000000
    total = 500000 if quick else 5000000
    staged = [("short", 100000, "staged", 1)] + ([] if quick else [("short", n, "staged", 1)])
    return staged + [("uuid", n, "staged", 1), ("short", n, "create", 1), ("uuid", n, "create", 1), ("short", total, "staged", 5)]


# How long the daemon's resident memory must stay unchanged to count as settled, and the most
# a reading waits: the daemon gives freed memory back on a queue of its own after a large
# request, so the figure at the reply is not yet the one that stays.
SETTLE_QUIET, SETTLE_LIMIT = 0.5, 5.0


def resident_bytes(pid, field="VmRSS"):
    """The resident memory of process `pid` (VmRSS of /proc/PID/status, or another field such
    as VmHWM, the peak), in bytes."""
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("/proc/%d/status has no %s" % (pid, field))


def settled_resident_bytes(pid):
    """Resident bytes once they stop changing: polled every 50 ms until unchanged for
    SETTLE_QUIET, at most SETTLE_LIMIT. Returns (bytes, settled)."""
    started = last_change = time.monotonic()
    value = resident_bytes(pid)
    while True:
        time.sleep(0.05)
        now, current = time.monotonic(), resident_bytes(pid)
        if current != value:
            value, last_change = current, now
        elif now - last_change >= SETTLE_QUIET:
            return value, True
        if now - started >= SETTLE_LIMIT:
            return value, False


# UUID-like ids by index, made once: Python takes about 8 s for 1M, and two rows use them.
UUID_IDS = {}


def uuid_like_id(index):
    """layout-bench's uuidLikeID: a 36-character id shaped like a UUID, the same bytes for the
    same index, so the daemon's rows and the engine's carry the same ids."""
    mask = (1 << 64) - 1
    state = (index * 0x9E3779B97F4A7C15) & mask
    digits = []
    for _ in range(32):
        state = (state * 6364136223846793005 + 1442695040888963407) & mask
        digits.append("0123456789abcdef"[state >> 60])
    text = "".join(digits)
    return "%s-%s-%s-%s-%s" % (text[:8], text[8:12], text[12:16], text[16:20], text[20:])


def item_lines(ids, first, count):
    """Items `first..<first+count` as the wire carries them, one bytes object each: layout-bench's
    ids (`item-N` or UUID-like) and sizes (benchSize of the index within the view)."""
    if ids == "uuid":
        for index in range(first, first + count):
            if index not in UUID_IDS:
                UUID_IDS[index] = uuid_like_id(index)
        name = UUID_IDS.__getitem__
    else:
        name = "item-%d".__mod__
    return [('{"id":"%s","size":{"width":%d,"height":%d}}' % (name(first + index), 40 + (index * 37) % 121, 30 + (index * 53) % 91)).encode()
            for index in range(count)]


def staged_parts(items, line_limit, batch_limit):
    """The items cut into view.stage.append parts as `layoutctl load` cuts them: each line under
    the daemon's line limit (256 bytes kept for the envelope) and naming at most `batch_limit`
    items and sections."""
    parts, part, size = [], [], 256
    for item in items:
        if part and (size + len(item) + 1 >= line_limit or len(part) + 2 > batch_limit):
            parts.append(b",".join(part))
            part, size = [], 256
        part.append(item)
        size += len(item) + 1
    if part:
        parts.append(b",".join(part))
    return parts


def daemon_memory(ids, count, load, views):
    """Loads `count` items over `views` flow views into a fresh release layoutd through its
    socket and reads the daemon's resident memory (settled) against its own before the load,
    with nothing trimmed by hand: what the daemon keeps is what it gives back itself.

    `staged`: view.create with no items, then view.stage.begin, .append in parts under the
    daemon's default line and batch limits, .commit, per view; read once the parts are staged
    (one view only), after the commits, and after view.delete. `create`: one view.create line
    with every item, the daemon started with a line cap that carries it."""
    directory = tempfile.mkdtemp(prefix="layoutd-memory-")
    socket_path = os.path.join(directory, "memory.sock")
    per_view = count // views
    # One view's items are made before the daemon starts, so the load's time is the daemon's;
    # five views' are made one view at a time (their row is not timed).
    prebuilt = {0: item_lines(ids, 0, per_view)} if views == 1 else {}
    line_cap = []
    if load == "create":
        line_cap = ["--set", "max-line-length=%d" % (1 << 27)]
    daemon = subprocess.Popen([os.path.join(RELEASE, "layoutd"), "--socket", socket_path, "--log-level", "warning"] + line_cap,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows, unsettled = [], []

    def settled(label):
        value, done = settled_resident_bytes(daemon.pid)
        if not done:
            unsettled.append(label)
        return value

    def row(name, unit, value):
        rows.append({"name": name, "group": "memory" if unit != "s" else "load", "strategy": "flow", "n": count, "unit": unit,
                     "median": value, "low": value, "high": value})

    try:
        client = LineClient.when_listening(socket_path)
        limits = json.loads(client.call("daemon.hello", {"protocol": [1]}))["result"]["limits"]
        before = settled("before")
        viewport = b'"viewport":{"width":390,"height":844}'
        parts_sent, timed, staged = 0, 0.0, None
        for view in range(views):
            items = prebuilt.pop(view, None) or item_lines(ids, view * per_view, per_view)
            if load == "create":
                # The line is built before the clock starts: the client's work is not the load's.
                line = b'{"id":1,"method":"view.create","params":{"view":"v%d","strategy":"flow",%s,"sections":[{"id":"main","items":[%s]}]}}\n' % (
                    view, viewport, b",".join(items))
                del items
                started = time.monotonic()
                client.raw(line)
                timed += time.monotonic() - started
                del line
                continue
            parts = staged_parts(items, limits["maximumLineLength"], limits["maximumBatchSize"])
            del items
            started = time.monotonic()
            client.raw(b'{"id":1,"method":"view.create","params":{"view":"v%d","strategy":"flow",%s}}\n' % (view, viewport))
            upload = json.loads(client.call("view.stage.begin", {"view": "v%d" % view}, id=2))["result"]["upload"]
            for part in parts:
                client.raw(b'{"id":3,"method":"view.stage.append","params":{"upload":%s,"sections":[{"id":"main","items":[%s]}]}}\n'
                           % (json.dumps(upload).encode(), part))
            parts_sent += len(parts)
            del parts
            if views == 1:
                timed += time.monotonic() - started
                staged = settled("staged")
                started = time.monotonic()
            client.call("view.stage.commit", {"upload": upload}, id=4)
            timed += time.monotonic() - started
        after = settled("after the load")
        how = "one view.create" if load == "create" else "staged upload"
        if views > 1:
            row("layoutd resident MiB of %d items over %d views (%s ids, staged uploads)" % (count, views, ids), "MiB", (after - before) / (1 << 20))
        else:
            if staged is not None:
                row("layoutd resident bytes per item (%s ids, staged upload, before the commit)" % ids, "B/item", (staged - before) / count)
                row("layoutd resident bytes per item (%s ids, staged upload, committed)" % ids, "B/item", (after - before) / count)
            else:
                row("layoutd resident bytes per item (%s ids, one view.create)" % ids, "B/item", (after - before) / count)
                # The peak while loading against what the daemon holds once settled: the
                # transient copies a load makes (the line, decoded items, the model being built).
                peak = resident_bytes(daemon.pid, "VmHWM")
                row("layoutd peak resident MiB while loading (%s ids, one view.create)" % ids, "MiB", peak / (1 << 20))
                row("layoutd resident MiB once settled after the load (%s ids, one view.create)" % ids, "MiB", after / (1 << 20))
            row("load %d items (%s ids) into layoutd through its socket: %s" % (count, ids, how), "s", timed)
            rows[-1]["parts"] = parts_sent
            client.call("view.delete", {"view": "v0"}, id=5)
            row("layoutd resident bytes per item left after view.delete (%s ids, %s)" % (ids, how), "B/item", (settled("after view.delete") - before) / count)
        client.close()
        if unsettled:
            for entry in rows:
                entry["unsettled"] = "resident memory still changing after %g s: %s" % (SETTLE_LIMIT, ", ".join(unsettled))
        return rows
    finally:
        stop(daemon)
        shutil.rmtree(directory, ignore_errors=True)


# The view operations of the scaling table, and those the 1M target covers (a jump replaces the
# whole window, so it costs the window, not the change).
OPERATIONS = ("scroll tick", "jump scroll", "selection toggle", "one measured size inside the window", "one measured size above the window",
              "10-item batch above the window (anchored)", "insert at front", "delete one item")
TARGET_OPERATIONS = tuple(operation for operation in OPERATIONS if operation != "jump scroll")


BENCH_C = os.path.join(ROOT, ".build", "bench-c")
# The two offsets a round trip alternates between, so every scroll moves the window (rows enter
# and leave) and the daemon does a scroll's real work; mid-list, away from both ends.
SCROLL_FROM, SCROLL_TO = 8000, 8160


class LineClient:
    """A blocking line-delimited JSON client for setting views up (not for timing)."""

    @classmethod
    def when_listening(cls, path, timeout=10):
        """A connection to a daemon just started, once its socket exists (polled)."""
        deadline = time.monotonic() + timeout
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        return cls(path)

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.reader = self.socket.makefile("rb")

    def raw(self, line):
        """Sends one request line (bytes with its newline) and returns the reply line's bytes."""
        self.socket.sendall(line)
        reply = self.reader.readline()
        if not reply.endswith(b"\n") or b'"result"' not in reply[:40]:
            raise RuntimeError("layoutd refused %s: %s" % (line[:120], reply[:300]))
        return reply

    def call(self, method, params, id=1):
        return self.raw(request_line(method, params, id))

    def close(self):
        self.reader.close()
        self.socket.close()


def request_line(method, params, id):
    return (json.dumps({"id": id, "method": method, "params": params}, separators=(",", ":")) + "\n").encode()


def scroll_line(view, y, id):
    return request_line("view.scroll", {"view": view, "offset": {"x": 0, "y": y}}, id)


def create_view(client, view, strategy, items):
    """`items` variable-size items (so a flow is not the uniform fast path), in batches under the
    line cap; the same model layoutd-roundtrip used."""
    client.call("view.create", {"view": view, "strategy": strategy,
                                "params": {"itemSize": {"width": 90, "height": 90}} if strategy == "flow" else {},
                                "viewport": {"width": 390, "height": 844}, "sections": [{"id": "s", "items": []}]})
    for first in range(0, items, 20000):
        batch = [{"id": "i%d" % index, "size": {"width": 60 + index % 70, "height": 60 + index % 50}}
                 for index in range(first, min(items, first + 20000))]
        client.call("view.update", {"view": view, "updates": [{"op": "insertItems", "section": "s", "at": first, "items": batch}]}, id=2)


def capture(client, view):
    """The two scroll requests a benchmark alternates and the daemon's own replies to them: the
    view is left at SCROLL_FROM, so the next request (to SCROLL_TO) gets the first reply again."""
    there, back = scroll_line(view, SCROLL_TO, 10), scroll_line(view, SCROLL_FROM, 11)
    client.raw(back)
    replies = [client.raw(there), client.raw(back)]
    return [there, back], replies


def write_lines(directory, name, lines):
    path = os.path.join(directory, name)
    with open(path, "wb") as handle:
        handle.write(b"".join(lines))
    return path


def pinned(cpu):
    """A command prefix that keeps a process on one CPU (util-linux taskset), or none."""
    return [] if cpu is None else ["taskset", "-c", str(cpu)]


def c_program(name, arguments, cpu=None):
    result = subprocess.run(pinned(cpu) + [os.path.join(BENCH_C, name)] + arguments, check=True, capture_output=True, text=True)
    rows = json_lines(result.stdout)
    log("%s %s" % (name, result.stdout.strip()))
    if not rows:
        raise RuntimeError("%s printed no JSON line: %s" % (name, result.stderr))
    return rows[-1]


def start_echo(directory, name, replies_path, cpu=None):
    path = os.path.join(directory, name + ".sock")
    echo = subprocess.Popen(pinned(cpu) + [os.path.join(BENCH_C, "layoutd-bench-echo"), "--socket", path, "--replies", replies_path],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if echo.stdout.readline().strip() != "ready":
        raise RuntimeError("layoutd-bench-echo did not start")
    return echo, path


def stop(process):
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def count_syscalls(pid, socket_path, requests_path, count):
    """Syscalls per request of process `pid` (every thread) over `count` round trips, from a
    separate pass under `strace -f -c -p` (ptrace slows the pass; its figures are not timed)."""
    output = tempfile.mktemp(suffix=".strace")
    tracer = subprocess.Popen(["strace", "-f", "-c", "-o", output, "-p", str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    attached = tracer.stderr.readline()
    if "attached" not in attached:
        tracer.wait(10)
        raise RuntimeError("strace could not attach: %s" % attached.strip())
    try:
        c_program("layoutd-bench-rtt", ["--socket", socket_path, "--requests", requests_path, "--warmup", "0", "--count", str(count)])
    finally:
        tracer.send_signal(signal.SIGINT)
        tracer.communicate(timeout=30)
    calls = {}
    with open(output) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                calls[fields[-1]] = int(fields[3])
    os.unlink(output)
    total = sum(calls.values())
    top = sorted(calls.items(), key=lambda item: -item[1])[:4]
    return {"syscalls_per_request": total / count, "syscall_pass": count,
            "top_syscalls": ", ".join("%s %.2f" % (name, value / count) for name, value in top)}


def start_daemon(socket_path, cpu=None, arguments=()):
    """A release layoutd on `socket_path`; with `cpu`, confined to that CPU (taskset) and given one
    I/O thread (see PINNED_DAEMON)."""
    extra = list(arguments) + (PINNED_DAEMON if cpu is not None else [])
    return subprocess.Popen(pinned(cpu) + [os.path.join(RELEASE, "layoutd"), "--socket", socket_path, "--log-level", "warning"] + extra,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# The pinned daemon runs one I/O thread: `io-threads` 0 sizes the set from the online CPUs
# (sysconf), which an affinity mask does not reduce, so a daemon confined to CPU 0 would still
# start two. The round trip is served by one thread either way (a connection stays on the I/O
# thread it was given), so the setting changes no work a request does; it is what a deployment
# confined to one CPU should run, and it keeps an idle second reactor off the measured CPU.
PINNED_DAEMON = ["--set", "io-threads=1"]
# The CPU every process of a pinned row runs on: daemon, echo and the round-trip client.
PINNED_CPU = 0


def run_ipc(quick, notes):
    """view.scroll against a release layoutd and against the C echo floor answering with the
    daemon's own reply bytes, under two placements, each compared only with itself: pinned (the
    daemon, the echo and the client all on one CPU, `taskset -c 0`) and default (the scheduler's
    placement); /proc and strace costs per request, throughput."""
    directory = tempfile.mkdtemp(prefix="layoutd-bench-")
    socket_path = os.path.join(directory, "ipc.sock")
    daemon = start_daemon(socket_path)
    pinned_path = os.path.join(directory, "ipc-pinned.sock")
    can_pin = bool(shutil.which("taskset")) and (os.cpu_count() or 1) > 1
    pinned_daemon = start_daemon(pinned_path, cpu=PINNED_CPU) if can_pin else None
    if not can_pin:
        notes["pinned"] = "pinned rows not measured: no taskset on PATH or a single CPU"
    count = 4000 if quick else 20000
    strace_count = 1000 if quick else 4000
    seconds = "1" if quick else "3"
    strace = shutil.which("strace")
    if not strace:
        notes["strace"] = "syscalls per request not measured: no strace on PATH (apt package strace)"
    rows = []
    try:
        client = LineClient.when_listening(socket_path)
        pinned_client = LineClient.when_listening(pinned_path) if pinned_daemon else None

        def measure(placement, strategy, target, pid, path, requests_path, timed):
            cpu = PINNED_CPU if placement == "pinned" else None
            row = c_program("layoutd-bench-rtt", ["--socket", path, "--requests", requests_path, "--warmup", "500",
                                                  "--count", str(timed), "--pid", str(pid)], cpu=cpu)
            # Syscalls are counted once per process, at the default placement (ptrace's own
            # wake-ups would dominate a pinned pass, and the calls a request makes do not depend
            # on where it runs).
            if strace and "strace" not in notes and placement == "default":
                try:
                    row.update(count_syscalls(pid, path, requests_path, strace_count))
                except (RuntimeError, OSError, subprocess.SubprocessError) as error:
                    notes["strace"] = "syscalls per request not measured: %s" % error
            row.update({"group": "ipc", "kind": "rtt", "placement": placement, "strategy": strategy, "target": target})
            rows.append(row)

        for strategy in ("flow", "ultravisual"):
            view = "floor-%s" % strategy
            create_view(client, view, strategy, 100000)
            requests, replies = capture(client, view)
            requests_path = write_lines(directory, view + ".requests", requests)
            replies_path = write_lines(directory, view + ".replies", replies)
            placements = [("default", None, daemon, socket_path)]
            if pinned_daemon:
                create_view(pinned_client, view, strategy, 100000)
                pinned_requests, pinned_replies = capture(pinned_client, view)
                if pinned_requests != requests or pinned_replies != replies:
                    raise RuntimeError("the pinned daemon answered the same scrolls with other bytes")
                placements.append(("pinned", PINNED_CPU, pinned_daemon, pinned_path))
            for placement, cpu, process, path in placements:
                echo, echo_path = start_echo(directory, "%s-%s" % (view, placement), replies_path, cpu=cpu)
                try:
                    # The echo runs 5× the requests: at a few µs of CPU each, 20k would be a
                    # handful of 10 ms clock ticks.
                    measure(placement, strategy, "echo", echo.pid, echo_path, requests_path, 5 * count)
                finally:
                    stop(echo)
                measure(placement, strategy, "layoutd", process.pid, path, requests_path, count)
            client.call("view.delete", {"view": view}, id=3)
            if pinned_client:
                pinned_client.call("view.delete", {"view": view}, id=3)

        # Throughput: a flow view of 10k items per connection (a view is serial by design), each
        # alternating between the two offsets; the echo answers with the first view's replies.
        views = ["throughput-%d" % number for number in range(64)]
        requests = []
        for view in views:
            create_view(client, view, "flow", 10000)
            there, replies = capture(client, view)
            requests += there
            if view == views[0]:
                echo_replies = replies
        requests_path = write_lines(directory, "throughput.requests", requests)
        echo, echo_path = start_echo(directory, "throughput", write_lines(directory, "throughput.replies", echo_replies))
        try:
            for connections in (1, 8, 64):
                for target, pid, path in (("echo", echo.pid, echo_path), ("layoutd", daemon.pid, socket_path)):
                    row = c_program("layoutd-bench-load", ["--socket", path, "--requests", requests_path, "--per-connection", "2",
                                                           "--connections", str(connections), "--window", "16", "--seconds", seconds, "--pid", str(pid)])
                    row.update({"group": "ipc", "kind": "throughput", "placement": "default", "strategy": "flow", "target": target})
                    rows.append(row)
                    if target == "layoutd":
                        # Back to SCROLL_FROM, so the next run's first scroll moves the window again.
                        for view in views[:connections]:
                            client.raw(scroll_line(view, SCROLL_FROM, 12))
        finally:
            stop(echo)
        client.close()
        if pinned_client:
            pinned_client.close()
        errors = sum(row.get("errors", 0) for row in rows)
        if errors:
            notes["ipc-errors"] = "%d error replies during the daemon runs: the figures are not all real scrolls" % errors
        return rows
    finally:
        for process in (daemon, pinned_daemon):
            if process:
                stop(process)
        shutil.rmtree(directory, ignore_errors=True)


VALGRIND_SHIM = os.path.join(BENCH_C, "layoutd-bench-valgrind-sigsuspend.so")


def run_callgrind(quick, notes):
    """The daemon's user-space instructions and allocations per view.scroll, by phase
    (scripts/bench_callgrind.py): a release layoutd under callgrind per strategy, a 100k-item
    view, the steady state of the same two scrolls the round trips alternate."""
    missing = [tool for tool in ("valgrind", "callgrind_control") if not shutil.which(tool)]
    if missing or not os.path.exists(VALGRIND_SHIM):
        notes["callgrind"] = "instructions per request not measured: %s" % (
            "no %s on PATH (apt package valgrind)" % " or ".join(missing) if missing else "no %s (make bench-c)" % VALGRIND_SHIM)
        return []
    counts = (200, 1000) if quick else CALLGRIND_COUNTS
    rows = []
    for strategy in ("flow", "ultravisual"):
        directory = tempfile.mkdtemp(prefix="layoutd-callgrind-")

        def set_up(path):
            client = LineClient.when_listening(path, timeout=60)
            create_view(client, "v", strategy, 100000)
            requests, _ = capture(client, "v")
            client.close()
            return write_lines(directory, "requests", requests)

        log("callgrind: %s, 100k items, %d and %d round trips" % (strategy, counts[0], counts[1]))
        try:
            figures = bench_callgrind.measure(os.path.join(RELEASE, "layoutd"), VALGRIND_SHIM, os.path.join(BENCH_C, "layoutd-bench-rtt"),
                                              os.path.join(directory, "callgrind.sock"), ["--log-level", "warning"] + PINNED_DAEMON,
                                              set_up, counts=counts, keep=os.path.join(ROOT, ".build", "bench-callgrind", strategy))
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            notes["callgrind"] = "instructions per request not measured: %s" % error
            return rows
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        figures.update({"group": "callgrind", "strategy": strategy})
        rows.append(figures)
    return rows


# Round trips of the two callgrind dumps whose difference is the steady state (issue 41
# measured 2,000 requests).
CALLGRIND_COUNTS = (500, 2500)


def run_taffy(counts, repetitions):
    python = os.path.join(VENV, "bin", "python")
    try:
        if not os.path.exists(python):
            log("creating %s for Taffy (stretchable)" % VENV)
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
            subprocess.run([python, "-m", "pip", "install", "--quiet", "-r", os.path.join(ROOT, "scripts", "requirements-bench.txt")], check=True)
        result = subprocess.run([python, os.path.join(ROOT, "scripts", "bench_taffy.py"), "--counts", ",".join(map(str, counts)),
                                 "--repetitions", str(repetitions)], check=True, capture_output=True, text=True)
        log(result.stderr[-2000:])
        return json_lines(result.stdout), None
    except (subprocess.CalledProcessError, OSError) as error:
        return [], "Taffy not measured: %s" % error


GTK_FRAME_TIME = os.path.join(ROOT, "clients", "gtk", "bench", "frame_time.py")


def run_gtk_frame_time(notes):
    """clients/gtk/bench/frame_time.py: the GTK collection view flinging a 100k-item flow grid for
    2 s under Xvfb against the release layoutd; the view's own work per frame and round trips."""
    try:
        subprocess.run(["make", "-C", os.path.join(ROOT, "clients", "gtk"), "all"], check=True, stdout=sys.stderr)
        if not shutil.which("xvfb-run"):
            raise OSError("no xvfb-run on PATH (apt package xvfb)")
        result = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", "/usr/bin/python3", GTK_FRAME_TIME,
                                 "--binary", os.path.join(RELEASE, "layoutd")], check=True, capture_output=True, text=True, timeout=600)
        log(result.stderr[-2000:])
        rows = json_lines(result.stdout)
        if not rows:
            raise RuntimeError("frame_time.py printed no JSON line")
        return rows
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, RuntimeError) as error:
        notes["gtk"] = "GTK frame time not measured: %s" % error
        return []


def gtk_tables(rows):
    row = next((row for row in rows if row.get("group") == "gtk" and "p95_ms" in row), None)
    if row is None:
        return []
    return ["## GTK collection view: frame time while flinging (clients/gtk/bench/frame_time.py)", "",
            "A 390×844 window under Xvfb (GSK cairo renderer) shows a Layoutd.CollectionView of a %d-item flow grid" % row["n"],
            "(90×90 cells, GtkLabel each) against the release layoutd; for %.0f s a tick callback moves the vertical" % row["seconds"],
            "adjustment every frame at a fling's velocity (%.0f pt/s, decaying with a 1.2 s time constant: %.0f pt in all)." % (
                row["initial_velocity"], row["distance_pt"]),
            "Frame work is the view's own `last_frame_work_ms` (get_stats) after each frame: applying the window delta,",
            "binding and placing widgets; the frame interval is Xvfb's timer-paced frame clock.", "",
            "| frames | frame work p50 ms | p95 ms | max ms | daemon round trips per frame | frame interval p50 / p95 ms | widgets at the end |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            "| %d | %.3f | %.3f | %.3f | %.2f | %.1f / %.1f | %d |" % (
                row["frames"], row["p50_ms"], row["p95_ms"], row["max_ms"], row["round_trips_per_frame"] or 0,
                row["interval_p50_ms"], row["interval_p95_ms"], row["widgets"]), ""]


def find(rows, name, n=None, strategy=None):
    for row in rows:
        if row.get("name") == name and (n is None or row["n"] == n) and (strategy is None or row.get("strategy") == strategy) and "median" in row:
            return row
    return None


def fmt(value):
    if value is None:
        return "-"
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.3f" % value


def machine():
    cores = os.cpu_count()
    with open("/proc/meminfo") as handle:
        memory = int(handle.readline().split()[1]) / (1 << 20)
    return "%s, %d cores, %.0f GiB, Linux %s" % (platform.machine(), cores, memory, platform.release())




def ipc_row(rows, kind, target, strategy=None, connections=None, placement="default"):
    for row in rows:
        if (row.get("group") == "ipc" and row["kind"] == kind and row["target"] == target and (strategy is None or row["strategy"] == strategy)
                and row.get("placement", "default") == placement and (connections is None or row.get("connections") == connections)):
            return row
    return None


def per_request(row, key, digits=1):
    return "-" if row is None or key not in row else ("%%.%df" % digits) % row[key]


# The placements of the round trips, each compared with itself only: the headline first.
PLACEMENTS = (("pinned", "one CPU (`taskset -c %d`)" % PINNED_CPU), ("default", "default placement"))


def callgrind_row(rows, strategy):
    return next((row for row in rows if row.get("group") == "callgrind" and row["strategy"] == strategy), None)


# The phases outside the view operation: the request path the non-engine target counts.
REQUEST_PATH = ("transport", "parse", "route", "encode")


def outside_view_operation(row):
    return sum(row["phases"][phase] for phase in REQUEST_PATH)


def ipc_tables(rows):
    """The daemon against the C echo floor: round trips under each placement, costs per request,
    instructions by phase, throughput."""
    if not any(row.get("group") in ("ipc", "callgrind") for row in rows):
        return []
    lines = ["## Daemon over a Unix socket against the C echo floor (release, loopback)", "",
             "`view.scroll` on a 100k-item view, one request in flight; the floor is the C echo server answering",
             "the same request bytes with the daemon's captured reply bytes. Each ratio compares the daemon and",
             "the echo under the same placement, never across placements:", "",
             "- one CPU: the daemon, the echo and the round-trip client all run under `taskset -c %d`, the daemon" % PINNED_CPU,
             "  with `--set io-threads=1` (its default sizes the I/O threads from the online CPUs, which the",
             "  affinity mask does not reduce; one connection is served by one I/O thread either way). Nothing",
             "  waits for another CPU to wake up: this is what the work costs, and the headline;",
             "- default placement: the scheduler's. On this VM a CPU with nothing to run halts and waking it",
             "  costs tens of µs. Which side pays it depends on where the scheduler puts the daemon's I/O thread,",
             "  the echo and the client, and that changes from run to run (so does the ratio, which sinks toward",
             "  1 or below when the echo pays it and the daemon does not): these rows say what a client may see,",
             "  not what the work costs.", "",
             "CPU µs per request: the serving process's utime+stime over the timed run (/proc); at the default",
             "placement it includes the wake-up the idle VM charges as CPU time.", "",
             "| view | placement | layoutd p50 µs | layoutd p99 µs | echo p50 µs | echo p99 µs | p50 ratio | p99 ratio | layoutd CPU µs/request | echo CPU µs/request | request B | reply B |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for strategy in ("flow", "ultravisual"):
        for placement, label in PLACEMENTS:
            ours, echo = ipc_row(rows, "rtt", "layoutd", strategy, placement=placement), ipc_row(rows, "rtt", "echo", strategy, placement=placement)
            if ours and echo:
                lines.append("| %s, 100k | %s | %s | %s | %s | %s | %.2f× | %.2f× | %s | %s | %.0f | %.0f |" % (
                    strategy, label, fmt(ours["p50_us"]), fmt(ours["p99_us"]), fmt(echo["p50_us"]), fmt(echo["p99_us"]),
                    ours["p50_us"] / echo["p50_us"], ours["p99_us"] / echo["p99_us"], per_request(ours, "cpu_us_per_request"),
                    per_request(echo, "cpu_us_per_request", 2), ours["request_bytes"], ours["reply_bytes"]))
    lines.extend(["", "Context switches and syscalls per request to the serving process at the default placement (context",
                  "switches over the timed run from /proc; syscalls from a separate pass under strace).", "",
                  "| process | view | context switches/request | syscalls/request | most frequent syscalls per request |",
                  "|---|---|---:|---:|---|"])
    for strategy in ("flow", "ultravisual"):
        for target, label in (("layoutd", "layoutd"), ("echo", "C echo floor")):
            row = ipc_row(rows, "rtt", target, strategy)
            if row:
                lines.append("| %s | %s, 100k | %s | %s | %s |" % (label, strategy, per_request(row, "ctx_switches_per_request", 2),
                             per_request(row, "syscalls_per_request", 2), row.get("top_syscalls", "-")))
    lines.extend(callgrind_tables(rows))
    lines.extend(["", "Throughput: K connections from one load-generator thread, 16 requests in flight each (flow, 10k",
                  "items, a view per connection), default placement; CPU and context switches per request of the serving process.", "",
                  "| connections | layoutd requests/s | echo floor requests/s | layoutd / echo | layoutd CPU µs/request | layoutd context switches/request | echo CPU µs/request |",
                  "|---:|---:|---:|---:|---:|---:|---:|"])
    for connections in (1, 8, 64):
        ours, echo = ipc_row(rows, "throughput", "layoutd", connections=connections), ipc_row(rows, "throughput", "echo", connections=connections)
        if ours and echo:
            lines.append("| %d | %.0f | %.0f | %.3f | %s | %s | %s |" % (
                connections, ours["requests_per_second"], echo["requests_per_second"], ours["requests_per_second"] / echo["requests_per_second"],
                per_request(ours, "cpu_us_per_request"), per_request(ours, "ctx_switches_per_request", 2), per_request(echo, "cpu_us_per_request", 2)))
    lines.append("")
    return lines


def callgrind_tables(rows):
    """Instructions and allocations per view.scroll by phase, and the biggest costs outside the
    view operation (scripts/bench_callgrind.py)."""
    measured = [(strategy, callgrind_row(rows, strategy)) for strategy in ("flow", "ultravisual")]
    measured = [(strategy, row) for strategy, row in measured if row]
    if not measured:
        return []
    first = measured[0][1]
    lines = ["", "User-space instructions per `view.scroll` in the daemon, by phase (callgrind, release build, one",
             "I/O thread): the difference between a dump of %d and one of %d round trips, over the %d requests" % (
                 first["callgrind_counts"][1], first["callgrind_counts"][0], first["callgrind_counts"][1] - first["callgrind_counts"][0]),
             "between them, so only the requests' steady state counts. A phase is everything under its root",
             "functions (`PHASE_ROOTS` in scripts/bench_callgrind.py): transport (the reactor: epoll, read,",
             "framing, queueing, buffering and sending replies), parse (HotRequest and the general parser),",
             "route (the connection's hand-off, the service, the method table, the view's executor and host),",
             "the view operation with its window delta (the engine's `View.scroll`), encode (WireMapping,",
             "JSONWriter, the envelope). Shared code (reference counting, malloc, memcpy) is split between",
             "phases in proportion to the instructions each caller's calls took; `other` is what no phase's",
             "root is above (the daemon's other threads). The phases sum to the total.", "",
             "| view | total | transport | parse | route | view operation | encode | other | outside the view operation | allocations/request | frees/request |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for strategy, row in measured:
        phases = row["phases"]
        lines.append("| %s, 100k | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |" % (
            strategy, row["instructions_per_request"], phases["transport"], phases["parse"], phases["route"], phases["view operation"],
            phases["encode"], phases["other"], outside_view_operation(row), row["allocations_per_request"], row["frees_per_request"]))
    lines.extend(["", "Allocations per request by phase (calls into malloc, calloc, realloc and posix_memalign, split by",
                  "the phase of their caller as above):", "",
                  "| view | transport | parse | route | view operation | encode | other |", "|---|---:|---:|---:|---:|---:|---:|"])
    for strategy, row in measured:
        allocations = row["allocations_by_phase"]
        lines.append("| %s, 100k | %s |" % (strategy, " | ".join("%.1f" % allocations[phase] for phase in bench_callgrind.PHASES)))
    for strategy, row in measured:
        lines.extend(["", "The biggest costs outside the view operation (%s): exclusive instructions per request of each" % strategy,
                      "function, the part of them outside the view operation, and the phases they land in.", "",
                      "| function | instructions/request | outside the view operation | phases |", "|---|---:|---:|---|"])
        for name, cost, outside, phases in row["top_outside_view_operation"][:TOP_FUNCTIONS]:
            lines.append("| `%s` | %.0f | %.0f | %s |" % (name.replace("|", "\\|")[:120], cost, outside, phases))
    return lines


# How many functions the table of biggest costs outside the view operation lists per view.
TOP_FUNCTIONS = 20


def cpu_limit(rows, strategy, ours):
    """What a daemon request's CPU is spent on, from this run: the same view operation measured
    in process (the engine with its window delta), the instructions by phase, the syscalls."""
    engine = find(rows, "%s: scroll tick" % strategy, 100000)
    text = "%s: %s CPU µs a request on one CPU" % (strategy, per_request(ours, "cpu_us_per_request"))
    if engine:
        text += ", of which the view's scroll with its window delta in process (the view rows, n=100000) is %s µs (%.0f%%)" % (
            fmt(engine["median"]), 100 * engine["median"] / ours["cpu_us_per_request"])
    profile = callgrind_row(rows, strategy)
    if profile:
        text += "; by callgrind %.0fk instructions a request, %.0fk of them outside the view operation" % (
            profile["instructions_per_request"] / 1000, outside_view_operation(profile) / 1000)
    default = ipc_row(rows, "rtt", "layoutd", strategy)
    if default and "syscalls_per_request" in default:
        text += "; %s syscalls (%s)" % (per_request(default, "syscalls_per_request", 1), default.get("top_syscalls", "-"))
    return text


def ipc_targets(rows):
    """The issue's IPC targets, each computed from this run, each ratio within one placement."""
    targets = []
    pairs = [(strategy, ipc_row(rows, "rtt", "layoutd", strategy, placement="pinned"), ipc_row(rows, "rtt", "echo", strategy, placement="pinned"))
             for strategy in ("flow", "ultravisual")]
    pairs = [pair for pair in pairs if pair[1] and pair[2]]
    profiles = [(strategy, callgrind_row(rows, strategy)) for strategy in ("flow", "ultravisual")]
    profiles = [(strategy, row) for strategy, row in profiles if row]
    if profiles:
        worst = max(profiles, key=lambda entry: outside_view_operation(entry[1]))
        met = outside_view_operation(worst[1]) <= 15000
        phases = worst[1]["phases"]
        reason = ("%s: transport %.0f, parse %.0f, route %.0f, encode %.0f instructions (%.0f allocations a request); "
                  "see the table of the biggest costs outside the view operation" % (
                      worst[0], phases["transport"], phases["parse"], phases["route"], phases["encode"], worst[1]["allocations_per_request"]))
        targets.append(("instructions per view.scroll outside the view operation ≤ 15k (callgrind, 100k views)", "met" if met else "not met",
                        "; ".join("%s %.1fk (target 15k; %.1fk in all)" % (strategy, outside_view_operation(row) / 1000, row["instructions_per_request"] / 1000)
                                  for strategy, row in profiles), "" if met else reason))
    else:
        targets.append(("instructions per view.scroll outside the view operation ≤ 15k", "not measured", "-", "no callgrind rows"))
    if not pairs:
        targets.append(("view.scroll round trip p50 ≤ 1.8× the C echo floor, both on one CPU", "not measured", "-", "no pinned rows"))
        return targets
    for key, limit, label in (("p50_us", 1.8, "p50"), ("p99_us", 4, "p99")):
        ratios = [(strategy, ours[key] / echo[key], ours, echo) for strategy, ours, echo in pairs]
        met = all(ratio <= limit for _, ratio, _, _ in ratios)
        worst = max(ratios, key=lambda item: item[1])
        default = [(strategy, ipc_row(rows, "rtt", "layoutd", strategy), ipc_row(rows, "rtt", "echo", strategy)) for strategy, _, _, _ in ratios]
        note = "" if met else "%s; the echo %s CPU µs a request" % (cpu_limit(rows, worst[0], worst[2]), per_request(worst[3], "cpu_us_per_request", 2))
        text = "; ".join("%s %.2f× (%s µs vs %s µs)" % (strategy, ratio, fmt(ours[key]), fmt(echo[key])) for strategy, ratio, ours, echo in ratios)
        text += "; at the default placement (the daemon and the echo both there): " + ", ".join(
            "%s %.2f×" % (strategy, ours[key] / echo[key]) for strategy, ours, echo in default if ours and echo)
        targets.append(("view.scroll round trip %s ≤ %g× the C echo floor, both on one CPU (100k views)" % (label, limit), "met" if met else "not met",
                        text, note))
    cpus = [(strategy, ours["cpu_us_per_request"], ours) for strategy, ours, _ in pairs if "cpu_us_per_request" in ours]
    if cpus:
        met = all(value <= 20 for _, value, _ in cpus)
        worst = max(cpus, key=lambda item: item[1])
        default = [(strategy, ipc_row(rows, "rtt", "layoutd", strategy)) for strategy, _, _ in cpus]
        targets.append(("daemon CPU ≤ 20 µs per scroll request, on one CPU", "met" if met else "not met",
                        "; ".join("%s %.1f µs" % (strategy, value) for strategy, value, _ in cpus) + "; at the default placement, with the wake-up: " +
                        ", ".join("%s %s µs" % (strategy, per_request(row, "cpu_us_per_request")) for strategy, row in default if row),
                        "" if met else cpu_limit(rows, worst[0], worst[2])))
    eight, echo = ipc_row(rows, "throughput", "layoutd", connections=8), ipc_row(rows, "throughput", "echo", connections=8)
    if eight:
        met = eight["requests_per_second"] >= 60000
        reason = ""
        if not met:
            reason = "%s CPU µs and %s context switches per request under this load: two cores give at most %.0f requests/s at that cost, less what the client spends" % (
                per_request(eight, "cpu_us_per_request"), per_request(eight, "ctx_switches_per_request", 2),
                2e6 / eight["cpu_us_per_request"] if eight.get("cpu_us_per_request") else float("nan"))
        targets.append(("≥ 60k requests/s with 8 pipelining clients", "met" if met else "not met",
                        "%.0f requests/s" % eight["requests_per_second"] + (
                            " (the echo floor: %.0f, layoutd %.2f of it)" % (echo["requests_per_second"], eight["requests_per_second"] / echo["requests_per_second"])
                            if echo else ""), reason))
    return targets


# The tables of rows by group, in the document's order.
TABLES = [("engine", "Engine: full layout and window queries, per strategy"), ("view", "Views: one mutation end to end (window delta with a 200 pt margin)"),
          ("plugins", "Plugins: the waterfall through the C ABI beside the same algorithm built in"),
          ("memory", "Memory (each row a fresh process: its resident bytes after the load minus before; layoutd rows through its socket, nothing trimmed by hand)"),
          ("load", "Loading into layoutd through its socket (one sample each: the memory rows' own loads)"), ("wire", "Wire: JSON coders"),
          ("wire-scaling", "Wire: parse cost against line size, hostile shapes (ns per byte; flat means linear; refused shapes stop at the limit)"),
          ("textbook", "Side by side: the textbook stacking grid (30k items, 1,000 selected)"), ("taffy", "Side by side: Taffy on the same flow workload")]


def markdown_table(title, selected):
    if not selected:
        return []
    lines = ["## " + title, "", "| measurement | n | median | unit | spread |", "|---|---:|---:|---|---|"]
    for row in selected:
        spread = "%s–%s" % (fmt(row["low"]), fmt(row["high"])) if row["low"] != row["high"] else ""
        lines.append("| %s | %d | %s | %s | %s |" % (row["name"], row["n"], fmt(row["median"]), row["unit"], spread))
    return lines + [""]


def document(rows, counts, repetitions, toolchain, notes):
    lines = [
        "# Benchmarks", "",
        "Generated by `make bench` (`scripts/bench.py`: release builds of `layout-bench` and `layoutd`, the C",
        "echo floor, round-trip client and load generator of `bench/c`, and `scripts/bench_taffy.py` for",
        "Taffy); do not edit by hand.", "",
        "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "- machine: %s" % machine(),
        "- toolchain: %s" % toolchain,
        "- command: `make bench`",
        "- each engine figure: median of %d repetitions after one warm-up (3 for the slow rows), spread min–max" % repetitions,
        "", "These machines are shared and noisy: read the ratios between rows of this one run, not absolute",
        "times across runs.", "",
    ]

    for group, title in TABLES:
        lines.extend(markdown_table(title, [row for row in rows if row.get("group") == group and "median" in row]))
    lines.extend(ipc_tables(rows))
    lines.extend(gtk_tables(rows))
    skipped = [row for row in rows if "skipped" in row]
    for row in skipped:
        lines.append("- skipped: %s at n=%s: %s" % (row.get("name"), row.get("n"), row["skipped"]))
    # A memory row read while the daemon's resident memory was still moving is a lower or upper
    # bound, not the figure that stays; said next to the tables, not hidden.
    unsettled = [row for row in rows if "unsettled" in row]
    for row in unsettled:
        lines.append("- not settled: %s at n=%s: %s" % (row["name"], row["n"], row["unsettled"]))
    if skipped or unsettled:
        lines.append("")

    lines.extend(["## Scaling: does an incremental operation grow with n?", "",
                  "Median at 1M over the median at 10k for each view operation (1.0: no growth).", "",
                  "| operation | 10k µs | 1M µs | 1M/10k |", "|---|---:|---:|---:|"])
    big, small = max(counts), 10000 if 10000 in counts else min(counts)
    for strategy in ("flow", "collapsible", "ultravisual", "display"):
        for operation in OPERATIONS:
            a = find(rows, "%s: %s" % (strategy, operation), small)
            b = find(rows, "%s: %s" % (strategy, operation), big)
            if a and b:
                lines.append("| %s: %s | %s | %s | %.2f |" % (strategy, operation, fmt(a["median"]), fmt(b["median"]), b["median"] / a["median"]))
    lines.append("")

    targets = []

    def target(name, value, limit, text, reason):
        if value is None:
            targets.append((name, "not measured", text, reason))
        else:
            met = value <= limit if limit is not None else False
            targets.append((name, ("met" if met else "not met"), text % value, "" if met else reason))

    flow_full = find(rows, "flow: full layout", big)
    target("flow full layout at 1M ≤ 25 ns/item", flow_full and flow_full["median"], 25, "%.1f ns/item",
           "builds the line list and per-item line index for variable sizes; see the engine table")
    ours = find(rows, "flow, Taffy's workload: full layout", 100000) or find(rows, "flow, Taffy's workload: full layout", small)
    taffy = find(rows, "taffy flow full layout", ours["n"]) if ours else None
    if ours and taffy:
        target("≥ 50× faster than Taffy (full layout, n=%d)" % ours["n"], ours["median"] / taffy["median"], 1 / 50, "%.4f of Taffy's time",
               "see the Taffy table")
        targets[-1] = (targets[-1][0], targets[-1][1], "%.0f× faster" % (taffy["median"] / ours["median"]), targets[-1][3])
    else:
        targets.append(("≥ 50× faster than Taffy", "not measured", "-", notes.get("taffy", "Taffy rows missing")))
    worst = None
    for strategy in ("flow", "collapsible", "ultravisual", "display"):
        for operation in TARGET_OPERATIONS:
            row = find(rows, "%s: %s" % (strategy, operation), big)
            if row and (worst is None or row["median"] > worst[1]):
                worst = ("%s: %s" % (strategy, operation), row["median"])
    target("view operations at 1M ≤ 10 µs each (all but the jump)", worst and worst[1], 10, "worst %.1f µs" + (" (%s)" % worst[0] if worst else ""),
           "an insertion above the window shifts every later item's index, so every element of the window is in changed "
           "(attributes carry section and item): the delta is the window's size; see the view table for the rest")
    ratios = []
    for strategy in ("flow", "collapsible", "ultravisual", "display"):
        for operation in TARGET_OPERATIONS:
            a = find(rows, "%s: %s" % (strategy, operation), small)
            b = find(rows, "%s: %s" % (strategy, operation), big)
            if a and b:
                ratios.append(b["median"] / a["median"])
    target("view operations 1M/10k ratio ≤ 1.5", max(ratios) if ratios else None, 1.5, "worst %.2f", "cache misses on larger structures; see the scaling table")
    prepare = find(rows, "textbook stacking grid: prepare (1,000 selected)")
    engine = find(rows, "layoutd collapsible: full layout (1,000 selected)")
    if prepare and engine:
        ratio = prepare["median"] / engine["median"]
        targets.append(("≥ 50× the textbook prepare (30k, 1,000 selected)", "met" if ratio >= 50 else "not met", "%.0f×" % ratio, ""))
    toggle_book = find(rows, "textbook stacking grid: selection toggle (a full prepare)")
    toggle_ours = find(rows, "layoutd collapsible: selection toggle")
    if toggle_book and toggle_ours:
        ratio = toggle_book["median"] / toggle_ours["median"]
        targets.append(("≥ 1,000× on a selection toggle", "met" if ratio >= 1000 else "not met", "%.0f×" % ratio, ""))
    encode = find(rows, "encode attributes (our JSONWriter, direct: what replies use)")
    encode_before = find(rows, "encode attributes (the previous JSONWriter, direct, before issue 19)")
    target("encode ≤ 0.3 µs per attribute", encode and encode["median"], 0.3,
           "%.3f µs" + (" (the previous writer: %.3f µs)" % encode_before["median"] if encode_before else ""),
           "the record's bytes are written through one pointer after one reservation; what remains is the number formatting "
           "(two divisions per pair of digits) and one escape scan per id")
    decode = find(rows, "decode a view.scroll request (byte decoder: HotRequest.decode)")
    decode_before = find(rows, "decode a view.scroll request (our parser and params reader)")
    target("decode of a view.scroll line ≤ 1.5 µs", decode and decode["median"], 1.5,
           "%.2f µs" + (" (parser and params reader: %.2f µs)" % decode_before["median"] if decode_before else ""),
           "the byte decoder allocates the view name's String and nothing else; a line it leaves to the general path costs the "
           "parser's tree as before")
    scaling = [row for row in rows if row.get("group") == "wire-scaling" and "median" in row]
    shapes = {}
    for row in scaling:
        shapes.setdefault(row["name"].rsplit(" (", 1)[0], []).append(row)
    if shapes:
        worst_shape, worst = None, 0
        for shape, measured in shapes.items():
            measured.sort(key=lambda row: row["n"])
            growth = measured[-1]["median"] / measured[0]["median"]
            if growth > worst:
                worst_shape, worst = shape, growth
        targets.append(("parse cost linear in the line's size (ns/byte at 1 MiB over 64 KiB ≤ 2)", "met" if worst <= 2 else "not met",
                        "worst %.2f (%s)" % (worst, worst_shape),
                        "" if worst <= 2 else "see the wire-scaling table"))
    targets.extend(ipc_targets(rows))
    for ids, limit in (("short", 60), ("uuid", 110)):
        loads = [(how, find(rows, name, 1000000)) for how, name in (
            ("engine", "resident bytes per item (flow view, variable sizes, string ids)" if ids == "short" else "resident bytes per item (uuid ids, built by the engine)"),
            ("layoutd view.create", "layoutd resident bytes per item (%s ids, one view.create)" % ids),
            ("layoutd staged", "layoutd resident bytes per item (%s ids, staged upload, committed)" % ids))]
        measured = [(how, row["median"]) for how, row in loads if row]
        worst = max(measured, key=lambda entry: entry[1]) if measured else None
        target("≤ %d bytes resident per item at 1M with %s ids, however loaded" % (limit, "short" if ids == "short" else "36-character UUID"),
               worst and worst[1], limit, "worst %.0f B/item" + (" (%s; %s)" % (worst[0], ", ".join("%s %.0f" % entry for entry in measured)) if worst else ""),
               "the engine row is the model a view keeps (an item's id string, its hash in the id index, its chunk entry and, "
               "for variable-size flow, the line list); the layoutd rows add what the daemon leaves resident of what the load freed "
               "(the request lines' trees, a staged upload's specs, the data a commit's diff replaced)")
    returned = []
    for ids in ("short", "uuid"):
        model = find(rows, "resident bytes per item (flow view, variable sizes, string ids)" if ids == "short" else "resident bytes per item (uuid ids, built by the engine)", 1000000)
        committed = find(rows, "layoutd resident bytes per item (%s ids, staged upload, committed)" % ids, 1000000)
        deleted = find(rows, "layoutd resident bytes per item left after view.delete (%s ids, staged upload)" % ids, 1000000)
        if model and committed and deleted:
            returned.append("%s ids: committed %.0f against the model's %.0f, %.1f left after view.delete" % (ids, committed["median"], model["median"], deleted["median"]))
    targets.append(("freed memory goes back: a 1M-item staged commit keeps the model, a view.delete leaves nothing (B/item)",
                    "measured" if returned else "not measured", "; ".join(returned) or "-",
                    "read against the engine row (the model alone): what the committed view holds beyond it, and what stays after "
                    "view.delete, is memory the load freed that the daemon did not give back"))
    # What limits each of these targets (their last column); the run's own notes are `notes`.
    limited_by = {
        "scrollTo offset of a random item": "the target's frame and the offset that places it, O(log n)",
        "scrollTo a random item": "the whole view.scrollTo: a jump, so the new window's elements all enter the delta "
                                  "(compare each strategy's jump scroll row: the window costs that much alone)",
        "hitTest": "",
    }
    for operation, label in (("scrollTo offset of a random item", "scrollTo to a random item, the engine's placement"),
                             ("scrollTo a random item", "scrollTo to a random item, with the window delta"),
                             ("hitTest", "hitTest")):
        worst = None
        for strategy in ("flow", "collapsible", "ultravisual", "display"):
            row = find(rows, "%s: %s" % (strategy, operation), big)
            if row and (worst is None or row["median"] > worst[1]):
                worst = (strategy, row["median"])
        target("%s at 1M ≤ 10 µs (every built-in strategy)" % label, worst and worst[1], 10,
               "worst %.1f µs" + (" (%s)" % worst[0] if worst else ""), limited_by[operation])
    mixed = "compositional, 1000 mixed sections"
    full = find(rows, "%s: full layout" % mixed, 100000)
    flow_100k = find(rows, "flow: full layout", 100000)
    target("compositional full layout, 100k items in 1,000 mixed sections ≤ 60 ns/item", full and full["median"], 60,
           "%.1f ns/item" + (" (flow in this run: %.1f)" % flow_100k["median"] if flow_100k else ""),
           "about 550 instructions an item on average (callgrind; grids and carousels copy their first group "
           "instance, lists and tags solve every row) plus a fixed cost of a few µs a section (its arrays, the solver's "
           "set-up): at 100 items a section that is about half; the same mix at 1,000 items a section is the 1M row")
    for operation, label in (("scroll tick", "a scroll tick"), ("section scroll (a carousel's 16 pt step)", "a section scroll")):
        row = find(rows, "%s: %s" % (mixed, operation), 1000000)
        target("compositional: %s at 1M items ≤ 20 µs" % label, row and row["median"], 20, "%.1f µs",
               "the window delta of the moved band")
    row = find(rows, "flow: updateMove (a finger's 16 pt step)", big)
    target("flow updateMove at 1M ≤ 30 µs (engine: the target, the re-flow, the window delta)", row and row["median"], 30, "%.1f µs",
           "a 16 pt drag step; the target changes every few steps (one model move and the incremental re-flow)")
    scrub = find(rows, "flow grid to display list: updateTransition (375×667)", big)
    target("one updateTransition ≤ 20 µs (engine, flow grid to display list, 375×667 phone window, n=%d)" % big, scrub and scrub["median"], 20, "%.1f µs",
           "blends every pair of both windows and allocates the frame's attributes; no query")
    load = find(rows, "load 1000000 items (short ids) into layoutd through its socket: one view.create")
    target("loading 1M items in one request ≤ 1 s", load and load["median"], 1, "%.2f s",
           "from the first byte sent to the reply, through the socket: the 54 MB line crosses it and is framed, its items "
           "are decoded from the bytes straight into the engine's item type (LoadRequest: no JSON tree, no second copy), then "
           "built into the engine's model (the id index and item records, about half of what remains)")
    peak = find(rows, "layoutd peak resident MiB while loading (short ids, one view.create)")
    settled_after = find(rows, "layoutd resident MiB once settled after the load (short ids, one view.create)")
    ratio = peak and settled_after and peak["median"] / settled_after["median"]
    target("peak resident while loading 1M items ≤ 1.5× the daemon's resident size after", ratio, 1.5,
           "%%.1f× (%.0f MiB peak, %.0f MiB after)" % (peak["median"], settled_after["median"]) if ratio else "%.1f×",
           "the decoded items (ItemSpec, 88 bytes each: an id and three optional sizes, 84 MiB at 1M) are held beside the "
           "54 MB line while it is decoded, and beside the model while that is built from them; 1.5× needs decoding from "
           "the bytes into the model's own storage (ids into its arena, sizes only where given)")
    spread = find(rows, "layoutd resident MiB of 5000000 items over 5 views (short ids, staged uploads)")
    target("5M items across views ≤ 450 MiB resident", spread and spread["median"], 450, "%.0f MiB",
           "five 1M-item views staged into one daemon: what the daemon holds once the commits settled, over what it held empty")
    for n in counts:
        native = find(rows, "waterfall built in: full layout", n)
        plugin = find(rows, "waterfall plugin: full layout", n)
        if native and plugin and n == 100000:
            targets.append(("waterfall plugin full layout at 100k: the ABI's overhead", "measured",
                            "%.1f vs %.1f ns/item (%.2f×)" % (plugin["median"], native["median"], plugin["median"] / native["median"]),
                            "the plugin path copies every size into the ABI's arrays, resets the output, and reads every frame back to repair and index it"))
    gtk = next((row for row in rows if row.get("group") == "gtk" and "p95_ms" in row), None)
    if gtk:
        target("GTK view frame work p95 ≤ 4 ms while flinging a 100k flow grid", gtk["p95_ms"], 4,
               "%%.2f ms p95 (p50 %.2f, max %.2f; %.2f round trips a frame)" % (gtk["p50_ms"], gtk["max_ms"], gtk["round_trips_per_frame"] or 0),
               "see the GTK section: the frame's work is applying the daemon's delta and binding the cells that enter")
    else:
        targets.append(("GTK view frame work p95 ≤ 4 ms while flinging a 100k flow grid", "not measured", "-", notes.get("gtk", "no GTK row")))
    lines.extend(["## Targets", "", "| target | status | this run | what limits it |", "|---|---|---|---|"])
    for name, status, value, reason in targets:
        lines.append("| %s | %s | %s | %s |" % (name, status, value, reason))
    lines.append("")
    if notes:
        lines.extend(["## Notes", ""] + ["- " + note for note in notes.values()] + [""])
    lines.extend([
        "## How to read the rows", "",
        "- Engine rows: `full layout` is a complete recompute per item; `elements(in:)` a phone-sized window",
        "  at 1,000 offsets. flow uses variable sizes; collapsible is collapsed with about 1,000 selected items",
        "  in short runs; ultravisual and display are uniform by nature (their full layout is arithmetic, so",
        "  it costs almost nothing per item).",
        "- View rows include everything one mutation costs: validation, the strategy's update, anchoring",
        "  and the window delta (with a 200 pt margin). `scroll tick` is a finger's 16 pt step (100 down",
        "  from the middle, 100 back); `jump scroll` moves a quarter of the content, replacing the whole",
        "  window; `one measured size inside the window` measures a cell on screen, `above the window` one",
        "  above it (the view keeps the first visible item still); the 10-item batch inserts a quarter down",
        "  the list, above the window in the middle.",
        "- Memory rows: `built by the engine` is `layout-bench --memory` in a fresh process: a `View` made from",
        "  specs directly, the specs then freed and trimmed before the reading, so it is the model alone. The",
        "  `layoutd` rows are a fresh release layoutd per configuration, loaded through its socket as a client",
        "  loads: `staged upload` is `view.create` with no items, `view.stage.begin`, `view.stage.append` in",
        "  parts cut as `layoutctl load` cuts them (each line under the daemon's default line limit of 1 MiB and",
        "  its batch limit), then `view.stage.commit`; `one view.create` sends every item in one line, the",
        "  daemon started with `--set max-line-length=%d` to carry it." % (1 << 27),
        "  " + staged_parts_text(rows),
        "  A reading is the daemon's VmRSS (/proc/PID/status) minus its VmRSS after `daemon.hello`, each",
        "  polled every 50 ms until unchanged for %g s (at most %g s; a row that did not settle is listed" % (SETTLE_QUIET, SETTLE_LIMIT),
        "  under the tables), with nothing trimmed by hand: what the daemon keeps is what it gives back",
        "  itself. `before the commit` is read once every part is staged, `committed` after the commit's",
        "  reply, `left after view.delete` after deleting that view; the load rows time the same loads, the",
        "  settling left out. Item ids and sizes are the engine row's, so the rows compare. Up to 4 MiB an",
        "  arena of freed memory may stay by design (`FreedMemory.allocatorThreshold`, glibc's mmap and trim",
        "  thresholds): up to about 40 B an item in a 100k-item row, 4 in a 1M one.",
        "- Textbook rows are the approach of the stacking-grid answer and the tutorials, written in the",
        "  benchmark: an array of attribute objects rebuilt in prepare, `Array.contains` for the selection,",
        "  rect queries filtering every item; a toggle there is a full prepare.",
        "- Plugin rows: the same `WaterfallColumns` code twice over one variable-size model (3 columns):",
        "  built in (`WaterfallLayout` reading the model) and as the release `waterfall.so` loaded through",
        "  the C ABI (`PluginStrategy`: sizes copied into the ABI's arrays, the output reset, then read",
        "  back, repaired and indexed; queries build attributes from it).",
        "- Taffy rows time only Taffy's compute call (through PyPI's `stretchable`) on a flex-wrap container",
        "  of the same width, gaps and item sizes as the `flow, Taffy's workload` rows (fixed spacing 10).",
        "- Daemon rows: a release layoutd and the C echo floor (`.build/bench-c/layoutd-bench-echo`: one",
        "  thread, epoll, blocking read/write, reused buffers) answering with the daemon's own reply bytes,",
        "  captured from the daemon for the same two `view.scroll` requests (y %d and %d, alternated, so" % (SCROLL_FROM, SCROLL_TO),
        "  every scroll moves the window and rows enter and leave). The same C client",
        "  (`layoutd-bench-rtt`) sends the same request bytes to both, one in flight, after 500 warm-up",
        "  round trips. Each view is measured under two placements, each against its own echo: all three",
        "  processes on CPU %d (`taskset -c %d`, a second release layoutd with `--set io-threads=1`), and" % (PINNED_CPU, PINNED_CPU),
        "  the scheduler's placement; a ratio never divides one placement by the other. CPU µs per request:",
        "  utime+stime of the whole process from /proc/PID/stat over the timed run (10 ms clock ticks, hence",
        "  20k requests, 100k for the echo); context switches: voluntary and non-voluntary summed over",
        "  /proc/PID/task/*/status (threads that exit mid-run drop out); syscalls: a separate untimed pass",
        "  under `strace -f -c -p PID`. Instructions: a release layoutd under `valgrind --tool=callgrind`",
        "  (one I/O thread, the sigsuspend shim of bench/c preloaded), the same two scrolls; see its table",
        "  and scripts/bench_callgrind.py for how phases are told apart. Throughput: `layoutd-bench-load`,",
        "  one thread with epoll, K connections each keeping 16 requests in flight for the run's seconds;",
        "  against the daemon every connection scrolls a 10k-item flow view of its own (a view is serial by",
        "  design), against the echo the same requests get the first view's captured replies. The client",
        "  and the server share the machine's two cores.",
        "",
    ])
    return "\n".join(lines)


def staged_parts_text(rows):
    """How many parts the staged loads of this run took, for the methodology note."""
    parts = ["%d for %s %s" % (row["parts"], "{:,}".format(row["n"]), "UUIDs" if "(uuid ids)" in row["name"] else "short ids")
             for row in rows if row.get("group") == "load" and row.get("parts")]
    return "Parts in this run: %s." % ", ".join(parts) if parts else "No staged load in this run."


def print_table(rows):
    for row in rows:
        if "median" in row:
            print("%-64s n=%-8d %12s %s" % (row["name"], row["n"], fmt(row["median"]), row["unit"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output", default=os.path.join(ROOT, "BENCHMARKS.md"))
    parser.add_argument("--quick", action="store_true", help="1k and 10k only, fewer repetitions")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--toolchain", default="unknown")
    parser.add_argument("--render", metavar="ROWS", help="only write the document from the rows a run saved")
    parser.add_argument("--only", choices=["memory", "ipc", "callgrind"],
                        help="measure only these rows and print their tables (markdown) instead of writing the document: memory, "
                             "ipc (the daemon against the echo floor, with the callgrind pass) or callgrind alone")
    arguments = parser.parse_args()
    rows_path = os.path.join(ROOT, ".build", "bench-rows.json")
    if arguments.only in ("ipc", "callgrind"):
        notes = {}
        rows = run_ipc(arguments.quick, notes) if arguments.only == "ipc" else []
        rows += run_callgrind(arguments.quick, notes)
        with open(os.path.join(ROOT, ".build", "bench-rows-%s.json" % arguments.only), "w") as handle:
            json.dump({"rows": rows, "notes": notes}, handle)
        print("\n".join(ipc_tables(rows)))
        print("\n".join(["| target | status | this run | what limits it |", "|---|---|---|---|"] +
                        ["| %s | %s | %s | %s |" % target for target in ipc_targets(rows)] + [""] + ["- " + note for note in notes.values()]))
        return
    if arguments.only == "memory":
        # A subset cannot replace the document (every other row would go missing): its tables go
        # to stdout and its rows to their own file.
        rows = run_memory(arguments.quick)
        with open(os.path.join(ROOT, ".build", "bench-rows-memory.json"), "w") as handle:
            json.dump({"rows": rows}, handle)
        for group, title in TABLES:
            print("\n".join(markdown_table(title, [row for row in rows if row.get("group") == group and "median" in row])))
        for row in rows:
            if "unsettled" in row:
                print("- not settled: %s at n=%s: %s" % (row["name"], row["n"], row["unsettled"]))
        return
    if arguments.render:
        with open(arguments.render) as handle:
            saved = json.load(handle)
        with open(arguments.output, "w") as handle:
            handle.write(document(saved["rows"], saved["counts"], saved["repetitions"], saved["toolchain"], saved["notes"]))
        return
    counts = [1000, 10000] if arguments.quick else [1000, 10000, 100000, 1000000]
    bench_arguments = ["--repetitions", str(arguments.repetitions)] + (["--quick"] if arguments.quick else [])
    notes = {}
    log("== engine, views, wire, textbook (layout-bench)")
    rows = run_layout_bench(bench_arguments)
    log("== memory: the engine's model (layout-bench --memory), then layoutd loaded through its socket")
    rows += run_memory(arguments.quick)
    log("== daemon against the C echo floor (layoutd, .build/bench-c)")
    rows += run_ipc(arguments.quick, notes)
    log("== the daemon's instructions and allocations per request by phase (callgrind)")
    rows += run_callgrind(arguments.quick, notes)
    log("== Taffy (stretchable)")
    taffy_rows, problem = run_taffy(counts, 3 if arguments.quick else arguments.repetitions)
    for row in taffy_rows:
        row.setdefault("group", "taffy")
        row.setdefault("strategy", "")
    rows += taffy_rows
    if problem:
        notes["taffy"] = problem
    unverified = [row["n"] for row in taffy_rows if row.get("verified") is False and "median" in row]
    if unverified:
        notes["taffy-verified"] = ("Taffy's frames did not match the expected flow at n=%s: it sums positions in 32-bit floats, so "
                                   "y drifts past 2^24 points (x, widths and line breaks still match); the timings stand, the comparison "
                                   "target uses n=100,000, where every sampled frame matched." % ", ".join(str(n) for n in sorted(set(unverified))))
    log("== GTK collection view frame time (clients/gtk/bench/frame_time.py)")
    rows += run_gtk_frame_time(notes)
    print_table(rows)
    # Kept so the document can be rendered again (--render) without measuring again.
    with open(rows_path, "w") as handle:
        json.dump({"rows": rows, "counts": counts, "repetitions": arguments.repetitions, "toolchain": arguments.toolchain, "notes": notes}, handle)
    with open(arguments.output, "w") as handle:
        handle.write(document(rows, counts, arguments.repetitions, arguments.toolchain, notes))
    log("wrote %s" % arguments.output)


if __name__ == "__main__":
    main()
