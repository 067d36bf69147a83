#!/usr/bin/env bash
# The test command: installs libzmq/SQLite if missing, builds everything (the integration tests
# spawn the built executables), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/ensure-deps.sh
swift build --build-tests
swift test --skip-build "$@"
