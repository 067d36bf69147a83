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
# The kitchen screen is tested under tmux (KitchenScreenTests); install it when apt-get can.
# Without it those two tests skip and say so.
if ! command -v tmux >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux >/dev/null; } || echo "could not install tmux: the kitchen screen tests will skip" >&2
fi
swift build --build-tests
swift test --skip-build "$@"
