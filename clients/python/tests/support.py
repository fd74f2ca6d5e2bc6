"""Starts a real layoutd for the tests: ``LAYOUTD_BINARY`` (default ``<repo>/.build/debug/layoutd``)
on a socket in a fresh 0700 directory, with ``default-plugin-dir=none``."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..")))

from layoutd import Client, wait_until_serving  # noqa: E402

BINARY = os.environ.get("LAYOUTD_BINARY") or os.path.join(ROOT, ".build", "debug", "layoutd")

CONFORMANCE_FLAGS = [
    "--set", "max-line-length=4096", "--set", "max-batch=100", "--set", "max-items=1000",
    "--set", "max-total-items=1200", "--set", "max-views=8"]


def poll(condition: Callable[[], Any], timeout: float = 10.0, interval: float = 0.01, what: str = "condition") -> Any:
    """Polls ``condition`` until it returns a true value; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %s s waiting for %s" % (timeout, what))
        time.sleep(interval)


class Daemon:
    """One layoutd process; ``restart()`` starts a new one on the same socket."""

    def __init__(self, *args: str, directory: Optional[str] = None) -> None:
        if not os.access(BINARY, os.X_OK):
            raise RuntimeError("no layoutd binary at %s (set LAYOUTD_BINARY)" % BINARY)
        self.args = list(args)
        self.own_dir = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix="layoutd-py-")
        os.chmod(self.dir, 0o700)
        self.path = os.path.join(self.dir, "ipc.sock")
        self.log_path = os.path.join(self.dir, "layoutd.log")
        self.process: Optional["subprocess.Popen[bytes]"] = None

    def start(self) -> "Daemon":
        env = dict(os.environ)
        env.pop("LAYOUTD_SOCKET", None)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [BINARY, "--socket", self.path, "--set", "default-plugin-dir=none"] + self.args,
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("layoutd exited with %s:\n%s" % (self.process.returncode, self.log()))
            try:
                wait_until_serving(self.path, timeout=0.5).close()
                return self
            except (OSError, Exception):
                if time.monotonic() > deadline:
                    raise RuntimeError("layoutd did not serve within 20 s:\n" + self.log())

    def log(self) -> str:
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Signals our own process (only it) and waits for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self, sig: int = signal.SIGKILL) -> None:
        self.stop(sig)
        self.start()

    def __enter__(self) -> "Daemon":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def client(daemon: Daemon, timeout: float = 10.0) -> Client:
    return Client(daemon.path, timeout=timeout)


def jsonl(path: str) -> List[bytes]:
    with open(path, "rb") as handle:
        return [line for line in handle.read().split(b"\n") if line]
