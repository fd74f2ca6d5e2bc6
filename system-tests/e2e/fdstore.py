"""An emulator of systemd 252's notify socket and file descriptor store, for tests that
cannot boot PID 1. Standard library only.

What it emulates, and where systemd 252 says so (its man pages as Debian 12 installs them,
and src/core/service.c's fd store code):

- NOTIFY_SOCKET is an AF_UNIX datagram socket; a message is newline-separated assignments, at
  most 4096 bytes (NOTIFY_BUFFER_MAX; a longer one is ignored whole). The sender's pid comes
  from SCM_CREDENTIALS: with NotifyAccess=main (the units' setting, and the default with an fd
  store) a message from any other process is ignored and its fds closed.
- READY=1, STATUS=, STOPPING=1, RELOADING=1 and WATCHDOG=1 are recorded with their arrival
  time (no watchdog is enforced).
- FDSTORE=1 keeps each fd of the message under FDNAME=, or "stored" when FDNAME= is missing or
  invalid (sd_notify(3): at most 255 ASCII characters, no control characters, no ':'). An fd
  naming an open file already stored is dropped (same_fd). Past FileDescriptorStoreMax= the
  rest of the message's fds are closed, as are all fds when it is 0 (the default).
  FDSTOREREMOVE=1 with a valid FDNAME= closes every stored fd of that name; it wins over
  FDSTORE=1 in one message. FDPOLL=0 exempts an fd from the next rule.
- A stored fd on which POLLHUP or POLLERR is seen is closed and forgotten (a connection whose
  peer hung up). systemd watches continuously; the emulator looks whenever the store is read
  (`stored()`, `restart()`), which no observer can tell apart.
- BARRIER=1 must come alone with exactly one fd, which is closed once every earlier message
  has been processed (sd_notify_barrier(3)); the reader handles messages in order, so at once.
- Fds sent with any other message are closed on reception (sd_pid_notify_with_fds(3)).
- The store survives a restart: `systemctl restart` and `try-restart` (a restart job) and an
  automatic Restart= restart. It is closed when the unit stops with no job queued
  (systemd.service(5), FileDescriptorStoreMax=: "automatically closed when POLLHUP or POLLERR
  is seen on them, or when the service is fully stopped and no job is queued or being executed
  for it"). `restart()` is the former, `stop()` the latter.
- At each start the process gets the socket unit's fds first (`sockets`, as
  FileDescriptorName= names them), then the store's (sd_listen_fds(3): "passed last, in
  arbitrary order, and with duplicates removed"); 252 keeps its store in a list it prepends to,
  so newest first, and so does this. fds 3, 4, … with LISTEN_FDS, LISTEN_FDNAMES and
  LISTEN_PID (the process's own pid: the command is exec'd by `sh -c 'LISTEN_PID=$$ exec "$@"'`).

Not emulated: the watchdog's enforcement, timeouts other than the stop timeout, MAINPID=,
EXTEND_TIMEOUT_USEC=, and the journal.

    manager = ServiceManager([DAEMON, "--log-level", "debug"], directory, sockets=[("ipc", listener)],
                             fd_store_max=1026, log_path=os.path.join(directory, "layoutd.log"))
    manager.start()
    manager.wait_ready()
    ...                          # clients connect and mutate
    manager.restart()            # SIGTERM, wait for the exit, start again with the store
    manager.wait_ready(after=mark)
    manager.stop()               # SIGTERM, wait, and the store is closed
"""
import array
import ctypes
import fcntl
import os
import select
import signal
import socket
import struct
import subprocess
import threading
import time

NOTIFY_BUFFER_MAX = 4096
SCM_MAX_FD = 253
FDNAME_MAX = 255


def fdname_is_valid(name):
    """systemd's rule for a name in LISTEN_FDNAMES (sd_notify(3), FDNAME=)."""
    return len(name) <= FDNAME_MAX and all(32 <= ord(c) < 127 and c != ":" for c in name)


_libc = ctypes.CDLL(None, use_errno=True)
_SYS_KCMP = 312  # x86_64
_KCMP_FILE = 0


def same_fd(a, b):
    """Whether two fds of this process name the same open file (systemd's same_fd): kcmp,
    else the inode, which is exact for sockets and memfds."""
    if a == b:
        return True
    first, second = os.fstat(a), os.fstat(b)
    if (first.st_dev, first.st_ino) != (second.st_dev, second.st_ino):
        return False
    result = _libc.syscall(_SYS_KCMP, os.getpid(), os.getpid(), _KCMP_FILE, a, b)
    return result == 0 if result >= 0 else True


class Notification:
    """One accepted message: arrival time, sender pid, its lines and fields."""

    def __init__(self, at, pid, text):
        self.at = at
        self.pid = pid
        self.text = text
        self.lines = text.split("\n")
        self.fields = {}
        for line in self.lines:
            if "=" in line:
                key, value = line.split("=", 1)
                self.fields.setdefault(key, value)

    def __repr__(self):
        return "Notification(pid=%d, %r)" % (self.pid, self.text)


