"""A PEP 517 build backend with no requirements (standard library only), so that
``pip install clients/python`` works offline: it packs ``layoutd/`` into a pure-Python wheel."""
from __future__ import annotations

import base64
import hashlib
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "layoutd"


def _version() -> str:
    with open(os.path.join(HERE, "pyproject.toml")) as handle:
        match = re.search(r'^version\s*=\s*"([^"]+)"', handle.read(), re.M)
    assert match, "no version in pyproject.toml"
    return match.group(1)


def _metadata() -> str:
    with open(os.path.join(HERE, "README.md")) as handle:
        readme = handle.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Python client for layoutd, the headless collection-layout daemon\n"
            "Requires-Python: >=3.9\nLicense: MIT\nDescription-Content-Type: text/markdown\n\n%s" % (NAME, _version(), readme))


def _files() -> List[str]:
    out = []
    for folder, _, names in os.walk(os.path.join(HERE, NAME)):
        for name in sorted(names):
            if name.endswith(".py") or name == "py.typed":
                out.append(os.path.relpath(os.path.join(folder, name), HERE))
    return sorted(out)


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def _wheel(wheel_directory: str, editable: bool) -> str:
    version = _version()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    filename = "%s-%s-py3-none-any.whl" % (NAME, version)
    entries: List[tuple[str, bytes]] = []
    if editable:
        entries.append(("%s.pth" % NAME, (HERE + "\n").encode()))
    else:
        for path in _files():
            with open(os.path.join(HERE, path), "rb") as handle:
                entries.append((path.replace(os.sep, "/"), handle.read()))
    entries.append((dist_info + "/METADATA", _metadata().encode()))
    entries.append((dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: layoutd-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(p, d) for p, d in entries] + [dist_info + "/RECORD,,"]
    entries.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in entries:
            wheel.writestr(path, data)
    return filename


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, editable=False)


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = "%s-%s" % (NAME, _version())
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as sdist:
        for path in _files() + ["pyproject.toml", "README.md", "_build/backend.py"]:
            sdist.add(os.path.join(HERE, path), arcname=base + "/" + path)
        info = _metadata().encode()
        import io
        member = tarfile.TarInfo(base + "/PKG-INFO")
        member.size = len(info)
        sdist.addfile(member, io.BytesIO(info))
    return filename
