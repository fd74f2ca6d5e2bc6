"""Every method of protocol/interface.json (the description itself, not the generated modules)
is a typed method on both ``Client`` and ``AsyncClient`` (a coroutine there): its protocol
parameters as Python parameters, each annotated, and an annotated return (plus the call's own
keyword-only ``timeout``, the deadline every call takes). Or it is listed in
``layoutd.RAW_ONLY`` with the reason it is reached only through ``call``."""
from __future__ import annotations

import inspect
import json
import os
import re
import typing
import unittest
from typing import Any, List, Optional

from support import ROOT

from layoutd import RAW_ONLY, AsyncClient, Client
from layoutd._methods import AsyncMethods, SyncMethods

INTERFACE = os.path.join(ROOT, "protocol", "interface.json")


def snake(name: str) -> str:
    """'view.hitTest' -> 'view_hit_test' (words split at dots and capitals)."""
    words: List[str] = []
    for piece in re.split(r"[.\-_ ]", name):
        words += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", piece)
    return "_".join(word.lower() for word in words)


def described_methods() -> List[Any]:
    with open(INTERFACE, encoding="utf-8") as handle:
        methods: List[Any] = json.load(handle)["methods"]
    return methods


def untyped(cls: type, method: Any, asynchronous: bool) -> Optional[str]:
    """Why ``cls`` has no typed method for ``method`` (None when it has)."""
    function = getattr(cls, snake(method["name"]), None)
    if function is None:
        return "no method %s" % snake(method["name"])
    if asynchronous != inspect.iscoroutinefunction(function):
        return "%s is %sa coroutine function" % (function.__name__, "not " if asynchronous else "")
    try:
        hints = typing.get_type_hints(function)
    except Exception as error:  # an annotation that does not resolve is no type
        return "annotations do not resolve: %r" % error
    parameters = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    own = [p for p in parameters if p.name == "timeout"]
    if len(own) != 1 or own[0].kind is not inspect.Parameter.KEYWORD_ONLY:
        return "no keyword-only timeout (the call's deadline)"
    parameters = [p for p in parameters if p.name != "timeout"]
    wanted = sorted(snake(name) for name in method["params"].get("properties", {}))
    if sorted(p.name for p in parameters) != wanted:
        return "parameters %s, the schema's are %s" % (sorted(p.name for p in parameters), wanted)
    missing = [p.name for p in parameters if p.name not in hints]
    if missing:
        return "no annotation for %s" % ", ".join(missing)
    if "return" not in hints:
        return "no return annotation"
    return None


class Coverage(unittest.TestCase):
    def test_every_method_is_typed_on_both_clients_or_listed_raw(self) -> None:
        problems, typed = [], 0
        for method in described_methods():
            if method["name"] in RAW_ONLY:
                continue
            for cls, asynchronous in ((Client, False), (AsyncClient, True)):
                problem = untyped(cls, method, asynchronous)
                if problem is None:
                    typed += 1
                else:
                    problems.append("%s: %s: %s" % (method["name"], cls.__name__, problem))
        self.assertEqual(problems, [], "methods of protocol/interface.json without a typed method "
                                       "(regenerate with scripts/generate-protocol.py, or list them in layoutd/_coverage.py):\n  "
                                       + "\n  ".join(problems))
        self.assertGreaterEqual(typed, 2 * (len(described_methods()) - len(RAW_ONLY)))

    def test_raw_only_lists_described_methods_with_reasons(self) -> None:
        names = {method["name"] for method in described_methods()}
        for name, reason in RAW_ONLY.items():
            self.assertIn(name, names, "layoutd/_coverage.py lists %s, which protocol/interface.json does not describe" % name)
            self.assertTrue(reason.strip(), "no reason given for %s" % name)

    def test_generated_methods_give_summary_and_doc(self) -> None:
        checked = 0
        for method in described_methods():
            for cls in (SyncMethods, AsyncMethods):
                function = cls.__dict__.get(snake(method["name"]))
                if function is None:
                    continue  # written by hand in the client (view.subscribe)
                doc = inspect.getdoc(function) or ""
                self.assertIn(method["summary"].split()[0], doc, method["name"])
                self.assertIn("protocol/%s" % method["doc"], " ".join(doc.split()), method["name"])
                checked += 1
        self.assertGreater(checked, 60)


if __name__ == "__main__":
    unittest.main()
