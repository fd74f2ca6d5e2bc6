"""The callgrind pass of `make bench` (scripts/bench.py): the daemon's user-space instructions
and allocations per request, split by phase of the request path.

How a figure is made:
- layoutd runs under `valgrind --tool=callgrind` with instrumentation off (`--instr-atstart=no`),
  so setting a view up costs nothing measured; LD_PRELOAD carries the sigsuspend shim
  (bench/c/valgrind-sigsuspend.c, built by `make bench-c`), without which valgrind dies on
  libdispatch's read-only signal mask.
- Instrumentation is switched on and the connection warmed up; then twice: the counters zeroed
  (`callgrind_control --zero`), a number of round trips, a dump (`--dump`). The figure per
  request is the difference of the two dumps over the difference of their request counts: what
  the dumps share (the client connecting, valgrind's own start-up of a code path, timers that
  fired in both) cancels, and what is left is the requests' steady state.
- Allocations are the calls into glibc's allocator entry points (malloc, calloc, realloc,
  posix_memalign, aligned_alloc, memalign; frees counted apart), read from the call counts
  callgrind records for every call edge, the same difference taken.

The phases (PHASE_ROOTS): a function whose demangled name matches a root rule starts that
phase, and everything it calls belongs to the same phase unless the callee is itself a root.
Callgrind keeps call edges, not whole stacks, so a function called from several phases (swift_retain, malloc,
memcpy, a generic helper) has its exclusive instructions split between its callers' phases in
proportion to the instructions each call edge carried (the edge's inclusive cost): exact for a
leaf, the usual gprof assumption one level further down. Every instruction lands in exactly one
phase; instructions with no root above them (the daemon's other threads: the control queue,
the watchdog, Dispatch's workers) land in `other`. The phases sum to the total.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

# The allocator's entry points, counted as allocations, and the calls that give memory back.
ALLOCATORS = ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign")
FREES = ("free", "cfree")

PHASES = ("transport", "parse", "route", "view operation", "encode", "other")

# (phase, regular expression over a function's readable name: see `readable`), the first match
# wins. Order matters where one rule's names overlap another's: the mutation's closures in
# ViewHost.mutate are the view operation, ViewHost.mutate itself is route; Connection's
# submit and completion are route, its other functions transport.
PHASE_ROOTS = [
    # The view operation with its window delta: the engine's View, entered through the
    # mutation's action (`view.scroll(to:ifEpoch:)`) and the prefetch, if any.
    ("view operation", r"^(closure #\d+ .*)?in ViewHost\.mutate\(|^View\.(scroll|partialDelta|prefetch)"),
    # Encoding: the reply's result (WireMapping), the writer, the envelope around it.
    ("encode", r"^(closure #\d+ .*in )?(static )?(WireMapping|JSONWriter|Envelope)\b"),
    # Parsing: the byte decoder of hot requests, the general parser and its params reader, the
    # validation of what they read.
    ("parse", r"^(closure #\d+ .*in )?(static )?(HotRequest|Request\.decode|JSONParser|ParamsReader|ScrollParams\.validate)\b"),
    # Routing: the connection handing a line to the service, the method table, the view's
    # executor and host up to the view operation, the outcome's completion and its log line.
    ("route", r"^(closure #\d+ .*in )?(static )?(Connection\.(submit|completion|log|offload)|LayoutService\.(submit|finisher|runsInline)|"
              r"Methods\b|ViewExecutor\.|ViewHost\.(perform|mutate|apply|refreshSummary|invalidated))"),
    # Transport: the reactor's loop (epoll), the connection's reading, framing, queueing,
    # buffering and sending of replies, its bookkeeping per request.
    ("transport", r"^(closure #\d+ .*in )?(static )?(IOThread\.|Connection\.|LineFramer\b|layoutd_epoll_wait)"),
]


# MARK: running the daemon under callgrind

def valgrind_command(layoutd, shim, output, arguments):
    """The command that starts `layoutd` under callgrind, uninstrumented until switched on."""
    return ["env", "LD_PRELOAD=" + shim, "valgrind", "--tool=callgrind", "--instr-atstart=no", "--compress-strings=no",
            "--compress-pos=no", "--callgrind-out-file=" + output, layoutd] + arguments


def control(pid, *arguments):
    subprocess.run(["callgrind_control"] + list(arguments) + [str(pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def dump_files(output):
    directory, base = os.path.split(output)
    return sorted((os.path.join(directory, name) for name in os.listdir(directory) if name.startswith(os.path.basename(base) + ".")),
                  key=lambda path: int(path.rsplit(".", 1)[1]))


def measured_dump(pid, output, run):
    """Zeroes the counters, runs `run()` (the round trips), dumps, and returns the dump's path."""
    before = set(dump_files(output))
    control(pid, "--zero")
    run()
    control(pid, "--dump")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        fresh = [path for path in dump_files(output) if path not in before]
        # A dump is complete once its totals line is written (the last line of the file).
        if fresh:
            with open(fresh[0]) as handle:
                if "totals:" in handle.read()[-400:]:
                    return fresh[0]
        time.sleep(0.1)
    raise RuntimeError("callgrind wrote no dump to %s" % output)


