#!/usr/bin/env bash
# The test command: installs libzmq/SQLite if missing, builds everything (the integration tests
# spawn the built executables), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/ensure-deps.sh
# The README's pyzmq example is run by a test (TailTests); give it pyzmq when python3 is here.
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import zmq" >/dev/null 2>&1; then
  python3 -m pip install --quiet pyzmq
fi
swift build --build-tests
swift test --skip-build "$@"
