#!/usr/bin/env bash
# The container test: builds the image from deploy/Dockerfile, starts deploy/docker-compose.yml
# as an operator would, and checks it for real. Run it from anywhere, as root (rootful podman):
#
#   deploy/compose-test.sh
#
# 1. An engine: Docker when a Docker engine answers; otherwise rootful podman from Debian,
#    installed and configured here (runc, cgroupfs, file events, ulimits within the hard limits,
#    1 s DNS timeouts) with its own containers.conf (CONTAINERS_CONF; /etc is not touched), and
#    podman-compose 1.6 from PyPI in a virtualenv under the state folder. Podman runs health
#    checks from systemd timers; there is no systemd here, so this script runs them itself.
# 2. Base images: pulled when a registry answers; otherwise made here: debian:bookworm-slim with
#    mmdebstrap, and swift:<major.minor>-bookworm from the installed toolchain (which must be a
#    Debian bookworm build, as this machine's is). deploy/Dockerfile itself is unchanged.
# 3. The image (campus-cafe:latest), and its size; the Pushpin image (campus-cafe-pushpin:latest,
#    from deploy/pushpin), built on every run, --no-build too (cached by content, never stale).
# 4. The compose file, copied with deploy/campus.json to a temporary project (project name
#    campus-cafe-test, so an operator's own campus-cafe is never touched): keys made by the
#    compose file's `keys` tool, `up -d --no-build`, every health check passing.
# 5. The seed scenario through the published loopback ports with the host's cafectl, in
#    deployed mode: the phone's walk, menu, reservation, order, a refused bump by the phone, the
#    kitchen's bumps, ready, the inbox. Then the same scenario over HTTP through Pushpin
#    (127.0.0.1:8080) and the edge with curl, as deploy/README's "Walking it over HTTP": sign-in
#    with a local test issuer's ID token, registration, sightings, the nearest café's menu, a
#    reservation, an order, a kitchen token from `cafectl tokens issue`, the bumps, the order's
#    SSE backlog ending with order.ready, the inbox.
#    Then an APNs push: the phone registers an APNs token, an order is bumped, and the strict local
#    APNs peer (Tests/Peers/apns_peer.py in a container, deploy/apns-peer, added by an override
#    file) receives exactly one well-formed, correctly signed orderReady push.
#    Then metrics: a scrape of the edge's /metrics (127.0.0.1:7464) passes `promtool check
#    metrics` with every process up, and Prometheus (profile observability, Debian's package in
#    an image from deploy/prometheus) scrapes it: its API says the target is up and cafe_up is 1
#    for all nine processes.
# 6. One container of each service killed with SIGKILL: each comes back healthy on its own, the
#    order placed before the kills reaches ready afterwards, and nothing was lost or doubled.
# 7. SIGTERM to the bus, then to every service with the bus gone: each exits by itself (no
#    SIGKILL after 2 s). Then `down` and `up`: the named volumes keep every order and notification.
# 8. deploy/swarm-stack.yml: rendered by `docker stack config` where a docker client is, run with
#    its own project until healthy with keys (and the edge's issuers file) from /run/secrets, an
#    order through to the inbox, the HTTP walk of step 5 again for a device of its own, and its
#    liveness health check passing while the bus is stopped.
# 9. Teardown (`down -v` of both projects), also on failure or Ctrl-C.
#
# It prints `N passed, M failed` and exits 1 when a check failed. When containers cannot run
# here at all (not root, podman not installable or unable to start a container, no toolchain to
# make the build base from, or too little free disk) it says so in a banner and exits 77, which
# .ci/run reports and passes.
#
# Options: --keep leaves the platform running (and the project folder) for a look afterwards;
# --no-build reuses an existing campus-cafe:latest (a missing binary fails the checks in step 3).
# CAFE_COMPOSE_STATE (default
# /var/tmp/campus-cafe-compose-test) holds the containers.conf, the virtualenv and base tarballs;
# CAFE_COMPOSE_CAFECTL names the host's cafectl (default: this checkout's debug build).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
keep=0
build=1
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    --no-build) build=0 ;;
    *) echo "usage: deploy/compose-test.sh [--keep] [--no-build]" >&2; exit 2 ;;
  esac
done

started=$SECONDS
state="${CAFE_COMPOSE_STATE:-/var/tmp/campus-cafe-compose-test}"
project=campus-cafe-test
stack_project=campus-cafe-stack-test
current="$project"
image=campus-cafe:latest
services=(bus beacon-ingest-s0 beacon-ingest-s1 region-monitor-s0 region-monitor-s1 order-service kitchen-display notification-service)
# The HTTP front, healthy with the rest (the kills and stops below are the services').
front=(pushpin edge)
pushpin_image=campus-cafe-pushpin:latest
prometheus_image=campus-cafe-prometheus:latest
apns_image=campus-cafe-apns-peer:test
passed=0
failed=0
failures=()

say() { printf '[compose-test %4ds] %s\n' "$((SECONDS - started))" "$*"; }
pass() { passed=$((passed + 1)); say "PASS $1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); say "FAIL $1"; }
# check NAME COMMAND...: one check, passed when COMMAND exits 0.
check() { local name="$1"; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# Only before anything started (no project, no health runner): nothing to tear down.
skip() {
  trap - EXIT INT TERM
  echo
  echo "################################################################################"
  echo "# CONTAINER TEST SKIPPED: $*"
  echo "# deploy/docker-compose.yml and deploy/Dockerfile were NOT run on this machine."
  echo "################################################################################"
  echo
  exit 77
}
# Fatal: a step everything after it needs failed; count it, tear down, report.
abort() { fail "$1"; finish; }

# -- 1. the engine ------------------------------------------------------------------------------

apt_updated=""
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ -z "$apt_updated" ]; then apt-get update -qq >/dev/null || return 1; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# The free space of the file system that holds FOLDER (or its nearest existing parent), in GiB.
free_gib() {
  local folder="$1"
  while [ ! -e "$folder" ]; do folder="$(dirname "$folder")"; done
  df -Pk "$folder" | awk 'NR == 2 { print int($4 / 1048576) }'
}

engine=""
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  engine=docker
  compose=(docker compose)
  docker compose version >/dev/null 2>&1 || skip "a Docker engine answers, but the compose plugin (docker compose) is missing"
  say "engine: $(docker version --format 'Docker {{.Server.Version}}')"
else
  [ "$(id -u)" -eq 0 ] || skip "no Docker engine, and rootful podman needs root (run as root or under sudo)"
  needed=(podman runc netavark aardvark-dns iptables catatonit mmdebstrap)
  missing=()
  for package in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    apt_install "${missing[@]}" || skip "no Docker engine, and apt-get could not install ${missing[*]}"
  fi
  engine=podman
  mkdir -p "$state"
  # crun 1.8 refuses hybrid cgroup hierarchies; there is no systemd for cgroups, events or health
  # timers; root may not raise its own hard limits; the container DNS must not stall for 5 s.
  hard_nofile="$(ulimit -Hn)"; [ "$hard_nofile" = unlimited ] && hard_nofile=1048576
  hard_nproc="$(ulimit -Hu)"; { [ "$hard_nproc" = unlimited ] || [ "$hard_nproc" -gt 16384 ]; } && hard_nproc=16384
  cat > "$state/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$hard_nofile:$hard_nofile", "nproc=$hard_nproc:$hard_nproc"]