# MARK: reading a dump

class Profile:
    """One callgrind dump: exclusive instructions per function, and per call edge its count and
    inclusive instructions. A function is named by object and name (two objects may share a name)."""

    def __init__(self):
        self.exclusive = {}
        self.edges = {}
        self.total = 0

    @classmethod
    def read(cls, path):
        profile = cls()
        obj = function = callee_obj = callee = None
        pending_calls = None
        with open(path, errors="replace") as handle:
            for line in handle:
                line = line.rstrip("\n")
                if not line:
                    continue
                head = line[0]
                if head.isdigit() or head in "+-*":
                    fields = line.split()
                    cost = int(fields[1]) if len(fields) > 1 else 0
                    if pending_calls is not None:
                        key = (function, callee)
                        count, inclusive = profile.edges.get(key, (0, 0))
                        profile.edges[key] = (count + pending_calls, inclusive + cost)
                        pending_calls = None
                    else:
                        profile.exclusive[function] = profile.exclusive.get(function, 0) + cost
                    continue
                key, _, value = line.partition("=")
                if key == "ob":
                    obj = value
                elif key == "fn":
                    function, callee_obj = (obj, value), None
                elif key == "cob":
                    callee_obj = value
                elif key == "cfn":
                    # cob= names the callee's object for this call only; without it, the caller's.
                    callee, callee_obj = (callee_obj or obj, value), None
                elif key == "calls":
                    pending_calls = int(value.split()[0])
                elif line.startswith("totals:") or line.startswith("summary:"):
                    profile.total = int(line.split()[1])
        return profile

    def minus(self, other):
        """This dump less `other`: what the extra requests cost."""
        result = Profile()
        for name in set(self.exclusive) | set(other.exclusive):
            result.exclusive[name] = self.exclusive.get(name, 0) - other.exclusive.get(name, 0)
        for key in set(self.edges) | set(other.edges):
            a, b = self.edges.get(key, (0, 0)), other.edges.get(key, (0, 0))
            result.edges[key] = (a[0] - b[0], a[1] - b[1])
        result.total = self.total - other.total
        return result


