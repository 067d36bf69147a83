#!/usr/bin/env bash
# The test command: installs libzmq/SQLite/libcrypto if missing, builds everything (the integration tests
# spawn the built executables), then runs the whole suite. When something fails, the failures are
# printed again at the very end, so the last screen of a long log says what broke.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/ensure-deps.sh
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_updated=""
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ -z "$apt_updated" ]; then $sudo apt-get update -qq || return 1; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
# deploy/README.md's pyzmq example is run by a test (TailTests); give it pyzmq when python3 is here.
# pip first; a Debian python that refuses pip (PEP 668) gets Debian's python3-zmq instead.
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import zmq" >/dev/null 2>&1; then
  python3 -m pip install --quiet pyzmq 2>/dev/null || apt_install python3-zmq \
    || echo "could not install pyzmq: TailTests' pyzmq example will fail and say so" >&2
fi
# The identity tests sign tokens with the openssl command line, a test issuer independent of the
# code under test (IdentityTests); install it when apt-get can. Without it those tests fail and say so.
if ! command -v openssl >/dev/null 2>&1; then
  apt_install openssl || echo "could not install openssl: the identity tests will fail and say so" >&2
fi
# The kitchen screen is tested under tmux (KitchenScreenTests); install it when apt-get can.
# Without it those two tests skip and say so.
if ! command -v tmux >/dev/null 2>&1; then
  apt_install tmux || echo "could not install tmux: the kitchen screen tests will skip" >&2
fi
swift build --build-tests
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
swift test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo
  echo "== swift test exited $status; what failed (repeated from above) =="
  # XCTest: "file:line: error: -[Suite test] : failed …"; Swift Testing: "✘ …"; crashes: signals, fatal errors.
  grep -E "error:|✘|Fatal error|signal|Exited with|unexpected" "$log" | grep -v -E "^✔|passed" | head -80 || true
fi
exit "$status"
