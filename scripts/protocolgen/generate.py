"""Runs every generator and writes (or checks) their files."""
import os

from . import c, docs, javascript, python, schemas, swift_catalog, swift_client, version
from .model import ROOT, DescriptionError, Protocol

# Each generator: a module with outputs(protocol) -> {absolute path: text}.
GENERATORS = [schemas, swift_catalog, docs, swift_client, c, python, javascript, version]


def all_outputs(protocol):
    files = {}
    for module in GENERATORS:
        for path, text in module.outputs(protocol).items():
            if path in files:
                raise DescriptionError("%s is written by two generators" % path)
            files[path] = text if text.endswith("\n") else text + "\n"
    return files


def current(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def main(arguments):
    check = "--check" in arguments
    try:
        protocol = Protocol()
        files = all_outputs(protocol)
    except DescriptionError as error:
        print("protocol/interface.json: %s" % error)
        return 1
    differing = sorted(path for path, text in files.items() if current(path) != text)
    obsolete = schemas.stale_schema_files(protocol)
    if check:
        for path in differing:
            print("stale: %s" % os.path.relpath(path, ROOT))
        for path in obsolete:
            print("obsolete: %s" % os.path.relpath(path, ROOT))
        if differing or obsolete:
            print("run scripts/generate-protocol.py (the description is protocol/interface.json)")
            return 1
        return 0
    for path in differing:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(files[path])
        print("wrote %s" % os.path.relpath(path, ROOT))
    for path in obsolete:
        os.remove(path)
        print("removed %s" % os.path.relpath(path, ROOT))
    return 0