def demangled(names):
    """Demangled names (swift-demangle; C and C++ names pass through unchanged)."""
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    names = list(names)
    if not names or not os.path.exists(tool):
        return {name: name for name in names}
    result = subprocess.run([tool, "--compact"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    lines = result.stdout.split("\n")
    return {name: (lines[index] if index < len(lines) and lines[index] else name) for index, name in enumerate(names)}


MODULES = r"\b(Swift|LayoutServer|LayoutService|LayoutProtocol|LayoutEngine|LayoutIPC|LayoutGeometry|Dispatch|Glibc|Synchronization)\."


def without_bracketed(text, start):
    """`text` less the <...> group that opens at `start` (nested brackets included)."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"<": 1, ">": -1}.get(text[index], 0)
        if depth == 0:
            return text[:start] + text[index + 1:]
    return text


def readable(name):
    """A demangled name as the tables show it and the phase rules match it: no module prefixes,
    no specialisation or thunk wrappers, no closure signatures, no return type; the parameter
    types kept (they tell overloads apart). Callgrind's recursion suffix ('2) is dropped."""
    name = re.sub(r"'\d+$", "", name)
    while True:
        match = re.match(r"^(generic specialization |function signature specialization )<", name)
        if match:
            name = re.sub(r"^ of ", "", without_bracketed(name[match.end() - 1:], 0))
            continue
        match = re.match(r"^(specialized |merged |partial apply (forwarder )?for )", name)
        if not match:
            break
        name = name[match.end():]
    # The module of a qualified name only, not a type that shares its module's name
    # (LayoutService.LayoutService.submit is LayoutService.submit).
    name = re.sub(r"(?<![\w.])" + MODULES, "", name)
    # A private type's discriminator: "(HotCursor in _9BA4D236...)" is HotCursor.
    name = re.sub(r"\((\w+) in _[0-9A-F]+\)", r"\1", name)
    while True:
        # A closure's own signature: "closure #1 (UnsafeMutablePointer<UInt8>) -> Int in f(...)".
        shorter = re.sub(r"((?:implicit )?closure #\d+) \(.*?\)(?: (?:throws|async|throws\(\w+\)))* -> .*? in ", r"\1 in ", name, count=1)
        if shorter == name:
            break
        name = shorter
    depth = 0
    for index, character in enumerate(name):
        depth += {"(": 1, "<": 1, "[": 1, ")": -1, ">": -1, "]": -1}.get(character, 0) if name[index - 1:index + 1] != "->" else 0
        if depth == 0 and name.startswith(" -> ", index) and index > 0 and name[index - 1] == ")":
            return name[:index]
    return name


def root_phase(name):
    for phase, pattern in PHASE_ROOTS:
        if re.search(pattern, name):
            return phase
    return None


# MARK: attribution

def attribute(profile, requests):
    """Splits `profile` (the difference of two dumps, `requests` round trips apart) by phase.

    Returns per request: the total, each phase's instructions, allocations and frees (each by
    phase too), and the functions with their exclusive instructions and share outside the view
    operation, for the table of biggest costs."""
    functions = set(profile.exclusive) | {caller for caller, _ in profile.edges} | {callee for _, callee in profile.edges}
    names = demangled({name for _, name in functions})
    short = {function: readable(names[function[1]]) for function in functions}
    roots = {function: root_phase(short[function]) for function in functions}
    callers = {}
    for (caller, callee), (count, inclusive) in profile.edges.items():
        if caller != callee and inclusive > 0:
            callers.setdefault(callee, []).append((caller, inclusive))

    # The phase mix of each function: a root's own phase, else its callers' mixes weighted by the
    # instructions each edge carried; no caller at all: `other`. Iterated to a fixed point
    # (call cycles converge; a depth of 200 is far beyond the daemon's call chains).
    def pure(phase):
        return {phase: 1.0}

    mix = {function: pure(roots[function]) if roots[function] else pure("other") for function in functions}
    for _ in range(200):
        changed = False
        for function in functions:
            if roots[function] or function not in callers:
                continue
            weight = sum(inclusive for _, inclusive in callers[function])
            new = {}
            for caller, inclusive in callers[function]:
                for phase, share in mix[caller].items():
                    new[phase] = new.get(phase, 0.0) + share * inclusive / weight
            if any(abs(new.get(phase, 0) - mix[function].get(phase, 0)) > 1e-9 for phase in set(new) | set(mix[function])):
                mix[function] = new
                changed = True
        if not changed:
            break

    phases = {phase: 0.0 for phase in PHASES}
    for function, cost in profile.exclusive.items():
        for phase, share in mix[function].items():
            phases[phase] += cost * share
    # Each phase's biggest contributors (exclusive instructions landing in it), for reading a
    # kept dump (main) and for checking the rules.
    by_phase = {}
    for phase in PHASES:
        ranked = sorted(((cost * mix[function].get(phase, 0.0) / requests, short[function]) for function, cost in profile.exclusive.items()
                         if mix[function].get(phase, 0.0) > 0), reverse=True)
        by_phase[phase] = [(name, value) for value, name in ranked[:15] if value >= 1]
    calls = {}
    for (caller, callee), (count, _) in profile.edges.items():
        calls.setdefault(callee[1], []).append((caller, count))
    allocations = {phase: 0.0 for phase in PHASES}
    frees = 0
    for name, edges in calls.items():
        for caller, count in edges:
            if name in ALLOCATORS and not (caller[1] in ALLOCATORS):
                for phase, share in mix[caller].items():
                    allocations[phase] += count * share
            elif name in FREES:
                frees += count
    # The biggest costs outside the view operation, a function's recursion levels ('2) and
    # copies in several objects summed under its one readable name.
    by_name = {}
    for function, cost in profile.exclusive.items():
        entry = by_name.setdefault(short[function], {"cost": 0.0, "phases": {}})
        entry["cost"] += cost
        for phase, share in mix[function].items():
            entry["phases"][phase] = entry["phases"].get(phase, 0.0) + cost * share
    top = []
    for name, entry in by_name.items():
        outside = sum(value for phase, value in entry["phases"].items() if phase in ("transport", "parse", "route", "encode"))
        if outside > 0 and entry["cost"] > 0:
            top.append((name, entry["cost"] / requests, outside / requests,
                        ", ".join("%s %.0f%%" % (phase, 100 * value / entry["cost"])
                                  for phase, value in sorted(entry["phases"].items(), key=lambda item: -item[1]) if value >= 0.005 * entry["cost"])))
    top.sort(key=lambda entry: -entry[2])
    return {
        "instructions_per_request": profile.total / requests,
        "phases": {phase: value / requests for phase, value in phases.items()},
        "allocations_per_request": sum(allocations.values()) / requests,
        "allocations_by_phase": {phase: value / requests for phase, value in allocations.items()},
        "frees_per_request": frees / requests,
        "top_outside_view_operation": top[:25],
        "top_by_phase": by_phase,
    }


def measure(layoutd, shim, rtt, socket_path, arguments, set_up, counts=(500, 2500), warmup=200, keep=None):
    """Starts layoutd under callgrind, lets `set_up(socket_path)` make its views (uninstrumented)
    and return the path of the request lines to send, then measures `counts` round trips of
    them with the C client `rtt` and returns
    `attribute`'s figures for the difference (plus the raw totals and the counts)."""
    directory = tempfile.mkdtemp(prefix="layoutd-callgrind-")
    output = os.path.join(directory, "callgrind.out")
    log_path = os.path.join(directory, "valgrind.log")
    with open(log_path, "w") as log_file:
        daemon = subprocess.Popen(valgrind_command(layoutd, shim, output, ["--socket", socket_path] + arguments),
                                  stdout=subprocess.DEVNULL, stderr=log_file)
    try:
        requests_path = set_up(socket_path)
        control(daemon.pid, "--instr=on")

        def round_trips(count):
            def run():
                result = subprocess.run([rtt, "--socket", socket_path, "--requests", requests_path, "--warmup", "0", "--count", str(count)],
                                        check=True, capture_output=True, text=True)
                # Only real scrolls count: an error reply is a cheaper path than the one measured.
                if '"errors":0' not in result.stdout:
                    raise RuntimeError("error replies under callgrind: %s" % result.stdout.strip())
            return run

        round_trips(warmup)()
        dumps = [measured_dump(daemon.pid, output, round_trips(count)) for count in counts]
        if keep:
            # Kept for `python3 scripts/bench_callgrind.py SMALL LARGE REQUESTS` and callgrind_annotate.
            os.makedirs(keep, exist_ok=True)
            for path, count in zip(dumps, counts):
                shutil.copy(path, os.path.join(keep, "callgrind.%d-requests" % count))
        small, large = (Profile.read(path) for path in dumps)
        figures = attribute(large.minus(small), counts[1] - counts[0])
        figures.update({"callgrind_counts": list(counts), "callgrind_totals": [small.total, large.total]})
        return figures
    except Exception:
        with open(log_path) as handle:
            raise RuntimeError("callgrind pass failed; valgrind said: %s" % handle.read()[-2000:])
    finally:
        daemon.terminate()
        try:
            daemon.wait(60)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    """Attributes two kept dumps (`measure(keep=...)`): prints the phases, allocations and the
    biggest costs outside the view operation per request."""
    import argparse
    import json
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("small")
    parser.add_argument("large")
    parser.add_argument("requests", type=int, help="how many more round trips the large dump holds")
    arguments = parser.parse_args()
    figures = attribute(Profile.read(arguments.large).minus(Profile.read(arguments.small)), arguments.requests)
    print(json.dumps({key: value for key, value in figures.items() if not key.startswith("top")}, indent=1))
    print("biggest costs outside the view operation (exclusive instructions per request, outside share, phases):")
    for name, cost, outside, phases in figures["top_outside_view_operation"]:
        print("%8.0f %8.0f  %s  [%s]" % (cost, outside, name[:160], phases))
    for phase in PHASES:
        print("%s: %.0f instructions per request; its biggest contributors:" % (phase, figures["phases"][phase]))
        for name, cost in figures["top_by_phase"][phase]:
            print("%8.0f  %s" % (cost, name[:160]))


if __name__ == "__main__":
    main()
