#!/bin/sh
# Runs the Python client's tests: python3 -m unittest discover over clients/python/tests.
#   LAYOUTD_BINARY   the daemon to test against (default <repo>/.build/debug/layoutd)
#   PYTHON           the interpreter (default python3); mypy must be installed for it
#                    (pip install -r clients/python/requirements-test.txt) or the mypy test skips
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "${PYTHON:-python3}" -m unittest discover -s "$here/tests" -t "$here/tests" "$@"
