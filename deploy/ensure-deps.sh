#!/usr/bin/env bash
# Installs the system libraries the package links (libzmq, SQLite, OpenSSL's libcrypto) when
# pkg-config cannot find them, and Pushpin (the HTTP front of the edge) when it is not on PATH.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
command -v pushpin >/dev/null 2>&1 || need+=(pushpin)
if [ ${#need[@]} -gt 0 ]; then
  # pkg-config missing means we cannot tell what is installed: ask for all the libraries.
  if [[ " ${need[*]} " == *" pkg-config "* ]]; then
    pushpin=(); [[ " ${need[*]} " == *" pushpin "* ]] && pushpin=(pushpin)
    need=(pkg-config libzmq3-dev libsqlite3-dev libssl-dev ${pushpin[@]+"${pushpin[@]}"})
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
