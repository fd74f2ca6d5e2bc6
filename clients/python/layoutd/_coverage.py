"""Protocol methods that ``Client`` and ``AsyncClient`` reach only through ``call`` (raw params,
the result as a dict), each with the reason. Every other method of protocol/interface.json is a
typed method on both clients (generated into ``_methods.py``, or written by hand, such as
``subscribe``); tests/test_coverage.py holds the package to that."""
from __future__ import annotations

from typing import Dict

#: method name -> why it has no typed method.
RAW_ONLY: Dict[str, str] = {}
