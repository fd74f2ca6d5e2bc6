"""layoutd as a systemd service, tested without PID 1: unit verification and the security
score, socket activation, the notify protocol and watchdog, a restart under a held socket,
journald's native protocol, and the hardening proven against the running daemon in an
equivalent sandbox (bubblewrap namespaces plus seccomp programs built with libseccomp)."""
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

from harness import (DAEMON, ROOT, Client, NotifyListener, ProcessTestCase, flow_view, held_listener, pending_connections, place_fd,
                     poll_until, serving_after, start_on_held_socket, trusted_directory)

LAYOUTCTL = os.path.join(os.path.dirname(DAEMON), "layoutctl")


def run(command, **options):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **options)


class UnitTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="layoutd-units-")
        cls.stage = os.path.join(cls.dir, "stage")
        installed = run(["make", "-C", ROOT, "install", "DESTDIR=" + cls.stage, "PREFIX=/usr"])
        assert installed.returncode == 0, installed.stdout + installed.stderr
        # Not under /tmp: layoutd skips a default plugin directory with a world-writable
        # directory above it, sticky or not (protocol/plugins.md).
        cls.prefix = trusted_directory("layoutd-prefix-")
        installed = run(["make", "-C", ROOT, "install", "PREFIX=" + cls.prefix])
        assert installed.returncode == 0, installed.stdout + installed.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)
        shutil.rmtree(cls.prefix, ignore_errors=True)

    def test_install_tree(self):
        for path in ["usr/bin/layoutd", "usr/bin/layoutctl"]:
            self.assertTrue(os.access(os.path.join(self.stage, path), os.X_OK), path)
        for path in ["usr/lib/systemd/system/layoutd.socket", "usr/lib/systemd/system/layoutd.service",
                     "usr/lib/systemd/user/layoutd.socket", "usr/lib/systemd/user/layoutd.service",
                     "etc/layoutd/layoutd.conf", "usr/share/doc/layoutd/README.md", "usr/share/doc/layoutd/docs/install.md",
                     "usr/share/doc/layoutd/protocol/README.md", "usr/share/doc/layoutd/protocol/schemas/common.json",
                     "usr/share/man/man1/layoutctl.1", "usr/share/man/man8/layoutd.8", "usr/share/man/man5/layoutd.conf.5",
                     "usr/share/bash-completion/completions/layoutctl",
                     "usr/share/zsh/site-functions/_layoutctl", "usr/include/layoutd/plugin.h",
                     "usr/lib/layoutd/plugins/waterfall.so", "usr/lib/pkgconfig/layoutd-plugin.pc",
                     "usr/share/doc/layoutd/examples/circle.c", "usr/share/doc/layoutd/examples/Circle.swift",
                     "usr/share/doc/layoutd/protocol/plugins.md"]:
            self.assertTrue(os.path.isfile(os.path.join(self.stage, path)), path)
        service = open(os.path.join(self.stage, "usr/lib/systemd/system/layoutd.service")).read()
        self.assertIn("ExecStart=/usr/bin/layoutd --config /etc/layoutd/layoutd.conf", service)
        self.assertNotIn("@", service.replace("@system-service", "").replace("@privileged", "").replace("@resources", ""))
        self.assertTrue(open(os.path.join(self.stage, "usr/share/man/man1/layoutctl.1")).read().startswith(".TH LAYOUTCTL 1"))
        self.assertTrue(open(os.path.join(self.stage, "usr/share/man/man8/layoutd.8")).read().startswith(".TH LAYOUTD 8 "))
        self.assertTrue(open(os.path.join(self.stage, "usr/share/man/man5/layoutd.conf.5")).read().startswith(".TH LAYOUTD.CONF 5 "))
        # The installed default configuration is valid: the daemon starts with it.
        check = run([DAEMON, "--config", os.path.join(self.stage, "etc/layoutd/layoutd.conf"), "--print-socket-path"])
        self.assertEqual(check.returncode, 0, check.stderr)
        uninstalled = run(["make", "-C", ROOT, "uninstall", "DESTDIR=" + self.stage, "PREFIX=/usr"])
        self.assertEqual(uninstalled.returncode, 0, uninstalled.stderr)
        left = [os.path.join(folder, name) for folder, _, names in os.walk(self.stage) for name in names]
        self.assertEqual(left, [])
        run(["make", "-C", ROOT, "install", "DESTDIR=" + self.stage, "PREFIX=/usr"])

    def test_a_prefix_install_loads_its_plugins_and_builds_the_c_example(self):
        """The installed layoutd finds waterfall in <prefix>/lib/layoutd/plugins; the installed
        header and pkg-config file build the C example, which a reload then loads."""
        environment = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.prefix, "lib/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "layoutd-plugin"], env=environment)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        self.assertEqual(flags.stdout.split(), ["-I" + os.path.join(self.prefix, "include")])
        plugin_dir = run(["pkg-config", "--variable=plugindir", "layoutd-plugin"], env=environment).stdout.strip()
        self.assertEqual(plugin_dir, os.path.join(self.prefix, "lib/layoutd/plugins"))
        socket_path = os.path.join(self.dir, "prefix.sock")
        log = open(os.path.join(self.dir, "prefix.log"), "wb")
        daemon = subprocess.Popen([os.path.join(self.prefix, "bin/layoutd"), "--socket", socket_path], stdout=log, stderr=log)
        try:
            serving_after(socket_path, 10, daemon)
            with Client(socket_path) as client:
                listed = {entry["name"]: entry for entry in client.call("strategy.list")["result"]["strategies"]}
                self.assertEqual(listed["waterfall"]["origin"], os.path.join(plugin_dir, "waterfall.so"))
                built = run(["cc", "-shared", "-fPIC", "-O2"] + flags.stdout.split()
                            + [os.path.join(self.prefix, "share/doc/layoutd/examples/circle.c"), "-o",
                               os.path.join(plugin_dir, "circle-c.so"), "-lm"])
                self.assertEqual(built.returncode, 0, built.stderr)
                self.assertEqual(client.call("daemon.reload")["result"]["strategiesAdded"], ["circle-c"])
        finally:
            daemon.terminate()
            daemon.wait()
            log.close()
            if os.path.exists(os.path.join(plugin_dir, "circle-c.so")):
                os.remove(os.path.join(plugin_dir, "circle-c.so"))

    def test_system_units_in_the_destdir_tree_verify(self):
        # A root for `verify --root`: the staged tree plus systemd's own targets and slices,
        # which every unit's default dependencies name.
        root = os.path.join(self.dir, "root")
        shutil.copytree(self.stage, root, symlinks=True, dirs_exist_ok=True)
        units = os.path.join(root, "usr/lib/systemd/system")
        for folder in ["/usr/lib/systemd/system", "/lib/systemd/system"]:
            if os.path.isdir(folder):
                for name in os.listdir(folder):
                    if name.endswith((".target", ".slice")) and not os.path.exists(os.path.join(units, name)):
                        shutil.copy(os.path.join(folder, name), units, follow_symlinks=True)
        verified = run(["systemd-analyze", "verify", "--root=" + root,
                        os.path.join(units, "layoutd.socket"), os.path.join(units, "layoutd.service")])
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)

    def test_system_and_user_units_of_a_prefix_install_verify(self):
        system = os.path.join(self.prefix, "lib/systemd/system")
        user = os.path.join(self.prefix, "lib/systemd/user")
        verified = run(["systemd-analyze", "verify", os.path.join(system, "layoutd.socket"), os.path.join(system, "layoutd.service")])
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)
        runtime = os.path.join(self.dir, "xdg")
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        verified = run(["systemd-analyze", "verify", "--user", os.path.join(user, "layoutd.socket"), os.path.join(user, "layoutd.service")],
                       env=dict(os.environ, XDG_RUNTIME_DIR=runtime))
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)

    def test_security_score(self):
        scored = run(["systemd-analyze", "security", "--offline=yes", "--threshold=10", "--root=" + self.stage, "layoutd.service"])
        match = re.search(r"Overall exposure level for layoutd.service: ([0-9.]+)", scored.stdout)
        self.assertIsNotNone(match, scored.stdout + scored.stderr)
        print("\n  systemd-analyze security --offline=yes: layoutd.service scores %s" % match.group(1))
        # The gate itself: the command fails above the threshold (tenths: 10 is 1.0).
        gated = run(["systemd-analyze", "security", "--offline=yes", "--threshold=10", "--root=" + self.stage, "layoutd.service"])
        self.assertEqual(gated.returncode, 0, gated.stdout[-2000:] + gated.stderr)
        self.assertLessEqual(float(match.group(1)), 1.0)


