#!/usr/bin/env python3
"""Runs the libFuzzer targets (fuzz/) and keeps what they find.

    scripts/fuzz.py seed                 rewrite the seed corpora in fuzz/corpus from the
                                         protocol transcripts, and fuzz/protocol.dict from
                                         protocol/schemas (deterministic)
    scripts/fuzz.py run [--seconds 60]   run every target (or --targets a,b) for that long,
                                         each from its seeds plus what earlier runs kept;
                                         a crash is copied to fuzz/regressions/<target>/
                                         (swift test replays that directory) and fails the run

The driver comes from `cd fuzz && swift build -c release --sanitize fuzzer --sanitize address`
(what `make fuzz` does). The report (executions, time, coverage, corpus, peak memory per
target) goes to .build/fuzz/report.json and is printed as a table.
"""
import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TARGETS = ["framer", "request", "service", "mutations", "hot", "web"]
FUZZ = os.path.join(ROOT, "fuzz")
WORK = os.path.join(ROOT, ".build", "fuzz")
DICTIONARY = os.path.join(FUZZ, "protocol.dict")
# Inputs longer than this rarely find more and slow every execution down.
MAX_LENGTH = {"framer": 4096, "request": 4096, "service": 8192, "mutations": 1024, "hot": 4096, "web": 4096}


def transcripts():
    for folder in ("examples", "conformance"):
        directory = os.path.join(ROOT, "protocol", folder)
        for name in sorted(os.listdir(directory)):
            if name.endswith(".jsonl"):
                yield folder + "-" + name[:-len(".jsonl")], os.path.join(directory, name)


def request_lines(path):
    """The lines a transcript sends (every line that is not a reply or an event)."""
    with open(path, "rb") as handle:
        lines = [line for line in handle.read().split(b"\n") if line]
    sent = []
    for line in lines:
        try:
            value = json.loads(line)
            if isinstance(value, dict) and ("result" in value or "error" in value or "event" in value):
                continue
        except ValueError:
            pass
        sent.append(line)
    return sent


