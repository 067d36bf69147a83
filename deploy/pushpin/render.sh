#!/usr/bin/env bash
# Renders Pushpin's configuration for the edge into a folder: pushpin.conf and routes from the
# templates beside this script, a run folder for Pushpin's ipc sockets and a log folder.
#
#   deploy/pushpin/render.sh DIR [--http-port 8080] [--zhttp tcp://127.0.0.1:7461]
#                                [--publish tcp://127.0.0.1:7462] [--control-port 7463] [--https-port 8443]
#
# With --https-port, Pushpin also serves HTTPS with the certificate in DIR/runner/certs
# (default_<port>.crt and .key, or <hostname>.crt and .key; deploy/local-tls.sh makes test ones).
# Then: pushpin --config DIR/pushpin.conf
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: render.sh DIR [--http-port N] [--zhttp ENDPOINT] [--publish ENDPOINT] [--control-port N]" >&2; exit 2; }
dir="$1"; shift
http_port=8080
zhttp=tcp://127.0.0.1:7461
publish=tcp://127.0.0.1:7462
control_port=7463
https_port=""
while [ $# -gt 0 ]; do
  case "$1" in
    --http-port) http_port="$2"; shift 2 ;;
    --zhttp) zhttp="$2"; shift 2 ;;
    --publish) publish="$2"; shift 2 ;;
    --control-port) control_port="$2"; shift 2 ;;
    --https-port) https_port="$2"; shift 2 ;;
    *) echo "render.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir/run" "$dir/logs" "$dir/runner/certs"
dir="$(cd "$dir" && pwd)"
# A key per folder, kept across restarts.
[ -f "$dir/sig_key" ] || od -An -tx1 -N24 /dev/urandom | tr -d ' \n' > "$dir/sig_key"
render() {
  sed -e "s#{{RUNDIR}}#$dir/run#g" -e "s#{{LOGDIR}}#$dir/logs#g" -e "s#{{HTTP_PORT}}#$http_port#g" \
      -e "s#{{ZHTTP_ENDPOINT}}#$zhttp#g" -e "s#{{PUBLISH_ENDPOINT}}#$publish#g" -e "s#{{CONTROL_PORT}}#$control_port#g" \
      -e "s#{{SIG_KEY}}#$(cat "$dir/sig_key")#g" "$1" \
    | if [ -n "$https_port" ]; then sed -e "s/^#https_ports={{HTTPS_PORT}}/https_ports=$https_port/"; else cat; fi
}
render "$here/pushpin.conf.template" > "$dir/pushpin.conf"
render "$here/routes.template" > "$dir/routes"
