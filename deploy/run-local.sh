#!/usr/bin/env bash
# Starts the whole platform on this machine: the bus and the five services on loopback, each with
# its SQLite file under a data folder, serving the demo campus; then the HTTP edge and Pushpin in
# front of it (http://127.0.0.1:8080, and https://localhost:8443 with a local test CA), with a
# local test issuer for sign-in under DATA/issuer, and a local APNs (deploy/local-apns.sh) under
# DATA/apns that notification-service pushes to.
# Ctrl-C stops everything.
#
#   deploy/run-local.sh [--secure] [--data DIR] [--campus FILE] [--release] [--bin DIR] [--detach] [--no-apns-peer]
#
# --secure runs deployed mode: CURVE on every socket, every caller known by its key. The keys live
#   in DIR/keys (made once with `cafectl keys init`, plus demo principals: phone-alice, the phone
#   of user alice with device phone-1; kitchen-macs and kiosk-macs at caffe-macs; edge, the HTTP
#   edge's own key, which acts only on behalf of the principals it authenticates). Every
#   process gets --security deployed --keys DIR/keys; the script waits for health as the operator
#   and prints the cafectl flags to act as each principal.
# --bin uses the executables already built in DIR instead of building.
# --detach leaves it running in the background; deploy/stop-local.sh [DIR] stops it.
# --no-apns-peer starts no local APNs peer: notification-service then has no APNs key, and pushes
#   for devices on the apns channel wait (health degraded: push.credentials).
set -euo pipefail
cd "$(dirname "$0")/.."
data=data
campus=deploy/campus.json
config=debug
detach=0
secure=0
apns_peer=1
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --campus) campus="$2"; shift 2 ;;
    --release) config=release; shift ;;
    --bin) bin="$2"; shift 2 ;;
    --detach) detach=1; shift ;;
    --secure) secure=1; shift ;;
    --no-apns-peer) apns_peer=0; shift ;;
    *) echo "run-local.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  deploy/ensure-deps.sh
  swift build -c "$config" >&2
  bin="$(swift build -c "$config" --show-bin-path)"
fi
mkdir -p "$data/logs"
if [ -f "$data/pids" ] && kill -0 $(cat "$data/pids") 2>/dev/null; then
  echo "run-local.sh: the platform is already running (pids in $data/pids); deploy/stop-local.sh stops it" >&2
  exit 1
fi

security=()
as_operator=()
if [ "$secure" -eq 1 ]; then
  keys="$(cd "$data" && pwd)/keys"
  [ -f "$keys/registry" ] || "$bin/cafectl" keys init "$keys" >&2
  registered() { awk '{print $2}' "$keys/registry" | grep -qx "$1"; }
  registered phone-alice || "$bin/cafectl" keys add "$keys" phone-alice --role phone --device phone-1 --user alice >&2
  registered kitchen-macs || "$bin/cafectl" keys add "$keys" kitchen-macs --role kitchen --cafe caffe-macs >&2
  registered kiosk-macs || "$bin/cafectl" keys add "$keys" kiosk-macs --role kiosk --cafe caffe-macs >&2
  registered edge || "$bin/cafectl" keys add "$keys" edge --role edge >&2
  security=(--security deployed --keys "$keys")
  as_operator=(--keys "$keys" --as operator)
fi
: > "$data/pids"

start() {
  local name="$1"; shift
  (
    # The service keeps none of the descriptors this script inherited beyond stdin/out/err: a
    # detached platform must not hold its starter's pipes open.
    for fd in /proc/$BASHPID/fd/*; do fd="${fd##*/}"; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
    exec "$bin/$name" "$@" ${security[@]+"${security[@]}"} >>"$data/logs/$name.log" 2>&1
  ) &
  echo $! >> "$data/pids"
}
stop() {
  [ -f "$data/pids" ] || return 0
  kill -TERM $(cat "$data/pids") 2>/dev/null || true
  wait 2>/dev/null || true
  rm -f "$data/pids"
  echo "stopped" >&2
}

start bus
# The local APNs peer (its test CA, certificate and team key made once under $data/apns; what it
# received in $data/apns/record.jsonl), started first: notification-service is given its port.
apns=()
rm -f "$data/apns/port"   # the last run's peer is gone: wait for this one's, or say none runs
if [ "$apns_peer" -eq 1 ]; then
  if /usr/bin/python3 -c 'import h2, cryptography' >/dev/null 2>&1; then
    deploy/local-apns.sh init "$data/apns"
    (
      for fd in /proc/$BASHPID/fd/*; do fd="${fd##*/}"; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
      exec deploy/local-apns.sh peer "$data/apns" >>"$data/logs/apns-peer.log" 2>&1
    ) &
    echo $! >> "$data/pids"
    for _ in $(seq 1 100); do [ -f "$data/apns/port" ] && break; sleep 0.1; done
    if [ -f "$data/apns/port" ]; then
      mapfile -t apns < <(deploy/local-apns.sh flags "$data/apns")
    else
      echo "run-local.sh: the local APNs peer did not start (see $data/logs/apns-peer.log); apns pushes will wait" >&2
    fi
  else
    echo "run-local.sh: no local APNs peer (/usr/bin/python3 lacks h2 or cryptography: deploy/ensure-deps.sh installs them)" >&2
  fi
