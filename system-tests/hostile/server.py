#!/usr/bin/env python3
"""A fake layoutd that misbehaves: one Unix socket per scenario of scenarios.json, in one
directory, for the clients' hostile-server suites.

    python3 system-tests/hostile/server.py DIR

binds DIR/<scenario>.sock for every scenario, prints ``ready`` on stdout once all listen, and
serves until stdin closes (the test that started it ends) or SIGTERM. Every connection gets a
thread. The scenario applies to each ``daemon.sync`` request; any other request (a client's
``daemon.hello`` at connect) gets a plain, valid reply.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, Optional

HERE = Path(__file__).resolve().parent
SCENARIOS = json.loads((HERE / "scenarios.json").read_text())
HELLO = {"protocol": 1, "server": "layoutd", "version": "0.0.0-hostile",
         "limits": {"maximumLineLength": 1048576, "maximumViews": 256, "maximumItemsPerView": 2000000,
                    "maximumTotalItems": 5000000, "maximumBatchSize": 50000,
                    "maximumWindowElements": 20000, "maximumUploads": 4}}
KIB = b"x" * 1024
#: The no_accept scenario's own connections, which keep its backlog full.
FILLERS: list = []


def line(message: object) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class Peer:
    """One accepted connection: reads request lines, answers by scenario."""

    def __init__(self, conn: socket.socket, scenario: str) -> None:
        self.conn = conn
        self.scenario = scenario
        self.buffer = b""
        self.seq = 0

    def requests(self):
        while True:
            while b"\n" not in self.buffer:
                chunk = self.conn.recv(65536)
                if not chunk:
                    return
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\n", 1)
            if raw.strip():
                try:
                    yield json.loads(raw)
                except ValueError:
                    continue

    def send(self, data: bytes) -> None:
        self.conn.sendall(data)

    def event(self, name: str, params: object) -> bytes:
        self.seq += 1
        return line({"event": name, "seq": self.seq, "params": params})

    def serve(self) -> None:
        try:
            if self.scenario == "close_at_once":
                return
            for request in self.requests():
                rid = request.get("id")
                if request.get("method") != "daemon.sync":
                    if rid is not None:
                        self.send(line({"id": rid, "result": HELLO if request.get("method") == "daemon.hello" else {}}))
                    continue
                if ACTIONS[self.scenario](self, rid) == "close":
                    return
        except OSError:
            pass  # the client went away: the usual end of a case
        finally:
            self.conn.close()


def forever(write: Callable[[], None], pause: float = 0.0) -> str:
    while True:
        write()
        if pause:
            time.sleep(pause)


def trickle(peer: Peer, rid: object) -> str:
    reply = line({"id": rid, "result": {"pad": "x" * 20000}})
    for byte in reply:
        peer.send(bytes([byte]))
        time.sleep(0.05)
    return ""


ACTIONS: Dict[str, Callable[[Peer, object], Optional[str]]] = {
    "silent": lambda peer, rid: None,
    "trickle": trickle,
    "trickle_events": lambda peer, rid: forever(lambda: peer.send(peer.event("test.trickle", {})), 0.05),
    "flood_events": lambda peer, rid: forever(lambda: peer.send(peer.event("test.flood", {"pad": KIB.decode()}))),
    "flood_strays": lambda peer, rid: forever(lambda: peer.send(line({"id": 987654321, "result": {"pad": KIB.decode()}}))),
    "endless_line": lambda peer, rid: (peer.send(b'{"id":%s,"result":{"pad":"' % json.dumps(rid).encode()),
                                       forever(lambda: peer.send(KIB * 64)))[1],
    "huge_line": lambda peer, rid: peer.send(line({"id": rid, "result": {"pad": "x" * (8 << 20)}})),
    "malformed_json": lambda peer, rid: peer.send(b'{"id":%s,"result":{\n' % json.dumps(rid).encode()),
    "not_object": lambda peer, rid: peer.send(b"[1,2,3]\n"),
    "invalid_utf8": lambda peer, rid: peer.send(b'{"id":%s,"result":{"s":"\xff\xfe"}}\n' % json.dumps(rid).encode()),
    "deep_nesting": lambda peer, rid: peer.send(b'{"id":%s,"result":{"a":' % json.dumps(rid).encode()
                                                + b"[" * 100000 + b"]" * 100000 + b"}}\n"),
    "result_not_object": lambda peer, rid: peer.send(line({"id": rid, "result": "text"})),
    "error_not_object": lambda peer, rid: peer.send(line({"id": rid, "error": "text"})),
    "neither_result_nor_error": lambda peer, rid: peer.send(line({"id": rid})),
    "id_not_scalar": lambda peer, rid: peer.send(line({"id": {"a": 1}, "result": {}})),
    "event_not_object_params": lambda peer, rid: peer.send(peer.event("view.invalidated", 7) + line({"id": rid, "result": {}})),
    "duplicate_id": lambda peer, rid: peer.send(line({"id": rid, "result": {}}) * 2),
    "unknown_id": lambda peer, rid: peer.send(line({"id": 987654321, "result": {}}) + line({"id": rid, "result": {}})),
    "null_id": lambda peer, rid: peer.send(
        line({"id": None, "error": {"code": -32700, "name": "ParseError", "message": "not JSON"}})
        + line({"id": rid, "result": {}})),
    "close_mid_line": lambda peer, rid: (peer.send(b'{"id":%s,"res' % json.dumps(rid).encode()), "close")[1],
}


def listen(path: Path, scenario: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if path.exists():
        path.unlink()
    server.bind(str(path))
    if scenario == "no_accept":
        # Backlog 0 and never accept: fill the queue ourselves, so a client's connect blocks
        # (or fails with EAGAIN when non-blocking) instead of completing.
        server.listen(0)
        fillers = []
        while True:
            filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            filler.setblocking(False)
            try:
                filler.connect(str(path))
            except BlockingIOError:
                filler.close()
                break
            fillers.append(filler)
        FILLERS.extend(fillers)  # kept open for the server's life
        return server
    server.listen(64)
    threading.Thread(target=accept_loop, args=(server, scenario), daemon=True).start()
    return server


def accept_loop(server: socket.socket, scenario: str) -> None:
    while True:
        conn, _ = server.accept()
        threading.Thread(target=Peer(conn, scenario).serve, daemon=True).start()


def main() -> None:
    directory = Path(sys.argv[1])
    directory.mkdir(parents=True, exist_ok=True)
    names = [s["name"] for s in SCENARIOS["scenarios"]]
    missing = [name for name in names if name not in ACTIONS and name not in ("close_at_once", "no_accept")]
    if missing:
        sys.exit("server.py: no behaviour for %s" % ", ".join(missing))
    servers = [listen(directory / (name + ".sock"), name) for name in names]
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print("ready", flush=True)
    sys.stdin.read()  # until the test closes our stdin (or ends)
    del servers


if __name__ == "__main__":
    main()
