#!/usr/bin/env bash
# Installs the system libraries the package links (libzmq, SQLite, OpenSSL's libcrypto, libcurl
# for notification-service's APNs sender) when pkg-config cannot find them; Pushpin (the HTTP
# front of the edge) and the openssl command line when they are not on PATH; and python3-h2 for
# the tests' local APNs peer (Tests/Peers/apns_peer.py runs under /usr/bin/python3); promtool.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
command -v pushpin >/dev/null 2>&1 || need+=(pushpin)
# run-local's local test issuer and TLS certificate are made with the openssl command line.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# The HTTP walks (deploy/README, RunLocalTests, the edge's tests) speak to Pushpin with curl.
command -v curl >/dev/null 2>&1 || need+=(curl)
/usr/bin/python3 -c 'import h2, cryptography' >/dev/null 2>&1 || need+=(python3-h2 python3-cryptography)
if [ ${#need[@]} -gt 0 ]; then
  # pkg-config missing means we cannot tell what is installed: ask for all the libraries.
  if [[ " ${need[*]} " == *" pkg-config "* ]]; then
    tools=()
    for tool in pushpin openssl curl python3-h2 python3-cryptography; do [[ " ${need[*]} " == *" $tool "* ]] && tools+=("$tool"); done
    need=(pkg-config libzmq3-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev ${tools[@]+"${tools[@]}"})
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# promtool (Debian's prometheus package) checks a real scrape of /metrics and the alert rules in
# the tests; without its recommends (the node exporter and its collectors are not ours to run).
if ! command -v promtool >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing prometheus (promtool)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
