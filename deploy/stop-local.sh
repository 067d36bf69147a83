#!/usr/bin/env bash
# Stops a platform started with deploy/run-local.sh --detach (SIGTERM, then waits up to 30 s for
# every process to exit, so a run-local.sh right after finds the ports free).
#
#   deploy/stop-local.sh [DATA-DIR]     (default: data)
set -euo pipefail
cd "$(dirname "$0")/.."
data="${1:-data}"
[ -f "$data/pids" ] || { echo "stop-local.sh: nothing running ($data/pids not found)" >&2; exit 0; }
pids=$(cat "$data/pids")
kill -TERM $pids 2>/dev/null || true
alive=""
for _ in $(seq 1 300); do
  alive=""
  for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
  [ -z "$alive" ] && break
  sleep 0.1
done
if [ -n "$alive" ]; then
  echo "stop-local.sh: still running after 30 s:$alive (see $data/logs/; kill -9 them if need be)" >&2
  exit 1
fi
rm -f "$data/pids"
echo "stopped" >&2