def write_seed(target, name, data):
    directory = os.path.join(FUZZ, "corpus", target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(data)


def seed():
    for target in TARGETS:
        shutil.rmtree(os.path.join(FUZZ, "corpus", target), ignore_errors=True)
    distinct = {}
    for name, path in transcripts():
        sent = [line for line in request_lines(path) if len(line) <= MAX_LENGTH["request"]]
        stream = b"\n".join(sent) + b"\n"
        if len(stream) <= MAX_LENGTH["service"]:
            write_seed("service", name, stream)
        # Framer: a limit byte, four read sizes, then the stream; long and short limits.
        write_seed("framer", name, bytes([255, 7, 1, 31, 3]) + stream[:MAX_LENGTH["framer"]])
        write_seed("framer", name + "-short-limit", bytes([40, 2, 5, 0, 9]) + stream[:1024])
        for line in sent:
            distinct[hashlib.sha1(line).hexdigest()[:16]] = line
    for key, line in sorted(distinct.items()):
        write_seed("request", key, line)
    # Mutations: the bytes are choices, not text; a fixed spread of random starting points.
    generator = random.Random(0x1A70)
    for number in range(24):
        write_seed("mutations", "random-%02d" % number, bytes(generator.randrange(256) for _ in range(generator.choice([16, 64, 256, 1024]))))
    seed_hot(distinct.values())
    seed_web()
    for target in TARGETS:
        print("%-10s %4d seed files" % (target, len(os.listdir(os.path.join(FUZZ, "corpus", target)))))
    dictionary()


HOT_METHODS = (b'"view.scroll"', b'"view.select"', b'"view.measure"', b'"view.update"')
# The loads, whose sections the load decoder reads from the bytes (the hot target checks it too).
LOAD_METHODS = (b'"view.create"', b'"view.setData"', b'"view.stage.append"')

# Hand-written hot lines: every key order, whitespace, escapes and number form the byte
# decoder reads, and near misses it must leave to the general path.
HOT_EXTRA = [
    b'{"params":{"offset":{"y":1.5e2,"x":-0},"view":"v"},"id":"a\\u00e9","method":"view.scroll"}',
    b' { "id" : 7 , "method" : "view.scroll" , "params" : { "view" : "v\\n" , "offset" : { "x" : 0.25 , "y" : 1E-3 } , "ifEpoch" : 3.0 , "dryRun" : null } } ',
    b'{"id":1,"method":"view.select","params":{"view":"v","ids":["a","\\ud83d\\ude00"],"mode":"toggle","animated":true}}',
    b'{"id":1,"method":"view.measure","params":{"view":"v","sizes":[{"size":{"height":2,"width":1},"id":"x"}]}}',
    b'{"id":1,"method":"view.update","params":{"view":"v","updates":[{"op":"insertItems","section":"s","at":0,"items":[{"id":"n","size":{"width":1,"height":2},"estimatedSize":null}]},{"ids":["a"],"op":"deleteItems"},{"op":"moveItem","id":"b","section":"s","at":1},{"op":"insertSections","at":1,"sections":[{"id":"t","items":[],"headerSize":{"width":1,"height":1}}]},{"op":"moveSection","id":"t","at":0},{"op":"reloadSections","sections":[{"id":"t","items":[{"id":"z"}]}]},{"op":"deleteSections","ids":["t"]},{"op":"reloadItems","items":[{"id":"b"}]}]}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"view":"w"}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1e400}}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":01}}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1}},"jsonrpc":"2.0"}',
    b'{"id":1,"method":"view.scroll","params":{"view":"\\ud800","offset":{"x":0,"y":1}}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"extra":1}}',
    b'{"id":1,"method":"view.select","params":{"view":"v","ids":["a"],"mode":"all"}}',
    b'{"id":1,"method":"view.update","params":{"view":"v","updates":[{"op":"deleteItems","ids":["a"],"at":0}]}}',
    b'{"id":1.5,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1}}}',
    b'{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1}}} x',
    # Loads: sections in every shape the load decoder reads, members before and after them,
    # and near misses (a duplicate or unknown item field, an escaped key, a bad size).
    b'{"params":{"sections":[{"items":[{"size":{"height":2.5,"width":1},"id":"a"},{"id":"b\u00e9","estimatedSize":null,"selectedSize":{"width":1e1,"height":-0}}],"id":"s","footerSize":{"width":0,"height":1}}],"view":"v","strategy":"flow","viewport":{"width":390,"height":844},"params":{"itemSize":{"width":9,"height":9}}},"method":"view.create","id":"c"}',
    b' { "id" : 2 , "method" : "view.setData" , "params" : { "view" : "v" , "animated" : true , "sections" : [ { "id" : "s" , "items" : [ ] , "headerSize" : null } ] } } ',
    b'{"id":3,"method":"view.stage.append","params":{"upload":"u1","sections":[{"id":"s","items":[{"id":"x"},{"id":"y","size":{"width":1,"height":2}}]}]}}',
    b'{"id":4,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","id":"b"}]}]}}',
    b'{"id":5,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","extra":1}]}],"sections":[]}}',
    b'{"id":6,"method":"view.setData","params":{"view":"v","s\u0065ctions":[{"id":"s","items":[]}]}}',
    b'{"id":7,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","size":{"width":1}}]}]},"jsonrpc":"2.0"}',
]


def seed_hot(lines):
    """The hot target's seeds: the transcripts' hot requests and loads, and HOT_EXTRA."""
    chosen = [line for line in lines if any(method in line for method in HOT_METHODS + LOAD_METHODS)] + HOT_EXTRA
    for line in chosen:
        write_seed("hot", hashlib.sha1(line).hexdigest()[:16], line)


def masked_frame(opcode, payload, fin=True, mask=b"\x11\x22\x33\x44"):
    length = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 65536:
        head += bytes([0x80 | 126]) + length.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + length.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def seed_web():
    """The web target's seeds: a limit byte and four cut sizes, then a browser's bytes (a
    handshake head, then frames: text, fragments, ping, close, and the refused kinds)."""
    head = (b"GET /0123456789abcdef0123456789abcdef/socket HTTP/1.1\r\nHost: 127.0.0.1:7465\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nOrigin: http://127.0.0.1:7465\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n")
    hello = b'{"id":1,"method":"daemon.hello"}'
    streams = {
        "handshake": head,
        "text": masked_frame(1, hello),
        "fragments": masked_frame(1, hello[:9], fin=False) + masked_frame(9, b"p") + masked_frame(0, hello[9:]),
        "long": masked_frame(1, b"[" * 300),
        "close": masked_frame(1, hello) + masked_frame(8, b"\x03\xe8bye"),
        "binary": masked_frame(2, b"\x00\x01"),
        "unmasked": bytes([0x81, 2]) + b"{}",
        "utf8-split": masked_frame(1, "é".encode()[:1], fin=False) + masked_frame(0, "é".encode()[1:]),
        "head-then-frames": head + masked_frame(1, hello),
    }
    for name, stream in streams.items():
        write_seed("web", name, bytes([255, 7, 1, 31, 3]) + stream[:MAX_LENGTH["web"]])
        write_seed("web", name + "-small-limit", bytes([0, 2, 5, 0, 9]) + stream[:1024])


def dictionary():
    """fuzz/protocol.dict: every method name, property name and enumerated string of the
    schemas, quoted as they appear on the wire, then JSON's punctuation and edge values."""
    words = {"flow", "collapsible", "ultravisual", "display"}

    def walk(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "properties" and isinstance(inner, dict):
                    words.update(inner)
                elif key == "const" and isinstance(inner, str):
                    words.add(inner)
                elif key == "enum" and isinstance(inner, list):
                    words.update(item for item in inner if isinstance(item, str))
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    schemas = os.path.join(ROOT, "protocol", "schemas")
    for folder, _, names in os.walk(schemas):
        for name in names:
            if name.endswith(".json"):
                with open(os.path.join(folder, name)) as handle:
                    walk(json.load(handle))
                if name.endswith(".params.json"):
                    words.add(name[:-len(".params.json")])
    lines = ["# libFuzzer dictionary for the request and service targets: the protocol's method names,",
             "# keys and enumerated values (from protocol/schemas), and JSON punctuation."]
    lines += ['"\\"%s\\""' % word for word in sorted(words) if re.fullmatch(r"[A-Za-z0-9_.\-]+", word)]
    lines += ['"%s"' % token for token in ["{", "}", "[", "]", ":", ",", "null", "true", "false", "-0", "1e308", "0.001"]]
    lines += ['"\\"\\\\u0000\\""', '"\\x0a"']
    with open(DICTIONARY, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def stats(log):
    found = {}
    for key in ("number_of_executed_units", "average_exec_per_sec", "peak_rss_mb"):
        match = re.search(r"stat::%s:\s+(\d+)" % key, log)
        found[key] = int(match.group(1)) if match else None
    done = re.findall(r"#\d+\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+cov: (\d+) ft: (\d+) corp: (\d+)", log)
    if done:
        found["coverage"], found["features"], found["corpus"] = (int(value) for value in done[-1])
    return found


def run(seconds, targets, jobs_timeout):
    build = os.path.join(FUZZ, ".build", "release")
    report = {"seconds_per_target": seconds, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "targets": {}}
    failed = []
    for target in targets:
        binary = os.path.join(build, "layout-fuzz")
        if not os.path.exists(binary):
            sys.exit("%s is missing: build with `make fuzz` (or cd fuzz && swift build -c release --sanitize fuzzer --sanitize address)" % binary)
        corpus = os.path.join(WORK, "corpus", target)
        crashes = os.path.join(WORK, "crashes", target)
        os.makedirs(corpus, exist_ok=True)
        shutil.rmtree(crashes, ignore_errors=True)
        os.makedirs(crashes)
        # Leak checking is off: Swift's runtime caches (type metadata, conformances) look like
        # leaks to LSan, and its scans made the service target ten times slower.
        command = [
            binary, corpus, os.path.join(FUZZ, "corpus", target),
            "-max_total_time=%d" % seconds, "-print_final_stats=1", "-timeout=%d" % jobs_timeout,
            "-rss_limit_mb=4096", "-detect_leaks=0", "-max_len=%d" % MAX_LENGTH[target], "-artifact_prefix=" + crashes + "/",
        ]
        if target in ("request", "service", "hot"):
            command.append("-dict=" + DICTIONARY)
        started = time.monotonic()
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=WORK,
                                # Swift's backtracer would hold the output pipe open for its
                                # own timeout after a crash; libFuzzer prints the stack anyway.
                                # ASAN_OPTIONS: the leak check at exit is off too (libFuzzer's flag
                                # covers only its per-input checks): a global whose value holds
                                # enum-tagged pointers (compositional's default description) looked
                                # leaked at the end of a run, and the run failed on an empty input.
                                env=dict(os.environ, LAYOUT_FUZZ_TARGET=target, SWIFT_BACKTRACE="enable=no",
                                         ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "detect_leaks=0"]))))
        elapsed = time.monotonic() - started
        log = result.stdout.decode("utf-8", "replace")
        with open(os.path.join(WORK, target + ".log"), "w") as handle:
            handle.write(log)
        entry = {"seconds": round(elapsed, 1), "exit": result.returncode, **stats(log), "crashes": []}
        for name in sorted(os.listdir(crashes)):
            data = open(os.path.join(crashes, name), "rb").read()
            keep = os.path.join(FUZZ, "regressions", target, "%s-%s" % (name.split("-")[0], hashlib.sha1(data).hexdigest()[:16]))
            os.makedirs(os.path.dirname(keep), exist_ok=True)
            shutil.copyfile(os.path.join(crashes, name), keep)
            entry["crashes"].append(os.path.relpath(keep, ROOT))
        # A driver without coverage counters runs blind (random inputs, nothing learned) and
        # still exits 0: that is a failed run, not a quiet one. Seen with checkouts under /tmp,
        # whose builds registered no counters; the same tree under /work did.
        blind = "INFO: Loaded" not in log
        if result.returncode != 0 or entry["crashes"] or blind:
            failed.append(target)
            reason = re.search(r"(Fatal error: .*|ERROR: AddressSanitizer.*|ERROR: libFuzzer.*)", log)
            entry["reason"] = (reason.group(1) if reason else "exit status %d" % result.returncode) if not blind else \
                "no coverage counters were loaded: the driver is not instrumented (build it with make fuzz; see fuzz/README.md)"
        report["targets"][target] = entry
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, "report.json"), "w") as handle:
        json.dump(report, handle, indent=2)
    print("\n%-10s %8s %12s %10s %6s %7s %8s  %s" % ("target", "seconds", "executions", "exec/s", "cov", "corpus", "peak MB", "result"))
    for target, entry in report["targets"].items():
        print("%-10s %8.1f %12s %10s %6s %7s %8s  %s" % (
            target, entry["seconds"], entry.get("number_of_executed_units"), entry.get("average_exec_per_sec"),
            entry.get("coverage"), entry.get("corpus"), entry.get("peak_rss_mb"),
            "ok" if target not in failed else "FAILED: %s %s" % (entry.get("reason"), " ".join(entry["crashes"]))))
    print("\nreport: %s" % os.path.relpath(os.path.join(WORK, "report.json"), ROOT))
    if failed:
        print("failed: %s (crashes are copied to fuzz/regressions/, which swift test replays)" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["seed", "run"])
    parser.add_argument("--seconds", type=int, default=60, help="per target (default 60)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated (default: all)")
    parser.add_argument("--timeout", type=int, default=10, help="seconds one input may take before it counts as a hang")
    arguments = parser.parse_args()
    if arguments.command == "seed":
        seed()
        return 0
    targets = [name for name in arguments.targets.split(",") if name]
    unknown = [name for name in targets if name not in TARGETS]
    if unknown:
        parser.error("unknown targets: %s" % ", ".join(unknown))
    return run(arguments.seconds, targets, arguments.timeout)


if __name__ == "__main__":
    sys.exit(main())