dns_options = ["timeout:1", "attempts:1"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  export CONTAINERS_CONF="$state/containers.conf" DISABLE_HC_SYSTEMD=true
  # podman-compose 1.6 (Debian's 1.0.3 ignores name: and profiles:).
  pc="$state/venv/bin/podman-compose"
  if ! "$pc" version 2>/dev/null | grep -q "podman-compose version 1\.\([6-9]\|[1-9][0-9]\)"; then
    say "installing podman-compose 1.6 from PyPI"
    { python3 -m venv "$state/venv" && "$state/venv/bin/pip" install -q "podman-compose>=1.6,<2"; } >/dev/null 2>&1 \
      || skip "no Docker engine, and podman-compose 1.6 could not be installed from PyPI"
  fi
  compose=("$pc")
  podman info >/dev/null 2>&1 || skip "podman is installed but does not start: $(podman info 2>&1 | tail -n 1)"
  say "engine: $(podman --version), $("$pc" version 2>/dev/null | grep podman-compose)"
fi

# Space for the build (the Swift base and the build layers take about 10 GB).
storage=/var/lib/containers
[ "$engine" = docker ] && storage="$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || echo /var/lib/docker)"
space="$(free_gib "$storage")"
[ "$space" -ge 12 ] || skip "only ${space} GiB free under $storage; the image build needs about 12"
say "free disk under $storage: ${space} GiB"

# -- teardown, set up before anything starts ------------------------------------------------------

work=""
volumes_before=""
health_runner=""
C=()
S=()
ran_to_end=0
# remove_prometheus: the observability profile's container and volume (down without the profile leaves them).
remove_prometheus() {
  local ids; ids="$("$engine" ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=prometheus" 2>/dev/null)"
  [ -z "$ids" ] || "$engine" rm -f $ids >/dev/null 2>&1
  "$engine" volume rm -f "${project}_prometheus-data" >/dev/null 2>&1 || true
}
finish() {
  trap - EXIT INT TERM
  # A syntax error or an unset variable ends bash through this trap too: never a pass.
  [ "$ran_to_end" -eq 1 ] || [ "$failed" -gt 0 ] || fail "compose-test.sh stopped before its end"
  if [ -n "$health_runner" ]; then kill "$health_runner" 2>/dev/null; wait "$health_runner" 2>/dev/null; fi
  if [ -n "$work" ] && [ -d "$work" ]; then
    if [ "$keep" -eq 1 ]; then
      say "left running (--keep): cd $work/deploy && ${C[*]} down -v; ${S[*]} down -v"
    else
      say "teardown: down -v"
      remove_prometheus
      (cd "$work/deploy" && "${C[@]}" down -v -t 5 >"$work/down.log" 2>&1) || { cat "$work/down.log"; fail "compose down -v"; }
      (cd "$work/deploy" && "${S[@]}" down -v -t 5 >"$work/down-stack.log" 2>&1) || { cat "$work/down-stack.log"; fail "stack down -v"; }
      rm -rf "$work"
      # `run --rm` of the tools leaves the image's anonymous data volume behind under podman-compose.
      for volume in $("$engine" volume ls -q 2>/dev/null); do
        case " $volumes_before " in *" $volume "*) continue ;; esac
        [[ "$volume" =~ ^[0-9a-f]{64}$ ]] && "$engine" volume rm "$volume" >/dev/null 2>&1
      done
    fi
  fi
  echo
  say "$passed passed, $failed failed ($(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s)"
  for failure in "${failures[@]}"; do echo "  failed: $failure"; done
  [ "$failed" -eq 0 ] && exit 0
  exit 1
}
trap finish EXIT
trap 'fail "interrupted"; finish' INT TERM

# -- 2. base images ---------------------------------------------------------------------------------

swift_version=""
if command -v swift >/dev/null 2>&1; then
  swift_version="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -n 1)"
fi
build_args=()
[ -n "$swift_version" ] && build_args=(--build-arg "SWIFT_VERSION=$swift_version")

