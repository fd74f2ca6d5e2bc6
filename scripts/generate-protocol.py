#!/usr/bin/env python3
"""Writes every copy of the protocol's facts from its one description, protocol/interface.json
(with the shared objects of protocol/schemas/common.json): the per-method and per-event JSON
Schemas, the tables in protocol/README.md and errors.md, the daemon's catalog, and the four
clients' method and error tables and types. ARCHITECTURE.md says which file each generator
writes (its scripts/protocolgen rows) and which files a new method touches ("Where to change
what").

    scripts/generate-protocol.py           rewrite what differs (and remove obsolete schemas)
    scripts/generate-protocol.py --check   write nothing; list what differs, exit 1 if anything does

Standard library only (Debian's python3)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from protocolgen import generate  # noqa: E402


if __name__ == "__main__":
    sys.exit(generate.main(sys.argv[1:]))
