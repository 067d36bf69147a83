#!/usr/bin/env bash
# Installs the system libraries the package links (libzmq, SQLite, OpenSSL's libcrypto) when
# pkg-config cannot find them, and Pushpin (the HTTP front of the edge) and the openssl command
# line when they are not on PATH.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
command -v pushpin >/dev/null 2>&1 || need+=(pushpin)
# run-local's local test issuer and TLS certificate are made with the openssl command line.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  # pkg-config missing means we cannot tell what is installed: ask for all the libraries.
  if [[ " ${need[*]} " == *" pkg-config "* ]]; then
    tools=()
    for tool in pushpin openssl; do [[ " ${need[*]} " == *" $tool "* ]] && tools+=("$tool"); done
    need=(pkg-config libzmq3-dev libsqlite3-dev libssl-dev ${tools[@]+"${tools[@]}"})
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