class ActivationTests(ProcessTestCase):
    prefix = "layoutd-sd-"

    def log(self, name="layoutd.log"):
        path = os.path.join(self.dir, name)
        return open(path).read() if os.path.exists(path) else ""

    def test_socket_activation_with_systemd_socket_activate(self):
        path = os.path.join(self.dir, "ipc.sock")
        log = open(os.path.join(self.dir, "layoutd.log"), "w")
        activator = subprocess.Popen(["systemd-socket-activate", "-l", path, "--fdname=ipc", DAEMON, "--log-level", "debug"],
                                     stdout=log, stderr=log)
        self.processes.append(activator)
        deadline = time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        inode = os.stat(path).st_ino
        with Client(path) as client:
            self.assertIn("result", client.call("view.create", flow_view("v", 10)))
            self.assertEqual(client.call("view.scroll", {"view": "v", "offset": {"x": 0, "y": 5}})["result"]["epoch"], 1)
        # The daemon used the socket it was given: same file, no bind of its own.
        self.assertEqual(os.stat(path).st_ino, inode)
        self.assertIn("socket passed by systemd", self.log())
        self.assertNotIn("listening on", self.log())
        activator.send_signal(signal.SIGTERM)
        self.assertEqual(activator.wait(20), 0)
        # The socket file belongs to the manager: the daemon does not remove it.
        self.assertTrue(stat.S_ISSOCK(os.lstat(path).st_mode))

    def test_a_passed_socket_with_another_name_is_refused_clearly(self):
        path = os.path.join(self.dir, "other.sock")
        log = open(os.path.join(self.dir, "layoutd.log"), "w")
        activator = subprocess.Popen(["systemd-socket-activate", "-l", path, "--fdname=metrics", DAEMON], stdout=log, stderr=log)
        self.processes.append(activator)
        deadline = time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        probe = socket.socket(socket.AF_UNIX)
        probe.connect(path)
        self.assertEqual(activator.wait(20), 1)
        self.assertIn("none named 'ipc'", self.log())

    def start_with_held_socket(self, listener, extra_env=None, log_name="layoutd.log"):
        process = start_on_held_socket(listener, os.path.join(self.dir, log_name), extra_env)
        self.processes.append(process)
        return process

    def held_listener(self):
        return held_listener(self.dir)

    def test_notify_ready_status_watchdog_reload_stopping(self):
        path, listener = self.held_listener()
        notify = NotifyListener(self.dir)
        try:
            daemon = self.start_with_held_socket(listener, {"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000"})
            index, (ready_at, ready) = notify.wait_for("READY=1")
            self.assertIn("STATUS=0 views, 0 connections", ready)
            # READY means the socket accepts: a request is answered at once.
            with Client(path) as client:
                self.assertIn("result", client.call("view.create", flow_view("v", 10)))
                # Watchdog pings every WATCHDOG_USEC / 2, with STATUS updates.
                first, _ = notify.wait_for("WATCHDOG=1", after=index)

                def since_first_ping():
                    """The pings' arrival times and the status messages since the first
                    ping, once there are 11 pings (10 intervals) and a status."""
                    with notify.lock:
                        pings = [at for at, message in notify.messages[first:] if "WATCHDOG=1" in message]
                        statuses = [message for _, message in notify.messages[first:] if "STATUS=1 view" in message]
                    return (pings, statuses) if len(pings) >= 11 and statuses else None

                pings, statuses = poll_until(since_first_ping, what="11 watchdog pings and a status")
                intervals = [b - a for a, b in zip(pings, pings[1:])]
                # 0.15 s, with 0.08 s to spare either way on a loaded machine: a ping every
                # whole WATCHDOG_USEC (at systemd's deadline) fails, as does one too eager.
                self.assertLess(max(intervals), 0.23, intervals)
                self.assertGreater(min(intervals), 0.07, intervals)
                print("\n  watchdog: %d pings, intervals %.3f–%.3f s for WATCHDOG_USEC=0.3 s" % (len(pings), min(intervals), max(intervals)))
                # SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1.
                mark = len(notify.messages)
                daemon.send_signal(signal.SIGHUP)
                reloading, (_, message) = notify.wait_for("RELOADING=1", after=mark)
                self.assertRegex(message, r"MONOTONIC_USEC=\d+")
                notify.wait_for("READY=1", after=reloading)
                # daemon.reload over the socket does the same.
                mark = len(notify.messages)
                self.assertEqual(client.call("daemon.reload")["result"]["generation"], 2)
                reloading, _ = notify.wait_for("RELOADING=1", after=mark)
                notify.wait_for("READY=1", after=reloading)
                # layoutctl reload --wait (the units' ExecReload) reaches the same method.
                mark = len(notify.messages)
                ctl = run([LAYOUTCTL, "--socket", path, "reload", "--wait"])
                self.assertEqual(ctl.returncode, 0, ctl.stderr)
                self.assertEqual(json.loads(ctl.stdout)["generation"], 3)
                notify.wait_for("RELOADING=1", after=mark)
            mark = len(notify.messages)
            daemon.send_signal(signal.SIGTERM)
            notify.wait_for("STOPPING=1", after=mark)
            self.assertEqual(daemon.wait(20), 0)
        finally:
            notify.close()

    def test_ready_is_not_sent_before_the_socket_accepts(self):
        # Bound here without a socket for the daemon: it must fail, and never say READY=1.
        notify = NotifyListener(self.dir)
        try:
            env = dict(os.environ, NOTIFY_SOCKET=notify.path, LISTEN_FDS="1", LISTEN_FDNAMES="ipc")
            process = subprocess.run(["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$@"', "sh", DAEMON], env=env,
                                     capture_output=True, text=True, timeout=20)
            self.assertEqual(process.returncode, 1, process.stderr)
            # Whatever the daemon sent before it exited is queued ahead of the barrier's marker.
            received = notify.barrier()
            self.assertFalse(any("READY=1" in message for _, message in received), received)
        finally:
            notify.close()

    def test_restart_under_a_held_socket_refuses_no_client(self):
        path, listener = self.held_listener()
        first = self.start_with_held_socket(listener)
        with Client(path) as client:
            client.call("daemon.hello")
        results, stop, hammers = [], threading.Event(), 4
        retried = []
        answered = [None] * hammers  # per hammer, when it last had a reply

        def hammer(number):
            while not stop.is_set():
                events = []
                try:
                    with Client(path, timeout=30) as client:
                        results.append("result" in client.call("daemon.sync", events=events))
                        answered[number] = time.monotonic()
                except EOFError as error:
                    # The old daemon accepted this connection but stopped before reading
                    # the request: it says so with daemon.shutdown, and the client retries
                    # (as protocol/README.md asks). Anything else is a failure.
                    if [event["event"] for event in events] == ["daemon.shutdown"]:
                        retried.append(1)
                    else:
                        results.append(repr(error))
                except Exception as error:  # refused, reset: the failure this test is about
                    results.append(repr(error))

        def all_answered_since(moment):
            return all(at is not None and at > moment for at in answered)

        threads = [threading.Thread(target=hammer, args=(number,)) for number in range(hammers)]
        self.addCleanup(stop.set)
        for thread in threads:
            thread.start()
        # A restart under load: every hammer has been answered by the first daemon.
        poll_until(lambda: all_answered_since(float("-inf")), what="every hammer answered by the first daemon")
        first.send_signal(signal.SIGTERM)
        self.assertEqual(first.wait(20), 0)
        # The gap: with no daemon, every hammer's next connection waits in the held socket's
        # backlog (a hammer has one connection at a time).
        poll_until(lambda: pending_connections(listener) >= hammers, what="every hammer waiting in the backlog")
        second_started = time.monotonic()
        second = self.start_with_held_socket(listener)
        # The second daemon answers those connections: a reply after it started is its own.
        poll_until(lambda: all_answered_since(second_started), timeout=20, what="every hammer answered by the second daemon")
        stop.set()
        for thread in threads:
            thread.join(30)
        failures = [result for result in results if result is not True]
        self.assertEqual(failures, [])
        second.send_signal(signal.SIGTERM)
        self.assertEqual(second.wait(20), 0)
        print("\n  restart under a held socket: %d connections across the restart, none refused, %d told to retry by daemon.shutdown"
              % (len(results), len(retried)))


JOURNAL_SOCKET = "/run/systemd/journal/socket"


@unittest.skipUnless(os.geteuid() == 0 and not os.path.exists(JOURNAL_SOCKET), "needs root and no journald on this machine")
class JournalTests(unittest.TestCase):
    def test_native_journal_fields_when_stderr_is_the_journal(self):
        os.makedirs(os.path.dirname(JOURNAL_SOCKET), exist_ok=True)
        journal = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        journal.bind(JOURNAL_SOCKET)
        journal.settimeout(5)
        directory = tempfile.mkdtemp(prefix="layoutd-journal-")
        try:
            stream = open(os.path.join(directory, "stderr"), "w")
            status = os.fstat(stream.fileno())
            env = dict(os.environ, JOURNAL_STREAM="%d:%d" % (status.st_dev, status.st_ino))
            path = os.path.join(directory, "ipc.sock")
            daemon = subprocess.Popen([DAEMON, "--socket", path], env=env, stdout=stream, stderr=stream)
            entries = []
            deadline = time.monotonic() + 10
            while not os.path.exists(path) and time.monotonic() < deadline:
                time.sleep(0.02)
            with Client(path) as client:
                client.call("view.create", flow_view("v", 3))
                self.assertEqual(client.call("view.update", {"view": "v", "updates": [{"op": "deleteItems", "ids": ["nope"]}]})["error"]["name"], "ItemNotFound")
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(20)
            while True:
                try:
                    entries.append(journal.recv(65536).decode())
                except socket.timeout:
                    break
                if "stopped" in entries[-1]:
                    break
            fields = [dict(line.split("=", 1) for line in entry.splitlines() if "=" in line) for entry in entries]
            refused = [entry for entry in fields if entry.get("LAYOUTD_METHOD") == "view.update"]
            self.assertEqual(len(refused), 1, entries)
            self.assertEqual(refused[0]["LAYOUTD_ERROR"], "ItemNotFound")
            self.assertEqual(refused[0]["LAYOUTD_VIEW"], "v")
            self.assertEqual(refused[0]["PRIORITY"], "6")
            self.assertEqual(refused[0]["SYSLOG_IDENTIFIER"], "layoutd")
            self.assertIn("LAYOUTD_PEER_UID", refused[0])
            self.assertIn("LAYOUTD_LATENCY_US", refused[0])
            self.assertTrue(any(entry.get("PRIORITY") == "5" and "serving" in entry.get("MESSAGE", "") or "listening" in entry.get("MESSAGE", "") for entry in fields))
            # Nothing went to the stderr stream itself.
            self.assertEqual(open(os.path.join(directory, "stderr")).read(), "")
        finally:
            journal.close()
            os.unlink(JOURNAL_SOCKET)


def descendants(pid):
    """Every process below `pid`."""
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            children = open("/proc/%d/task/%s/children" % (pid, task)).read().split()
        except OSError:
            continue
        for child in map(int, children):
            found += [child] + descendants(child)
    return found


def expand_syscall_sets():
    """Set name -> syscall names, from `systemd-analyze syscall-filter`, nested sets expanded."""
    output = run(["systemd-analyze", "syscall-filter"]).stdout
    sets, current = {}, None
    for line in output.splitlines():
        if line.startswith("@"):
            current = line.strip()
            sets[current] = []
        elif current and line.startswith("    ") and not line.strip().startswith("#"):
            sets[current].append(line.strip())

    def expand(name, seen):
        names = set()
        for member in sets[name]:
            if member.startswith("@"):
                if member not in seen:
                    seen.add(member)
                    names |= expand(member, seen)
            else:
                names.add(member)
        return names

    return lambda name: expand(name, {name})


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("bwrap") and shutil.which("gcc"), "needs root, bubblewrap and gcc")
class HardeningTests(unittest.TestCase):
    """The service's hardening, applied to the real daemon by equivalent means (systemd-run
    needs PID 1): bubblewrap for the namespaces, the uid, the read-only system and the empty
    capability set, and seccomp programs for SystemCallFilter, MemoryDenyWriteExecute and
    RestrictAddressFamilies, read from the unit file itself."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="layoutd-sandbox-")
        os.chmod(cls.dir, 0o755)
        cls.bin = os.path.join(cls.dir, "bin")
        os.makedirs(cls.bin)
        sandbox = os.path.join(ROOT, "system-tests", "sandbox")
        for source, output, libraries in [("seccomp-bpf.c", "seccomp-bpf", ["-lseccomp"]), ("probe.c", "probe", [])]:
            built = run(["gcc", "-O2", "-Wall", "-o", os.path.join(cls.bin, output), os.path.join(sandbox, source)] + libraries)
            assert built.returncode == 0, built.stderr
        shutil.copy(DAEMON, os.path.join(cls.bin, "layoutd"))
        # The filter the unit names, applied in order as systemd does: the first line makes
        # an allow list, "~" lines remove from it, later plain lines add back.
        unit = open(os.path.join(ROOT, "systemd", "layoutd.service")).read()
        entries = [line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("SystemCallFilter=")]
        assert entries[0] == "@system-service", entries
        assert "MemoryDenyWriteExecute=yes" in unit and "RestrictAddressFamilies=AF_UNIX" in unit
        expand = expand_syscall_sets()

        def members(word):
            return expand(word) if word.startswith("@") else {word}

        names = set()
        for entry in entries:
            removing = entry.startswith("~")
            for word in entry.lstrip("~").split():
                names = names - members(word) if removing else names | members(word)
        cls.allow_bpf = os.path.join(cls.dir, "allow.bpf")
        cls.deny_bpf = os.path.join(cls.dir, "deny.bpf")
        built = run([os.path.join(cls.bin, "seccomp-bpf"), cls.allow_bpf, cls.deny_bpf], input="\n".join(sorted(names)))
        assert built.returncode == 0, built.stderr
        cls.allowed_count = len(names)

    def sandboxed(self, command, listener=None, env=None):
        """bwrap: ProtectSystem=strict (read-only /), PrivateTmp, PrivateDevices, ProtectHome,
        PrivateNetwork/IPC (unshared), a uid of its own (DynamicUser), no capabilities,
        NoNewPrivileges (always set by bwrap), plus the two seccomp programs."""
        # Kept on self: the files must stay open until the child has duplicated them.
        self.filters = (open(self.allow_bpf, "rb"), open(self.deny_bpf, "rb"))
        allow, deny = self.filters
        arguments = [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--tmpfs", "/home", "--tmpfs", "/root", "--ro-bind", self.bin, "/tmp/layoutd",
            "--unshare-all", "--unshare-user", "--uid", "61000", "--gid", "61000", "--die-with-parent",
            "--cap-drop", "ALL", "--add-seccomp-fd", "10", "--add-seccomp-fd", "11",
        ] + command

        def prepare():
            if listener is not None:
                place_fd(listener.fileno(), 3)
            place_fd(allow.fileno(), 10)
            place_fd(deny.fileno(), 11)

        return dict(args=arguments, close_fds=False, preexec_fn=prepare, env=env)

    def test_the_sandbox_enforces_what_it_claims(self):
        options = self.sandboxed(["/tmp/layoutd/probe"])
        probe = subprocess.run(capture_output=True, text=True, timeout=60, **options)
        lines = dict(line.split(" ", 1) for line in probe.stdout.splitlines())
        self.assertEqual(lines["mmap-wx"], "Operation not permitted")
        self.assertEqual(lines["mprotect-x"], "Operation not permitted")
        self.assertEqual(lines["socket-inet"], "Address family not supported by protocol")
        self.assertEqual(lines["socket-unix"], "allowed")
        self.assertEqual(lines["uid"], "61000")
        self.assertNotIn("swapoff survived", probe.stdout)
        self.assertIn(probe.returncode, (128 + signal.SIGSYS, -signal.SIGSYS), probe.stderr)

    def test_layoutd_serves_its_whole_workload_inside_the_sandbox(self):
        # The socket comes from outside, as systemd passes it (the daemon has no network
        # namespace of ours to be reached in).
        path = os.path.join(self.dir, "ipc.sock")
        if os.path.exists(path):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(64)
        env = dict(os.environ, LISTEN_FDS="1", LISTEN_FDNAMES="ipc")
        options = self.sandboxed(["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$@"', "sh", "/tmp/layoutd/layoutd", "--log-level", "debug"],
                                 listener=listener, env=env)
        log = open(os.path.join(self.dir, "sandboxed.log"), "w")
        daemon = subprocess.Popen(stdout=log, stderr=log, **options)
        try:
            with Client(path, timeout=30) as client, Client(path, timeout=30) as watcher:
                self.assertEqual(client.call("daemon.hello")["result"]["protocol"], 1)
                events = []
                for strategy, params in [("flow", {"itemSize": {"width": 90, "height": 90}}), ("collapsible", {}),
                                         ("ultravisual", {}), ("display", {"mode": "grid"})]:
                    view = "v-" + strategy
                    created = client.call("view.create", flow_view(view, 3000, strategy=strategy, params=params))
                    self.assertIn("result", created, created)
                    self.assertIn("result", watcher.call("view.subscribe", {"view": view}, events=events))
                    for y in range(0, 3000, 150):
                        self.assertIn("result", client.call("view.scroll", {"view": view, "offset": {"x": 0, "y": y}}))
                    self.assertIn("result", client.call("view.select", {"view": view, "ids": ["i3", "i4", "i5"], "animated": True}))
                    self.assertIn("result", client.call("view.update", {"view": view, "animated": True, "updates": [
                        {"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "new"}]}, {"op": "deleteItems", "ids": ["i9"]}]}))
                    self.assertIn("result", client.call("view.resize", {"view": view, "size": {"width": 500, "height": 700}, "animated": True}))
                    self.assertEqual(client.call("view.update", {"view": view, "updates": [{"op": "deleteItems", "ids": ["ghost"]}]})["error"]["name"], "ItemNotFound")
                self.assertIn("result", client.call("view.setStrategy", {"view": "v-flow", "strategy": "display", "animated": True}))
                self.assertIn("result", client.call("daemon.reload"))
                watcher.call("daemon.sync", events=events)
                # 20 scrolls, a selection, a batch and a resize per view, and the switch.
                self.assertEqual(len(events), 4 * 23 + 1)
                self.assertEqual([event["seq"] for event in events], list(range(1, len(events) + 1)))
                status = client.call("daemon.status")["result"]
                self.assertEqual(status["views"], 4)
                self.assertGreater(status["memory"]["residentBytes"], 0)
            # bwrap does not forward signals: SIGTERM goes to the daemon inside, as systemd's
            # would, and bwrap exits with its status.
            inside = [pid for pid in descendants(daemon.pid) if os.readlink("/proc/%d/exe" % pid).endswith("/layoutd")]
            self.assertEqual(len(inside), 1, inside)
            os.kill(inside[0], signal.SIGTERM)
            self.assertEqual(daemon.wait(30), 0, open(os.path.join(self.dir, "sandboxed.log")).read())
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
        log_text = open(os.path.join(self.dir, "sandboxed.log")).read()
        self.assertIn("socket passed by systemd", log_text)
        self.assertIn("answered", log_text)
        print("\n  layoutd served all four strategies under %d allowed syscalls, MemoryDenyWriteExecute, AF_UNIX only, uid 61000, no capabilities" % self.allowed_count)


if __name__ == "__main__":
    unittest.main()
