#!/usr/bin/env bash
# The screens in a real browser (issue 29): headless Chromium against the platform started by
# run-local (deployed mode, in its own network namespace so it never meets the default ports of
# anything else on the machine). Tests/Browser/screens_test.py checks the kitchen display, the
# pickup board and the refusals, stops and restarts the edge and Pushpin, and saves a screenshot
# of each page at each step under the folder printed at the end.
#
#   deploy/browser-test.sh          (BROWSER_TEST_SHOTS=DIR keeps the screenshots there)
#
# Installs Debian's chromium, chromium-driver and python3-selenium when missing. Where they cannot
# be installed, or no network namespace can be made, it says so in a banner and exits 77: .ci/run
# reports the skip and goes on, as for the container test.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "############################################################################" >&2
  echo "## BROWSER TEST SKIPPED: $1" >&2
  echo "## The screens were NOT checked in a browser on this machine." >&2
  echo "############################################################################" >&2
  exit 77
}

if [ -z "${BROWSER_TEST_INSIDE:-}" ]; then
  if ! { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null; }; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "browser-test: installing chromium, chromium-driver and python3-selenium" >&2
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver python3-selenium >/dev/null; } \
      || skip "Debian's chromium, chromium-driver and python3-selenium could not be installed"
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || skip "chromium or chromedriver is missing after the install"
  fi
  # Everything the platform needs, and its build, before the network goes away.
  deploy/ensure-deps.sh
  swift build >&2
  shots="${BROWSER_TEST_SHOTS:-$(pwd)/.build/browser-test/shots-$(date -u +%Y%m%dT%H%M%SZ)}"
  mkdir -p "$shots"
  unshare --net true 2>/dev/null || skip "no network namespace can be made here (unshare --net needs root or user namespaces)"
  export BROWSER_TEST_INSIDE=1 BROWSER_TEST_SHOTS="$shots"
  exec unshare --net bash "$0" "$@"
fi

# Inside the namespace: loopback only.
ip link set lo up
bin="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/browser-test.XXXXXX)"
data="$work/data"
status=0
cleanup() {
  deploy/stop-local.sh "$data" >/dev/null 2>&1 || true
  echo "browser-test: logs in $data/logs" >&2
}
trap cleanup EXIT
deploy/run-local.sh --secure --detach --data "$data" --bin "$bin" >"$work/run-local.out" 2>&1 || {
  cat "$work/run-local.out" >&2
  echo "browser-test: the platform did not start" >&2
  exit 1
}
/usr/bin/python3 Tests/Browser/screens_test.py --api http://127.0.0.1:8080 --data "$data" --bin "$bin" --shots "$BROWSER_TEST_SHOTS" || status=$?
echo "browser-test: screenshots in $BROWSER_TEST_SHOTS"
exit "$status"
