"""Starts a real layoutd on a temporary socket and talks to it line by line, over the layoutd
Python package's connection (clients/python, imported from the tree).

Shared by the end-to-end tests, the transcript replayer and the soak. Standard library only.
"""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DAEMON = os.environ.get("LAYOUTD_BIN", os.path.join(ROOT, ".build", "debug", "layoutd"))

sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import layoutd  # noqa: E402  (the Python client: the tests' connections are its)


class Daemon:
    """One layoutd process on a socket in a fresh 0700 directory."""

    def __init__(self, *args, socket_path=None, env=None, binary=DAEMON, default_plugin_dir=False):
        """`default_plugin_dir`: keep the daemon's default plugin directory (else it is off, so
        nothing installed on the machine is loaded); `binary`: another copy of layoutd."""
        self.binary = binary
        self.default_plugin_dir = default_plugin_dir
        self.dir = tempfile.mkdtemp(prefix="layoutd-e2e-")
        self.path = socket_path or os.path.join(self.dir, "run", "ipc.sock")
        self.log_path = os.path.join(self.dir, "layoutd.log")
        self.args = list(args)
        self.env = env
        self.process = None

    def start(self, wait=True):
        self.log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.pop("LAYOUTD_SOCKET", None)
        if self.env:
            env.update(self.env)
        self.process = subprocess.Popen(
            [self.binary, "--socket", self.path, "--log-level", "debug"]
            + ([] if self.default_plugin_dir else ["--set", "default-plugin-dir=none"]) + self.args,
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env)
        if wait:
            self.wait_until_serving()
        return self

    def wait_until_serving(self, timeout=10):
        try:
            serving_after(self.path, timeout, self.process)
        except RuntimeError as error:
            raise RuntimeError("%s:\n%s" % (error, self.read_log())) from None

    def read_log(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def signal(self, number):
        self.process.send_signal(number)

    def stop(self, timeout=15):
        """SIGTERM and wait; returns the exit status."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if hasattr(self, "log"):
            self.log.close()
        return self.process.returncode if self.process else None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def serving_after(path, timeout=10, process=None):
    """Seconds until a new connection on `path` gets a reply to daemon.hello; RuntimeError
    when `timeout` passes first or `process` (the daemon, if given) exits.

    The probe ends its side and waits for the daemon to close, so the daemon has counted it
    gone before this returns: a transcript's `daemon.status` right after start sees one open
    connection, not the probe still being closed on another I/O thread (a CI run once saw 2)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process is not None and process.poll() is not None:
            raise RuntimeError("layoutd exited with %s" % process.returncode)
        try:
            with Client(path, timeout=timeout) as client:
                if client.call("daemon.hello").get("result"):
                    client.sock.shutdown(socket.SHUT_WR)
                    if client.read_line() is None:  # end of stream: the daemon closed the probe
                        return time.monotonic() - started
        except (OSError, EOFError):
            time.sleep(0.01)
    raise RuntimeError("layoutd did not start serving within %s s" % timeout)


def poll_until(condition, timeout=10, interval=0.01, what=None):
    """Calls `condition` until it returns a true value, which is returned; AssertionError
    naming `what` when `timeout` seconds pass first. What a test waits for instead of a fixed
    sleep: the condition itself, asked again every `interval` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError("not within %s s: %s" % (timeout, what or getattr(condition, "__name__", "the condition")))
        time.sleep(interval)


class Client:
    """A test's line-oriented view of one connection: raw lines and whole reply messages (an
    error reply is returned, not raised), requests encoded exactly as given. The connection is
    the layoutd package's (clients/python): its socket, its line framing and its reads; this
    class only keeps the tests' own API over it."""

    def __init__(self, path, timeout=10):
        self.connection = layoutd.Client(path, timeout=timeout)
        self.next_id = 1

    @property
    def sock(self):
        return self.connection.sock

    @property
    def buffer(self):
        """Bytes read after the last whole line (a line cut by a close shows here)."""
        return self.connection.buffered

    def close(self):
        self.connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data):
        """The bytes as they are; a closed connection raises BrokenPipeError as the socket does."""
        self.sock.sendall(data)

    def send(self, method, params=None, id=True):
        """A request line; `id` True takes the next number, None makes a notification; `params`
        None leaves them out (an empty dict is sent as one). Returns the id."""
        message = {"method": method}
        if id is True:
            id = self.next_id
            self.next_id += 1
        if id is not None:
            message = {"id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_raw(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return id

    def read_line(self, timeout=None):
        """One line (bytes, without the newline); None at end of stream. `timeout` (seconds)
        stays the socket's timeout for later reads, as settimeout does."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        return self.connection.read_line(self.sock.gettimeout())

    def read(self, timeout=None):
        line = self.read_line(timeout)
        return None if line is None else json.loads(line)

    def read_until_reply(self, id, events=None):
        """Reads lines until the reply to `id`; events met on the way go to `events`."""
        while True:
            message = self.read()
            if message is None:
                raise EOFError("connection closed before reply %r" % id)
            if "event" in message:
                if events is not None:
                    events.append(message)
                continue
            if message.get("id") != id:
                raise AssertionError("reply out of order: wanted %r, got %r" % (id, message))
            return message

    def call(self, method, params=None, events=None):
        return self.read_until_reply(self.send(method, params), events)

    def pending(self, timeout=0.0):
        """Whether a line or bytes are readable within `timeout`."""
        return self.connection.pending(timeout)


class NotifyListener:
    """A datagram socket bound as NOTIFY_SOCKET, read by a thread with arrival times."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.messages = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while self.running:
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.messages.append((time.monotonic(), data.decode()))

    def wait_for(self, key, after=0, timeout=10):
        """The first message after index `after` with a line starting with `key`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for index in range(after, len(self.messages)):
                    if any(line.startswith(key) for line in self.messages[index][1].splitlines()):
                        return index, self.messages[index]
            time.sleep(0.01)
        raise AssertionError("no %s notification; got %r" % (key, self.messages))

    def barrier(self):
        """The messages received before a marker this sends itself, once the marker is read.
        A datagram socket queues in the order of the sends, so once a sender has finished
        (exited), every message it sent is among these: no need to wait and see."""
        marker = "BARRIER=%d" % time.monotonic_ns()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.sendto(marker.encode(), self.path)
        index, _ = self.wait_for(marker)
        with self.lock:
            return self.messages[:index]

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class ProcessTestCase(unittest.TestCase):
    """A test that starts daemons itself: a temporary directory, and every process it put in
    `self.processes` killed (if still running) and the directory removed afterwards."""

    prefix = "layoutd-test-"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        self.processes = []

    def tearDown(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def trusted_directory(prefix):
    """A new 0755 directory none of whose ancestors another user could write (not even a
    sticky /tmp): where a test installs a prefix whose default plugin directory layoutd must
    trust. The build tree when the checkout lives in such a place, else /run or /var/lib
    (the tests run as root)."""
    def trusted(path):
        while True:
            info = os.stat(path)
            if info.st_uid not in (0, os.geteuid()) or info.st_mode & 0o022:
                return False
            if path == "/":
                return True
            path = os.path.dirname(path)

    build = os.path.join(ROOT, ".build")
    os.makedirs(build, exist_ok=True)
    for base in (build, "/run", "/var/lib"):
        if os.path.isdir(base) and os.access(base, os.W_OK) and trusted(os.path.realpath(base)):
            directory = tempfile.mkdtemp(prefix=prefix, dir=base)
            os.chmod(directory, 0o755)
            return directory
    raise unittest.SkipTest("no directory here is free of world-writable ancestors")


def place_fd(fd, target):
    """In a child before exec: `fd` as `target`, inheritable (dup2 of an fd onto itself keeps
    its close-on-exec flag, so that case clears it)."""
    if fd == target:
        os.set_inheritable(target, True)
    else:
        os.dup2(fd, target)


def held_listener(directory, name="held.sock"):
    """A listening socket the test holds, as systemd holds a .socket unit's: daemons come and
    go, the socket and its backlog stay."""
    path = os.path.join(directory, name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    return path, listener


def pending_connections(listener):
    """How many connections wait in a listening Unix socket's backlog, not yet accepted (what
    `ss -xl` shows as Recv-Q), asked of the kernel over sock_diag netlink for this socket's
    inode."""
    sock_diag_by_family, udiag_show_rqlen, unix_diag_rqlen = 20, 0x10, 4
    no_cookie = 0xFFFFFFFF
    inode = os.fstat(listener.fileno()).st_ino
    request = struct.pack("=BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, inode, udiag_show_rqlen, no_cookie, no_cookie)
    header = struct.pack("=IHHII", 16 + len(request), sock_diag_by_family, 1, 1, 0)  # NLM_F_REQUEST
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4) as diag:  # NETLINK_SOCK_DIAG
        diag.send(header + request)
        reply = diag.recv(65536)
    length, kind = struct.unpack_from("=IH", reply)
    if kind != sock_diag_by_family:  # NLMSG_ERROR: no such socket
        raise OSError("sock_diag found no socket with inode %d" % inode)
    offset = 16 + 16  # nlmsghdr, unix_diag_msg
    while offset + 4 <= length:
        size, attribute = struct.unpack_from("=HH", reply, offset)
        if attribute == unix_diag_rqlen:
            return struct.unpack_from("=I", reply, offset + 4)[0]
        offset += (size + 3) & ~3
    raise OSError("sock_diag gave no queue length")


def start_on_held_socket(listener, log_path, extra_env=None, args=()):
    """Starts layoutd with `listener` as fd 3 and LISTEN_* set as systemd does."""
    env = dict(os.environ, LISTEN_FDS="1", LISTEN_FDNAMES="ipc")
    env.pop("NOTIFY_SOCKET", None)
    env.pop("LAYOUTD_SOCKET", None)
    if extra_env:
        env.update(extra_env)
    log = open(log_path, "a")
    # LISTEN_PID must be the daemon's pid: the shell sets it and execs. dup2 in the child
    # (not pass_fds, which must name fds the parent has); close_fds off so fd 3 survives,
    # while Python's own fds stay close-on-exec.
    process = subprocess.Popen(["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$@"', "sh", DAEMON, "--log-level", "debug"] + list(args),
                               env=env, stdout=log, stderr=log, close_fds=False,
                               preexec_fn=lambda: place_fd(listener.fileno(), 3))
    log.close()
    return process


def resident_bytes(pid, field="VmRSS"):
    """VmRSS (now) or VmHWM (peak) of a process, in bytes."""
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def flow_view(name, items, width=375, height=667, item=(100, 100), strategy="flow", params=None):
    """view.create params for a flow view of `items` uniform items."""
    return {
        "view": name, "strategy": strategy,
        "params": params if params is not None else {"itemSize": {"width": item[0], "height": item[1]}},
        "viewport": {"width": width, "height": height},
        "sections": [{"id": "s", "items": [{"id": "i%d" % n} for n in range(items)]}],
    }


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# Reading a whole view. `caller` is anything whose `call(method, params)` returns the result
# (the layoutd package's Client, or a test's own helper around harness.Client).

def query_all(caller, view, rect, limit=1000):
    """Every element intersecting `rect`, over as many `view.query` pages as it takes."""
    elements, after = [], None
    while True:
        params = {"view": view, "rect": rect, "limit": limit}
        if after:
            params["after"] = after
        page = caller.call("view.query", params)
        elements += page["elements"]
        after = page.get("next")
        if not after:
            return elements


def view_contents(caller, view):
    """The view's snapshot (`view.get`), every element of its content and its selection."""
    snapshot = caller.call("view.get", {"view": view})
    size = snapshot["contentSize"]
    rect = {"x": -2000, "y": -2000, "width": size["width"] + 4000, "height": size["height"] + 4000}
    return snapshot, query_all(caller, view, rect), caller.call("view.selection", {"view": view})["ids"]


def export_parts(caller, view, limit=None):
    """Every part of `view.export`, each call with `limit` when given."""
    params = {"view": view}
    if limit:
        params["limit"] = limit
    parts = [caller.call("view.export", params)]
    while parts[-1]["next"] is not None:
        parts.append(caller.call("view.export", dict(params, cursor=parts[-1]["next"])))
    return parts

