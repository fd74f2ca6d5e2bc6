"""Socket discovery (protocol/README.md §1)."""
from __future__ import annotations

import os
from typing import Mapping, Optional

SYSTEM_SOCKET = "/run/layoutd/ipc.sock"


def socket_path(explicit: Optional[str] = None, environ: Optional[Mapping[str, str]] = None) -> str:
    """The socket a client uses: ``explicit`` (the caller's ``--socket``), else
    ``$LAYOUTD_SOCKET`` (empty counts as unset), else ``$XDG_RUNTIME_DIR/layoutd/ipc.sock`` (set
    and not empty), else ``/run/layoutd/ipc.sock``. The first rule that applies decides: there is
    no fallback to the next one when nothing listens there."""
    env = os.environ if environ is None else environ
    if explicit:
        return explicit
    if env.get("LAYOUTD_SOCKET"):
        return env["LAYOUTD_SOCKET"]
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "layoutd", "ipc.sock")
    return SYSTEM_SOCKET