class StoredFd:
    def __init__(self, name, fd, poll):
        self.name = name
        self.fd = fd
        self.poll = poll


class ServiceManager:
    """One service under an emulated systemd 252: its notify socket, its fd store and its
    process, restarted with the store as systemd would."""

    def __init__(self, command, directory, sockets=(), fd_store_max=0, env=None, notify_access="main",
                 log_path=None, stop_timeout=20):
        """`command`: argv of the service (exec'd through sh for LISTEN_PID); `sockets`:
        (name, socket or fd) pairs passed first at every start, as a .socket unit's; `env`:
        extra environment; `notify_access`: "main" or "all"."""
        assert notify_access in ("main", "all")
        self.command = list(command)
        self.sockets = [(name, sock if isinstance(sock, int) else sock.fileno()) for name, sock in sockets]
        self.fd_store_max = fd_store_max
        self.env = env or {}
        self.notify_access = notify_access
        self.log_path = log_path or os.path.join(directory, "service.log")
        self.stop_timeout = stop_timeout
        self.path = os.path.join(directory, "notify-%s.sock" % os.urandom(4).hex())
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        # Room for a burst of stores while the reader is busy: as systemd's 8 MiB.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(self.path)
        self.lock = threading.Condition()
        self.messages = []
        self.ignored = []      # (reason, text) of messages refused as a whole
        self.dropped = []      # (name, reason) of fds closed instead of stored
        self.store = []        # StoredFd, newest first
        self.process = None
        self.starts = 0
        self.passed_names = []  # LISTEN_FDNAMES of the latest start
        self._receiving = threading.Lock()  # one reader at a time keeps the order
        self._stopping = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # MARK: the service's lifecycle

    def start(self):
        """Starts the service with the socket fds, then the stored ones."""
        assert self.process is None or self.process.poll() is not None, "already running"
        with self.lock:
            self._prune()
            passed = list(self.sockets) + [(entry.name, entry.fd) for entry in self.store]
            self.passed_names = [name for name, _ in passed]
        env = dict(os.environ)
        for key in ("LISTEN_FDS", "LISTEN_FDNAMES", "LISTEN_PID", "NOTIFY_SOCKET", "LAYOUTD_SOCKET"):
            env.pop(key, None)
        env.update(self.env)
        env["NOTIFY_SOCKET"] = self.path
        if passed:
            env["LISTEN_FDS"] = str(len(passed))
            env["LISTEN_FDNAMES"] = ":".join(name for name, _ in passed)
        sources = [fd for _, fd in passed]

        def place():
            # Sources may sit where targets go: lift every one above the range first
            # (close-on-exec copies), then dup2 each to 3, 4, … (dup2 clears close-on-exec).
            lifted = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3 + len(sources)) for fd in sources]
            for index, fd in enumerate(lifted):
                os.dup2(fd, 3 + index)

        log = open(self.log_path, "ab")
        wrapper = ["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$@"', "sh"] if passed else []
        self.process = subprocess.Popen(wrapper + self.command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                        close_fds=False, preexec_fn=place if passed else None)
        log.close()
        self.starts += 1
        return self.process

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def kill(self, number=signal.SIGTERM):
        """Sends `number` to the main process (as `systemctl kill` would)."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(number)

    def wait_exit(self, timeout=None):
        """The main process's exit status; SIGKILL after `timeout` (TimeoutStopSec=)."""
        try:
            return self.process.wait(self.stop_timeout if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def restart(self, stop_signal=signal.SIGTERM, timeout=None):
        """A restart job (`systemctl restart`): `stop_signal` unless the process already exited
        (as after a crash, Restart=), wait for the exit, start again. The store is kept.
        Returns the previous process's exit status."""
        self.kill(stop_signal)
        status = self.wait_exit(timeout)
        self._drain()
        self.start()
        return status

    def stop(self, timeout=None):
        """`systemctl stop`: SIGTERM, wait, then the store is closed. Returns the exit status."""
        status = None
        if self.process:
            self.kill(signal.SIGTERM)
            status = self.wait_exit(timeout)
        self._drain()
        with self.lock:
            for entry in self.store:
                os.close(entry.fd)
            self.store = []
        return status

    def close(self):
        """Stops the service and the emulator, closing every fd it holds. Idempotent."""
        if self._stopping.is_set():
            return
        self.stop()
        self._stopping.set()
        self._reader.join()
        self.sock.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # MARK: what the service said

    def wait_for(self, key, after=0, timeout=10):
        """(index, Notification) of the first message from index `after` on with a line that
        starts with `key` (e.g. "READY=1", "STATUS=", "FDSTORE=1")."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for index in range(after, len(self.messages)):
                    if any(line.startswith(key) for line in self.messages[index].lines):
                        return index, self.messages[index]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError("no %s notification after #%d; got %r" % (key, after, self.messages[after:]))
                self.lock.wait(remaining)

    def wait_ready(self, after=0, timeout=10):
        """The READY=1 message from index `after` on; AssertionError if the process exits first."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.wait_for("READY=1", after, timeout=min(0.1, max(0, deadline - time.monotonic())))
            except AssertionError:
                if self.process.poll() is not None:
                    raise AssertionError("the service exited with %s before READY=1" % self.process.returncode) from None
                if time.monotonic() >= deadline:
                    raise

    @property
    def mark(self):
        """The index the next message will have (for `after=`)."""
        with self.lock:
            return len(self.messages)

    @property
    def statuses(self):
        with self.lock:
            return [message.fields["STATUS"] for message in self.messages if "STATUS" in message.fields]

    def stored(self):
        """Names in the store, in the order the next start passes them (newest first)."""
        with self.lock:
            self._prune()
            return [entry.name for entry in self.store]

    def stored_fds(self):
        """(name, fd) of the store: the emulator's own fds, for a test to inspect, not close."""
        with self.lock:
            self._prune()
            return [(entry.name, entry.fd) for entry in self.store]

    # MARK: the notify socket

    def _read(self):
        while not self._stopping.is_set():
            if select.select([self.sock], [], [], 0.05)[0]:
                self._drain()

    def _drain(self):
        """Handles every datagram queued so far, in order. Also called once the process has
        exited, before it starts again: what it sent before exiting counts, as systemd reads
        notifications before it acts on SIGCHLD."""
        control_size = socket.CMSG_SPACE(SCM_MAX_FD * 4) + socket.CMSG_SPACE(struct.calcsize("3i"))
        with self._receiving:
            while True:
                try:
                    data, ancillary, flags, _ = self.sock.recvmsg(
                        NOTIFY_BUFFER_MAX + 1, control_size, socket.MSG_CMSG_CLOEXEC | socket.MSG_DONTWAIT)
                except BlockingIOError:
                    return
                fds, pid = [], None
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.extend(array.array("i", payload[:len(payload) - len(payload) % 4]))
                    elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                        pid, _, _ = struct.unpack("3i", payload[:12])
                text = data.decode("utf-8", "replace").rstrip("\n")
                with self.lock:
                    try:
                        self._handle(text, fds, pid, len(data), flags)
                    finally:
                        self.lock.notify_all()

    def _handle(self, text, fds, pid, size, flags):
        def refuse(reason):
            self.ignored.append((reason, text))
            for fd in fds:
                os.close(fd)

        if size > NOTIFY_BUFFER_MAX or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            return refuse("overly long datagram")
        main = self.process.pid if self.process else None
        if self.notify_access == "main" and pid != main:
            return refuse("from pid %s, not the main pid %s (NotifyAccess=main)" % (pid, main))
        message = Notification(time.monotonic(), pid, text)
        if "BARRIER=1" in message.lines:
            # Everything before it is handled (this reader is the only one, in order): the
            # barrier's fd is closed by refuse().
            return refuse("barrier" if len(message.lines) == 1 and len(fds) == 1 else "malformed barrier")
        self.messages.append(message)
        name = message.fields.get("FDNAME")
        if "FDSTOREREMOVE=1" in message.lines:
            if name is not None and fdname_is_valid(name):
                for entry in [entry for entry in self.store if entry.name == name]:
                    self.store.remove(entry)
                    os.close(entry.fd)
            for fd in fds:
                os.close(fd)
        elif "FDSTORE=1" in message.lines:
            if name is None or not fdname_is_valid(name):
                name = "stored"
            poll = "FDPOLL=0" not in message.lines
            for index, fd in enumerate(fds):
                if len(self.store) >= self.fd_store_max:
                    for rest in fds[index:]:
                        self.dropped.append((name, "FileDescriptorStoreMax=%d" % self.fd_store_max))
                        os.close(rest)
                    break
                if any(same_fd(entry.fd, fd) for entry in self.store):
                    self.dropped.append((name, "duplicate"))
                    os.close(fd)
                    continue
                self.store.insert(0, StoredFd(name, fd, poll))
        else:
            for fd in fds:
                os.close(fd)

    def _prune(self):
        """Closes stored fds with POLLHUP or POLLERR (unless stored with FDPOLL=0)."""
        watched = [entry for entry in self.store if entry.poll]
        if not watched:
            return
        poller = select.poll()
        for entry in watched:
            poller.register(entry.fd, 0)
        for fd, events in poller.poll(0):
            if events & (select.POLLHUP | select.POLLERR):
                entry = next(entry for entry in self.store if entry.fd == fd)
                self.store.remove(entry)
                self.dropped.append((entry.name, "POLLHUP" if events & select.POLLHUP else "POLLERR"))
                os.close(fd)

