"""Replays every transcript in protocol/examples and protocol/conformance through the client:
a request line goes through the typed API when it fits (a known method, params in schema
order, nothing the typed method would write differently: the client must send the very same
bytes), else through ``send_raw``; the lines the client reads are compared with the expected
ones exactly as system-tests/e2e/transcripts.py compares them ("<any>" matches any value)."""
from __future__ import annotations

import json
import os
import re
import socket
import unittest
from typing import Any, Dict, List, Optional, Tuple

from support import CONFORMANCE_FLAGS, ROOT, Daemon, jsonl

from layoutd import Client, LayoutdError, ProtocolError

WILDCARD = "<any>"
CLOSING_ERRORS = ("LineTooLong", "IdleTimeout")
SCHEMAS = os.path.join(ROOT, "protocol", "schemas", "methods")


def is_expected(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and ("result" in value or "error" in value or "event" in value)


def steps(lines: List[bytes]) -> List[Tuple[List[bytes], List[bytes]]]:
    result: List[Tuple[List[bytes], List[bytes]]] = []
    requests: List[bytes] = []
    expected: List[bytes] = []
    for line in lines:
        if is_expected(line):
            expected.append(line)
        else:
            if expected:
                result.append((requests, expected))
                requests, expected = [], []
            requests.append(line)
    if requests or expected:
        result.append((requests, expected))
    return result


def matches(expected: Any, actual: Any) -> bool:
    if expected == WILDCARD:
        return True
    if isinstance(expected, dict):
        return isinstance(actual, dict) and list(expected) == list(actual) and all(matches(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(matches(e, a) for e, a in zip(expected, actual))
    return type(expected) is type(actual) and expected == actual


def same_line(expected: bytes, actual: bytes) -> bool:
    if WILDCARD.encode() not in expected:
        return expected == actual
    try:
        return matches(json.loads(expected), json.loads(actual))
    except ValueError:
        return False


def closes_connection(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and isinstance(value.get("error"), dict) and value["error"].get("name") in CLOSING_ERRORS


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


_ORDER: Dict[str, List[str]] = {}
for _name in os.listdir(SCHEMAS):
    if _name.endswith(".params.json"):
        with open(os.path.join(SCHEMAS, _name)) as _handle:
            _schema = json.load(_handle)
        _ORDER[_name[: -len(".params.json")]] = list(_schema.get("properties") or {})
        _ORDER[_name[: -len(".params.json")] + " required"] = list(_schema.get("required") or [])


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def typed_call(line: bytes) -> Optional[Tuple[Any, str, Dict[str, Any]]]:
    """(id, typed method name, keyword arguments) when ``line`` fits the typed API."""
    try:
        value = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
    except ValueError:  # also UnicodeDecodeError
        return None
    if not isinstance(value, dict) or list(value) not in (["id", "method"], ["id", "method", "params"]):
        return None
    if json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() != line:
        return None
    request_id, method, params = value["id"], value["method"], value.get("params", {})
    if "params" in value and not params:
        return None  # the client omits empty params
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or not isinstance(params, dict):
        return None
    order = _ORDER.get(method)
    if order is None or not all(key in order for key in params):
        return None
    if [key for key in order if key in params] != list(params):
        return None  # keys not in schema order: the typed method would reorder them
    if any(v is None for v in params.values()) or not all(key in params for key in _ORDER[method + " required"]):
        return None
    name = "subscribe" if method == "view.subscribe" else snake(method.replace(".", "_"))
    return request_id, name, {snake(key): v for key, v in params.items()}


def replay(test: unittest.TestCase, path: str, counts: Dict[str, int]) -> None:
    flags = CONFORMANCE_FLAGS if os.sep + "conformance" + os.sep in path else []
    with Daemon(*flags) as daemon:
        client = Client(daemon.path, timeout=10)
        seen: List[bytes] = []
        sent: List[bytes] = []
        client.trace = seen.append

        def watch(c: Client) -> None:
            original = c._send  # what every send goes through
            def send(data: bytes, deadline: Optional[float]) -> None:
                sent.append(data)
                original(data, deadline)
            c._send = send  # type: ignore[method-assign]

        watch(client)
        for number, (requests, expected) in enumerate(steps(jsonl(path)), 1):
            seen.clear()
            calls = [typed_call(r) for r in requests]
            typed = all(call is not None for call in calls)
            for request, call in zip(requests, calls):
                if typed and call is not None:
                    request_id, name, kwargs = call
                    sent.clear()
                    client.next_request_id = request_id
                    try:
                        getattr(client, name)(**kwargs)
                    except LayoutdError:
                        pass
                    test.assertEqual(sent, [request + b"\n"], "the typed call sent other bytes")
                    counts["typed"] += 1
                else:
                    client.send_raw(request + b"\n")
                    counts["raw"] += 1
            while len(seen) < len(expected):
                try:
                    if client.read_message(timeout=10) is None:
                        seen.append(b"<end of stream>")
                except socket.timeout:
                    seen.append(b"<timeout>")
                except (ValueError, ProtocolError) as error:
                    seen.append(("<undecodable: %s>" % error).encode())
            for want, got in zip(expected, seen):
                if not same_line(want, got):
                    test.fail("%s step %d after %s\n  expected: %s\n  actual:   %s" % (
                        os.path.basename(path), number, requests[-1][:200].decode("utf-8", "replace") if requests else "(start)",
                        want.decode("utf-8", "replace"), got.decode("utf-8", "replace")))
            test.assertEqual(len(seen), len(expected), "extra lines: %r" % seen[len(expected):])
            if expected and closes_connection(expected[-1]):
                while client.read_message(timeout=10) is not None:
                    pass
                client.close()
                client = Client(daemon.path, timeout=10)
                client.trace = seen.append
                watch(client)
        if client.pending(0.2):
            extra = client.read_line(1)
            test.assertIsNone(extra, "unexpected extra line")
        client.close()


COUNTS = {"typed": 0, "raw": 0}


class Transcripts(unittest.TestCase):
    """One test per transcript file."""

    @classmethod
    def tearDownClass(cls) -> None:
        print("\n[transcripts] requests sent through the typed API: %d, raw: %d" % (COUNTS["typed"], COUNTS["raw"]))


def _make(path: str) -> Any:
    def test(self: unittest.TestCase) -> None:
        replay(self, path, COUNTS)
    return test


for _folder in ("examples", "conformance"):
    _base = os.path.join(ROOT, "protocol", _folder)
    for _file in sorted(os.listdir(_base)):
        if _file.endswith(".jsonl"):
            setattr(Transcripts, "test_%s_%s" % (_folder, _file[:-6].replace("-", "_")), _make(os.path.join(_base, _file)))