registry_answers() { curl -s -m 10 -o /dev/null https://registry-1.docker.io/v2/ 2>/dev/null; }

# The Debian packages a Swift toolchain runs with (what swift:*-bookworm installs), and the
# paths of the toolchain a build does not need (debugger, language server, docs, static SDK).
swift_packages=binutils,libc6-dev,libgcc-12-dev,libstdc++-12-dev,libcurl4,libxml2,libncurses6,libedit2,libffi8,libicu72,libsqlite3-0,libuuid1,libz3-4,zlib1g-dev,ca-certificates,pkg-config,tzdata,usr-is-merged
toolchain_excludes=(--exclude=usr/bin/lldb\* --exclude=usr/bin/clangd --exclude=usr/bin/docc --exclude=usr/bin/sourcekit-lsp
  --exclude=usr/bin/swift-format --exclude=usr/lib/liblldb\* --exclude=usr/lib/libsourcekitdInProc.so
  --exclude=usr/lib/libSwiftSourceKit\* --exclude=usr/lib/swift_static --exclude=usr/share/docc)
# A minbase bookworm as slim as Debian's own -slim image: no manuals, docs or translations, and
# no perl (usrmerge pulls it in; usr-is-merged says the same without it).
slim_options=(--quiet --variant=minbase
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --customize-hook='chroot "$1" apt-get purge -y -qq usrmerge perl libperl5.36 perl-modules-5.36 libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl >/dev/null'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin')

make_debian_slim() {
  say "making debian:bookworm-slim with mmdebstrap (no registry answers)"
  mmdebstrap "${slim_options[@]}" --include=usr-is-merged bookworm "$state/debian-slim.tar" \
    && podman import --quiet --change 'CMD ["bash"]' "$state/debian-slim.tar" debian:bookworm-slim >/dev/null \
    && rm -f "$state/debian-slim.tar"
}

make_swift_base() {
  local tag="$1" toolchain
  # /opt/swift for /opt/swift/usr/bin/swift-driver (what `swift` links to).
  toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
  say "making swift:$tag from the toolchain at $toolchain (no registry answers)"
  # The toolchain goes to /usr, where the official image has it.
  mmdebstrap "${slim_options[@]}" --include="$swift_packages" \
    --customize-hook="tar -C '$toolchain' -cf - ${toolchain_excludes[*]} usr | tar -C \"\$1\" -xf - && test -x \"\$1/usr/bin/swift\"" \
    bookworm "$state/swift-base.tar" \
    && podman import --quiet --change 'CMD ["bash"]' "$state/swift-base.tar" "swift:$tag" >/dev/null \
    && rm -f "$state/swift-base.tar" \
    && podman run --rm --network none "swift:$tag" swift --version >/dev/null 2>&1 \
    || { podman rmi -f "swift:$tag" >/dev/null 2>&1; return 1; }
}

# --no-build still builds the Pushpin image (below), which needs only the Debian base.
if [ "$engine" = podman ]; then
  swift_tag="${swift_version:-6.3}-bookworm"
  if ! podman image exists "debian:bookworm-slim" || { [ "$build" -eq 1 ] && ! podman image exists "swift:$swift_tag"; }; then
    if registry_answers; then
      say "pulling the base images"
      podman image exists debian:bookworm-slim || podman pull -q docker.io/library/debian:bookworm-slim >/dev/null \
        || abort "pull debian:bookworm-slim"
      [ "$build" -eq 0 ] || podman image exists "swift:$swift_tag" || podman pull -q "docker.io/library/swift:$swift_tag" >/dev/null \
        || abort "pull swift:$swift_tag"
    elif [ "$build" -eq 0 ]; then
      make_debian_slim || abort "make debian:bookworm-slim with mmdebstrap"
    else
      [ -n "$swift_version" ] || skip "no registry answers, and there is no Swift toolchain here to make the build base from"
      grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null \
        || skip "no registry answers, and this machine's toolchain is not a Debian bookworm build to make swift:$swift_tag from"
      podman image exists debian:bookworm-slim || make_debian_slim || abort "make debian:bookworm-slim with mmdebstrap"
      podman image exists "swift:$swift_tag" || make_swift_base "$swift_tag" || abort "make swift:$swift_tag from the toolchain"
    fi
  fi
fi

# Can this engine start a container at all, on a bridge network? (No overlay file system, no
# cgroups or no iptables in a sandbox: then nothing here can run, which is a skip, not a failure.)
if [ "$engine" = podman ] && podman image exists debian:bookworm-slim; then
  probe="$(podman run --rm debian:bookworm-slim true 2>&1)" \
    || skip "podman cannot start a container on this machine: $(echo "$probe" | tail -n 1)"
fi

# -- 3. the image --------------------------------------------------------------------------------------

if [ "$build" -eq 1 ]; then
  say "building $image from deploy/Dockerfile (a release build of every product)"
  build_log="$state/build.log"
  mkdir -p "$state"
  build_started=$SECONDS
  if [ "$engine" = podman ]; then
    podman build --pull=never --ignorefile deploy/Dockerfile.dockerignore -f deploy/Dockerfile -t "$image" "${build_args[@]}" . >"$build_log" 2>&1
  else
    docker build -f deploy/Dockerfile -t "$image" "${build_args[@]}" . >"$build_log" 2>&1
  fi
  status=$?
  if [ "$status" -ne 0 ]; then tail -n 40 "$build_log"; abort "docker build (deploy/Dockerfile); the log is $build_log"; fi
  pass "the image builds from deploy/Dockerfile in $((SECONDS - build_started)) s"
fi
# The Pushpin image is built on every run, --no-build too: it takes seconds, its layers are cached
# by the content of deploy/pushpin, and a tag left from an older Dockerfile or entry script would
# otherwise run silently (it once could not write its volume that way).
say "building $pushpin_image from deploy/pushpin (Debian's pushpin package)"
pushpin_started=$SECONDS
if [ "$engine" = podman ]; then
  podman build --pull=never -t "$pushpin_image" deploy/pushpin >"$state/build-pushpin.log" 2>&1
else
  docker build -t "$pushpin_image" deploy/pushpin >"$state/build-pushpin.log" 2>&1
fi
if [ $? -ne 0 ]; then tail -n 30 "$state/build-pushpin.log"; abort "build deploy/pushpin/Dockerfile; the log is $state/build-pushpin.log"; fi
pass "the Pushpin image builds from deploy/pushpin/Dockerfile in $((SECONDS - pushpin_started)) s"
# The strict local APNs peer's image (issue 27), for the compose phase's APNs push; as Pushpin's.
"$engine" build $([ "$engine" = podman ] && echo --pull=never) -t "$apns_image" deploy/apns-peer >"$state/build-apns-peer.log" 2>&1 \
  || { tail -n 30 "$state/build-apns-peer.log"; abort "build deploy/apns-peer/Dockerfile; the log is $state/build-apns-peer.log"; }
# Prometheus for the observability profile (Debian's prometheus package, deploy/prometheus); as Pushpin's.
"$engine" build $([ "$engine" = podman ] && echo --pull=never) -t "$prometheus_image" deploy/prometheus >"$state/build-prometheus.log" 2>&1 \
  || { tail -n 30 "$state/build-prometheus.log"; abort "build deploy/prometheus/Dockerfile; the log is $state/build-prometheus.log"; }
"$engine" image inspect "$pushpin_image" >/dev/null 2>&1 || abort "no image $pushpin_image (run without --no-build)"
"$engine" image inspect "$image" >/dev/null 2>&1 || abort "no image $image (run without --no-build)"
image_bytes="$("$engine" image inspect --format '{{.Size}}' "$image")"
image_mb=$((image_bytes / 1000000))
say "image size: $image_mb MB"
check "the image is under 250 MB ($image_mb MB)" test "$image_mb" -lt 250

# Every binary starts in the runtime image with only what the image holds: the shared Swift
# runtime and Foundation resolve. (Prices and pickup times, which need ICU's data, are formatted
# by the scenario below.)
started_ok=0
for product in bus beacon-ingest region-monitor order-service kitchen-display notification-service edge cafectl load-test; do
  if "$engine" run --rm --network none "$image" "$product" --help >/dev/null 2>"$state/help.err"; then
    started_ok=$((started_ok + 1))
  else
    fail "$product --help runs in the image: $(tail -n 3 "$state/help.err")"
  fi
done
[ "$started_ok" -eq 9 ] && pass "every binary starts in the image"

# -- 4. the compose file, as an operator starts it ------------------------------------------------------

volumes_before="$("$engine" volume ls -q 2>/dev/null | tr '\n' ' ')"
work="$(mktemp -d /var/tmp/campus-cafe-compose.XXXXXX)"
mkdir -p "$work/deploy/keys"
cp deploy/docker-compose.yml deploy/swarm-stack.yml deploy/campus.json "$work/deploy/"
cp -r deploy/pushpin deploy/prometheus "$work/deploy/"
# The strict local APNs peer beside the platform (an override; deploy/apns-peer): its script,
# a test CA with a server certificate for the name apns-peer, and a team signing key whose public
# half the peer checks every provider token with. notification-service sees only service/.
cp deploy/apns-peer/docker-compose.apns-peer.yml "$work/deploy/"
mkdir -p "$work/deploy/apns-peer" "$work/deploy/apns/peer" "$work/deploy/apns/service"
cp Tests/Peers/apns_peer.py "$work/deploy/apns-peer/"
make_apns_files() {
  local peer="$work/deploy/apns/peer" service="$work/deploy/apns/service"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$peer/ca.key" -out "$service/ca.pem" \
      -days 2 -subj "/CN=Campus Cafe compose-test APNs CA" \
    && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$peer/server.key" -out "$peer/server.csr" -subj /CN=apns-peer \
    && printf 'subjectAltName=DNS:apns-peer\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$peer/ext.cnf" \
    && openssl x509 -req -in "$peer/server.csr" -CA "$service/ca.pem" -CAkey "$peer/ca.key" -CAserial "$peer/ca.srl" -CAcreateserial \
         -out "$peer/server.pem" -days 2 -extfile "$peer/ext.cnf" \
    && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$service/AuthKey_ABC123DEFG.p8" \
    && openssl pkey -in "$service/AuthKey_ABC123DEFG.p8" -pubout -out "$peer/team.pub" \
    && echo '{}' > "$peer/faults.json" \
    && chown 10001:10001 "$service/AuthKey_ABC123DEFG.p8" && chmod 0600 "$service/AuthKey_ABC123DEFG.p8" \
    && chmod 0644 "$service/ca.pem"
}
make_apns_files >"$work/apns.log" 2>&1 || { cat "$work/apns.log"; abort "the APNs peer's test CA, certificate and team key"; }
# The edge's sign-in trusts a local test issuer here; an operator puts their identity provider's.
deploy/local-issuer.sh init "$work/deploy/issuer" || abort "deploy/local-issuer.sh init"
chmod -R a+rX "$work/deploy/issuer"
cd "$work/deploy"
C=( "${compose[@]}" -p "$project" -f docker-compose.yml -f docker-compose.apns-peer.yml )
S=( "${compose[@]}" -p "$stack_project" -f swarm-stack.yml )

# Nothing else may hold the published ports.
busy=""
for port in 7401 7402 7403 7410 7411 7420 7421 7430 7440 7450 7460 7464 8080 9090; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then busy="$busy $port"; fi
done
[ -z "$busy" ] || abort "the published ports are free (in use:$busy; stop deploy/run-local.sh or the other platform)"

say "keys: ${C[*]} --profile tools run --rm keys"
"${C[@]}" --profile tools run --rm keys >"$work/keys.log" 2>&1 || { cat "$work/keys.log"; abort "the keys tool makes the key folder"; }
"${C[@]}" --profile tools run --rm keys add /keys phone-alice --role phone --device phone-1 --user alice --owner 10001:10001 >>"$work/keys.log" 2>&1 \
  && "${C[@]}" --profile tools run --rm keys add /keys kitchen-macs --role kitchen --cafe caffe-macs --owner 10001:10001 >>"$work/keys.log" 2>&1 \
  && "${C[@]}" --profile tools run --rm keys add /keys edge --role edge --owner 10001:10001 >>"$work/keys.log" 2>&1 \
  || { cat "$work/keys.log"; abort "the keys tool adds a phone, a kitchen and the edge's key"; }
key_owner="$(stat -c '%u:%g %a' keys/bus.key 2>/dev/null)"
check "the keys tool makes 0600 key files owned by the image's user (bus.key: $key_owner)" test "$key_owner" = "10001:10001 600"

# Podman schedules health checks with systemd timers; without systemd, run them here, as often as
# the compose file's interval.
if [ "$engine" = podman ]; then
  (
    while sleep 3; do
      for container in $(podman ps -q --filter "label=io.podman.compose.project=$project" 2>/dev/null) \
                       $(podman ps -q --filter "label=io.podman.compose.project=$stack_project" 2>/dev/null); do
        podman healthcheck run "$container" >/dev/null 2>&1 &
      done
      wait
    done
  ) &
  health_runner=$!
fi

# container SERVICE: the container's name (one per service here) in the current project.
container() { "$engine" ps -a --filter "label=com.docker.compose.service=$1" --filter "label=com.docker.compose.project=$current" --format '{{.Names}}' | head -n 1; }
# container_healthy NAME: the container's own health check passes now (podman runs it; Docker's
# status restarts from "starting" when the container does).
container_healthy() {
  if [ "$engine" = podman ]; then podman healthcheck run "$1" >/dev/null 2>&1
  else [ "$(docker inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null)" = healthy ]; fi
}
healthy() { "$engine" ps --filter "label=com.docker.compose.project=$current" --format '{{.Names}} {{.Status}}' | grep -c "(healthy)"; }
# wait_healthy SECONDS: until all eight services and the HTTP front are healthy.
wait_healthy() {
  local deadline=$((SECONDS + $1))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(healthy)" -ge "$((${#services[@]} + ${#front[@]}))" ] && return 0
    sleep 1
  done
  "$engine" ps -a --filter "label=com.docker.compose.project=$current" --format '{{.Names}} {{.Status}}' >&2
  return 1
}

say "up: ${C[*]} up -d --no-build"
up_started=$SECONDS
"${C[@]}" up -d --no-build >"$work/up.log" 2>&1 || { tail -n 30 "$work/up.log"; abort "compose up -d"; }
if wait_healthy 240; then
  pass "all ${#services[@]} services, Pushpin and the edge healthy $((SECONDS - up_started)) s after up"
else
  for service in "${services[@]}" "${front[@]}"; do echo "--- $service"; "$engine" logs --tail 15 "$(container "$service")" 2>&1; done
  abort "all ${#services[@]} services healthy within 240 s"
fi
# Pushpin's process (PID 1 after its entry's exec) runs as the pushpin user, which owns its volume.
pushpin_unprivileged() {
  "$engine" exec "$(container pushpin)" sh -c 'while read -r key value rest; do [ "$key" = Uid: ] && uid=$value; done </proc/1/status
    [ "$uid" = "$(id -u pushpin)" ] && [ "$(stat -c %u /var/lib/pushpin)" = "$uid" ] && [ -f /var/lib/pushpin/sig_key ]'
}
check "Pushpin runs as the pushpin user, which owns its volume (the Grip key made there)" pushpin_unprivileged
tool_health() { "${C[@]}" --profile tools run --rm cafectl health >"$work/tool.log" 2>&1 || { tail -n 20 "$work/tool.log"; return 1; }; }
check "the cafectl tool inside the network (profile tools) asks every service as operator" tool_health

# -- 5. the scenario, from the host through the published ports --------------------------------------------

cd "$root"
# CAFE_COMPOSE_CAFECTL: a cafectl already built elsewhere (a release build, another checkout).
cafectl="${CAFE_COMPOSE_CAFECTL:-$(swift build --show-bin-path 2>/dev/null)/cafectl}"
if [ ! -x "$cafectl" ]; then
  say "building cafectl for the host"
  swift build --product cafectl >"$work/cafectl-build.log" 2>&1 || { tail -n 20 "$work/cafectl-build.log"; abort "swift build --product cafectl"; }
fi
keys="$work/deploy/keys"
# phone-1 is in shard 1.
export CAFE_INGEST_ENDPOINT=beacon-ingest-s1@tcp://127.0.0.1:7411 CAFE_REGION_ENDPOINT=region-monitor-s1@tcp://127.0.0.1:7421
unset CAFE_KEYS CAFE_AS
phone=(--keys "$keys" --as phone-alice)
kitchen=(--keys "$keys" --as kitchen-macs)
operator=(--keys "$keys" --as operator)
UUID=8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30
out="$work/out"

# cc ARGS...: cafectl, its output in $out; exits as cafectl does.
cc() { "$cafectl" "$@" >"$out" 2>&1; }
# field NAME: the first string value of "NAME" in $out.
field() { grep -o "\"$1\" *: *\"[^\"]*\"" "$out" | head -n 1 | sed 's/.*: *"\(.*\)"/\1/'; }
# eventually SECONDS ARGS...: cafectl until it exits 0 and PATTERN (env want) is in its output.
eventually() {
  local deadline=$((SECONDS + $1)); shift
  while :; do
    if cc "$@" && grep -q -- "$want" "$out"; then return 0; fi
    [ "$SECONDS" -ge "$deadline" ] && { cat "$out" >&2; return 1; }
    sleep 0.5
  done
}

check "cafectl health as operator: every service answers over CURVE" cc health "${operator[@]}"
cc phone status --authorization whenInUse --foreground true "${phone[@]}" \
  && cc prefs set closestToMe "${phone[@]}" \
  && cc notify register --language en --locale en_US "${phone[@]}"
check "the phone's status, preference and notification registration" test $? -eq 0
check "a sighting of Caffè Macs's grill beacon is accepted by shard 1" \
  cc phone sight --uuid "$UUID" --major 1 --minor 1 --rssi -62 --count 3 "${phone[@]}"
want='"caffe-macs"'
check "the menu comes from Caffè Macs, the nearest café" eventually 20 menu --locale en_US "${phone[@]}"

# place_order: reserves the next window and orders a burger and a caesar; the id in $order.
place_order() {
  cc reserve --cafe caffe-macs "${phone[@]}" || return 1
  local reservation; reservation="$(field reservationId)"
  [ -n "$reservation" ] || return 1
  cc order place --cafe caffe-macs --reservation "$reservation" --item burger:1:cheese --item caesar \
    --payment tok_4242424242424242 "${phone[@]}" || return 1
  order="$(field orderId)"
  [ -n "$order" ]
}
order=""
check "a reservation and an order" place_order
first="$order"
want="$first:grill"
check "the kitchen screen shows the order's grill ticket" eventually 20 kds tickets "${kitchen[@]}"
if cc kds bump "$first:grill" "${phone[@]}"; then
  fail "a phone's kds bump is refused"
else
  check "a phone's kds bump is refused with auth.forbidden" grep -q auth.forbidden "$out"
fi
bump_all() { cc kds bump "$1:grill" "${kitchen[@]}" && cc kds bump "$1:salad" "${kitchen[@]}"; }
check "the chef bumps the grill and salad tickets" bump_all "$first"
want='"ready"'
check "the order is ready" eventually 20 order get "$first" "${phone[@]}"
want="$first"
check "the phone's inbox has the ready notification" eventually 20 inbox "${phone[@]}"

# -- 5b. the same scenario over HTTP: Pushpin on 127.0.0.1:8080, the edge behind it -----------------------------

API=http://127.0.0.1:8080
J='Content-Type: application/json'
issuer="$work/deploy/issuer"
# hc ARGS...: curl, its body in $out, its status in $code.
hc() { code="$(curl -s -m 10 -o "$out" -w '%{http_code}' "$@")"; }
# json NAME: the first string value of "NAME" in $out.
json() { sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p' "$out" | head -n 1; }
http_eventually() {  # SECONDS ARGS...: curl until it answers 200 with $want in the body
  local deadline=$((SECONDS + $1)); shift
  while :; do
    hc "$@"; [ "$code" = 200 ] && grep -q -- "$want" "$out" && return 0
    [ "$SECONDS" -ge "$deadline" ] && { echo "HTTP $code: $(head -c 400 "$out")" >&2; return 1; }
    sleep 0.5
  done
}
# http_walk PREFIX DEVICE: the phone's walk over HTTP as deploy/README's "Walking it over HTTP",
# for a device of its own (each ID token signs in once, each device serves one account), every
# check named with PREFIX. The compose phase and the stack phase both run it.
http_walk() {
  local p="$1" device="$2" nonce="n-$2" id_token sighting
  check "${p}Pushpin answers on 8080 and the edge behind it serves GET /v1/openapi.json" hc "$API/v1/openapi.json"
  check "${p}the OpenAPI document is 200 JSON" sh -c "[ '$code' = 200 ] && grep -q openapi '$out'"
  hc -X POST "$API/v1/sessions" -H "$J" -d '{"idToken":"not.a.token","nonce":"'"$nonce"'","deviceId":"'"$device"'"}'
  check "${p}a malformed ID token is refused (HTTP $code)" test "$code" = 401 -o "$code" = 400
  id_token="$(deploy/local-issuer.sh token "$issuer" alice "$nonce")"
  hc -X POST "$API/v1/sessions" -H "$J" -d '{"idToken":"'"$id_token"'","nonce":"'"$nonce"'","deviceId":"'"$device"'"}'
  TOKEN="$(json token)"
  check "${p}sign-in with the local test issuer's ID token gives a bearer session (HTTP $code)" test -n "$TOKEN"
  H="Authorization: Bearer $TOKEN"
  hc "$API/v1/menu?locale=en_US"
  check "${p}the menu without a session is refused (HTTP $code)" test "$code" = 401
  hc -X PUT "$API/v1/devices/$device/registration" -H "$H" -H "$J" -d '{"channel":"bus","language":"en","locale":"en_US","authorization":"authorized"}' \
    && [ "$code" = 200 ] \
    && hc -X PUT "$API/v1/devices/$device/location-authorization" -H "$H" -H "$J" \
         -d '{"authorization":"whenInUse","foreground":true,"precise":true,"monitoringAvailable":true,"rangingAvailable":true}' \
    && [ "$code" = 200 ]
  check "${p}the device's registration and location authorization over HTTP" test $? -eq 0
  sighting='{"uuid":"'"$UUID"'","major":1,"minor":1,"rssi":-62,"measuredPower":-59,"timestamp":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'"}'
  hc -X POST "$API/v1/devices/$device/sightings" -H "$H" -H "$J" -d '{"sightings":['"$sighting,$sighting,$sighting"']}'
  check "${p}three sightings of Caffè Macs's counter beacon (HTTP $code)" test "$code" = 200
  want='"rule":"nearestBeacon"'
  check "${p}the menu comes from the nearest beacon's café" http_eventually 20 "$API/v1/menu?locale=en_US" -H "$H"
  http_order=""
  check "${p}a reservation and an order over HTTP" http_place "k-$device-0001"
  cc tokens issue --kind kitchen --cafe caffe-macs --edge edge@tcp://127.0.0.1:7460 "${operator[@]}"
  KITCHEN="$(field token)"
  check "${p}cafectl tokens issue gives the kitchen tablet a token through the edge's published port" test -n "$KITCHEN"
  hc -X POST "$API/v1/kitchen/tickets/$http_order:grill/bump" -H "$H"
  check "${p}the phone's session may not bump a ticket (HTTP $code)" test "$code" = 403
  want="$http_order:grill"
  check "${p}the kitchen tablet sees the order's grill ticket" http_eventually 20 "$API/v1/kitchen/tickets" -H "Authorization: Bearer $KITCHEN"
  check "${p}the kitchen tablet bumps the grill and salad tickets" http_bumps
  check "${p}the order's SSE stream sends its backlog ending with event: order.ready" sse_ready
  want="$http_order"
  check "${p}the phone's inbox over HTTP has the ready notification" http_eventually 20 "$API/v1/devices/$device/inbox" -H "$H"
}
http_place() {  # IDEMPOTENCY-KEY: reserves the next window and orders; the id in $http_order
  hc -X POST "$API/v1/cafes/caffe-macs/reservations" -H "$H" -H "$J" -d '{"locale":"en_US"}'
  local reservation; reservation="$(json reservationId)"
  [ "$code" = 200 ] && [ -n "$reservation" ] || { echo "reserve: HTTP $code $(head -c 300 "$out")" >&2; return 1; }
  hc -X POST "$API/v1/orders" -H "$H" -H "$J" -H "Idempotency-Key: $1" \
    -d '{"channel":"app","cafeId":"caffe-macs","reservationId":"'"$reservation"'","locale":"en_US","paymentToken":"tok_4242424242424242","items":[{"itemId":"burger","quantity":1,"modifiers":["cheese"]},{"itemId":"caesar","quantity":1}]}'
  http_order="$(json orderId)"
  [ "$code" = 200 ] && [ -n "$http_order" ] || { echo "order: HTTP $code $(head -c 300 "$out")" >&2; return 1; }
}
http_bumps() {
  hc -X POST "$API/v1/kitchen/tickets/$http_order:grill/bump" -H "Authorization: Bearer $KITCHEN" && [ "$code" = 200 ] \
    && hc -X POST "$API/v1/kitchen/tickets/$http_order:salad/bump" -H "Authorization: Bearer $KITCHEN" && [ "$code" = 200 ]
}
# The order's SSE stream, held by Pushpin: what the phone missed first, ending with order.ready.
sse_ready() {
  local deadline=$((SECONDS + 20)) last
  while :; do
    { curl -sN -m 2 "$API/v1/orders/$http_order/events" -H "$H" || true; } > "$work/sse.txt"
    last="$(grep '^event: order' "$work/sse.txt" | tail -n 1)"
    [ "$last" = "event: order.ready" ] && return 0
    [ "$SECONDS" -ge "$deadline" ] && { cat "$work/sse.txt" >&2; return 1; }
    sleep 0.5
  done
}
http_walk "" phone-http

# -- 5c. an APNs push through the strict local peer (issue 27) ----------------------------------------------------
# The phone registers its (sandbox) APNs token; an order is placed and bumped; the peer, which
# answers 200 only to a well-formed push with a correctly signed provider token, records one
# orderReady push for it: collapse id the order, the English text.

apns_token=00000000000000000000000000000000000000000000000000000000cafe0001
apns_record="$work/deploy/apns/peer/record.jsonl"
cc request notify device.register '{"deviceId":"phone-1","channel":"apns","language":"en","locale":"en_US","authorization":"authorized","apns":{"token":"'"$apns_token"'","environment":"sandbox","topic":"edu.campus.cafe"}}' "${phone[@]}"
check "the phone registers an APNs token (sandbox, topic edu.campus.cafe)" test $? -eq 0
# apns_pushes ORDER: "<well-formed orderReady pushes the peer accepted for ORDER> <refused requests for the token>"
apns_pushes() {
  python3 - "$apns_record" "$apns_token" "$1" <<'PY'
import json, os, sys
path, token, order = sys.argv[1:4]
ready = refused = 0
for line in (open(path) if os.path.exists(path) else []):
    seen = json.loads(line)
    if seen.get("token") != token:
        continue
    if seen.get("status") != 200:
        refused += 1
        continue
    headers, payload = seen.get("headers") or {}, seen.get("payload") or {}
    alert = (payload.get("aps") or {}).get("alert") or {}
    if payload.get("kind") == "orderReady" and payload.get("orderId") == order and headers.get("apns-collapse-id") == order \
            and headers.get("apns-push-type") == "alert" and headers.get("apns-priority") == "10" and alert.get("title") == "Your order is ready":
        ready += 1
print(ready, refused)
PY
}
apns_order=""
apns_walk() {
  order=""
  place_order || return 1
  apns_order="$order"
  want="$apns_order:grill"
  eventually 20 kds tickets "${kitchen[@]}" && bump_all "$apns_order"
}
check "an order for the APNs phone, bumped by the chef" apns_walk
apns_ready() {
  local deadline=$((SECONDS + 20)) counts
  while :; do
    counts="$(apns_pushes "$apns_order")"
    [ "${counts%% *}" -ge 1 ] && break
    [ "$SECONDS" -ge "$deadline" ] && { echo "APNs peer: $counts; $(tail -n 3 "$apns_record" 2>/dev/null)" >&2; return 1; }
    sleep 0.5
  done
  sleep 2  # a second copy would come within the push timeout's retry, well inside this
  counts="$(apns_pushes "$apns_order")"
  echo "APNs peer: $counts (orderReady pushes accepted, requests refused)"
  [ "$counts" = "1 0" ]
}
check "the APNs peer received exactly one well-formed, correctly signed orderReady push (and refused nothing)" apns_ready

# -- 5d. metrics: a scrape with promtool, and Prometheus (profile observability) scraping every process ----------------

metrics_page="$work/metrics.txt"
command -v promtool >/dev/null 2>&1 || apt_install prometheus || fail "install Debian's prometheus (promtool)"
scrape_ok() {
  local code
  code="$(curl -s -m 10 -o "$metrics_page" -w '%{http_code}' http://127.0.0.1:7464/metrics)"
  [ "$code" = 200 ] || { echo "GET /metrics: HTTP $code" >&2; return 1; }
  promtool check metrics <"$metrics_page" || return 1
  local up; up="$(grep -c '^cafe_up{.*} 1$' "$metrics_page")"
  [ "$up" -eq $((${#services[@]} + 1)) ] || { grep '^cafe_up' "$metrics_page" >&2; return 1; }
}
check "GET 127.0.0.1:7464/metrics: promtool check metrics passes, every process (the eight and the edge) cafe_up 1" scrape_ok
say "prometheus: ${C[*]} --profile observability up -d --no-build --no-deps prometheus"
(cd "$work/deploy" && "${C[@]}" --profile observability up -d --no-build --no-deps prometheus) >"$work/up-prometheus.log" 2>&1 \
  || { tail -n 20 "$work/up-prometheus.log"; fail "compose --profile observability up prometheus"; }
# prometheus_sees: Prometheus's API says its one target is up and cafe_up is 1 for all nine processes.
prometheus_sees() {
  local deadline=$((SECONDS + 90)) targets values
  while :; do
    targets="$(curl -s -m 5 'http://127.0.0.1:9090/api/v1/targets?state=active' 2>/dev/null)"
    values="$(curl -s -m 5 'http://127.0.0.1:9090/api/v1/query?query=cafe_up' 2>/dev/null)"
    if python3 - "$targets" "$values" "$((${#services[@]} + 1))" <<'PY'
import json, sys
targets, values, expected = json.loads(sys.argv[1] or "{}"), json.loads(sys.argv[2] or "{}"), int(sys.argv[3])
active = (targets.get("data") or {}).get("activeTargets") or []
results = (values.get("data") or {}).get("result") or []
ok = len(active) == 1 and active[0].get("health") == "up" and len(results) == expected and all(r["value"][1] == "1" for r in results)
sys.exit(0 if ok else 1)
PY
    then
      echo "Prometheus: target up, cafe_up 1 for $(python3 -c 'import json,sys; print(sorted(r["metric"]["instance"] for r in json.loads(sys.argv[1])["data"]["result"]))' "$values")"
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      { echo "targets: ${targets:0:600}"; echo "cafe_up: ${values:0:600}"; "$engine" logs --tail 20 "$(container prometheus)" 2>&1; } >&2
      return 1
    fi
    sleep 2
  done
}
check "Prometheus (observability profile) scrapes the edge: its API has the target up and cafe_up 1 for every process" prometheus_sees
alerts_loaded() {
  curl -s -m 5 http://127.0.0.1:9090/api/v1/rules | python3 -c 'import json,sys; rules=[r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]; print(len(rules), "rules loaded"); sys.exit(0 if len(rules) == 10 else 1)'
}
check "Prometheus loaded the ten alert rules of deploy/prometheus/alerts.yml" alerts_loaded
remove_prometheus

# -- 6. kill -9 one container of each service ---------------------------------------------------------------

order=""
check "a second order, placed before the kills" place_order
second="$order"
want="$second:grill"
eventually 20 kds tickets "${kitchen[@]}" >/dev/null 2>&1
for service in bus beacon-ingest-s1 region-monitor-s0 order-service kitchen-display notification-service; do
  name="$(container "$service")"
  restarts_before="$("$engine" inspect --format '{{.RestartCount}}' "$name" 2>/dev/null)"
  # kill -9 of the process itself, as a crash would: `podman kill` counts as a stop by the user,
  # which a restart policy of unless-stopped honours.
  pid="$("$engine" inspect --format '{{.State.Pid}}' "$name" 2>/dev/null)"
  killed=$SECONDS
  if [ -z "$pid" ] || [ "$pid" = 0 ] || ! kill -9 "$pid"; then fail "kill -9 the process of $service (pid ${pid:-none})"; continue; fi
  # Back when it runs again (restarted by its policy), its own health check passes (a status
  # line could still say "healthy" from before the kill), and every service is healthy.
  deadline=$((SECONDS + 90))
  back=0
  while [ "$SECONDS" -lt "$deadline" ]; do
    restarts="$("$engine" inspect --format '{{.RestartCount}}' "$name" 2>/dev/null)"
    running="$("$engine" inspect --format '{{.State.Running}}' "$name" 2>/dev/null)"
    if [ "$running" = true ] && [ "${restarts:-0}" != "${restarts_before:-0}" ] && container_healthy "$name" \
       && [ "$(healthy)" -ge "${#services[@]}" ]; then back=1; break; fi
    sleep 1
  done
  if [ "$back" -eq 1 ]; then pass "$service killed with SIGKILL is back and healthy in $((SECONDS - killed)) s"
  else "$engine" logs --tail 20 "$name" 2>&1; fail "$service killed with SIGKILL comes back healthy within 90 s"; fi
done
check "the kitchen still shows the second order's tickets after the kills" eventually 30 kds tickets "${kitchen[@]}"
check "the chef bumps the second order after the kills" bump_all "$second"
want='"ready"'
check "the second order is ready" eventually 30 order get "$second" "${phone[@]}"
# inbox_count ID: how many notifications in the inbox name order ID.
inbox_count() { cc inbox --limit 50 "${phone[@]}" && grep -o "\"orderId\" *: *\"$1\"" "$out" | wc -l; }
want="$second"
eventually 30 inbox --limit 50 "${phone[@]}" >/dev/null 2>&1
first_count="$(inbox_count "$first")"; second_count="$(inbox_count "$second")"
check "nothing lost or doubled: one ready notification per order (first: $first_count, second: $second_count)" \
  test "$first_count" = 1 -a "$second_count" = 1

# -- 7. stops, then down and up: the volumes keep the data -------------------------------------------------------

# Every process exits on SIGTERM within 2 s, also with its peer gone: the bus first, then each
# service while the bus is down. `stop -t 2` sends SIGKILL after 2 s (exit 137); a service that
# stops by itself exits 0.
cd "$work/deploy"
for service in "${services[@]}"; do
  name="$(container "$service")"
  stop_started=$(date +%s%N)
  "$engine" stop -t 2 "$name" >/dev/null 2>&1
  took=$((($(date +%s%N) - stop_started) / 1000000))
  code="$("$engine" inspect --format '{{.State.ExitCode}}' "$name" 2>/dev/null)"
  check "$service exits on SIGTERM by itself (exit $code, $took ms$([ "$service" != bus ] && echo ", bus gone"))" test "$code" = 0
done
say "down (volumes kept), then up"
"${C[@]}" down -t 10 >"$work/down1.log" 2>&1 || { tail -n 20 "$work/down1.log"; fail "compose down"; }
left="$("$engine" ps -a --filter "label=com.docker.compose.project=$project" -q | wc -l)"
check "down removes every container ($left left)" test "$left" -eq 0
up_started=$SECONDS
"${C[@]}" up -d --no-build >"$work/up2.log" 2>&1 || { tail -n 30 "$work/up2.log"; abort "compose up -d after down"; }
if wait_healthy 240; then pass "all services healthy again $((SECONDS - up_started)) s after the second up"
else abort "all services healthy after the second up"; fi
cd "$root"
want='"ready"'
check "the first order survived down/up in order-service's volume" eventually 20 order get "$first" "${phone[@]}"
want="$second"
check "the notifications survived down/up in notification-service's volume" eventually 20 inbox --limit 50 "${phone[@]}"
first_count="$(inbox_count "$first")"; second_count="$(inbox_count "$second")"
check "still one notification per order after down/up (first: $first_count, second: $second_count)" \
  test "$first_count" = 1 -a "$second_count" = 1

# -- 8. the Swarm stack file -------------------------------------------------------------------------------------
# No swarm here: `docker stack config` renders it where a docker client is installed, and
# podman-compose runs it (secrets as read-only files; configs and deploy: ignored),
# with its own project and volumes, until every health check passes and an order goes through.

if command -v docker >/dev/null 2>&1; then
  check "docker stack config renders deploy/swarm-stack.yml" sh -c 'docker stack config -c deploy/swarm-stack.yml >/dev/null'
else
  say "no docker client: the stack file is not rendered (SwarmStackTests checks it statically)"
fi
cd "$work/deploy"
"${C[@]}" down -t 10 >"$work/down2.log" 2>&1 || fail "compose down before the stack"
current="$stack_project"
say "the stack: ${S[*]} up -d"
up_started=$SECONDS
"${S[@]}" up -d >"$work/up-stack.log" 2>&1 || { tail -n 30 "$work/up-stack.log"; abort "the stack file starts with podman-compose"; }
if wait_healthy 240; then
  pass "the stack: all ${#services[@]} services, Pushpin and the edge healthy $((SECONDS - up_started)) s after up, keys read from /run/secrets"
  # restart: on-failure brings back an edge that started before Pushpin had written its key.
  say "the stack: the edge restarted $("$engine" inspect --format '{{.RestartCount}}' "$(container edge)" 2>/dev/null) times on its way up"
else
  for service in "${services[@]}" "${front[@]}"; do echo "--- $service"; "$engine" logs --tail 15 "$(container "$service")" 2>&1; done
  abort "the stack: all services healthy within 240 s"
fi
cd "$root"
check "the stack: cafectl health as operator" cc health "${operator[@]}"
check "the stack: Pushpin runs as the pushpin user, which owns its volume (the edge mounts it too)" pushpin_unprivileged
cc phone status --authorization whenInUse --foreground true "${phone[@]}" \
  && cc notify register --language en --locale en_US "${phone[@]}" \
  && cc phone sight --uuid "$UUID" --major 1 --minor 1 --rssi -62 --count 3 "${phone[@]}"
check "the stack: the phone's status and sighting" test $? -eq 0
order=""
check "the stack: a reservation and an order" place_order
third="$order"
want="$third:grill"
check "the stack: the kitchen shows the order" eventually 20 kds tickets "${kitchen[@]}"
check "the stack: the chef bumps it" bump_all "$third"
want="$third"
check "the stack: the phone's inbox has the ready notification" eventually 20 inbox "${phone[@]}"
http_walk "the stack: " phone-stack

# Liveness: with the bus stopped, order-service is degraded (strict health fails) but its
# container's check (--live true) still passes, so Swarm would not restart it for nothing.
if [ "$engine" = podman ]; then
  "$engine" stop -t 2 "$(container bus)" >/dev/null 2>&1
  degraded() { ! cc health order-service "${operator[@]}" && grep -q bus.unreachable "$out"; }
  deadline=$((SECONDS + 20))
  until degraded || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.5; done
  check "the stack: with the bus stopped, order-service is degraded (bus.unreachable)" degraded
  check "the stack: its container's health check (--live true) still passes" \
    "$engine" healthcheck run "$(container order-service)"
  "$engine" start "$(container bus)" >/dev/null 2>&1
fi

ran_to_end=1
finish
