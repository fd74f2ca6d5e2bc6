#!/usr/bin/env python3
"""The code blocks of a README, for the suites that compile or run them (issue: docs that
compile). Every fenced block must say how it is tested, in an HTML comment on the line right
before its fence, so a new block cannot slip past the tests:

    <!-- block: run -->           a complete program: run against a real daemon, twice
    <!-- block: compile -->       a complete program: compiled (or loaded) only, with a reason
    <!-- block: shell -->         shell commands, run by the suite in a scratch directory
    <!-- block: part NAME -->     a piece of the program NAME (blocks of one NAME are joined in order)
    <!-- block: output -->        what the block before it prints (compared, or checked by pattern)
    <!-- block: config -->        a configuration snippet (Package.swift, package.json ...): the
                                  suite checks it by building or parsing the file it belongs in

``python3 scripts/readme_blocks.py README.md`` prints the blocks as JSON (a list of
``{"index", "line", "lang", "kind", "arg", "code"}``) and fails, naming the line, when a block
has no annotation or an unknown kind. Each client's runner imports :func:`blocks` or reads
that JSON; it must fail on a kind it does not handle.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Dict, List, Union

KINDS = ("run", "compile", "shell", "part", "output", "config")
ANNOTATION = re.compile(r"^<!--\s*block:\s*(\w+)(?:\s+(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")

Block = Dict[str, Union[str, int]]


class ReadmeError(ValueError):
    pass


def blocks(path: Union[str, Path]) -> List[Block]:
    """Every fenced block of the file with its annotation (ReadmeError when one lacks it)."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    found: List[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, marker, lang = fence.groups()
        previous = lines[i - 1].strip() if i else ""
        annotation = ANNOTATION.match(previous)
        if not annotation:
            raise ReadmeError("%s:%d: a ```%s block without a <!-- block: KIND --> line before it"
                              % (path, i + 1, lang))
        kind, arg = annotation.group(1), annotation.group(2) or ""
        if kind not in KINDS:
            raise ReadmeError("%s:%d: unknown block kind %r (known: %s)" % (path, i, kind, ", ".join(KINDS)))
        if kind == "part" and not arg:
            raise ReadmeError("%s:%d: a part names its program: <!-- block: part NAME -->" % (path, i))
        body: List[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(marker[0] * len(marker)):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise ReadmeError("%s:%d: a block that is never closed" % (path, i + 1))
        found.append({"index": len(found), "line": i + 1, "lang": lang, "kind": kind, "arg": arg,
                      "code": "\n".join(body) + "\n"})
        i = j + 1
    return found


def programs(found: List[Block]) -> Dict[str, str]:
    """The ``part`` blocks joined by program name, in order."""
    joined: Dict[str, str] = {}
    for block in found:
        if block["kind"] == "part":
            joined[str(block["arg"])] = joined.get(str(block["arg"]), "") + str(block["code"])
    return joined


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: readme_blocks.py README.md")
    try:
        print(json.dumps(blocks(sys.argv[1]), indent=1, ensure_ascii=False))
    except ReadmeError as error:
        sys.exit(str(error))


if __name__ == "__main__":
    main()
