"""Replays protocol transcripts against a real layoutd.

A transcript (protocol/examples/*.jsonl, protocol/conformance/*.jsonl) is the conversation a
client sees, line for line: request lines as sent, each followed by the exact lines the daemon
writes back (replies and events). A line that is a JSON object with "result", "error" or
"event" is expected output; every other line, valid JSON or not, is sent as it is. In expected
lines the string "<any>" matches any value (used for uptime and memory). Every transcript runs
against a fresh daemon.

    python3 system-tests/e2e/transcripts.py FILE...            replay, print a diff on failure
    python3 system-tests/e2e/transcripts.py --record FILE...   rewrite the expected lines from the daemon
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import ROOT, Client, Daemon  # noqa: E402

WILDCARD = "<any>"
VOLATILE = {"uptime", "residentBytes"}
# The limits conformance transcripts run under (README.md, "Tests"), small enough that a
# transcript can cross them.
CONFORMANCE_FLAGS = [
    "--set", "max-line-length=4096", "--set", "max-batch=100", "--set", "max-items=1000", "--set", "max-total-items=1200",
    "--set", "max-views=8"]


def flags_for(path):
    return CONFORMANCE_FLAGS if os.sep + "conformance" + os.sep in path else []


def is_expected(line):
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and ("result" in value or "error" in value or "event" in value)


def read_transcript(path):
    with open(path, "rb") as handle:
        # Whitespace-only lines are sent (the daemon skips them); empty ones only end the file.
        return [line for line in handle.read().split(b"\n") if line]


def steps(lines):
    """Groups lines into (requests, expected) steps."""
    result = []
    requests, expected = [], []
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


CLOSING_ERRORS = ("LineTooLong", "IdleTimeout")


def closes_connection(line):
    """Whether the daemon closes the connection after writing `line`."""
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("error", {}).get("name") in CLOSING_ERRORS


def reconnect(client, path):
    """Waits for the daemon to close `client`, then opens a new connection."""
    while client.read_line(timeout=10) is not None:
        pass
    client.close()
    return Client(path)


def matches(expected, actual):
    if expected == WILDCARD:
        return True
    if isinstance(expected, dict):
        return isinstance(actual, dict) and list(expected) == list(actual) and all(matches(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(matches(e, a) for e, a in zip(expected, actual))
    return type(expected) is type(actual) and expected == actual


def same_line(expected, actual):
    if WILDCARD.encode() not in expected:
        return expected == actual
    try:
        return matches(json.loads(expected), json.loads(actual))
    except ValueError:
        return False


def replay(path):
    """Returns a list of problems (empty when the daemon wrote exactly the expected lines)."""
    problems = []
    with Daemon(*flags_for(path)) as daemon:
        client = Client(daemon.path)
        for number, (requests, expected) in enumerate(steps(read_transcript(path)), 1):
            for request in requests:
                client.send_raw(request + b"\n")
            for want in expected:
                try:
                    got = client.read_line(timeout=10)
                except OSError as error:
                    got = ("<%s>" % error).encode()
                if got is None:
                    got = b"<end of stream>"
                if not same_line(want, got):
                    problems.append("step %d after %s\n  expected: %s\n  actual:   %s" % (
                        number, requests[-1][:200].decode("utf-8", "replace") if requests else "(start)",
                        want.decode("utf-8", "replace"), got.decode("utf-8", "replace")))
                    return problems
            if expected and closes_connection(expected[-1]):
                client = reconnect(client, daemon.path)
        # Nothing more may arrive (an unexpected extra reply or event).
        if client.pending(0.2):
            extra = client.read_line(timeout=1)
            if extra is not None:
                problems.append("unexpected extra line: %s" % extra.decode("utf-8", "replace"))
        client.close()
    return problems


def strip_volatile(value):
    if isinstance(value, dict):
        # Only measured numbers vary (a schema describing those fields does not).
        return {key: (WILDCARD if key in VOLATILE and isinstance(item, (int, float)) else strip_volatile(item)) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_volatile(item) for item in value]
    return value


def record(path):
    """Rewrites the expected lines of `path` from what the daemon answers now."""
    requests = [line for line in read_transcript(path) if not is_expected(line)]
    output = []
    with Daemon(*flags_for(path)) as daemon:
        client = Client(daemon.path)
        for request in requests:
            output.append(request)
            client.send_raw(request + b"\n")
            while client.pending(0.3):
                line = client.read_line(timeout=5)
                if line is None:
                    break
                value = json.loads(line)
                if any(key in json.dumps(value) for key in VOLATILE):
                    line = json.dumps(strip_volatile(value), separators=(",", ":"), ensure_ascii=False).encode()
                output.append(line)
                if closes_connection(line):
                    client = reconnect(client, daemon.path)
                    break
        client.close()
    with open(path, "wb") as handle:
        handle.write(b"".join(line + b"\n" for line in output))


def all_transcripts():
    paths = []
    for folder in ("examples", "conformance"):
        base = os.path.join(ROOT, "protocol", folder)
        if os.path.isdir(base):
            paths += sorted(os.path.join(base, name) for name in os.listdir(base) if name.endswith(".jsonl"))
    return paths


def main(arguments):
    recording = "--record" in arguments
    paths = [argument for argument in arguments if argument != "--record"] or all_transcripts()
    failed = 0
    for path in paths:
        if recording:
            record(path)
            print("recorded", os.path.relpath(path, ROOT))
            continue
        problems = replay(path)
        print(("FAIL " if problems else "ok   ") + os.path.relpath(path, ROOT))
        for problem in problems:
            print("  " + problem)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
