#!/usr/bin/env bash
# Installs the Debian packages named as arguments (the Makefile's DEB_PACKAGES) when they are
# missing, as root; otherwise says exactly what to run and fails. Quiet when all are present.
set -euo pipefail

packages=("$@")
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "ensure-deps: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "ensure-deps: missing ${missing[*]}; run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "ensure-deps: no 'swift' on PATH (expected the Swift 6.3 toolchain or later, e.g. /opt/swift/usr/bin)" >&2
  exit 1
fi
# The floor: the plugins export their entry point with @c (SE-0495), first in Swift 6.3.
version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -1)
read -r major minor <<<"${version:-0 0}"
if ((major < 6 || (major == 6 && minor < 3))); then
  echo "ensure-deps: Swift ${major}.${minor} is too old; layoutd needs Swift 6.3 or later" >&2
  exit 1
fi
