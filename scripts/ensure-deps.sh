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
  echo "ensure-deps: no 'swift' on PATH (expected the Swift 6 toolchain, e.g. /opt/swift/usr/bin)" >&2
  exit 1
fi
