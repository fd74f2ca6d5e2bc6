"""A stand-in service for proving the fd store emulator (fdstore.py) before layoutd uses it.

argv[1] is a JSON object of action lists: "fresh" runs at a start that got nothing from the
store, "resumed" at one that did, "term" on SIGTERM (then it exits 0). Every start first
reports what it was passed: STATUS=passed [[name, fd, kind], …], kind being "listener",
"stream", "memfd:<text>" or "other"; READY=1 follows the start's actions. Notifications are
sent as libsystemd sends them: one datagram each, fds by SCM_RIGHTS.
"""
import array
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys

SOCKET_NAMES = {"ipc"}  # what the emulator passes as the socket unit's, not from the store


def notify(text, fds=()):
    address = os.environ["NOTIFY_SOCKET"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds).tobytes())] if fds else []
        sock.sendmsg([text.encode()], rights, 0, address)


def barrier(timeout=5):
    """sd_notify_barrier(3): BARRIER=1 with a pipe's write end; the manager closes it."""
    reading, writing = os.pipe()
    notify("BARRIER=1", [writing])
    os.close(writing)
    ready = select.poll()
    ready.register(reading, select.POLLHUP)
    answered = ready.poll(timeout * 1000)
    os.close(reading)
    return bool(answered)


def memfd(text):
    fd = os.memfd_create("state", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, text.encode())
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    return fd


def passed_fds():
    """(name, fd) from LISTEN_*, checked as sd_listen_fds does, then cleared."""
    if os.environ.get("LISTEN_PID") != str(os.getpid()):
        return []
    count = int(os.environ["LISTEN_FDS"])
    names = os.environ.get("LISTEN_FDNAMES", "").split(":")
    assert len(names) == count, (names, count)
    for key in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        del os.environ[key]
    for fd in range(3, 3 + count):
        os.set_inheritable(fd, False)
    return list(zip(names, range(3, 3 + count)))


def kind(fd):
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        sock = None
    if sock is not None:
        with sock:
            return "listener" if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) else "stream"
    if os.readlink("/proc/self/fd/%d" % fd).startswith("/memfd:"):
        return "memfd:" + os.pread(fd, 4096, 0).decode()
    return "other"


def main():
    plan = json.loads(sys.argv[1])
    passed = passed_fds()
    named = dict(passed)
    notify("STATUS=passed " + json.dumps([[name, fd, kind(fd)] for name, fd in passed]))
    kept = []  # fds this instance holds until it exits

    def run(actions):
        for action, *arguments in actions:
            if action == "accept_and_store":
                listener = socket.socket(fileno=os.dup(named["ipc"]))
                connection, _ = listener.accept()
                kept.append(connection)
                notify("FDSTORE=1\nFDNAME=" + arguments[0], [connection.fileno()])
            elif action == "store_memfd":
                fd = memfd(arguments[1])
                notify("FDSTORE=1\nFDNAME=" + arguments[0], [fd])
                os.close(fd)
            elif action == "store_raw":
                # The message as given, with one new memfd holding arguments[1].
                fd = memfd(arguments[1])
                notify(arguments[0], [fd])
                os.close(fd)
            elif action == "store_twice":
                fd = memfd(arguments[1])
                notify("FDSTORE=1\nFDNAME=" + arguments[0], [fd, fd])
                notify("FDSTORE=1\nFDNAME=" + arguments[0], [fd])
                os.close(fd)
            elif action == "store_orphan":
                # The peer goes away at once: the manager sees POLLHUP on what it holds.
                mine, peer = socket.socketpair()
                notify("FDSTORE=1\nFDNAME=" + arguments[0] + ("\nFDPOLL=0" if arguments[1:] == ["nopoll"] else ""), [mine.fileno()])
                mine.close()
                peer.close()
            elif action == "remove":
                notify("FDSTOREREMOVE=1\nFDNAME=" + arguments[0])
            elif action == "store_from_child":
                fd = memfd("from a child")
                # Another process of the service: NotifyAccess=main ignores it.
                subprocess.run([sys.executable, "-c", "import fdstore_child as c; c.notify('FDSTORE=1\\nFDNAME=%s', [%d])" % (arguments[0], fd)],
                               pass_fds=[fd], cwd=os.path.dirname(os.path.abspath(__file__)), check=True)
                os.close(fd)
            elif action == "greet":
                target = socket.socket(fileno=os.dup(named[arguments[0]]))
                state = os.pread(named["state"], 4096, 0).decode() if "state" in named else ""
                target.sendall(("resumed pid=%d state=%s\n" % (os.getpid(), state)).encode())
                target.close()
            elif action == "barrier":
                notify("STATUS=barrier " + ("answered" if barrier() else "timed out"))
            elif action == "stopping":
                notify("STOPPING=1")
            elif action == "exit":
                os._exit(arguments[0])
            else:
                raise SystemExit("unknown action %r" % action)

    resumed = any(name not in SOCKET_NAMES for name, _ in passed)
    run(plan.get("resumed" if resumed else "fresh", []))
    # Blocked before READY and taken with sigwait: a SIGTERM cannot slip in unseen.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    notify("READY=1\nSTATUS=" + ("resumed" if resumed else "fresh"))
    signal.sigwait({signal.SIGTERM})
    run(plan.get("term", []))
    sys.exit(0)


if __name__ == "__main__":
    main()