fi
for service in beacon-ingest region-monitor order-service kitchen-display notification-service; do
  case "$service" in
    notification-service) start "$service" --data-dir "$data" --campus "$campus" ${apns[@]+"${apns[@]}"} ;;
    region-monitor|order-service) start "$service" --data-dir "$data" --campus "$campus" ;;
    *) start "$service" --data-dir "$data" ;;
  esac
done
# The HTTP edge (its sessions in $data/edge.sqlite; sign-in trusts the local test issuer), then
# Pushpin from deploy/pushpin's templates, rendered under $data/pushpin with its ipc sockets there.
# env --default-signal: Pushpin's condure, proxy and handler must take stop's SIGTERM even when
# whoever started this script blocks it.
deploy/local-issuer.sh init "$data/issuer"
deploy/pushpin/render.sh "$data/pushpin" --http-port 8080 --https-port 8443 --zhttp tcp://127.0.0.1:7461 --publish tcp://127.0.0.1:7462 --control-port 7463
# HTTPS on 8443 with a certificate from a local test CA (curl --cacert $data/pushpin/ca.crt).
deploy/local-tls.sh "$data/pushpin" 8443
start edge --data-dir "$data" --issuers "$data/issuer/issuers.json" --zhttp-endpoint tcp://127.0.0.1:7461 \
  --grip-key-file "$data/pushpin/sig_key" --metrics-listen tcp://127.0.0.1:7464
(
  for fd in /proc/$BASHPID/fd/*; do fd="${fd##*/}"; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
  exec env --default-signal pushpin --config "$data/pushpin/pushpin.conf" --merge-output >>"$data/logs/pushpin.log" 2>&1
) &
echo $! >> "$data/pids"
[ "$detach" -eq 1 ] || trap stop EXIT INT TERM

# 30 s by the clock: a health round on a loaded machine can take longer than its sleep.
deadline=$((SECONDS + 30))
while [ "$SECONDS" -lt "$deadline" ]; do
  if "$bin/cafectl" health --timeout-ms 500 ${as_operator[@]+"${as_operator[@]}"} >/dev/null 2>&1 \
     && "$bin/cafectl" request edge health --edge tcp://127.0.0.1:7460 --timeout-ms 500 ${as_operator[@]+"${as_operator[@]}"} >/dev/null 2>&1 \
     && { ! command -v curl >/dev/null || curl -sf -m 2 -o /dev/null http://127.0.0.1:8080/v1/openapi.json; }; then
    "$bin/cafectl" health ${as_operator[@]+"${as_operator[@]}"}
    cat >&2 <<MSG

Campus Café is up: bus tcp://127.0.0.1:7401 (publish) / 7402 (subscribe), beacon-ingest :7410,
region-monitor :7420 (fixes :7425), order-service :7430, kitchen-display :7440, notification-service :7450.
Data and logs: $data/   cafectl: $bin/cafectl   Watch everything: $bin/cafectl tail "" ${as_operator[*]:-}

HTTP API: http://127.0.0.1:8080   (Pushpin → edge :7460; GET http://127.0.0.1:8080/v1/openapi.json describes it)
  HTTPS:   https://localhost:8443  (a local test CA: curl --cacert $data/pushpin/ca.crt)
  sign in: deploy/local-issuer.sh token $data/issuer alice n-1 gives an ID token for POST /v1/sessions
  kiosk and kitchen tokens: $bin/cafectl tokens issue --kind kitchen --cafe caffe-macs ${as_operator[*]:-}
Metrics: http://127.0.0.1:7464/metrics  (every process in Prometheus's text format; deploy/README.md, Metrics)
MSG
    if [ ${#apns[@]} -gt 0 ]; then
      cat >&2 <<MSG
Local APNs peer: https://127.0.0.1:$(cat "$data/apns/port") (sandbox and production; key LOCALAPNS1, team CAMPUSCAFE, topic edu.campus.cafe)
  what it received: $data/apns/record.jsonl, or deploy/local-apns.sh show $data/apns
MSG
    fi
    if [ "$secure" -eq 1 ]; then
      cat >&2 <<MSG

Deployed mode (CURVE): every cafectl command needs --keys and --as; a client without a key gets no answer.
  operator:       --keys $keys --as operator        health, tail, monitors, reading anything
  phone:          --keys $keys --as phone-alice     user alice, device phone-1 (--user/--device default to them)
  kitchen:        --keys $keys --as kitchen-macs    kds commands at caffe-macs
  kiosk:          --keys $keys --as kiosk-macs      guest orders at caffe-macs
  edge:           --keys $keys --as edge            the HTTP edge's key: health as itself, or any op on behalf of a phone, kiosk or kitchen (onBehalfOf)
  load-test:      --keys $keys --as operator        (mints its own gateway, phone and kitchen keys)
More keys: $bin/cafectl keys add $keys NAME --role R …   revoke: $bin/cafectl keys revoke $keys NAME
MSG
    fi
    if [ "$detach" -eq 1 ]; then echo "detached; stop with deploy/stop-local.sh $data" >&2; exit 0; fi
    echo "Ctrl-C stops the platform." >&2
    wait
    exit 0
  fi
  sleep 0.2
done
echo "run-local.sh: services did not become healthy in 30 s; see $data/logs/" >&2
"$bin/cafectl" health ${as_operator[@]+"${as_operator[@]}"} || true
# Detached or not, a start that failed leaves nothing running on the ports.
[ "$detach" -eq 1 ] && stop
exit 1
